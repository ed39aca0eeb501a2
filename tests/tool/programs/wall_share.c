// SPDX-License-Identifier: BSD-3-Clause
// Wall-clock share against summed time: a region (and a user region) that both threads of a team
// encounter at the same time is summed over the threads (time_total_s, CPU-like) but its wall time
// (time_wall_s) is the union of the instances' intervals: below the summed time, never above the
// parent's wall time, and program_% in scal show is the wall share. Both instances are made to
// overlap by a rendezvous inside them (they cannot end before both began).
//
// RUN[wall_share]: OMP_NUM_THREADS=2 %prog
// Nested teams active: the inner region has a team of its own on each thread.
// RUN[wall_share_nested]: OMP_NUM_THREADS=2 OMP_MAX_ACTIVE_LEVELS=2 %prog
// The same program built by gcc, through libomp's GOMP layer:
// RUN[wall_share_gcc]: LD_PRELOAD=%libomp OMP_NUM_THREADS=2 %prog
// REGION root: root
// CHECK root: time_wall_s=time_total_s
// A region one thread encounters: wall time = summed time.
// CHECK outer: count=2 time_wall_s=time_total_s time_wall_s<=root.time_wall_s
// CHECK inner: count=4 time_wall_s<time_total_s time_wall_s<=outer.time_wall_s time_wall_s>0
// CHECK both: count=4 time_wall_s<time_total_s time_wall_s<=outer.time_wall_s time_wall_s>0
// The root's children tile the program: their wall times add up to at most the program's.
// CHECK root: children_wall_s<=time_total_s*1.000001
// CHECK /diagnostics: errors_total=0
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include "scal/scal.h"

static atomic_int inner_in, inner_out, user_in, user_out;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Busy for `seconds` (wall clock), so that both threads are inside at the same time for a while. */
static void spin(double seconds)
{
    double end = now_s() + seconds;
    while (now_s() < end) {
    }
}

/* Waits until `n` threads in all have arrived at `counter`. */
static void rendezvous(atomic_int *counter, int n)
{
    atomic_fetch_add(counter, 1);
    while (atomic_load(counter) < n) {
    }
}

int main(void)
{
    for (int it = 1; it <= 2; it++) {
// REGION outer: parallel @LINE+1 parent=root
#pragma omp parallel num_threads(2)
        {
// REGION inner: parallel @LINE+1 parent=outer
#pragma omp parallel num_threads(2)
            {
#pragma omp master
                {
                    rendezvous(&inner_in, 2 * it);
                    spin(0.002);
                    rendezvous(&inner_out, 2 * it);
                }
            }
            // REGION both: user "both threads" parent=outer
            scal_region_begin("both threads");
            rendezvous(&user_in, 2 * it);
            spin(0.002);
            rendezvous(&user_out, 2 * it);
            scal_region_end("both threads");
        }
    }
    printf("wall_share: done\n");
    return 0;
}
