// SPDX-License-Identifier: BSD-3-Clause
// User regions nested with parallel regions: root > "outer" > parallel > "inner" (per thread).
// With the argument "leave-open", a last region's threads each begin a user region and never end
// it.
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "scal/scal.h"

static long sink; /* updated atomically: the programs themselves are race-free */

int main(int argc, char **argv)
{
    for (volatile int it = 0; it < 5; it++) {
        scal_region_begin("outer");
#pragma omp parallel num_threads(3)
        {
            scal_region_begin("inner");
            __asm__ volatile("" ::: "memory");
            __atomic_fetch_add(&sink, (long)(omp_get_thread_num()), __ATOMIC_RELAXED);
            scal_region_end("inner");
        }
        scal_region_end("outer");
    }
    if (argc > 1 && strcmp(argv[1], "leave-open") == 0) {
#pragma omp parallel num_threads(2)
        scal_region_begin("unclosed");
    }
    int rc_bad = scal_region_end("never-begun");
    int rc_empty = scal_region_begin("");
    printf("user_regions: tool %s, bad end %d, empty %d\n",
           scal_tool_active() ? "active" : "absent", rc_bad, rc_empty);
    return 0;
}
