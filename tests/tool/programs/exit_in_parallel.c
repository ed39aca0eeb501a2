// SPDX-License-Identifier: BSD-3-Clause
// Calls exit(3) from inside a parallel region after one completed region (OpenMP finalize does not run).
#include <omp.h>
#include <stdlib.h>
#include <unistd.h>

static volatile double sink;

int main(void)
{
#pragma omp parallel num_threads(2) /* COMPLETED */
    sink += omp_get_thread_num();

#pragma omp parallel num_threads(2) /* EXITS */
    {
        if (omp_get_thread_num() == 0) exit(3);
        for (;;) {
            sink += 1;
            usleep(1000);
        }
    }
    return 0;
}
