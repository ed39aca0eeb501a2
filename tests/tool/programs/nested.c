// SPDX-License-Identifier: BSD-3-Clause
// Known nesting for the tool tests: OUTER_ITERS outer regions of 2 threads, each thread running one
// inner region of 2 threads, then a separate flat region. Lines of each pragma are checked by the
// test. Optional arguments replace OUTER_ITERS and the outer team size 2 (team-reuse stress).
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define OUTER_ITERS 3

static long sink; /* updated atomically: the programs themselves are race-free */

static void inner_work(void)
{
#pragma omp parallel num_threads(2) /* INNER */
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
#pragma omp parallel num_threads(outer_threads) /* OUTER */
        {
            inner_work();
        }
    }
#pragma omp parallel num_threads(2) /* FLAT */
    {
        __asm__ volatile("" ::: "memory");
    }
    printf("nested: done\n");
    return 0;
}
