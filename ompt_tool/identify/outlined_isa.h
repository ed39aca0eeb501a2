/* SPDX-License-Identifier: BSD-3-Clause */
/* The few instructions outlined.c reads at a parallel region's call site, in one instruction set:
 * calls and jumps (direct, through a GOT slot, through a pointer), a PLT stub's slot, and what an
 * instruction does to a register (loads an address, copies another register). One implementation
 * per architecture (outlined_x86_64.c, outlined_aarch64.c), one design (outlined.c). Every range
 * passed in is readable code of one loaded object. */
#ifndef SCAL_OUTLINED_ISA_H
#define SCAL_OUTLINED_ISA_H

#include <stdint.h>

#if defined(__x86_64__)
#define SCAL_ISA_KNOWN 1
#define SCAL_ISA_ALIGN 1      /* instructions start at any byte */
#define SCAL_ISA_REGS 16      /* rax..r15 */
#define SCAL_ISA_CALL_BYTES 6 /* the longest call instruction read before a return address */
#define SCAL_ISA_PLT_BYTES 12 /* what a PLT stub's reading needs */
#elif defined(__aarch64__)
#define SCAL_ISA_KNOWN 1
#define SCAL_ISA_ALIGN 4 /* fixed-size, aligned instructions */
#define SCAL_ISA_REGS 31 /* x0..x30 */
#define SCAL_ISA_CALL_BYTES 4
#define SCAL_ISA_PLT_BYTES 12
#else
#define SCAL_ISA_KNOWN 0
#define SCAL_ISA_ALIGN 1
#define SCAL_ISA_REGS 1
#define SCAL_ISA_CALL_BYTES 8
#define SCAL_ISA_PLT_BYTES 12
#endif

/* How a call or jump names where it goes. */
enum scal_isa_branch {
    SCAL_BRANCH_NONE,     /* not a call (or jump) */
    SCAL_BRANCH_DIRECT,   /* to an address in the code (*target: possibly a PLT stub) */
    SCAL_BRANCH_SLOT,     /* through the GOT slot *target (-fno-plt) */
    SCAL_BRANCH_INDIRECT, /* through a register or memory: a function pointer */
};

/* What the instruction at p (within [lo, end)) does to register `reg`: loads an address (*addr),
 * copies another register into it (*src), or neither. */
enum scal_isa_write { SCAL_WRITE_NONE, SCAL_WRITE_ADDR, SCAL_WRITE_COPY };

#if SCAL_ISA_KNOWN
/* The call whose return address is ra ([lo, ra) readable, ra - SCAL_ISA_CALL_BYTES >= lo): its
 * kind, its first byte (*at) and its target or slot. */
enum scal_isa_branch scal_isa_call_before(uint64_t lo, uint64_t ra, uint64_t *at, uint64_t *target);
/* A jump at p that leaves the function (a tail call: direct or through a GOT slot), [lo, end)
 * readable. */
enum scal_isa_branch scal_isa_jump_at(uint64_t lo, uint64_t p, uint64_t end, uint64_t *target);
/* The GOT slot a PLT stub at t jumps through (SCAL_ISA_PLT_BYTES readable), 0 = not a stub. */
uint64_t scal_isa_plt_slot(uint64_t t);

/* (enum scal_isa_write) */
enum scal_isa_write scal_isa_writes(uint64_t lo, uint64_t p, uint64_t end, int reg, uint64_t *addr,
                                    int *src);
/* The register of the n-th integer argument of a call (n = 0, 1, 2). */
int scal_isa_arg_register(int n);

#else /* elsewhere nothing is read: call sites stay unknown */
static inline enum scal_isa_branch scal_isa_call_before(uint64_t lo, uint64_t ra, uint64_t *at,
                                                        uint64_t *target)
{
    (void)lo, (void)target;
    *at = ra;
    return SCAL_BRANCH_INDIRECT;
}
static inline enum scal_isa_branch scal_isa_jump_at(uint64_t lo, uint64_t p, uint64_t end,
                                                    uint64_t *target)
{
    (void)lo, (void)p, (void)end, (void)target;
    return SCAL_BRANCH_NONE;
}
static inline uint64_t scal_isa_plt_slot(uint64_t t)
{
    (void)t;
    return 0;
}
static inline enum scal_isa_write scal_isa_writes(uint64_t lo, uint64_t p, uint64_t end, int reg,
                                                  uint64_t *addr, int *src)
{
    (void)lo, (void)p, (void)end, (void)reg, (void)addr, (void)src;
    return SCAL_WRITE_NONE;
}
static inline int scal_isa_arg_register(int n)
{
    return n;
}
#endif

#endif
