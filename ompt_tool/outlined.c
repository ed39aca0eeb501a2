// SPDX-License-Identifier: BSD-3-Clause
// Finding a parallel region's outlined body from its call site in the machine code (x86-64, at
// flush, never in callbacks): the runtime's fork entry (clang's __kmpc_fork_call, gcc's
// GOMP_parallel*) receives the outlined function's address, loaded by the few instructions before
// the call (lea reg,[rip+disp32] or mov $imm32,reg, possibly through register copies: a loop may
// hoist the lea). A call site that does not call a fork entry
// is the return address of a function that tail-called it: a direct call names that function, whose
// own code loads the outlined body; an indirect call (a function pointer) names nothing.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "fork_hook.h"
#include "outlined.h"

#define SCAN_BYTES 160 /* how far from the call (or into the tail-calling function) to look */

bool scal_outlined_name(const char *name)
{
    return name && (!strncmp(name, ".omp_outlined.", 14) || strstr(name, "._omp_fn.") != NULL);
}

static bool fork_entry_name(const char *name)
{
    return name &&
           (!strncmp(name, "__kmpc_fork_call", 16) || !strncmp(name, "__kmpc_fork_teams", 17) ||
            !strncmp(name, "GOMP_parallel", 13) || !strncmp(name, "GOMP_teams", 10) ||
            !strncmp(name, "GOMP_task", 9)); /* gcc's task bodies are outlined alike */
}

/* True when [a, b) lies in one loaded object (its code can be read). */
static bool same_object(uint64_t a, uint64_t b)
{
    Dl_info da, db;
    return b > a && dladdr((void *)(uintptr_t)a, &da) && dladdr((void *)(uintptr_t)(b - 1), &db) &&
           da.dli_fbase == db.dli_fbase;
}

/* Where a call to `t` goes: through a PLT stub (jmp *GOT, bound by the time the call happened) or
 * to t itself. */
static uint64_t call_destination(uint64_t t)
{
    if (!same_object(t, t + 12)) return t;
    const unsigned char *c = (const unsigned char *)(uintptr_t)t;
    if (c[0] == 0xf3 && c[1] == 0x0f && c[2] == 0x1e && c[3] == 0xfa) c += 4; /* endbr64 */
    if (c[0] == 0xf2) c++;                                                    /* bnd */
    if (c[0] == 0xff && c[1] == 0x25) {
        int32_t d;
        uint64_t dest, slot;
        memcpy(&d, c + 2, sizeof(d));
        slot = (uint64_t)(uintptr_t)(c + 6) + (uint64_t)(int64_t)d;
        if (!same_object(slot, slot + sizeof(dest))) return t; /* bytes that only looked like it */
        memcpy(&dest, (const void *)(uintptr_t)slot, sizeof(dest));
        return dest;
    }
    return t;
}

/* What the instruction at p (ending at or before `end`) does to register `reg` (0-15): loads an
 * address (lea reg,[rip+disp32] or mov $imm32,reg32: *addr), copies another register into it
 * (mov %src,%reg: *src), or neither. */
enum reg_write { WRITE_NONE, WRITE_ADDR, WRITE_COPY };
static enum reg_write writes(uint64_t p, uint64_t end, int reg, uint64_t *addr, int *src)
{
    const unsigned char *c = (const unsigned char *)(uintptr_t)p;
    if (p + 7 <= end && (c[0] & 0xfb) == 0x48 && c[1] == 0x8d && (c[2] & 0xc7) == 0x05 &&
        ((c[2] >> 3) & 7) + ((c[0] & 4) ? 8 : 0) == reg) {
        int32_t d;
        memcpy(&d, c + 3, sizeof(d));
        *addr = p + 7 + (uint64_t)(int64_t)d;
        return WRITE_ADDR;
    }
    if (reg < 8 && p + 5 <= end && c[0] == 0xb8 + reg) {
        uint32_t v;
        memcpy(&v, c + 1, sizeof(v));
        *addr = v;
        return WRITE_ADDR;
    }
    if (reg >= 8 && p + 6 <= end && c[0] == 0x41 && c[1] == 0xb8 + (reg - 8)) {
        uint32_t v;
        memcpy(&v, c + 2, sizeof(v));
        *addr = v;
        return WRITE_ADDR;
    }
    if (p + 3 <= end && (c[0] & 0xf8) == 0x48 && (c[2] & 0xc0) == 0xc0) {
        int r = ((c[2] >> 3) & 7) + ((c[0] & 4) ? 8 : 0), m = (c[2] & 7) + ((c[0] & 1) ? 8 : 0);
        if (c[1] == 0x89 && m == reg) { /* mov %r, %m */
            *src = r;
            return WRITE_COPY;
        }
        if (c[1] == 0x8b && r == reg) { /* mov %m, %r */
            *src = m;
            return WRITE_COPY;
        }
    }
    return WRITE_NONE;
}

bool scal_code_loads(uint64_t lo, uint64_t hi, uint64_t target)
{
    if (!same_object(lo, hi)) return false;
    for (uint64_t p = lo; p < hi; p++)
        for (int reg = 0; reg < 16; reg++) {
            uint64_t a = 0;
            int src;
            if (writes(p, hi, reg, &a, &src) == WRITE_ADDR && a == target) return true;
        }
    return false;
}

/* The outlined function whose address reaches register `reg` at `hi` (the call), following
 * register copies backwards from hi down to lo: 0 when the chain ends elsewhere. */
static uint64_t find_outlined(uint64_t lo, uint64_t hi, int reg, scal_symbol_fn symbol, void *ctx)
{
    if (!same_object(lo, hi)) return 0;
    for (uint64_t p = hi - 1; p >= lo && p < hi; p--) {
        uint64_t a = 0, start = 0;
        int src = -1;
        switch (writes(p, hi, reg, &a, &src)) {
        case WRITE_ADDR:
            if (scal_outlined_name(symbol(ctx, a, &start)) && start == a) return a;
            break; /* a false match inside another instruction: keep looking */
        case WRITE_COPY:
            reg = src;
            hi = p + 1; /* what src held before this copy */
            break;
        case WRITE_NONE:
            break;
        }
    }
    return 0;
}

/* The register holding the outlined body at a call of a fork entry: clang's __kmpc_fork_call and
 * __kmpc_fork_teams take it third (rdx), gcc's GOMP_* first (rdi). */
static int outlined_register(const char *fork_name)
{
    return !strncmp(fork_name, "GOMP_", 5) ? 7 : 2;
}

/* The name of the function a call or jump to t reaches (through a PLT stub). */
static const char *destination_name(uint64_t t, scal_symbol_fn symbol, void *ctx)
{
    Dl_info di;
    uint64_t dest = call_destination(t), start = 0;
    const char *hooked = scal_fork_hook_entry(dest); /* a slot the tool pointed at a trampoline */
    if (hooked) return hooked;
    if (dladdr((void *)(uintptr_t)dest, &di) && di.dli_sname &&
        (uint64_t)(uintptr_t)di.dli_saddr == dest)
        return di.dli_sname;
    const char *name = symbol(ctx, dest, &start);
    return name && start == dest ? name : NULL;
}

/* The name of the function whose address a GOT slot holds (a call or jump through it). */
static const char *slot_name(uint64_t slot)
{
    Dl_info di;
    uint64_t dest;
    if (!same_object(slot, slot + sizeof(dest))) return NULL;
    memcpy(&dest, (const void *)(uintptr_t)slot, sizeof(dest));
    const char *hooked = scal_fork_hook_entry(dest); /* pointed at a trampoline by the tool */
    if (hooked) return hooked;
    if (dladdr((void *)(uintptr_t)dest, &di) && di.dli_sname &&
        (uint64_t)(uintptr_t)di.dli_saddr == dest)
        return di.dli_sname;
    return NULL;
}

/* The name of the function that a jump at p reaches (jmp rel32 through a PLT stub, or jmp
 * *GOT(%rip) with -fno-plt), NULL when the bytes at p are no such jump (6 bytes must be readable).
 */
static const char *jump_name(uint64_t p, scal_symbol_fn symbol, void *ctx)
{
    const unsigned char *c = (const unsigned char *)(uintptr_t)p;
    int32_t d;
    if (c[0] == 0xe9) {
        memcpy(&d, c + 1, sizeof(d));
        return destination_name(p + 5 + (uint64_t)(int64_t)d, symbol, ctx);
    }
    if (c[0] == 0xff && c[1] == 0x25) {
        memcpy(&d, c + 2, sizeof(d));
        return slot_name(p + 6 + (uint64_t)(int64_t)d);
    }
    return NULL;
}

/* In a function that tail-calls the runtime (jmp to a fork entry), the outlined body it hands
 * over. */
static uint64_t tail_outlined(uint64_t fn, scal_symbol_fn symbol, void *ctx, bool *gomp)
{
    if (!same_object(fn, fn + SCAN_BYTES)) return 0;
    for (uint64_t p = fn; p + 6 <= fn + SCAN_BYTES; p++) {
        const char *name = jump_name(p, symbol, ctx);
        if (!fork_entry_name(name)) continue;
        uint64_t o = find_outlined(fn, p, outlined_register(name), symbol, ctx);
        *gomp = !strncmp(name, "GOMP_", 5);
        if (o) return o;
    }
    return 0;
}

struct scal_callsite_info scal_callsite_classify(uint64_t ra, uint64_t fn_start,
                                                 scal_symbol_fn symbol, void *ctx)
{
    struct scal_callsite_info out = {SCAL_CALL_UNKNOWN, 0, 0, false};
    if (!same_object(ra - 6, ra)) return out;
    const unsigned char *c = (const unsigned char *)(uintptr_t)ra;
    uint64_t dest = 0, call = 0;
    const char *name = NULL;
    int32_t d;
    memcpy(&d, c - 4, sizeof(d));
    if (c[-5] == 0xe8) { /* call rel32 */
        dest = ra + (uint64_t)(int64_t)d;
        call = ra - 5;
        name = destination_name(dest, symbol, ctx);
    } else if (c[-6] == 0xff && c[-5] == 0x15) { /* call *GOT(%rip) (-fno-plt) */
        uint64_t slot = ra + (uint64_t)(int64_t)d;
        if (!same_object(slot, slot + sizeof(dest))) return out;
        memcpy(&dest, (const void *)(uintptr_t)slot, sizeof(dest));
        call = ra - 6;
        name = slot_name(slot);
    } else {
        out.kind = SCAL_CALL_INDIRECT; /* through a register or memory: a function pointer */
        return out;
    }
    if (fork_entry_name(name)) {
        out.kind = SCAL_CALL_FORK;
        out.gomp = !strncmp(name, "GOMP_", 5);
        uint64_t lo = call > SCAN_BYTES ? call - SCAN_BYTES : 0;
        if (fn_start && lo < fn_start) lo = fn_start;
        out.outlined = find_outlined(lo, call, outlined_register(name), symbol, ctx);
        return out;
    }
    out.kind = SCAL_CALL_TAIL;
    out.tail_caller = dest;
    out.outlined = tail_outlined(dest, symbol, ctx, &out.gomp);
    return out;
}

/* A clang task created by a function's last statement: the function tail-calls __kmpc_omp_task
 * (its entry went to __kmpc_omp_task_alloc before), so the runtime reports the caller's return
 * address. The jump's own address (its line is the task pragma's), 0 when fn has none. */
#define TASK_SCAN_BYTES 4096
uint64_t scal_tail_task_jump(uint64_t fn, scal_symbol_fn symbol, void *ctx)
{
    uint64_t end = fn + TASK_SCAN_BYTES, start = 0;
    while (end > fn + 6 && !same_object(fn, end))
        end -= 256;
    for (uint64_t p = fn; p + 6 <= end; p++) {
        const char *name = jump_name(p, symbol, ctx);
        if (!name || strcmp(name, "__kmpc_omp_task") != 0) continue;
        /* bytes that only looked like a jump, or the next function's */
        if (!symbol(ctx, p, &start) || start != fn) return 0;
        return p;
    }
    return 0;
}
