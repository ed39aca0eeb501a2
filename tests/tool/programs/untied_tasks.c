// SPDX-License-Identifier: BSD-3-Clause
// Untied, tied and mixed explicit tasks: every task is counted once, in the node of its task
// construct under the region that created it, wherever and in however many parts it runs; its time
// is the time it ran as task code (children and the waits of its taskwaits/taskgroups excluded).
// Serial gaps keep their place and the root's children add up to at most the program.
//
// The known work is the leaf kernel, measured by the program itself as a user region inside the
// leaf tasks: the recursive tasks' time is that plus their own bookkeeping.
// RUN[untied_tasks]: OMP_NUM_THREADS=2 %prog
// RUN[untied_tasks_1]: OMP_NUM_THREADS=1 %prog
// Built by gcc (through libomp's GOMP layer) and as C++ by clang++ and g++:
// RUN[untied_tasks_gcc]: LD_PRELOAD=%libomp OMP_NUM_THREADS=2 %prog
// RUN[untied_tasks_cxx_clang]: OMP_NUM_THREADS=2 %prog
// RUN[untied_tasks_cxx_gcc]: LD_PRELOAD=%libomp OMP_NUM_THREADS=2 %prog
// RUN[untied_tasks_gcc_1]: LD_PRELOAD=%libomp OMP_NUM_THREADS=1 %prog
// RUN[untied_tasks_cxx_clang_1]: OMP_NUM_THREADS=1 %prog
// RUN[untied_tasks_cxx_gcc_1]: LD_PRELOAD=%libomp OMP_NUM_THREADS=1 %prog
// REGION root: root
// CHECK root: children_time_s<=time_total_s*1.000001
// CHECK /diagnostics: errors_total=0
#include <stdint.h>
#include <stdio.h>

#include <omp.h>

#include "scal/scal.h"

static volatile uint64_t sink;

__attribute__((noinline)) static void busy(long iterations)
{
    uint64_t s = 0;
    for (long i = 0; i < iterations; i++) {
        s += (uint64_t)i * (uint64_t)i;
        __asm__ volatile("" : "+r"(s));
    }
    sink += s;
}

/* The known work: a busy loop of a fixed number of iterations, measured as a user region. */
__attribute__((noinline)) static void leaf(const char *name, long iterations)
{
    scal_region_begin(name);
    busy(iterations);
    scal_region_end(name);
}

static long ran; /* tasks that ran */

/* 2 + 4 + ... + 64 = 126 untied tasks; the 64 deepest run the leaf. */
__attribute__((noinline)) static void rec(int depth)
{
    if (depth == 0) {
        leaf("untied leaf", 1200000);
        return;
    }
    for (int i = 0; i < 2; i++) {
// REGION untied: task @LINE+1 parent=rec_region count=126 function=rec
#pragma omp task untied
        {
#pragma omp atomic
            ran++;
            rec(depth - 1);
        }
    }
#pragma omp taskwait
}

// REGION leaf_in_untied: user "untied leaf" parent=untied count=64
// CHECK untied: time_total_s>=leaf_in_untied.time_total_s
// With one thread the tasks' own bookkeeping is all they add: a few per cent on an idle machine.
// Counting a task's children (or its taskwait) in its own time would give about 6x the leaves (one
// subtree per level); the bound 2x keeps that defect caught and leaves room for the thread being
// descheduled outside the leaves on a loaded machine (that time is really the tasks'; the leaves
// are long, ~40 ms in all, so that only a few per cent of a run lies outside them). With two
// threads a task creation may also wait for a descheduled thread holding the runtime's queue lock:
// real task time, bounded there by the region's work.
// CHECK[untied_tasks_1,untied_tasks_gcc_1] untied: time_total_s<=leaf_in_untied.time_total_s*2
// CHECK[untied_tasks_cxx_clang_1] untied: time_total_s<=leaf_in_untied.time_total_s*2
// CHECK[untied_tasks_cxx_gcc_1] untied: time_total_s<=leaf_in_untied.time_total_s*2
// The region's work holds the tasks' time (the thread waiting in the taskwait is not working).
// CHECK rec_region: work_total_s>=untied.time_total_s

__attribute__((noinline)) static void mixed(void)
{
    omp_event_handle_t ev = (omp_event_handle_t)0;
    int done = 0;
// REGION tied_outer: task @LINE+1 parent=mixed_region count=4 function=mixed
#pragma omp task
    {
// Untied children of tied tasks, in a taskgroup, with a taskyield.
#pragma omp taskgroup
        {
            for (int i = 0; i < 3; i++) {
// REGION untied_inner: task @LINE+1 parent=mixed_region count=12 function=mixed
#pragma omp task untied
                {
#pragma omp taskyield
                    leaf("leaf", 10000);
                }
            }
        }
// Final, mergeable and undeferred tasks.
// REGION final: task @LINE+1 parent=mixed_region count=4
#pragma omp task final(1) mergeable
        leaf("leaf", 10000);
// REGION undeferred: task @LINE+1 parent=mixed_region count=4
#pragma omp task if (0)
        leaf("leaf", 10000);
    }
    for (int i = 0; i < 3; i++) {
// REGION tied_loop: task @LINE+1 parent=mixed_region count=12
#pragma omp task
        leaf("leaf", 10000);
    }
// A detached task: its code ends before its event is fulfilled by another task. (libomp 14 aborts
// on one with a team of one, and its GOMP layer crashes on gcc's: clang, 2 threads only.)
#if defined(__clang__)
    if (omp_get_num_threads() > 1) {
// REGION[untied_tasks,untied_tasks_cxx_clang] detached: task @LINE+1 parent=mixed_region count=4
#pragma omp task detach(ev) shared(done)
        done = 1;
// REGION[untied_tasks,untied_tasks_cxx_clang] fulfil: task @LINE+1 parent=mixed_region count=4
#pragma omp task
        omp_fulfill_event(ev);
    }
#endif
#pragma omp taskwait
    (void)done;
    (void)ev;
}

int main(void)
{
// REGION rec_region: parallel @LINE+1 parent=root count=1
#pragma omp parallel
#pragma omp single
    rec(6);
    // REGION gap: serial rec_region->tied_region count=1
    busy(1000000);
// REGION tied_region: parallel @LINE+1 parent=root count=1
#pragma omp parallel
#pragma omp single
    for (int i = 0; i < 8; i++) {
// REGION tied: task @LINE+1 parent=tied_region count=8
#pragma omp task
        leaf("leaf", 300000);
    }
// REGION mixed_region: parallel @LINE+1 parent=root count=1
#pragma omp parallel
#pragma omp single
    for (int i = 0; i < 4; i++)
        mixed();
// 64 taskloop tasks: libomp splits a large taskloop into tasks that create the others.
// REGION taskloop_region: parallel @LINE+1 parent=root count=1
#pragma omp parallel
#pragma omp single
// REGION chunks: task @LINE+1 parent=taskloop_region count=64 function=main
#pragma omp taskloop num_tasks(64)
    for (int i = 0; i < 64; i++)
        leaf("leaf", 1000);
    // REGION first_gap: serial start->rec_region count=1
    // REGION last_gap: serial taskloop_region->end count=1
    printf("untied_tasks: %ld untied tasks ran\n", ran);
    return ran == 126 ? 0 : 1;
}
