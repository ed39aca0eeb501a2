// SPDX-License-Identifier: BSD-3-Clause
// User regions nested with parallel regions: root > "outer" > parallel > "inner" (per thread).
// With the argument "leave-open", a last region's threads each begin a user region and never end
// it. Expectations: see tests/tool/README.md.
//
// RUN[user_regions]: OMP_NUM_THREADS=3 %prog
// CHECK[user_regions] run: stdout="*tool active*" stdout="*bad end -1*" stdout="*empty -1*"
// CHECK[user_regions] /diagnostics: user_region_mismatch=1
//
// A user region left open: the file is written and the broken nesting reported.
// RUN[user_region_left_open]: OMP_NUM_THREADS=3 %prog leave-open
// CHECK[user_region_left_open] /diagnostics: unmatched_end>=1 errors_total>0
//
// The user region API without the tool: the program runs unchanged.
// RUN[user_regions_without_tool]: -u OMP_TOOL_LIBRARIES %prog
// CHECK[user_regions_without_tool] run: stdout="*tool absent*" output=absent
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "scal/scal.h"

static long sink; /* updated atomically: the programs themselves are race-free */

int main(int argc, char **argv)
{
    for (volatile int it = 0; it < 5; it++) {
        // REGION[user_regions,user_region_left_open] outer: user outer count=5
        // CHECK[user_regions] outer: parent=0
        // REGION[user_regions]: serial start->outer count=1
        // REGION[user_regions]: serial outer->outer count=4
        scal_region_begin("outer");
        // REGION[user_regions] par: parallel @LINE+1 parent=outer count=5
#pragma omp parallel num_threads(3)
        {
            // REGION[user_regions] inner: user inner parent=par count=15
            scal_region_begin("inner");
            __asm__ volatile("" ::: "memory");
            __atomic_fetch_add(&sink, (long)(omp_get_thread_num()), __ATOMIC_RELAXED);
            scal_region_end("inner");
        }
        scal_region_end("outer");
    }
    // A last top-level region without a parallel region inside: no closing barrier follows the
    // serial gap before it, which reaches its node's statistics at flush.
    // REGION[user_regions] tail: user tail count=1
    // REGION[user_regions]: serial outer->tail count=1
    scal_region_begin("tail");
    __atomic_fetch_add(&sink, 1, __ATOMIC_RELAXED);
    scal_region_end("tail");
    if (argc > 1 && strcmp(argv[1], "leave-open") == 0) {
        // REGION[user_region_left_open]: user unclosed
#pragma omp parallel num_threads(2)
        scal_region_begin("unclosed");
    }
    int rc_bad = scal_region_end("never-begun");
    int rc_empty = scal_region_begin("");
    printf("user_regions: tool %s, bad end %d, empty %d\n",
           scal_tool_active() ? "active" : "absent", rc_bad, rc_empty);
    return 0;
}
