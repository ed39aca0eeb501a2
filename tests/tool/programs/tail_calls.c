// SPDX-License-Identifier: BSD-3-Clause
// Regions reached through a tail call: a function whose body is only a parallel region capturing
// nothing compiles at -O2 to `jmp __kmpc_fork_call` (gcc: `jmp GOMP_parallel`), so the region's
// return address is in the caller. Called directly, the caller's code names the function and its
// outlined body. Called through one function-pointer call site (a benchmark driver), only the body
// the program hands the runtime tells them apart: the tool's fork trampolines note it, and each
// body keeps its own node, pragma line, function and count.
//
// RUN[tail_calls]: OMP_NUM_THREADS=2 %prog
// gcc -O2 tail-calls GOMP_parallel alike:
// RUN[tail_calls_gcc]: LD_PRELOAD=%libomp OMP_NUM_THREADS=2 %prog
// -z now (every GOT slot read-only after relocation); gcc -fno-plt (jmp *GOT: a GLOB_DAT slot):
// RUN[tail_calls_bindnow]: OMP_NUM_THREADS=2 %prog
// RUN[tail_calls_gcc_noplt]: LD_PRELOAD=%libomp OMP_NUM_THREADS=2 %prog
// non-PIE (canonical PLT entries for the entries whose address the program takes):
// RUN[tail_calls_nopie]: OMP_NUM_THREADS=2 %prog
// RUN[tail_calls_gcc_nopie]: LD_PRELOAD=%libomp OMP_NUM_THREADS=2 %prog
// CHECK[tail_calls_gcc,tail_calls_gcc_noplt,tail_calls_gcc_nopie] /meta: omp_entry_points=GOMP_*
// CHECK one: count=3 function=direct_one
// CHECK two: count=5 function=direct_two
// CHECK p_two: count=5 function=by_pointer_two
// CHECK inner: parent=outer count=2 function=nested_inner
// CHECK outer: count=1 function=nest
// CHECK[tail_calls,tail_calls_gcc,tail_calls_bindnow] p_one: count=3 function=by_pointer_one
// CHECK[tail_calls_gcc_noplt,tail_calls_nopie,tail_calls_gcc_nopie] p_one: count=3
// CHECK[tail_calls,tail_calls_gcc,tail_calls_bindnow] /diagnostics: tail_call_unresolved=0
// CHECK[tail_calls_gcc_noplt,tail_calls_nopie] /diagnostics: tail_call_unresolved=0
// CHECK[tail_calls_gcc_nopie] /diagnostics: tail_call_unresolved=0
// Without debug information: tail_calls_nodebug.c.
//
// When the program's very first fork goes through the pointer, the tool is not loaded yet (the
// runtime loads it inside that fork): that one instance passes no trampoline and is named
// honestly, the others are exact.
// RUN[tail_calls_first]: OMP_NUM_THREADS=2 %prog pointer-first
// REGION[tail_calls_first] lost: any "tail_calls.c:* (via tail call)" count=1 line_first=-1
// CHECK[tail_calls_first] p_one: count=2 function=by_pointer_one
// CHECK[tail_calls_first] /diagnostics: tail_call_unresolved=1
// Preloaded, the tool is there before main: the first fork is seen too. `scal exec` and `scal run`
// preload it into OpenMP programs.
// RUN[tail_calls_preload]: LD_PRELOAD=%tool OMP_NUM_THREADS=2 %prog pointer-first
// RUN[tail_calls_scal_exec]: OMP_NUM_THREADS=2 %scal-exec %prog pointer-first
// also when scal exec starts a wrapper that starts the program:
// RUN[tail_calls_wrapped]: OMP_NUM_THREADS=2 %scal-exec env A=1 %prog pointer-first
// CHECK[tail_calls_preload,tail_calls_scal_exec,tail_calls_wrapped] p_one: count=3
// CHECK[tail_calls_preload,tail_calls_scal_exec] /diagnostics: tail_call_unresolved=0
// CHECK[tail_calls_wrapped] /diagnostics: tail_call_unresolved=0
#include <stdio.h>
#include <string.h>

/* The program takes its fork entry's address: a non-PIE build then has a "canonical PLT" entry for
 * it, which must never become a trampoline's target (the call would loop). */
#ifdef __clang__
extern void fork_entry(void) __asm__("__kmpc_fork_call");
#else
extern void fork_entry(void) __asm__("GOMP_parallel");
#endif
void (*volatile fork_entry_address)(void);

__attribute__((noinline)) static void direct_one(void)
{
// REGION one: parallel @LINE+1 line_last=@LINE+4
#pragma omp parallel
    {
        __asm__ volatile("" ::: "memory");
    }
}

__attribute__((noinline)) static void direct_two(void)
{
// REGION two: parallel @LINE+1 line_last=@LINE+4
#pragma omp parallel
    {
        __asm__ volatile("" ::: "memory");
    }
}

__attribute__((noinline)) static void by_pointer_one(void)
{
// REGION p_one: parallel @LINE+1 line_last=@LINE+4
#pragma omp parallel
    {
        __asm__ volatile("" ::: "memory");
    }
}

__attribute__((noinline)) static void by_pointer_two(void)
{
// REGION p_two: parallel @LINE+1 line_last=@LINE+4
#pragma omp parallel
    {
        __asm__ volatile("" ::: "memory");
    }
}

/* Reached from a region body that tail-calls it too: no frame of the call site is left, the
 * runtime reports its own address, and only the body names the region. */
__attribute__((noinline)) static void nested_inner(void)
{
// REGION inner: parallel @LINE+1 line_last=@LINE+4
#pragma omp parallel
    {
        __asm__ volatile("" ::: "memory");
    }
}

__attribute__((noinline)) static void through_pointer(void)
{
    void (*volatile table[2])(void) = {by_pointer_one, by_pointer_two};
    for (volatile int i = 0; i < 8; i++) /* volatile: not unrolled, one call site */
        table[i < 3 ? 0 : 1]();          /* two bodies */
}

/* Not in main: a num_threads clause there would start the runtime at main's top, before any
 * fork (and so load the tool before the first one). */
__attribute__((noinline)) static void nest(void)
{
// REGION outer: parallel @LINE+1
#pragma omp parallel num_threads(2)
    nested_inner();
}

int main(int argc, char **argv)
{
    int pointer_first = argc > 1 && !strcmp(argv[1], "pointer-first");
    fork_entry_address = fork_entry;
    if (pointer_first) through_pointer();
    for (int i = 0; i < 3; i++)
        direct_one();
    for (int i = 0; i < 5; i++)
        direct_two();
    if (!pointer_first) through_pointer();
    nest();
    printf("tail_calls: done\n");
    return 0;
}
