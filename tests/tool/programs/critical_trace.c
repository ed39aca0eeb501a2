// SPDX-License-Identifier: BSD-3-Clause
// A contended critical section in 20 instances of one 4-thread region (SCAL_TRACE records lock
// waits on every thread's lane: check_trace_locks.py).
#include <stdio.h>

int main(void)
{
    double sum = 0;
    for (int r = 0; r < 20; r++) {
#pragma omp parallel num_threads(4)
        {
            for (int i = 0; i < 200; i++) {
#pragma omp critical
                sum += i * 0.5;
            }
        }
    }
    printf("%.1f\n", sum);
    return 0;
}
