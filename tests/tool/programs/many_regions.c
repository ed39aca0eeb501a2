// SPDX-License-Identifier: BSD-3-Clause
// COUNT instances of one small parallel region (memory must not grow with COUNT).
//   many_regions COUNT
// Expectations: see tests/tool/README.md.
//
// Peak RSS at 10k, 100k and 1M instances: from 100k to 1M (900k more instances) it may grow by at
// most 512 KiB, less than 0.6 byte per instance (a leak of one pointer per instance is 7 MiB);
// from 10k to 100k likewise. The median is approximated beyond the exact sample count.
// RUN[memory_bounded] k10: OMP_NUM_THREADS=2 %prog 10000
// RUN[memory_bounded] k100: OMP_NUM_THREADS=2 %prog 100000
// RUN[memory_bounded]: OMP_NUM_THREADS=2 %prog 1000000
// CHECK k100: peak_rss_kib<=k10.peak_rss_kib+512
// CHECK run: peak_rss_kib<=k100.peak_rss_kib+512
// REGION: parallel count=1000000 median_exact=0 time_median_s>0
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
