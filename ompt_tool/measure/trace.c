// SPDX-License-Identifier: BSD-3-Clause
// Optional trace (SCAL_TRACE=N): per-thread bounded buffers of region instances and thread-state
// intervals; the first N of each are kept, the rest are counted as dropped.
#include "trace_buf.h"

struct scal_trace_buf *scal_trace_new(uint32_t entries)
{
    size_t bytes =
        sizeof(struct scal_trace_buf) + (size_t)entries * (sizeof(struct scal_trace_instance_row) +
                                                           sizeof(struct scal_trace_state_row));
    unsigned char *p = scal_reserve_zeroed(bytes);
    if (!p) return NULL;
    struct scal_trace_buf *b = (struct scal_trace_buf *)p;
    b->capacity = entries;
    b->instances = (struct scal_trace_instance_row *)(p + sizeof(*b));
    b->states = (struct scal_trace_state_row *)(b->instances + entries);
    return b;
}

static double rel_s(uint64_t ns)
{
    return (double)(ns - scal_tool_state.start_ns) * 1e-9;
}

void scal_trace_instance(struct scal_thread *t, uint32_t node, uint64_t begin_ns, uint64_t end_ns)
{
    struct scal_trace_buf *b = t->trace;
    if (!b) return;
    if (b->ninstances >= b->capacity) {
        b->dropped++;
        scal_diag_count(SCAL_DIAG_trace_dropped);
        return;
    }
    b->instances[b->ninstances++] =
        (struct scal_trace_instance_row){node, t->gtid, rel_s(begin_ns), rel_s(end_ns)};
}

void scal_trace_state(struct scal_thread *t, uint32_t gtid, uint32_t node, uint8_t state,
                      uint64_t begin_ns, uint64_t end_ns)
{
    struct scal_trace_buf *b = t->trace;
    if (!b) return;
    if (b->nstates >= b->capacity) {
        b->dropped++;
        scal_diag_count(SCAL_DIAG_trace_dropped);
        return;
    }
    b->states[b->nstates++] =
        (struct scal_trace_state_row){gtid, node, state, rel_s(begin_ns), rel_s(end_ns)};
}
