// SPDX-License-Identifier: BSD-3-Clause
// Regions and tasks of many shapes, like a synchronisation benchmark: built by clang and by gcc (C
// and C++, -O0 and -O2), every region and task must get the same label (file, first and last line,
// function) and sit under the same parent. Expected ranges are checked by the test too: the first
// line is the pragma's, the last the end of its structured block (task bodies inside included,
// inlined callees excluded).
#include <stdio.h>
#include <stdlib.h>

#include <omp.h>

static volatile double sink;

/* A callee inlined into regions: its lines must not stretch theirs. */
static inline double work(int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += (double)i * 0.5;
    return s;
}

static void delay(int n)
{
    sink += work(n);
}

static void test_parallel(int n)
{
// EXPECT parallel: @LINE+1..@LINE+4
#pragma omp parallel
    {
        delay(n);
    }
}

static void test_for(int n)
{
    // EXPECT parallel: @LINE+1..@LINE+6
#pragma omp parallel
    {
#pragma omp for schedule(monotonic : static)
        for (int i = 0; i < 64; i++)
            delay(n);
    }
}

static void test_parallel_for(int n)
{
    // EXPECT parallel: @LINE+1..@LINE+3
#pragma omp parallel for schedule(dynamic, 4)
    for (int i = 0; i < 64; i++)
        delay(n);
}

static void test_barrier(int n)
{
    // EXPECT parallel: @LINE+1..@LINE+6
#pragma omp parallel
    {
        delay(n);
#pragma omp barrier
        delay(n);
    }
}

static void test_single(int n)
{
    // EXPECT parallel: @LINE+1..@LINE+5
#pragma omp parallel
    {
#pragma omp single
        delay(n);
    }
}

static void test_critical(int n)
{
    // EXPECT parallel: @LINE+1..@LINE+7
#pragma omp parallel
    {
#pragma omp critical
        {
            delay(n);
        }
    }
}

static void test_lock(int n)
{
    omp_lock_t lock;
    omp_init_lock(&lock);
    // EXPECT parallel: @LINE+1..@LINE+6
#pragma omp parallel
    {
        omp_set_lock(&lock);
        delay(n);
        omp_unset_lock(&lock);
    }
    omp_destroy_lock(&lock);
}

static void test_atomic_reduction(int n)
{
    double sum = 0;
    // EXPECT parallel: @LINE+1..@LINE+3
#pragma omp parallel for reduction(+ : sum)
    for (int i = 0; i < n; i++)
        sum += work(i % 7);
    sink += sum;
}

static void test_sections(int n)
{
    // EXPECT parallel: @LINE+1..@LINE+9
#pragma omp parallel sections
    {
#pragma omp section
        delay(n);
#pragma omp section
        {
            delay(n);
        }
    }
}

static void test_tasks(int n)
{
    // EXPECT parallel: @LINE+1..@LINE+11
#pragma omp parallel
#pragma omp single
    {
        for (int i = 0; i < 8; i++) {
            // EXPECT task: @LINE+1..@LINE+4
#pragma omp task firstprivate(i)
            {
                delay(n + i);
            }
        }
    }
}

static void test_taskwait(int n)
{
    // EXPECT parallel: @LINE+1..@LINE+9
#pragma omp parallel
#pragma omp single
    {
        // EXPECT task: @LINE+1..@LINE+2
#pragma omp task
        delay(n);
#pragma omp taskwait
        delay(n);
    }
}

static void test_taskloop(int n)
{
    // EXPECT parallel: @LINE+1..@LINE+6
#pragma omp parallel
#pragma omp single
    // EXPECT task: @LINE+1..@LINE+3
#pragma omp taskloop grainsize(8)
    for (int i = 0; i < 64; i++)
        delay(n);
}

static void test_nested(int n)
{
    // EXPECT parallel: @LINE+1..@LINE+6
#pragma omp parallel num_threads(2)
    {
        // EXPECT parallel: @LINE+1..@LINE+2
#pragma omp parallel num_threads(2)
        delay(n);
    }
}

static void test_ordered(int n)
{
    // EXPECT parallel: @LINE+1..@LINE+5
#pragma omp parallel for ordered
    for (int i = 0; i < 16; i++) {
#pragma omp ordered
        delay(n);
    }
}

static void test_master_tasks(int n)
{
    // EXPECT parallel: @LINE+1..@LINE+13
#pragma omp parallel
    {
#pragma omp master
        {
            // EXPECT task: @LINE+1..@LINE+5
#pragma omp task
            {
                delay(n);
                delay(n);
            }
        }
#pragma omp barrier
    }
}

/* A task created by a function's last statement: clang tail-calls the runtime (its return address
 * is then the caller's). */
__attribute__((noinline)) static void test_task_in_callee(int n)
{
    // EXPECT task: @LINE+1..@LINE+2
#pragma omp task
    delay(n);
}

/* The same in a function inlined into its caller. */
static inline void test_task_inlined(int n)
{
    // EXPECT task: @LINE+1..@LINE+4
#pragma omp task
    {
        delay(n);
    }
}

static void test_tasks_in_callees(int n)
{
    // EXPECT parallel: @LINE+1..@LINE+6
#pragma omp parallel
#pragma omp single
    for (int i = 0; i < 4; i++) {
        test_task_in_callee(n);
        test_task_inlined(n);
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100;
    test_parallel(n);
    test_for(n);
    test_parallel_for(n);
    test_barrier(n);
    test_single(n);
    test_critical(n);
    test_lock(n);
    test_atomic_reduction(n);
    test_sections(n);
    test_tasks(n);
    test_taskwait(n);
    test_taskloop(n);
    test_nested(n);
    test_ordered(n);
    test_master_tasks(n);
    test_tasks_in_callees(n);
    printf("sync_kinds: %g\n", sink > 0 ? 1.0 : 0.0);
    return 0;
}
