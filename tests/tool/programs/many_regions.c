// SPDX-License-Identifier: BSD-3-Clause
// COUNT instances of one small parallel region (memory must not grow with COUNT).
//   many_regions COUNT
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
