// SPDX-License-Identifier: BSD-3-Clause
// Nested serialized regions deeper than the tool's frame stack (SCAL_MAX_DEPTH frames): the deepest
// measured level has no room for its primary thread's member frame, so no closing barrier settles
// its instances (ompt_tool/measure/team.h); they are settled when the next one ends, and at flush.
// Expectations: see tests/tool/README.md.
//
// RUN[deep_nesting]: OMP_NUM_THREADS=2 OMP_MAX_ACTIVE_LEVELS=1 %prog
#include <stdio.h>

#define DEEP 40

static long sink;

static void deep(int level)
{
    // Levels 1-32 are measured (twice each), level 33 is the first the stack has no room for.
    // CHECK deep: sum(count)=64 max(count)=2
    // CHECK /diagnostics: stack_overflow>0 unmatched_end=0
    // REGION deep: parallel @LINE+1 nodes=33
#pragma omp parallel num_threads(1)
    {
        if (level < DEEP) deep(level + 1);
        __atomic_fetch_add(&sink, 1, __ATOMIC_RELAXED);
    }
}

int main(void)
{
    deep(1);
    deep(1);
    printf("deep_nesting: %ld\n", sink);
    return 0;
}
