// SPDX-License-Identifier: BSD-3-Clause
// 40 user regions, each with a parallel region: the same code under 40 parents, and more distinct
// regions than a small SCAL_MAX_REGIONS allows. Expectations: see tests/tool/README.md.
//
// RUN[same_code_two_parents]: %prog
// One parallel node per enclosing user region, all of the same pragma, each run once.
// REGION[same_code_two_parents]: parallel nodes=40
//
// RUN[region_overflow]: SCAL_MAX_REGIONS=16 %prog
// CHECK[region_overflow] run: stderr="*beyond SCAL_MAX_REGIONS*|*measurement problem*"
// CHECK[region_overflow] /diagnostics: regions_overflow>0
// REGION[region_overflow]: any "*beyond SCAL_MAX_REGIONS*" count>0
// Every instance is counted somewhere: 40 user regions + 40 parallel regions + 41 serial gaps
// (before each top-level region, and the last) + the OpenMP runtime's and the tool's start-ups +
// the root's 1.
// REGION[region_overflow]: root count=1
// CHECK[region_overflow] /regions: rows=16 sum(count)=124
#include <stdio.h>

#include "scal/scal.h"

int main(void)
{
    char name[32];
    for (int i = 0; i < 40; i++) {
        snprintf(name, sizeof(name), "site-%02d", i);
        scal_region_begin(name);
        // The same code under two parents is two nodes: each under another user region.
        // CHECK[same_code_two_parents] sites: parent.kind=user distinct(parent)=40
        // REGION[same_code_two_parents] sites: parallel @LINE+1 nodes=40 count=1
#pragma omp parallel num_threads(2)
        {
            __asm__ volatile("" ::: "memory");
        }
        scal_region_end(name);
    }
    printf("many_sites: done\n");
    return 0;
}
