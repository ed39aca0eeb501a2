// SPDX-License-Identifier: BSD-3-Clause
// Regions created inside explicit tasks: a parallel region (and a user region) that a task's code
// encounters is a child of that task's node, whichever thread runs the task and wherever (also in
// the closing barrier of the region that created it); a region inside that region is its child.
//
// RUN[task_regions]: OMP_NUM_THREADS=2 %prog
// Nested teams active: every thread of the region inside the task encounters the innermost one.
// RUN[task_regions_nested]: OMP_NUM_THREADS=2 OMP_MAX_ACTIVE_LEVELS=3 %prog
// The same program built by gcc, through libomp's GOMP layer:
// RUN[task_regions_gcc]: LD_PRELOAD=%libomp OMP_NUM_THREADS=2 %prog
// REGION root: root
// CHECK /diagnostics: errors_total=0 task_unmatched=0
#include <stdio.h>

#include "scal/scal.h"

int main(void)
{
    int done = 0;
// REGION outer: parallel @LINE+1 parent=root count=1
#pragma omp parallel num_threads(2)
#pragma omp single
    for (int i = 0; i < 4; i++) {
// REGION t: task @LINE+1 parent=outer count=4
#pragma omp task shared(done)
        {
// REGION in_task: parallel @LINE+1 parent=t count=4
#pragma omp parallel num_threads(2)
            {
// CHECK[task_regions_nested] deeper: count=8 team_actual_max=2
// CHECK[task_regions,task_regions_gcc] deeper: count=4 team_actual_max=1
// REGION deeper: parallel @LINE+1 parent=in_task
#pragma omp parallel num_threads(2)
                __asm__ volatile("" ::: "memory");
                __asm__ volatile("" ::: "memory"); /* not a tail call into the runtime */
            }
            // REGION user: user "in a task" parent=t count=4
            scal_region_begin("in a task");
            __asm__ volatile("" ::: "memory");
            scal_region_end("in a task");
#pragma omp atomic
            done++;
        }
    }
    printf("task_regions: %d tasks\n", done);
    return done == 4 ? 0 : 1;
}
// The same source built as C++ (clang++ and g++; g++'s through libomp's GOMP layer):
// RUN[task_regions_cxx_clang]: OMP_NUM_THREADS=2 %prog
// RUN[task_regions_cxx_gcc]: LD_PRELOAD=%libomp OMP_NUM_THREADS=2 %prog
// CHECK[task_regions_cxx_clang,task_regions_cxx_gcc] deeper: count=4 team_actual_max=1
