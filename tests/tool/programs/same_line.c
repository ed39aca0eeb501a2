// SPDX-License-Identifier: BSD-3-Clause
// Functions whose pragmas share one source line (a macro defining several kernels): one line, but
// different functions and bodies, so different regions, each named by its own function, whether
// called directly or through a pointer.
//
// RUN[same_line]: OMP_NUM_THREADS=2 %prog
// RUN[same_line_gcc]: LD_PRELOAD=%libomp OMP_NUM_THREADS=2 %prog
// REGION kernels: parallel nodes=4
// CHECK kernels: distinct(function)=4 distinct(count)=4 sum(count)=14 distinct(line_first)=1
// CHECK kernels: function=k0|k1|k2|k3
#include <stdio.h>

#define KERNEL(n)                                                                                  \
    __attribute__((noinline)) static void k##n(void)                                               \
    {                                                                                              \
        _Pragma("omp parallel")                                                                    \
        {                                                                                          \
            __asm__ volatile("" ::: "memory");                                                     \
        }                                                                                          \
    }
// clang-format off
KERNEL(0) KERNEL(1) KERNEL(2) KERNEL(3)
    // clang-format on

    int main(void)
{
    void (*volatile table[2])(void) = {k2, k3};
    for (int i = 0; i < 3; i++)
        k0();
    for (int i = 0; i < 5; i++)
        k1();
    for (volatile int i = 0; i < 6; i++) /* volatile: one call site */
        table[i < 2 ? 0 : 1]();
    printf("same_line: done\n");
    return 0;
}
