// SPDX-License-Identifier: BSD-3-Clause
// Prints the mean ns per explicit task of a recursive fib(N) computed with one task per call
// (task-heavy code: the cost of task_create/task_schedule per task).
//   fib_tasks N
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long fib(int n)
{
    long x, y;
    if (n < 2) return n;
#pragma omp task shared(x)
    x = fib(n - 1);
#pragma omp task shared(y)
    y = fib(n - 2);
#pragma omp taskwait
    return x + y;
}

/* Tasks fib(n) creates: one per call except the first. */
static double tasks_of(int n)
{
    double a = 1, b = 1; /* calls of fib(0), fib(1) */
    for (int k = 2; k <= n; k++) {
        double c = 1 + a + b;
        a = b;
        b = c;
    }
    return (n < 2 ? 1 : b) - 1;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 22;
    long r = 0;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
#pragma omp parallel
    {
#pragma omp single
        r = fib(n);
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    if (r < 0) return 1;
    printf("%.1f\n",
           ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / tasks_of(n));
    return 0;
}
