// SPDX-License-Identifier: BSD-3-Clause
// COUNT instances of one small parallel region (memory must not grow with COUNT).
//   many_regions COUNT
// Expectations: see tests/tool/README.md.
//
// RUN[memory_bounded] small: OMP_NUM_THREADS=2 %prog 10
// RUN[memory_bounded]: OMP_NUM_THREADS=2 %prog 10000000
// Memory does not grow with instances (bound: +1 MiB), the median is approximated beyond the
// exact sample count.
// CHECK run: peak_rss_kib<=small.peak_rss_kib+1024
// REGION: parallel count=10000000 median_exact=0 time_median_s>0
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    long count = argc > 1 ? atol(argv[1]) : 10;
    for (long i = 0; i < count; i++) {
#pragma omp parallel
        {
            __asm__ volatile("" ::: "memory");
        }
    }
    printf("many_regions: %ld\n", count);
    return 0;
}
