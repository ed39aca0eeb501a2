// SPDX-License-Identifier: BSD-3-Clause
// Calls exit(3) from inside a parallel region after one completed region (OpenMP finalize does not
// run).
#include <omp.h>
#include <stdlib.h>
#include <unistd.h>

static long sink; /* updated atomically: the programs themselves are race-free */

int main(void)
{
#pragma omp parallel num_threads(2) /* COMPLETED */
    __atomic_fetch_add(&sink, (long)(omp_get_thread_num()), __ATOMIC_RELAXED);

#pragma omp parallel num_threads(2) /* EXITS */
    {
        if (omp_get_thread_num() == 0) exit(3);
        for (;;) {
            __atomic_fetch_add(&sink, (long)(1), __ATOMIC_RELAXED);
            usleep(1000);
        }
    }
    return 0;
}
