// SPDX-License-Identifier: BSD-3-Clause
// Regions in a library the program dlopen()s, runs and dlclose()s before it ends: they are still
// named by their file, line and function (the tool remembered the library while it was loaded and
// reads its debug information from the file at exit), not "in no loaded module".
//
// One source, two builds: with -DSCAL_DL_LIBRARY the shared library (tool_dl_region_lib.so),
// without it the program, which loads the library from its own directory.
//
// RUN[dl_region]: OMP_NUM_THREADS=2 %prog
// CHECK run: stdout="dl_region: library unloaded*"
// CHECK /diagnostics: resolve_failed=0 errors_total=0
// REGION root: root
// CHECK lib: module=*tool_dl_region_lib.so file=*dl_region.c count=3 function=in_library
// CHECK main: count=1 function=main
#include <stdio.h>

#ifdef SCAL_DL_LIBRARY
__attribute__((visibility("default"))) void in_library(int *sink);
void in_library(int *sink)
{
// REGION lib: parallel @LINE+1 parent=root
#pragma omp parallel
    {
#pragma omp atomic
        (*sink)++;
    }
}
#else
#include <dlfcn.h>
#include <string.h>
#include <unistd.h>

#include "beside_program.h"

int main(void)
{
    int sink = 0;
    char path[4096];
    if (beside_program("tool_dl_region_lib.so", path, sizeof(path)) < 0) return 2;
// REGION main: parallel @LINE+1 parent=root
#pragma omp parallel
    {
#pragma omp atomic
        sink++;
    }
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    void (*fn)(int *) = lib ? (void (*)(int *))dlsym(lib, "in_library") : NULL;
    if (!fn) {
        fprintf(stderr, "dl_region: %s\n", dlerror());
        return 1;
    }
    for (int i = 0; i < 3; i++)
        fn(&sink);
    dlclose(lib);
    /* the library is gone from the process: its code is no longer mapped */
    printf("dl_region: library unloaded (%s), %d\n",
           dlopen(path, RTLD_NOW | RTLD_NOLOAD) ? "no" : "yes", sink);
    return 0;
}
#endif
