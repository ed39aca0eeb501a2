// SPDX-License-Identifier: BSD-3-Clause
// outlined_isa.h for x86-64: call rel32, call *GOT(%rip), jmp rel32, jmp *GOT(%rip); PLT stubs
// (endbr64, bnd) jmp *GOT(%rip); lea reg,[rip+disp32], mov $imm32,reg (non-PIE) and register
// copies mov %src,%reg. Instructions have any length: every byte is a possible start.
#include "outlined_isa.h"

#if defined(__x86_64__)
#include <string.h>

static uint64_t rel32(const unsigned char *c, uint64_t next)
{
    int32_t d;
    memcpy(&d, c, sizeof(d));
    return next + (uint64_t)(int64_t)d;
}

enum scal_isa_branch scal_isa_call_before(uint64_t lo, uint64_t ra, uint64_t *at, uint64_t *target)
{
    (void)lo;
    const unsigned char *c = (const unsigned char *)(uintptr_t)ra;
    if (c[-5] == 0xe8) { /* call rel32 */
        *at = ra - 5;
        *target = rel32(c - 4, ra);
        return SCAL_BRANCH_DIRECT;
    }
    if (c[-6] == 0xff && c[-5] == 0x15) { /* call *GOT(%rip) (-fno-plt) */
        *at = ra - 6;
        *target = rel32(c - 4, ra);
        return SCAL_BRANCH_SLOT;
    }
    return SCAL_BRANCH_INDIRECT; /* through a register or memory: a function pointer */
}

enum scal_isa_branch scal_isa_jump_at(uint64_t lo, uint64_t p, uint64_t end, uint64_t *target)
{
    (void)lo;
    const unsigned char *c = (const unsigned char *)(uintptr_t)p;
    if (p + 5 <= end && c[0] == 0xe9) { /* jmp rel32 (through a PLT stub) */
        *target = rel32(c + 1, p + 5);
        return SCAL_BRANCH_DIRECT;
    }
    if (p + 6 <= end && c[0] == 0xff && c[1] == 0x25) { /* jmp *GOT(%rip) (-fno-plt) */
        *target = rel32(c + 2, p + 6);
        return SCAL_BRANCH_SLOT;
    }
    return SCAL_BRANCH_NONE;
}

uint64_t scal_isa_plt_slot(uint64_t t)
{
    const unsigned char *c = (const unsigned char *)(uintptr_t)t;
    if (c[0] == 0xf3 && c[1] == 0x0f && c[2] == 0x1e && c[3] == 0xfa) c += 4; /* endbr64 */
    if (c[0] == 0xf2) c++;                                                    /* bnd */
    if (c[0] == 0xff && c[1] == 0x25) return rel32(c + 2, (uint64_t)(uintptr_t)(c + 6));
    return 0;
}

enum scal_isa_write scal_isa_writes(uint64_t lo, uint64_t p, uint64_t end, int reg, uint64_t *addr,
                                    int *src)
{
    (void)lo;
    const unsigned char *c = (const unsigned char *)(uintptr_t)p;
    if (p + 7 <= end && (c[0] & 0xfb) == 0x48 && c[1] == 0x8d && (c[2] & 0xc7) == 0x05 &&
        ((c[2] >> 3) & 7) + ((c[0] & 4) ? 8 : 0) == reg) { /* lea reg,[rip+disp32] */
        *addr = rel32(c + 3, p + 7);
        return SCAL_WRITE_ADDR;
    }
    if (reg < 8 && p + 5 <= end && c[0] == 0xb8 + reg) { /* mov $imm32,reg32 */
        uint32_t v;
        memcpy(&v, c + 1, sizeof(v));
        *addr = v;
        return SCAL_WRITE_ADDR;
    }
    if (reg >= 8 && p + 6 <= end && c[0] == 0x41 && c[1] == 0xb8 + (reg - 8)) {
        uint32_t v;
        memcpy(&v, c + 2, sizeof(v));
        *addr = v;
        return SCAL_WRITE_ADDR;
    }
    if (p + 3 <= end && (c[0] & 0xf8) == 0x48 && (c[2] & 0xc0) == 0xc0) {
        int r = ((c[2] >> 3) & 7) + ((c[0] & 4) ? 8 : 0), m = (c[2] & 7) + ((c[0] & 1) ? 8 : 0);
        if (c[1] == 0x89 && m == reg) { /* mov %r, %m */
            *src = r;
            return SCAL_WRITE_COPY;
        }
        if (c[1] == 0x8b && r == reg) { /* mov %m, %r */
            *src = m;
            return SCAL_WRITE_COPY;
        }
    }
    return SCAL_WRITE_NONE;
}

int scal_isa_arg_register(int n)
{
    static const int regs[] = {7, 6, 2}; /* rdi, rsi, rdx (System V) */
    return regs[n];
}

#endif
