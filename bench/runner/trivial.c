// SPDX-License-Identifier: BSD-3-Clause
// A trivial OpenMP program for the runner benchmark: one empty parallel region.
#include <omp.h>

int main(void)
{
    int n = 0;
#pragma omp parallel
    {
#pragma omp atomic
        n++;
    }
    return n > 0 ? 0 : 1;
}
