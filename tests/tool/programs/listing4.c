// SPDX-License-Identifier: BSD-3-Clause
// Listing 4 of the PaScal Analyzer paper: the same loop with a reduction and with a critical
// section.
//
//   listing4 OPS
#include <stdio.h>
#include <stdlib.h>

static unsigned long anyop(void)
{
    volatile unsigned long x = 0;
    for (int k = 0; k < 200; k++)
        x += (unsigned long)k;
    return x;
}

int main(int argc, char **argv)
{
    unsigned long sum = 0;
    int ops = argc > 1 ? atoi(argv[1]) : 20000;

#pragma omp parallel for schedule(static) reduction(+ : sum) /* REDUCTION */
    for (int i = 0; i < ops; i++)
        sum += anyop();

#pragma omp parallel for schedule(static) /* CRITICAL */
    for (int i = 0; i < ops; i++) {
#pragma omp critical
        sum += anyop();
    }
    printf("listing4: sum %lu\n", sum);
    return 0;
}
