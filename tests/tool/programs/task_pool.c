// SPDX-License-Identifier: BSD-3-Clause
// More explicit tasks alive at once than a thread has task records (SCAL_TASK_RECORDS, 65536): the
// tasks beyond are not measured, counted in /diagnostics and shown by `scal show`; the others are.
//
// One thread creates a gate task, which the other thread runs until all are created, and 66000
// tasks that depend on it: 66001 tasks alive at once, 465 find no record.
// RUN[task_pool]: OMP_NUM_THREADS=2 %prog
// CHECK /diagnostics: tasks_beyond_pool=465 errors_total=465
// CHECK run: shown="*measurement problems: 465*tasks_beyond_pool = 465: explicit tasks created*"
#include <stdatomic.h>
#include <stdio.h>

int main(void)
{
    long ran = 0;
    int gate = 0;
    atomic_int created = 0;
// REGION pool: parallel @LINE+1 count=1
#pragma omp parallel num_threads(2)
#pragma omp single
    {
// REGION gate: task @LINE+1 parent=pool count=1
#pragma omp task depend(out : gate) shared(created)
        while (atomic_load(&created) == 0) {
        }
        for (int i = 0; i < 66000; i++) {
// REGION many: task @LINE+1 parent=pool count=65535
#pragma omp task depend(in : gate) shared(ran)
            {
#pragma omp atomic
                ran++;
            }
        }
        atomic_store(&created, 1);
    }
    (void)gate; /* only named by depend clauses */
    printf("task_pool: %ld tasks ran\n", ran);
    return ran == 66000 ? 0 : 1;
}
