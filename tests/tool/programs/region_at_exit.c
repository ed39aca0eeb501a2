// SPDX-License-Identifier: BSD-3-Clause
// The program's destructor (run after every atexit handler, the tool's included, and before the
// OpenMP runtime's) runs one more region. The run file is written at OpenMP finalize, at the
// runtime's end once it has joined its worker threads (ompt_tool/record/flush.c; written in the
// tool's atexit handler, it ran beside idle workers spinning on the other cores): so that region
// is in the file, and the end's reason is still the program's exit. Expectations: see
// tests/tool/README.md.
//
// RUN[region_at_exit]: OMP_NUM_THREADS=2 %prog
// RUN[region_at_exit] exec: OMP_NUM_THREADS=2 %scal-exec %prog
// CHECK /meta: exit_reason="program exited (return from main or exit())"
// CHECK /diagnostics: open_at_exit=0
#include <omp.h>

static long sink; /* updated atomically: the programs themselves are race-free */

__attribute__((destructor)) static void at_end(void)
{
    // REGION: parallel @LINE+1 count=1
#pragma omp parallel num_threads(2)
    __atomic_fetch_add(&sink, (long)(omp_get_thread_num() + 2), __ATOMIC_RELAXED);
}

int main(void)
{
    // REGION: parallel @LINE+1 count=1
#pragma omp parallel num_threads(2)
    __atomic_fetch_add(&sink, (long)(omp_get_thread_num()), __ATOMIC_RELAXED);
    return 0;
}
