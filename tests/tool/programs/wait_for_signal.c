// SPDX-License-Identifier: BSD-3-Clause
// Runs one completed region, then stays inside a parallel region until a signal ends the process.
#include <omp.h>
#include <stdio.h>
#include <unistd.h>

static volatile double sink;

int main(void)
{
#pragma omp parallel num_threads(2) /* COMPLETED */
    sink += omp_get_thread_num();

#pragma omp parallel num_threads(2) /* SPINS */
    {
#pragma omp master
        {
            printf("ready\n");
            fflush(stdout);
        }
        for (;;) {
            sink += 1;
            usleep(1000);
        }
    }
    return 0;
}
