// SPDX-License-Identifier: BSD-3-Clause
// Prints the mean ns per empty parallel region over COUNT regions (after one warm-up region).
//   empty_regions COUNT
// Built with -DWITH_SDE it also registers a PAPI SDE counter (sde:::Bench::regions) for the cost of
// the papi sensor reading one SDE event at every region boundary.
#ifdef WITH_SDE
#include <sde_lib.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 200000;
    struct timespec a, b;
#ifdef WITH_SDE
    static long long regions;
    papi_sde_register_counter(papi_sde_init("Bench"), "regions", PAPI_SDE_RO | PAPI_SDE_DELTA,
                              PAPI_SDE_long_long, &regions);
#endif
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
