// SPDX-License-Identifier: BSD-3-Clause
// Per-construct cost in the style of the EPCC OpenMP micro-benchmarks (syncbench, taskbench): one
// construct repeated COUNT times, the mean wall time per construct printed in ns. Run with no tool,
// the floor tool and scal, the differences are what each tool adds per construct.
//   constructs CONSTRUCT [COUNT]
// CONSTRUCT: parallel (an empty region), barrier, for (a worksharing loop of one iteration per
// thread, with its implicit barrier), reduction (a region with reduction(+)), critical, task (each
// thread creates tasks; timed to the region's end, which waits for them).
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The body every construct runs: nothing the compiler may remove. */
static inline void body(void)
{
    __asm__ volatile("" ::: "memory");
}

static long sink;

static void run_parallel(long n)
{
    for (long i = 0; i < n; i++) {
#pragma omp parallel
        body();
    }
}

static void run_barrier(long n)
{
#pragma omp parallel
    for (long i = 0; i < n; i++) {
        body();
#pragma omp barrier
    }
}

static void run_for(long n)
{
#pragma omp parallel
    {
        int nt = omp_get_num_threads();
        for (long i = 0; i < n; i++) {
#pragma omp for
            for (int j = 0; j < nt; j++)
                body();
        }
    }
}

static void run_reduction(long n)
{
    long x = 0;
    for (long i = 0; i < n; i++) {
#pragma omp parallel reduction(+ : x)
        {
            body();
            x += 1;
        }
    }
    sink += x;
}

/* n critical sections in all, shared among the threads. */
static void run_critical(long n)
{
#pragma omp parallel
    {
        long mine = n / omp_get_num_threads();
        for (long i = 0; i < mine; i++) {
#pragma omp critical
            {
                body();
                sink++;
            }
        }
    }
}

/* n tasks in all, created by every thread (taskbench's parallel task generation). */
static void run_task(long n)
{
#pragma omp parallel
    {
        long mine = n / omp_get_num_threads();
        for (long i = 0; i < mine; i++) {
#pragma omp task
            body();
        }
    }
}

static const struct {
    const char *name;
    void (*run)(long);
    long count; /* default */
} constructs[] = {
    {"parallel", run_parallel, 100000}, {"barrier", run_barrier, 100000},
    {"for", run_for, 100000},           {"reduction", run_reduction, 100000},
    {"critical", run_critical, 200000}, {"task", run_task, 200000},
};

int main(int argc, char **argv)
{
    size_t k, nc = sizeof(constructs) / sizeof(constructs[0]);
    for (k = 0; argc > 1 && k < nc && strcmp(argv[1], constructs[k].name) != 0; k++) {
    }
    if (argc < 2 || k == nc) {
        fprintf(stderr, "usage: constructs parallel|barrier|for|reduction|critical|task [COUNT]\n");
        return 2;
    }
    long n = argc > 2 ? atol(argv[2]) : constructs[k].count;
    if (n <= 0) n = constructs[k].count;
    constructs[k].run(n / 100 + 1); /* warm-up: threads started, pools filled */
    double a = now_ns();
    constructs[k].run(n);
    double b = now_ns();
    printf("%.1f\n", (b - a) / (double)n);
    return sink < 0;
}
