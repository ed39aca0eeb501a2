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
// The library closed (dlclose) before the program ends: its bodies are read from the file.
// RUN[dl_kernels_closed]: OMP_NUM_THREADS=2 %prog close
// Closed, and another library of the same size loaded in its place (the kernel reuses the hole at
// once: "reused"), as the libraries the tool loads at the end may: the bodies are still the closed
// library's, named from the noted module and read from its file, never after the newcomer.
// RUN[dl_kernels_reused]: OMP_NUM_THREADS=2 %prog reuse
// CHECK[dl_kernels_reused] run: stdout="*another library took its addresses: reused*"
// clang-format off
// REGION[dl_kernels,dl_kernels_thread,dl_kernels_closed,dl_kernels_reused] lost: any "dl_kernels.c:* (via*" count=1
// CHECK[dl_kernels,dl_kernels_thread,dl_kernels_closed,dl_kernels_reused] one: count=2 function=kernel_one
// CHECK[dl_kernels,dl_kernels_thread,dl_kernels_closed,dl_kernels_reused] two: count=5 function=kernel_two
// CHECK[dl_kernels,dl_kernels_thread,dl_kernels_closed,dl_kernels_reused] one,two: module=*kernels_lib.so
// CHECK[dl_kernels,dl_kernels_thread,dl_kernels_closed,dl_kernels_reused] /diagnostics: tail_call_unresolved=1
// clang-format on
//
// Built with -DWRAP_FORK, the program wraps __kmpc_fork_call itself (as another tool would): the
// library's calls are bound to the wrapper, and the tool leaves them so: the wrapper sees every
// fork. The runtime then reports every fork at the wrapper's own call, and no fork notes a body:
// one node, named after the wrapper's call.
// RUN[dl_kernels_wrapped]: OMP_NUM_THREADS=2 %prog thread
// CHECK[dl_kernels_wrapped] run: stdout="*the wrapper saw 9 forks*"
// REGION[dl_kernels_wrapped] wrapper: parallel nodes=1 count=9
#define _GNU_SOURCE
#include <stdio.h>

#ifdef SCAL_DL_LIBRARY
static void kernel_one(void)
{
// clang-format off
// REGION[dl_kernels,dl_kernels_thread,dl_kernels_closed,dl_kernels_reused] one: parallel @LINE+2 line_last=@LINE+5
// clang-format on
#pragma omp parallel
    {
        __asm__ volatile("" ::: "memory");
    }
}

static void kernel_two(void)
{
// clang-format off
// REGION[dl_kernels,dl_kernels_thread,dl_kernels_closed,dl_kernels_reused] two: parallel @LINE+2 line_last=@LINE+5
// clang-format on
#pragma omp parallel
    {
        __asm__ volatile("" ::: "memory");
    }
}

__attribute__((visibility("default"))) void (*const dl_kernels[2])(void) = {kernel_one, kernel_two};
#ifdef SCAL_DL_OTHER
__attribute__((visibility("default"))) int dl_kernels_variant = 2; /* the other build */
#else
__attribute__((visibility("default"))) int dl_kernels_variant = 1;
#endif
#else
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "beside_program.h"

static void (*const *kernels)(void);

#ifdef WRAP_FORK
#include <stdarg.h>
static int forks;
typedef void (*fork_fn)(void *loc, int argc, void *body, ...);
/* Forwards forks whose bodies take up to two arguments (this program's). */
__attribute__((visibility("default"))) void __kmpc_fork_call(void *loc, int argc, void *body, ...)
{
    static fork_fn real;
    if (!real) real = (fork_fn)dlsym(RTLD_NEXT, "__kmpc_fork_call");
    void *a[2] = {NULL, NULL};
    va_list ap;
    va_start(ap, body);
    for (int i = 0; i < argc && i < 2; i++)
        a[i] = va_arg(ap, void *);
    va_end(ap);
    forks++;
    if (argc == 0)
        real(loc, argc, body);
    else if (argc == 1)
        real(loc, argc, body, a[0]);
    else
        real(loc, argc, body, a[0], a[1]);
}
#endif

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
// REGION[dl_kernels,dl_kernels_thread,dl_kernels_closed,dl_kernels_reused] warm: parallel @LINE+1
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
#ifdef WRAP_FORK
    printf("dl_kernels: the wrapper saw %d forks\n", forks);
#endif
    bool reuse = argc > 1 && !strcmp(argv[1], "reuse");
    struct link_map *closed = NULL, *other = NULL;
    if (reuse && dlinfo(lib, RTLD_DI_LINKMAP, &closed) != 0) return 2;
    uintptr_t closed_base = closed ? closed->l_addr : 0;
    if (argc > 1 && (!strcmp(argv[1], "close") || reuse) && dlclose(lib) != 0) return 2;
    if (reuse) {
        void *second = beside_program("tool_dl_kernels_other.so", path, sizeof(path)) == 0
                           ? dlopen(path, RTLD_NOW | RTLD_LOCAL)
                           : NULL;
        if (!second || dlinfo(second, RTLD_DI_LINKMAP, &other) != 0) return 2;
        printf("dl_kernels: another library took its addresses: %s\n",
               other->l_addr == closed_base ? "reused" : "moved");
    }
    printf("dl_kernels: done\n");
    return 0;
}
#endif
