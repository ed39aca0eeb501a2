// SPDX-License-Identifier: BSD-3-Clause
// More distinct regions than SCAL_MAX_REGIONS allows: 40 user regions, each with a parallel region.
#include <stdio.h>

#include "scal/scal.h"

int main(void)
{
    char name[32];
    for (int i = 0; i < 40; i++) {
        snprintf(name, sizeof(name), "site-%02d", i);
        scal_region_begin(name);
#pragma omp parallel num_threads(2)
        {
            __asm__ volatile("" ::: "memory");
        }
        scal_region_end(name);
    }
    printf("many_sites: done\n");
    return 0;
}
