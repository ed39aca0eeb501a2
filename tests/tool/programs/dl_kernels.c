// SPDX-License-Identifier: BSD-3-Clause
// Kernels in a library the program dlopen()s after the tool started, called through one
// function-pointer call site (a plugin-style benchmark driver), from the initial thread or from a
// pthread. The library's GOT is not the tool's yet when its first kernel forks: that one instance
// passes no trampoline and is named honestly; the fork asks for the library to be hooked at the
// thread's next point outside any team, and every later instance keeps its own kernel's node.
//
// One source, two builds: with -DSCAL_DL_LIBRARY the shared library (tool_dl_kernels_lib.so),
// without it the program, which loads the library from its own directory.
//
// RUN[dl_kernels]: OMP_NUM_THREADS=2 %prog
// RUN[dl_kernels_thread]: OMP_NUM_THREADS=2 %prog thread
// REGION lost: any "dl_kernels.c:* (via tail call)" count=1 line_first=-1
// CHECK one: count=2 function=kernel_one module=*tool_dl_kernels_lib.so*
// CHECK two: count=5 function=kernel_two
// CHECK /diagnostics: tail_call_unresolved=1
#include <stdio.h>

#ifdef SCAL_DL_LIBRARY
static void kernel_one(void)
{
// REGION one: parallel @LINE+1 line_last=@LINE+3
#pragma omp parallel
    {
        __asm__ volatile("" ::: "memory");
    }
}

static void kernel_two(void)
{
// REGION two: parallel @LINE+1 line_last=@LINE+3
#pragma omp parallel
    {
        __asm__ volatile("" ::: "memory");
    }
}

__attribute__((visibility("default"))) void (*const dl_kernels[2])(void) = {kernel_one, kernel_two};
#else
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "beside_program.h"

static void (*const *kernels)(void);

static void *drive(void *unused)
{
    (void)unused;
    for (volatile int i = 0; i < 8; i++) /* volatile: not unrolled, one call site */
        kernels[i < 3 ? 0 : 1]();
    return NULL;
}

int main(int argc, char **argv)
{
    char path[4096];
    if (beside_program("tool_dl_kernels_lib.so", path, sizeof(path)) < 0) return 2;
// REGION warm: parallel @LINE+1
#pragma omp parallel
    __asm__ volatile("" ::: "memory"); /* the runtime and the tool start here */
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib || !(kernels = dlsym(lib, "dl_kernels"))) {
        fprintf(stderr, "dl_kernels: %s\n", dlerror());
        return 2;
    }
    if (argc > 1 && !strcmp(argv[1], "thread")) { /* the initial thread forks no more */
        pthread_t t;
        if (pthread_create(&t, NULL, drive, NULL) != 0 || pthread_join(t, NULL) != 0) return 2;
    } else {
        drive(NULL);
    }
    printf("dl_kernels: done\n");
    return 0;
}
#endif
