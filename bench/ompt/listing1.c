// SPDX-License-Identifier: BSD-3-Clause
// Listing 1 of the PaScal Analyzer paper: a parallel loop of ITERATIONS calls to a 10 ms operation,
// each wrapped in a measured user region (the paper's analyzer_start/analyzer_stop), plus the
// parallel region itself. Prints the wall time in seconds.
//   listing1 ITERATIONS [USLEEP_US]
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "scal/scal.h"

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
    long us = argc > 2 ? atol(argv[2]) : 10000;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
#pragma omp parallel for
    for (long c = 0; c < n; c++) {
        scal_region_begin("operation");
        usleep((useconds_t)us); /* to simulate a simple operation */
        scal_region_end("operation");
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("%.6f\n", (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9);
    return 0;
}
