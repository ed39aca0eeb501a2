// SPDX-License-Identifier: BSD-3-Clause
// The real call site of a parallel region when the runtime reports one of its own addresses.
//
// libomp 14 gives nested parallel regions the codeptr_ra of __kmp_invoke_microtask (and a stale
// enter frame), which would make every nested region look the same. When codeptr_ra lies inside the
// runtime, the encountering thread unwinds its stack (libgcc's unwinder, .eh_frame) to the first
// frame outside the runtime and this tool: the return address into the outlined region body that
// called __kmpc_fork_call. Only such events pay for the unwind. When that call was a tail call
// (the body ends with the nested region), no frame of it is left: the runtime's address stays the
// key (distinct per parent node) and the writer labels the region accordingly.
#define _GNU_SOURCE
#include <unwind.h>

#include "loaded_object.h"
#include "tool.h"

struct range {
    uintptr_t lo, hi;
};
static struct range runtime_text, tool_text;

static void range_of(const void *addr, struct range *out)
{
    struct scal_loaded_object o;
    if (!scal_loaded_object_at((uintptr_t)addr, &o)) return;
    out->lo = o.text_lo;
    out->hi = o.text_hi;
}

/* libgcc's unwinder is linked into this library (-static-libgcc, ompt_tool/CMakeLists.txt): no
 * libgcc_s to load, whose constructor's CPUID instructions cost every process ~0.1 ms of CPU in a
 * VM (they trap to the hypervisor), and no dlopen at the first unwind, which could wait for the
 * loader's lock while a library's constructor holding it waits for this thread
 * (tests/tool/programs/ctor_taskloop.c). It finds each object's unwind tables through the loader's
 * list of objects, as libgcc_s does. */

void scal_callsite_init(const void *runtime_function)
{
    range_of(runtime_function, &runtime_text);
    range_of((const void *)scal_callsite_init, &tool_text);
}

bool scal_callsite_in_runtime(const void *codeptr)
{
    uintptr_t a = (uintptr_t)codeptr;
    return a >= runtime_text.lo && a < runtime_text.hi;
}

/* Frames unwound at most: the runtime and the tool sit between the callback and the region body. */
#define MAX_UNWIND_FRAMES 16

struct walk {
    uintptr_t found, reported;
    int frames;
};

static _Unwind_Reason_Code visit(struct _Unwind_Context *ctx, void *data)
{
    struct walk *w = data;
    uintptr_t ip = (uintptr_t)_Unwind_GetIP(ctx);
    if (++w->frames > MAX_UNWIND_FRAMES || ip == 0) return _URC_END_OF_STACK;
    /* Reaching the frame the runtime reported means the region body's call to the runtime was a
     * tail call: its frame is gone, and what lies above is the enclosing region's call site. */
    if (ip == w->reported) return _URC_END_OF_STACK;
    bool inside = (ip >= runtime_text.lo && ip < runtime_text.hi) ||
                  (ip >= tool_text.lo && ip < tool_text.hi);
    if (inside) return _URC_NO_REASON;
    w->found = ip;
    return _URC_END_OF_STACK;
}

const void *scal_callsite_outside_runtime(const void *fallback)
{
    struct walk w = {0, (uintptr_t)fallback, 0};
    _Unwind_Backtrace(visit, &w);
    return w.found ? (const void *)w.found : fallback;
}

const void *scal_callsite_caller_outside_runtime(const void *fallback)
{
    struct walk w = {0, 0, 0}; /* the reported frame is a real one: walk past it */
    _Unwind_Backtrace(visit, &w);
    return w.found ? (const void *)w.found : fallback;
}
