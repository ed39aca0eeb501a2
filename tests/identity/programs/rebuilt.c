// SPDX-License-Identifier: BSD-3-Clause
// One program, built twice with other flags (other addresses, other line tables): its regions must
// be the same regions in both builds. Regions in main and in a function, serial gaps between them.
#include <omp.h>
#include <stdio.h>

static volatile double sink;

static void work(int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += (double)i * 0.5;
    sink += s;
}

__attribute__((noinline)) static void in_a_function(int n)
{
#pragma omp parallel
    work(n);
    sink += 1; /* no tail call into the runtime */
}

int main(void)
{
    in_a_function(1000);
    work(100);
#pragma omp parallel
    work(2000);
    work(100);
#pragma omp parallel
    work(3000);
    printf("%f\n", sink);
    return 0;
}
