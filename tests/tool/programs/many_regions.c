// SPDX-License-Identifier: BSD-3-Clause
// COUNT instances of one small parallel region (memory must not grow with COUNT).
//   many_regions COUNT
// Expectations: see tests/tool/README.md.
//
// Peak RSS at 10k, 60k and 250k instances: from 60k to 250k (190k more instances) it may grow by
// at most 512 KiB, less than 3 bytes per instance (a leak of one pointer per instance is 1.5 MiB);
// from 10k to 60k likewise. Sized so that the test ends within minutes on a loaded 2-core machine
// (1M instances took over 10 minutes there); bench/ompt measures 10 to 10M instances. The median is
// approximated beyond the exact sample count.
// RUN[memory_bounded] k10: OMP_NUM_THREADS=2 %prog 10000
// RUN[memory_bounded] k60: OMP_NUM_THREADS=2 %prog 60000
// RUN[memory_bounded]: OMP_NUM_THREADS=2 %prog 250000
// CHECK k60: peak_rss_kib<=k10.peak_rss_kib+512
// CHECK run: peak_rss_kib<=k60.peak_rss_kib+512
// REGION: parallel count=250000 median_exact=0 time_median_s>0
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
