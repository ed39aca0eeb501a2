// SPDX-License-Identifier: BSD-3-Clause
// Runs one completed region, then stays inside a parallel region until a signal ends the process.
// Expectations: see tests/tool/README.md.
//
// RUN[sigterm]: %prog
// SIGNAL: SIGTERM ready
// The program still dies of SIGTERM, the file is written with both regions.
// CHECK run: signal=SIGTERM
// CHECK /meta: exit_reason="signal SIGTERM"
#include <omp.h>
#include <stdio.h>
#include <unistd.h>

static long sink; /* updated atomically: the programs themselves are race-free */

int main(void)
{
    // REGION: parallel @LINE+1
#pragma omp parallel num_threads(2)
    __atomic_fetch_add(&sink, (long)(omp_get_thread_num()), __ATOMIC_RELAXED);

    // REGION: parallel @LINE+1
#pragma omp parallel num_threads(2)
    {
#pragma omp master
        {
            printf("ready\n");
            fflush(stdout);
        }
        for (;;) {
            __atomic_fetch_add(&sink, (long)(1), __ATOMIC_RELAXED);
            usleep(1000);
        }
    }
    return 0;
}
