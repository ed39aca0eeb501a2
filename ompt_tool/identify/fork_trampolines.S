/* SPDX-License-Identifier: BSD-3-Clause */
/* Trampolines for the runtime's fork entries (fork_hook.h): each notes, in the calling thread's
 * scal_fork_last, the outlined body (an argument register) and its own return address, then jumps
 * to the runtime's entry with every argument register, the stack and %al (a variadic call's vector
 * register count) untouched. Only %r10 and %r11 are used: scratch registers that carry no argument
 * in the System V x86-64 calling convention. The table order is fork_hook.c's `entries`. */
#if defined(__x86_64__) && defined(__ELF__)
        .text

.macro SCAL_FORK_TRAMPOLINE index, body
        .globl  scal_fork_trampoline_\index
        .hidden scal_fork_trampoline_\index
        .type   scal_fork_trampoline_\index, @function
        .p2align 4
scal_fork_trampoline_\index:
        .cfi_startproc
        endbr64
        movq    scal_fork_last@gottpoff(%rip), %r11
        movq    \body, %fs:(%r11)
        movq    (%rsp), %r10
        movq    %r10, %fs:8(%r11)
        jmp     *scal_fork_real+8*\index(%rip)
        .cfi_endproc
        .size   scal_fork_trampoline_\index, .-scal_fork_trampoline_\index
.endm

        SCAL_FORK_TRAMPOLINE 0, %rdx  /* __kmpc_fork_call(loc, argc, microtask, ...) */
        SCAL_FORK_TRAMPOLINE 1, %rdx  /* __kmpc_fork_teams(loc, argc, microtask, ...) */
        SCAL_FORK_TRAMPOLINE 2, %rdi  /* GOMP_parallel(fn, data, ...) and the rest: fn first */
        SCAL_FORK_TRAMPOLINE 3, %rdi
        SCAL_FORK_TRAMPOLINE 4, %rdi
        SCAL_FORK_TRAMPOLINE 5, %rdi
        SCAL_FORK_TRAMPOLINE 6, %rdi
        SCAL_FORK_TRAMPOLINE 7, %rdi
        SCAL_FORK_TRAMPOLINE 8, %rdi
        SCAL_FORK_TRAMPOLINE 9, %rdi
        SCAL_FORK_TRAMPOLINE 10, %rdi
        SCAL_FORK_TRAMPOLINE 11, %rdi
        SCAL_FORK_TRAMPOLINE 12, %rdi
        SCAL_FORK_TRAMPOLINE 13, %rdx  /* __kmpc_fork_call_if(loc, argc, microtask, cond, args) */
#endif
        .section .note.GNU-stack,"",@progbits
