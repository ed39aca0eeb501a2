// SPDX-License-Identifier: BSD-3-Clause
// Explicit tasks: time a thread spends running tasks is work (also inside the barrier where the
// team runs them), and every task construct is a child node of kind task with its own count.
//
//   tasks
//
// One thread creates 40 tasks of 5 ms; the team of 2 runs them. Without task callbacks the
// worker's whole time would be barrier wait (share ~50 % and more, work ~0); with them the tasks'
// time is work, and the barrier share (barrier / (2 x wall)) is ~4 % on an idle machine. The check
// allows for a loaded one (a creator descheduled for a while really leaves the other thread
// waiting): barrier at most the work.
// RUN[tasks]: OMP_NUM_THREADS=2 %prog
// The same program built by gcc, through libomp's GOMP layer:
// RUN[tasks_gcc]: LD_PRELOAD=%libomp OMP_NUM_THREADS=2 %prog
// REGION root: root
// CHECK spin: parent=root count=1 team_actual_max=2 barrier_total_s<=work_total_s
// CHECK spin: work_total_s>=five_ms.time_total_s work_total_s<=five_ms.time_total_s*1.05
// CHECK five_ms: parent=spin count=40 time_min_s>=0.005 time_total_s>=0.2 kind=task
// CHECK five_ms: name="task tasks.c:*" function=main
// CHECK left,right: function=fib
// Recursive tasks (fib(10)): 177 calls, 88 of them (n >= 2) create one task at each construct.
// CHECK fib: parent=root count=1 children_time_s<=work_total_s
// CHECK left,right: parent=fib count=88 kind=task
#include <stdio.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Busy for `seconds` of wall-clock time (a descheduled thread does not stretch it). */
static void spin(double seconds)
{
    double end = now_s() + seconds;
    while (now_s() < end) {
    }
}

__attribute__((noinline)) static long fib(int n)
{
    long x, y;
    if (n < 2) return n;
// REGION left: task @LINE+1
#pragma omp task shared(x)
    x = fib(n - 1);
// REGION right: task @LINE+1
#pragma omp task shared(y)
    y = fib(n - 2);
#pragma omp taskwait
    return x + y;
}

int main(void)
{
    long f = 0;
// REGION spin: parallel @LINE+1
#pragma omp parallel
    {
#pragma omp single
        for (int i = 0; i < 40; i++) {
// REGION five_ms: task @LINE+1
#pragma omp task
            spin(0.005);
        }
    }
// REGION fib: parallel @LINE+1
#pragma omp parallel
    {
#pragma omp single
        f = fib(10);
    }
// Taskloop: its tasks are created inside the runtime; they are named after the taskloop.
// REGION loop: parallel @LINE+1
#pragma omp parallel
#pragma omp single
// REGION chunks: task @LINE+1 parent=loop count=10 time_total_s>=0.01 function=main
#pragma omp taskloop num_tasks(10)
    for (int i = 0; i < 10; i++)
        spin(0.001);
    printf("tasks: fib(10)=%ld\n", f);
    return f == 55 ? 0 : 1;
}
