// SPDX-License-Identifier: BSD-3-Clause
// A library whose constructor runs OpenMP: the program dlopen()s it, so the constructor runs while
// the loader's lock is held by the main thread. In the constructor's team, a worker thread runs a
// taskloop (libomp 14 reports the runtime's own address for it: the tool unwinds the worker's
// stack). The tool must not load anything then (dlopen, dlsym: they wait for the loader's lock,
// and the main thread waits for the worker at the team's barrier: the program would hang).
//
// One source, two builds: with -DSCAL_DL_LIBRARY the shared library (tool_ctor_taskloop_lib.so),
// without it the program, which loads the library from its own directory.
//
// RUN[ctor_taskloop]: OMP_NUM_THREADS=2 %prog
// CHECK run: stdout="ctor_taskloop: 8 tasks ran in the constructor*"
// REGION root: root
// CHECK ctor: function=build_tables count=1
// CHECK chunks: function=build_tables count=8 parent=ctor
#include <stdio.h>

#ifdef SCAL_DL_LIBRARY
#include <omp.h>

__attribute__((visibility("default"))) int ctor_tasks;

__attribute__((constructor)) static void build_tables(void)
{
// REGION ctor: parallel @LINE+1 parent=root
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 1) {
// REGION chunks: task @LINE+1
#pragma omp taskloop num_tasks(8)
            for (int i = 0; i < 8; i++) {
#pragma omp atomic
                ctor_tasks++;
            }
        }
    }
}
#else
#include <dlfcn.h>

#include "beside_program.h"

int main(void)
{
    char path[4096];
    if (beside_program("tool_ctor_taskloop_lib.so", path, sizeof(path)) < 0) return 2;
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    int *tasks = lib ? (int *)dlsym(lib, "ctor_tasks") : NULL;
    if (!tasks) {
        fprintf(stderr, "ctor_taskloop: %s\n", dlerror());
        return 1;
    }
    printf("ctor_taskloop: %d tasks ran in the constructor\n", *tasks);
    return 0;
}
#endif
