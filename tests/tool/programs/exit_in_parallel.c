// SPDX-License-Identifier: BSD-3-Clause
// Calls exit(3) from inside a parallel region after one completed region (OpenMP finalize does not
// run). Expectations: see tests/tool/README.md.
//
// RUN[exit_in_parallel]: %prog
// CHECK run: exit=3
// CHECK /meta: exit_reason=*exit()*
// The interrupted region is recorded, closed at exit, and counted as open at exit.
// CHECK /diagnostics: open_at_exit>=1
#include <omp.h>
#include <stdlib.h>
#include <unistd.h>

static long sink; /* updated atomically: the programs themselves are race-free */

int main(void)
{
    // REGION: parallel @LINE+1 count=1
#pragma omp parallel num_threads(2)
    __atomic_fetch_add(&sink, (long)(omp_get_thread_num()), __ATOMIC_RELAXED);

    // REGION: parallel @LINE+1 count=1
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0) exit(3);
        for (;;) {
            __atomic_fetch_add(&sink, (long)(1), __ATOMIC_RELAXED);
            usleep(1000);
        }
    }
    return 0;
}
