// SPDX-License-Identifier: BSD-3-Clause
// Regions reached through a tail call: a function whose body is only a parallel region capturing
// nothing compiles at -O2 to `jmp __kmpc_fork_call`, so the region's return address is in the
// caller. Called directly, the caller names the function and its outlined body: each region keeps
// its own pragma line, function and count. Called through one function-pointer call site (a
// benchmark driver), the bodies cannot be told apart: one node, honestly labelled, counted in the
// diagnostics.
//
// RUN[tail_calls]: OMP_NUM_THREADS=2 %prog
// gcc -O2 tail-calls GOMP_parallel alike:
// RUN[tail_calls_gcc]: LD_PRELOAD=%libomp OMP_NUM_THREADS=2 %prog
// CHECK[tail_calls_gcc] /meta: omp_entry_points=GOMP_*
// CHECK one: count=3 function=direct_one
// CHECK two: count=5 function=direct_two
// REGION pointer: any "tail_calls.c:* (via tail call)" count=8 line_first=-1 function=main
// CHECK /diagnostics: tail_call_unresolved=1
#include <stdio.h>

__attribute__((noinline)) static void direct_one(void)
{
// REGION one: parallel @LINE+1 line_last=@LINE+3
#pragma omp parallel
    {
        __asm__ volatile("" ::: "memory");
    }
}

__attribute__((noinline)) static void direct_two(void)
{
// REGION two: parallel @LINE+1 line_last=@LINE+3
#pragma omp parallel
    {
        __asm__ volatile("" ::: "memory");
    }
}

__attribute__((noinline)) static void by_pointer_one(void)
{
#pragma omp parallel
    {
        __asm__ volatile("" ::: "memory");
    }
}

__attribute__((noinline)) static void by_pointer_two(void)
{
#pragma omp parallel
    {
        __asm__ volatile("" ::: "memory");
    }
}

int main(void)
{
    void (*volatile table[2])(void) = {by_pointer_one, by_pointer_two};
    for (int i = 0; i < 3; i++)
        direct_one();
    for (int i = 0; i < 5; i++)
        direct_two();
    for (volatile int i = 0; i < 8; i++) /* volatile: not unrolled, one call site */
        table[i < 3 ? 0 : 1]();          /* two bodies */
    printf("tail_calls: done\n");
    return 0;
}
