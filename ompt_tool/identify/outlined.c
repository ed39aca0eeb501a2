// SPDX-License-Identifier: BSD-3-Clause
// Finding a parallel region's outlined body from its call site in the machine code (at flush,
// never in callbacks): the runtime's fork entry (clang's __kmpc_fork_call, gcc's GOMP_parallel*)
// receives the outlined function's address in an argument register, loaded by the few
// instructions before the call (x86-64: lea reg,[rip+disp32] or mov $imm32,reg; aarch64: adrp +
// add or adr), possibly through register copies: a loop may hoist the load. A call site that does
// not call a fork entry is the return address of a function that tail-called it: a direct call
// names that function, whose own code loads the outlined body; an indirect call (a function
// pointer) names nothing. The instructions are read by outlined_isa.h (one file per architecture).
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "outlined.h"
#include "outlined_isa.h"
#include "process_view.h"

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

/* True when [a, b) lies in one loaded segment of one object, whose code can be read there
 * (process_view.h). */
static bool same_object(uint64_t a, uint64_t b)
{
    return scal_view_readable(a, b);
}

bool scal_code_loads(uint64_t lo, uint64_t hi, uint64_t target)
{
    if (!SCAL_ISA_KNOWN || !same_object(lo, hi)) return false;
    for (uint64_t p = (lo + SCAL_ISA_ALIGN - 1) & ~(uint64_t)(SCAL_ISA_ALIGN - 1); p < hi;
         p += SCAL_ISA_ALIGN)
        for (int reg = 0; reg < SCAL_ISA_REGS; reg++) {
            uint64_t a = 0;
            int src;
            if (scal_isa_writes(lo, p, hi, reg, &a, &src) == SCAL_WRITE_ADDR && a == target)
                return true;
        }
    return false;
}

/* The outlined function whose address reaches register `reg` at `hi` (the call), following
 * register copies backwards from hi down to lo: 0 when the chain ends elsewhere. */
static uint64_t find_outlined(uint64_t lo, uint64_t hi, int reg, scal_symbol_fn symbol, void *ctx)
{
    if (!same_object(lo, hi)) return 0;
    for (uint64_t p = hi - SCAL_ISA_ALIGN; p >= lo && p < hi; p -= SCAL_ISA_ALIGN) {
        uint64_t a = 0, start = 0;
        int src = -1;
        switch (scal_isa_writes(lo, p, hi, reg, &a, &src)) {
        case SCAL_WRITE_ADDR:
            if (scal_outlined_name(symbol(ctx, a, &start)) && start == a) return a;
            break; /* a false match inside another instruction: keep looking */
        case SCAL_WRITE_COPY:
            reg = src;
            hi = p + SCAL_ISA_ALIGN; /* what src held before this copy */
            break;
        case SCAL_WRITE_NONE:
            break;
        }
    }
    return 0;
}

/* The register holding the outlined body at a call of a fork entry: clang's __kmpc_fork_call and
 * __kmpc_fork_teams take it third, gcc's GOMP_* first. */
static int outlined_register(const char *fork_name)
{
    return scal_isa_arg_register(!strncmp(fork_name, "GOMP_", 5) ? 0 : 2);
}

/* The name of the function starting at dest: the fork entry when the tool pointed a slot there at
 * its trampoline, else the symbol starting there. */
static const char *function_named(uint64_t dest, scal_symbol_fn symbol, void *ctx)
{
    uint64_t start = 0;
    const char *hooked = scal_view_hooked(dest);
    if (hooked) return hooked;
    const char *name = symbol(ctx, dest, &start);
    return name && start == dest ? name : NULL;
}

/* The name of the function a call through a word in memory reaches: a GOT slot's by the symbol
 * its relocation names (the fork entry when the tool pointed it at a trampoline), a table of
 * function pointers' by the symbol at the address it holds. */
static const char *slot_name(uint64_t slot, scal_symbol_fn symbol, void *ctx)
{
    uint64_t dest;
    const struct scal_rq_slot *s = scal_view_slot(slot);
    if (s) return s->hooked[0] ? s->hooked : s->name;
    return scal_view_word(slot, &dest) ? function_named(dest, symbol, ctx) : NULL;
}

/* The name of the function a call or jump to t reaches: through a PLT stub, its GOT slot's. */
static const char *destination_name(uint64_t t, scal_symbol_fn symbol, void *ctx)
{
    if (same_object(t, t + SCAL_ISA_PLT_BYTES)) {
        uint64_t slot = scal_isa_plt_slot(t);
        const struct scal_rq_slot *s = slot ? scal_view_slot(slot) : NULL;
        if (s) return s->hooked[0] ? s->hooked : s->name;
    }
    return function_named(t, symbol, ctx); /* or bytes that only looked like a stub */
}

/* The name of the function that a jump at p (in the code [lo, end)) reaches: jmp/b through a PLT
 * stub, or through a GOT slot with -fno-plt; NULL when the bytes at p are no such jump. */
static const char *jump_name(uint64_t lo, uint64_t p, uint64_t end, scal_symbol_fn symbol,
                             void *ctx)
{
    uint64_t target = 0;
    switch (scal_isa_jump_at(lo, p, end, &target)) {
    case SCAL_BRANCH_DIRECT:
        return destination_name(target, symbol, ctx);
    case SCAL_BRANCH_SLOT:
        return slot_name(target, symbol, ctx);
    default:
        return NULL;
    }
}

/* In a function that tail-calls the runtime (a jump to a fork entry), the outlined body it hands
 * over. */
static uint64_t tail_outlined(uint64_t fn, scal_symbol_fn symbol, void *ctx, bool *gomp)
{
    uint64_t end = fn + SCAN_BYTES;
    if (!SCAL_ISA_KNOWN || !same_object(fn, end)) return 0;
    for (uint64_t p = fn; p + SCAL_ISA_CALL_BYTES <= end; p += SCAL_ISA_ALIGN) {
        const char *name = jump_name(fn, p, end, symbol, ctx);
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
    if (!SCAL_ISA_KNOWN || !same_object(ra - SCAL_ISA_CALL_BYTES, ra)) return out;
    uint64_t lo = ra > SCAN_BYTES ? ra - SCAN_BYTES : 0, dest = 0, call = 0, target = 0;
    if (fn_start && lo < fn_start) lo = fn_start;
    if (!same_object(lo, ra)) lo = ra - SCAL_ISA_CALL_BYTES;
    const char *name = NULL;
    switch (scal_isa_call_before(lo, ra, &call, &target)) {
    case SCAL_BRANCH_DIRECT:
        dest = target;
        name = destination_name(dest, symbol, ctx);
        break;
    case SCAL_BRANCH_SLOT: /* through a GOT slot (-fno-plt), or a table of function pointers */
        if (!scal_view_word(target, &dest)) return out;
        name = slot_name(target, symbol, ctx);
        break;
    default:
        out.kind = SCAL_CALL_INDIRECT; /* through a register or memory: a function pointer */
        return out;
    }
    if (fork_entry_name(name)) {
        out.kind = SCAL_CALL_FORK;
        out.gomp = !strncmp(name, "GOMP_", 5);
        lo = call > SCAN_BYTES ? call - SCAN_BYTES : 0;
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
    if (!SCAL_ISA_KNOWN) return 0;
    while (end > fn + SCAL_ISA_CALL_BYTES && !same_object(fn, end))
        end -= 256;
    for (uint64_t p = fn; p + SCAL_ISA_CALL_BYTES <= end; p += SCAL_ISA_ALIGN) {
        const char *name = jump_name(fn, p, end, symbol, ctx);
        if (!name || strcmp(name, "__kmpc_omp_task") != 0) continue;
        /* bytes that only looked like a jump, or the next function's */
        if (!symbol(ctx, p, &start) || start != fn) return 0;
        return p;
    }
    return 0;
}
