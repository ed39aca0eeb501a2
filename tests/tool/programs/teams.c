// SPDX-License-Identifier: BSD-3-Clause
// Team bookkeeping of the tool (ompt_tool/measure/team.h): an ended instance's per-member sums are
// settled later, at its encountering thread's next closing barrier at the same depth, before
// another instance there is recorded, or at flush. Every instance must reach the statistics exactly
// once, with each member's own measurements: alternating regions at one depth, changing team sizes,
// serialized teams (no closing barrier), nested teams whose last instance on a thread is followed
// by no other region at its depth, and the last region of the program (settled at flush, after
// main returns or after exit()). deep_nesting.c: regions nested deeper than the tool's stack.
//   teams [exit]
// Expectations: see tests/tool/README.md.
//
// RUN[teams]: OMP_NUM_THREADS=2 OMP_MAX_ACTIVE_LEVELS=2 SCAL_TRACE=4096 %prog
// RUN[teams_exit]: OMP_NUM_THREADS=2 OMP_MAX_ACTIVE_LEVELS=2 %prog exit
// Threads that sleep between regions instead of spinning reach the barriers in other orders.
// RUN[teams_passive]: OMP_NUM_THREADS=2 OMP_MAX_ACTIVE_LEVELS=2 OMP_WAIT_POLICY=passive %prog
// REGION root: root count=1
// CHECK /diagnostics: unmatched_end=0 open_at_exit=0 errors_total=0
// CHECK[teams] /trace: dropped=0
// CHECK[teams] alt_a,alt_b,slow_worker,varying,serialized,outer,inner,inner_once,last: trace=agrees
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ROUNDS 5
#define OUTER 3
#define INNER 3

static long sink; /* updated atomically: the program itself is race-free */

static void touch(void)
{
    __atomic_fetch_add(&sink, (long)omp_get_thread_num() + 1, __ATOMIC_RELAXED);
}

static void nested_teams(void)
{
    for (volatile int o = 0; o < OUTER; o++) {
        // CHECK outer: count=3 thread_instances=3,3 team_actual_min=2
        // REGION outer: parallel @LINE+1 parent=root
#pragma omp parallel num_threads(2)
        {
            for (volatile int i = 0; i < INNER; i++) {
                // Both outer threads encounter it INNER times per outer instance.
                // CHECK inner: count=18 thread_instances=18,18 team_actual_min=2 depth=2
                // REGION inner: parallel @LINE+1 parent=outer
#pragma omp parallel num_threads(2)
                touch();
            }
            if (omp_get_thread_num() == 1) {
                // The last region at its depth on outer thread 1 in each outer instance: nothing
                // at that depth follows on that thread before the next outer instance (or the
                // end of the program, for the last one).
                // CHECK inner_once: count=3 thread_instances=3,3
                // REGION inner_once: parallel @LINE+1 parent=outer
#pragma omp parallel num_threads(2)
                touch();
                touch(); /* keeps the fork from being a tail call (its call site stays known) */
            }
        }
    }
}

int main(int argc, char **argv)
{
    int use_exit = argc > 1 && strcmp(argv[1], "exit") == 0;
    for (volatile int r = 0; r < ROUNDS; r++) {
        // Two regions alternating at one depth: each one's pending instance is settled at the
        // other's closing barrier.
        // CHECK alt_a,alt_b: count=5 thread_instances=5,5 team_actual_min=2 team_actual_max=2
        // REGION alt_a: parallel @LINE+1 parent=root
#pragma omp parallel num_threads(2)
        touch();
        // REGION alt_b: parallel @LINE+1 parent=root
#pragma omp parallel num_threads(2)
        touch();
    }
    for (volatile int r = 0; r < 4; r++) {
        // Thread 1 works at least 5 ms per instance while thread 0 waits at the barrier: the sums
        // come from each member's own slot of the right instance.
        // CHECK slow_worker: count=4 thread_instances=4,4 work_total_s>=0.02
        // CHECK slow_worker: barrier_total_s>=0.016 work_inst_max_s>=0.02
        // REGION slow_worker: parallel @LINE+1 parent=root
#pragma omp parallel num_threads(2)
        {
            if (omp_get_thread_num() == 1) usleep(5000);
            touch();
        }
    }
    for (volatile int r = 0; r < 4; r++) {
        // One construct, teams of 1 and 2 threads in turn.
        // CHECK varying: count=4 thread_instances=4,2 team_actual_min=1 team_actual_max=2
        // REGION varying: parallel @LINE+1 parent=root
#pragma omp parallel num_threads(1 + r % 2)
        touch();
        // A team of one: no closing barrier reaches the tool.
        // CHECK serialized: count=4 thread_instances=4 team_actual_max=1
        // REGION serialized: parallel @LINE+1 parent=root
#pragma omp parallel num_threads(1)
        touch();
    }
    nested_teams();
    // The program's last region: nothing after it but the flush.
    // CHECK last: count=1 thread_instances=1,1
    // REGION last: parallel @LINE+1 parent=root
#pragma omp parallel num_threads(2)
    touch();
    printf("teams: %ld\n", sink);
    if (use_exit) exit(0);
    return 0;
}
