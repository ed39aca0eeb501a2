// SPDX-License-Identifier: BSD-3-Clause
// Prints the mean ns per empty parallel region over COUNT regions (after one warm-up region).
//   empty_regions COUNT
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 200000;
    struct timespec a, b;
#pragma omp parallel
    {
        __asm__ volatile("" ::: "memory");
    }
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (long i = 0; i < n; i++) {
#pragma omp parallel
        {
            __asm__ volatile("" ::: "memory"); /* a side effect, or clang -O2 deletes the region */
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("%.1f\n",
           ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / (double)n);
    return 0;
}
