// SPDX-License-Identifier: BSD-3-Clause
// Functions whose pragmas share one source line (a macro defining several kernels): one line, but
// different functions and bodies, so different regions, each named by its own function, whether
// called directly or through a pointer, and whether or not inlined into their caller.
//
// RUN[same_line]: OMP_NUM_THREADS=2 %prog
// RUN[same_line_gcc]: LD_PRELOAD=%libomp OMP_NUM_THREADS=2 %prog
// CHECK kernels: function=k0|k1|k2|k3 distinct(function)=4 distinct(count)=4 sum(count)=14
// Kernels inlined into main have no code of their own: their inlined copies load the bodies.
// CHECK inlined: function=i0|i1 distinct(function)=2 distinct(count)=2 sum(count)=3
#include <stdio.h>

#define KERNEL(attribute, name)                                                                    \
    attribute static void name(void)                                                               \
    {                                                                                              \
        _Pragma("omp parallel")                                                                    \
        {                                                                                          \
            __asm__ volatile("" ::: "memory");                                                     \
        }                                                                                          \
    }
#define NOINLINE __attribute__((noinline))
#define INLINE

// clang-format off
// REGION kernels: parallel @LINE+1 nodes=4
KERNEL(NOINLINE, k0) KERNEL(NOINLINE, k1) KERNEL(NOINLINE, k2) KERNEL(NOINLINE, k3);
// REGION inlined: parallel @LINE+1 nodes=2
KERNEL(INLINE, i0) KERNEL(INLINE, i1);
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
    i0();
    i1();
    i0();
    printf("same_line: done\n");
    return 0;
}
