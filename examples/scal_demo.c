// SPDX-License-Identifier: BSD-3-Clause
// The demo program: regions that scale well, badly and not at all, for a first scal campaign.
//
//   scal_demo SIZE    (SIZE: problem size in thousands of elements, e.g. 200)
//
// Region "stencil" scales with threads; "histogram" serialises on a critical section (the PaScal
// Analyzer paper's Listing 4 pattern); "setup" is a user region around serial work and a nested
// parallel region. Times grow with SIZE so that the input-growth diagram has something to show.
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "scal/scal.h"

static double work(double x)
{
    for (int k = 0; k < 20; k++)
        x = sin(x) * 0.5 + cos(x) * 0.5;
    return x;
}

int main(int argc, char **argv)
{
    long size = argc > 1 ? atol(argv[1]) : 100;
    if (size <= 0) {
        fprintf(stderr, "usage: %s SIZE (a positive number of thousands of elements)\n", argv[0]);
        return 2;
    }
    long n = size * 1000;
    double *a = malloc((size_t)n * sizeof(*a)), *b = malloc((size_t)n * sizeof(*b));
    if (!a || !b) {
        fprintf(stderr, "scal_demo: out of memory for SIZE %ld\n", size);
        return 1;
    }

    scal_region_begin("setup");
    for (long i = 0; i < n; i++)
        a[i] = (double)(i % 97) / 97.0;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++)
        b[i] = 0.0;
    scal_region_end("setup");

    double checksum = 0.0;
    for (int step = 0; step < 4; step++) {
#pragma omp parallel for schedule(static) reduction(+ : checksum)
        for (long i = 1; i < n - 1; i++) {
            b[i] = work((a[i - 1] + a[i] + a[i + 1]) / 3.0);
            checksum += b[i];
        }
        double *t = a;
        a = b;
        b = t;
    }

    long bins[16] = {0};
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n / 4; i++) {
        int bin = (int)(fabs(work(a[i])) * 15.99) & 15;
#pragma omp critical
        bins[bin]++;
    }

    printf("scal_demo: size %ld, threads %d, checksum %.6f, bin0 %ld\n", size,
           omp_get_max_threads(), checksum, bins[0]);
    free(a);
    free(b);
    return 0;
}
