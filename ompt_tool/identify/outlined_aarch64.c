// SPDX-License-Identifier: BSD-3-Clause
// outlined_isa.h for aarch64 (A64): bl/b imm26; a GOT slot's address built by adrp + ldr and
// called or jumped to by blr/br (-fno-plt, and every PLT stub: [bti c] adrp x16; ldr x17,[x16,#lo];
// add x16,x16,#lo; br x17); an address built by adrp + add #lo12 (or adr) and copies mov xd,xm.
// Instructions are 4 bytes, aligned, little-endian.
#include "outlined_isa.h"

#if defined(__aarch64__)
#include <stdbool.h>
#include <string.h>

static uint32_t insn(uint64_t p)
{
    uint32_t w;
    memcpy(&w, (const void *)(uintptr_t)p, sizeof(w));
    return w;
}

static uint64_t sext(uint64_t v, int bits)
{
    uint64_t m = 1ull << (bits - 1);
    return (v ^ m) - m;
}

static int rd(uint32_t w)
{
    return (int)(w & 31);
}
static int rn(uint32_t w)
{
    return (int)((w >> 5) & 31);
}

static bool is_adrp(uint32_t w)
{
    return (w & 0x9f000000u) == 0x90000000u;
}
static bool is_adr(uint32_t w)
{
    return (w & 0x9f000000u) == 0x10000000u;
}
/* adr/adrp's 21-bit immediate immhi:immlo */
static uint64_t adr_imm(uint32_t w)
{
    return sext(((uint64_t)((w >> 5) & 0x7ffff) << 2) | ((w >> 29) & 3), 21);
}
/* add xd, xn, #imm12 {, lsl #12} */
static bool is_add_imm(uint32_t w)
{
    return (w & 0xff800000u) == 0x91000000u;
}
static uint64_t add_imm(uint32_t w)
{
    return (uint64_t)((w >> 10) & 0xfff) << ((w >> 22) & 1 ? 12 : 0);
}
/* ldr xt, [xn, #imm12*8] */
static bool is_ldr_x(uint32_t w)
{
    return (w & 0xffc00000u) == 0xf9400000u;
}
/* mov xd, xm (orr xd, xzr, xm) */
static bool is_mov(uint32_t w)
{
    return (w & 0xffe0ffe0u) == 0xaa0003e0u;
}

/* The page an adrp wrote into `reg` last before p (down to lo), 0 when the last write to it was
 * something else. Writes other than adrp, add, ldr, adr and mov are not recognised: good enough
 * for the few instructions compilers put between an adrp and its use. */
static uint64_t page_of(uint64_t lo, uint64_t p, int reg)
{
    for (uint64_t q = p - 4; q >= lo && q < p; q -= 4) {
        uint32_t w = insn(q);
        if (is_adrp(w) && rd(w) == reg) return (q & ~(uint64_t)0xfff) + (adr_imm(w) << 12);
        if ((is_add_imm(w) || is_ldr_x(w) || is_adr(w) || is_mov(w)) && rd(w) == reg) return 0;
    }
    return 0;
}

/* The GOT slot whose content `reg` holds at p: ldr reg, [xn, #off] after adrp xn. */
static uint64_t slot_in(uint64_t lo, uint64_t p, int reg)
{
    for (uint64_t q = p - 4; q >= lo && q < p; q -= 4) {
        uint32_t w = insn(q);
        if (is_ldr_x(w) && rd(w) == reg) {
            uint64_t page = page_of(lo, q, rn(w));
            return page ? page + ((uint64_t)((w >> 10) & 0xfff) << 3) : 0;
        }
        if ((is_adrp(w) || is_add_imm(w) || is_adr(w) || is_mov(w)) && rd(w) == reg) return 0;
    }
    return 0;
}

/* A branch (bl/b imm26, blr/br xn) at p: its kind and target. */
static enum scal_isa_branch branch(uint64_t lo, uint64_t p, bool link, uint64_t *target)
{
    uint32_t w = insn(p);
    if ((w & 0xfc000000u) == (link ? 0x94000000u : 0x14000000u)) {
        *target = p + (sext(w & 0x3ffffff, 26) << 2);
        return SCAL_BRANCH_DIRECT;
    }
    if ((w & 0xfffffc1fu) == (link ? 0xd63f0000u : 0xd61f0000u)) {
        *target = slot_in(lo, p, rn(w));
        return *target ? SCAL_BRANCH_SLOT : link ? SCAL_BRANCH_INDIRECT : SCAL_BRANCH_NONE;
    }
    return link ? SCAL_BRANCH_INDIRECT : SCAL_BRANCH_NONE;
}

enum scal_isa_branch scal_isa_call_before(uint64_t lo, uint64_t ra, uint64_t *at, uint64_t *target)
{
    *at = ra - 4;
    return branch(lo, ra - 4, true, target);
}

enum scal_isa_branch scal_isa_jump_at(uint64_t lo, uint64_t p, uint64_t end, uint64_t *target)
{
    if (p + 4 > end || (p & 3)) return SCAL_BRANCH_NONE;
    return branch(lo, p, false, target);
}

uint64_t scal_isa_plt_slot(uint64_t t)
{
    if (t & 3) return 0;
    if (insn(t) == 0xd503245fu) t += 4; /* bti c */
    uint32_t a = insn(t), l = insn(t + 4);
    if (!is_adrp(a) || rd(a) != 16 || !is_ldr_x(l) || rn(l) != 16 || rd(l) != 17) return 0;
    return (t & ~(uint64_t)0xfff) + (adr_imm(a) << 12) + ((uint64_t)((l >> 10) & 0xfff) << 3);
}

enum scal_isa_write scal_isa_writes(uint64_t lo, uint64_t p, uint64_t end, int reg, uint64_t *addr,
                                    int *src)
{
    if (p + 4 > end || (p & 3)) return SCAL_WRITE_NONE;
    uint32_t w = insn(p);
    if (rd(w) != reg) return SCAL_WRITE_NONE;
    if (is_adr(w)) {
        *addr = p + adr_imm(w);
        return SCAL_WRITE_ADDR;
    }
    if (is_add_imm(w)) { /* add reg, xn, #:lo12:sym after adrp xn, sym */
        uint64_t page = page_of(lo, p, rn(w));
        if (!page) return SCAL_WRITE_NONE;
        *addr = page + add_imm(w);
        return SCAL_WRITE_ADDR;
    }
    if (is_mov(w)) {
        *src = (int)((w >> 16) & 31);
        return SCAL_WRITE_COPY;
    }
    return SCAL_WRITE_NONE;
}

int scal_isa_arg_register(int n)
{
    return n; /* x0, x1, x2 (AAPCS64) */
}

#endif
