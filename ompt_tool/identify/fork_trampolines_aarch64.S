/* SPDX-License-Identifier: BSD-3-Clause */
/* Trampolines for the runtime's fork entries on aarch64 (fork_hook.h; fork_trampolines.S is the
 * x86-64 twin): each notes, in the calling thread's scal_fork_last, the outlined body (an argument
 * register) and its return address (x30, the caller's bl left it there: a PLT stub branches
 * without link), then branches to the runtime's entry with every argument register, the stack and
 * x30 untouched. Only x16 and x17 are used: the intra-procedure-call scratch registers, which a
 * PLT stub clobbers anyway (AAPCS64). The table order is fork_hook.c's `entries`. */
#if defined(__aarch64__) && defined(__ELF__)
        .text

.macro SCAL_FORK_TRAMPOLINE index, body
        .globl  scal_fork_trampoline_\index
        .hidden scal_fork_trampoline_\index
        .type   scal_fork_trampoline_\index, %function
        .p2align 4
scal_fork_trampoline_\index:
        .cfi_startproc
        hint    #34                     /* bti c (a no-op without BTI) */
        mrs     x17, tpidr_el0
        adrp    x16, :gottprel:scal_fork_last
        ldr     x16, [x16, #:gottprel_lo12:scal_fork_last]
        add     x16, x16, x17
        str     \body, [x16]
        str     x30, [x16, #8]
        adrp    x17, scal_fork_real+8*\index
        ldr     x17, [x17, #:lo12:scal_fork_real+8*\index]
        br      x17
        .cfi_endproc
        .size   scal_fork_trampoline_\index, .-scal_fork_trampoline_\index
.endm

        SCAL_FORK_TRAMPOLINE 0, x2   /* __kmpc_fork_call(loc, argc, microtask, ...) */
        SCAL_FORK_TRAMPOLINE 1, x2   /* __kmpc_fork_teams(loc, argc, microtask, ...) */
        SCAL_FORK_TRAMPOLINE 2, x0   /* GOMP_parallel(fn, data, ...) and the rest: fn first */
        SCAL_FORK_TRAMPOLINE 3, x0
        SCAL_FORK_TRAMPOLINE 4, x0
        SCAL_FORK_TRAMPOLINE 5, x0
        SCAL_FORK_TRAMPOLINE 6, x0
        SCAL_FORK_TRAMPOLINE 7, x0
        SCAL_FORK_TRAMPOLINE 8, x0
        SCAL_FORK_TRAMPOLINE 9, x0
        SCAL_FORK_TRAMPOLINE 10, x0
        SCAL_FORK_TRAMPOLINE 11, x0
        SCAL_FORK_TRAMPOLINE 12, x0
        SCAL_FORK_TRAMPOLINE 13, x2  /* __kmpc_fork_call_if(loc, argc, microtask, cond, args) */
#endif
        .section .note.GNU-stack,"",%progbits
