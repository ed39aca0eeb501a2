// SPDX-License-Identifier: BSD-3-Clause
// Runs one completed region, then stays inside a parallel region until a signal ends the process.
#include <omp.h>
#include <stdio.h>
#include <unistd.h>

static long sink; /* updated atomically: the programs themselves are race-free */

int main(void)
{
#pragma omp parallel num_threads(2) /* COMPLETED */
    __atomic_fetch_add(&sink, (long)(omp_get_thread_num()), __ATOMIC_RELAXED);

#pragma omp parallel num_threads(2) /* SPINS */
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
