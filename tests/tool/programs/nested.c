// SPDX-License-Identifier: BSD-3-Clause
// Known nesting for the tool tests: OUTER_ITERS outer regions of 2 threads, each thread running one
// inner region of 2 threads, then a separate flat region. Optional arguments replace OUTER_ITERS
// and the outer team size 2 (team-reuse stress). Expectations: see tests/tool/README.md.
//
// RUN[nested]: OMP_MAX_ACTIVE_LEVELS=2 SCAL_TRACE=4096 %prog
// RUN[nested_serialized]: OMP_MAX_ACTIVE_LEVELS=1 %prog
// Sibling inner teams end and fork concurrently, so the runtime hands a team one thread just
// returned to another (libomp 14 then reports the first thread's parallel_end with the second
// one's parallel_data). Every instance must still close under its own parent.
// RUN[nested_team_reuse]: OMP_MAX_ACTIVE_LEVELS=2 OMP_WAIT_POLICY=passive %prog 1000 4
// The same program built by gcc (-O0, -O2; run through libomp's GOMP layer) and by clang -O0: the
// same nodes, pragma lines, functions, counts and parents as the clang -O2 build. Last lines: the
// block's last statement (clang -O0 also has a line entry for the closing brace).
// RUN[nested_gcc_O0]: LD_PRELOAD=%libomp OMP_MAX_ACTIVE_LEVELS=2 %prog
// RUN[nested_gcc_O2]: LD_PRELOAD=%libomp OMP_MAX_ACTIVE_LEVELS=2 %prog
// RUN[nested_clang_O0]: OMP_MAX_ACTIVE_LEVELS=2 %prog
// CHECK[nested_gcc_O0,nested_gcc_O2] /meta: omp_entry_points=GOMP_*
// CHECK[nested_gcc_O0,nested_gcc_O2] outer,inner,flat: loops_unknown=1
// CHECK[nested,nested_clang_O0] outer,inner,flat: loops_unknown=0
// CHECK[nested] /meta: omp_entry_points=__kmpc_*
// REGION[nested_gcc_O0,nested_gcc_O2,nested_clang_O0]: parallel nodes=3
//
// CHECK[nested] /: scal_format=scal-run scal_schema_version=1
// CHECK[nested] /meta: command_line=?* executable=?* host=?* cpu_model=?* kernel=?* date_utc=?*
// CHECK[nested] /meta: omp_runtime="*LLVM OMP*" clock_source=?* exit_reason=?*
// CHECK[nested] /meta: cpu_count>=1 max_team_observed=2
// CHECK[nested] /meta/environment: values~OMP_MAX_ACTIVE_LEVELS=*
// CHECK[nested] /diagnostics: errors_total=0
// CHECK[nested_team_reuse] /diagnostics: unmatched_end=0 open_at_exit=0 errors_total=0
// CHECK[nested] /threads: work_s>=0 barrier_s>=0
// The trace holds every instance (3 outer + 6 inner + 1 flat) and its aggregates agree with them.
// CHECK[nested] /trace/instances: rows=10 end_s>=begin_s
// CHECK[nested] /trace/states: rows>0
// CHECK[nested] /trace: dropped=0
// CHECK[nested] outer,inner: trace=agrees
// CHECK[nested] outer,inner,flat: team_requested_max=2 team_actual_min=2 team_actual_max=2
// CHECK[nested] outer,inner,flat: threads=2 median_exact=1 file=*nested.c time_total_s>0
// CHECK[nested] outer,inner,flat: time_min_s<=time_median_s time_median_s<=time_max_s
// REGION root: root
// CHECK[nested] root: parent=-1 count=1 children_time_s<=time_total_s*1.01
// The runtime's start-up before the first region is a node of its own, taken out of the first gap:
// REGION startup: user "OpenMP runtime start-up" parent=root count=1 team_actual_max=1
// CHECK startup: time_total_s>0 time_total_s<root.time_total_s
// The tool's own start (constructor, ompt_start_tool, initialize) is not the runtime's: a node too.
// REGION toolstart: user "scal tool start-up" parent=root count=1 team_actual_max=1
// CHECK toolstart: time_total_s>0 time_total_s<root.time_total_s
// CHECK[nested] root: children_time_s>=time_total_s*0.99
// REGION[nested]: serial start->outer
// REGION[nested]: serial outer->outer count=2
// REGION[nested]: serial flat->end
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define OUTER_ITERS 3

static long sink; /* updated atomically: the programs themselves are race-free */

static void inner_work(void)
{
    // CHECK[nested] inner: depth=2 count=6 function=.omp_outlined*|inner_work
    // CHECK[nested_serialized] inner: count=6
    // CHECK[nested_serialized] inner: team_requested_max=2 team_actual_min=1 team_actual_max=1
    // CHECK[nested_team_reuse] inner: count=4000
    // CHECK[nested,nested_gcc_O0,nested_gcc_O2,nested_clang_O0] inner: line_last=@LINE+7
    // CHECK[nested,nested_gcc_O0,nested_gcc_O2,nested_clang_O0] inner: count=6 function=inner_work
    // REGION inner: parallel @LINE+1 parent=outer
#pragma omp parallel num_threads(2)
    {
        __asm__ volatile("" ::: "memory");
        __atomic_fetch_add(&sink, (long)(omp_get_thread_num()), __ATOMIC_RELAXED);
    }
    __atomic_fetch_add(&sink, (long)(1),
                       __ATOMIC_RELAXED); /* keeps the fork from being a tail call, so its call site
                                             stays on the stack */
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : OUTER_ITERS;
    int outer_threads = argc > 2 ? atoi(argv[2]) : 2;
    for (volatile int it = 0; it < iters; it++) {
        // CHECK[nested] outer: parent=root count=3 thread_ids=0,1
        // CHECK[nested_team_reuse] outer: count=1000
        // CHECK[nested,nested_gcc_O0,nested_gcc_O2] outer: count=3 function=main line_last=@LINE+6
        // CHECK[nested_clang_O0] outer: count=3 function=main line_last=@LINE+5
        // REGION outer: parallel @LINE+1
#pragma omp parallel num_threads(outer_threads)
        {
            inner_work();
        }
    }
    // REGION flat: parallel @LINE+1 parent=root count=1 line_last>=@LINE+3 function=main
#pragma omp parallel num_threads(2)
    {
        __asm__ volatile("" ::: "memory");
    }
    printf("nested: done\n");
    return 0;
}
