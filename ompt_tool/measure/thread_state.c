// SPDX-License-Identifier: BSD-3-Clause
// Per-thread state: created at a thread's first event with all the memory it will ever use
// reserved at once (touched lazily), and registered for the flush.
#define _GNU_SOURCE
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "thread_state.h"

static struct scal_thread **registry;
static _Atomic uint32_t registered;
_Thread_local struct scal_thread *scal_self __attribute__((tls_model("initial-exec")));
static _Thread_local bool self_failed __attribute__((tls_model("initial-exec")));

int scal_threads_init(void)
{
    size_t bytes = (size_t)scal_tool_state.cfg.max_threads * sizeof(*registry);
    registry = scal_reserve_zeroed(bytes);
    return registry ? 0 : -1;
}

static struct scal_thread *create_thread_state(void)
{
    const struct scal_config *cfg = &scal_tool_state.cfg;
    uint32_t gtid = atomic_fetch_add_explicit(&registered, 1, memory_order_relaxed);
    if (gtid >= cfg->max_threads) {
        atomic_fetch_sub_explicit(&registered, 1, memory_order_relaxed);
        scal_diag_count(SCAL_DIAG_threads_beyond_max);
        return NULL;
    }
    size_t off_frames = scal_cache_align(sizeof(struct scal_thread));
    size_t off_insts = off_frames + scal_cache_align(cfg->max_depth * sizeof(struct scal_frame));
    size_t off_map = off_insts + (size_t)cfg->max_depth * scal_tool_state.inst_stride;
    size_t off_rows = off_map + scal_cache_align((size_t)cfg->max_regions * sizeof(uint32_t));
    size_t off_tasks = off_rows + (size_t)cfg->max_regions * scal_tool_state.row_size;
    off_tasks = scal_cache_align(off_tasks);
    size_t total = off_tasks + (size_t)SCAL_TASK_RECORDS * sizeof(struct scal_task);
    unsigned char *base = scal_reserve_zeroed(total);
    if (!base) {
        scal_diag_count(SCAL_DIAG_threads_beyond_max);
        return NULL;
    }
    struct scal_thread *t = (struct scal_thread *)base;
    t->gtid = gtid;
    t->kernel_tid = (int32_t)gettid();
    t->frames = (struct scal_frame *)(base + off_frames);
    t->inst_area = base + off_insts;
    t->row_of_node = (uint32_t *)(base + off_map);
    t->rows = base + off_rows;
    t->task_records = (struct scal_task *)(base + off_tasks);
    t->member_frame = -1;
    if (cfg->trace_entries) t->trace = scal_trace_new(cfg->trace_entries);
    /* Publish last: the flush reads registry entries up to `registered`. */
    atomic_store_explicit((_Atomic(struct scal_thread *) *)&registry[gtid], t,
                          memory_order_release);
    return t;
}

/* The slow path of scal_thread_get (thread_state.h): the calling thread's first event. */
struct scal_thread *scal_thread_create_self(void)
{
    if (scal_self) return scal_self;
    if (self_failed || !registry) return NULL;
    scal_self = create_thread_state();
    if (!scal_self) self_failed = true;
    return scal_self;
}

struct scal_instance *scal_thread_inst(struct scal_thread *t, uint32_t depth)
{
    return (struct scal_instance *)(t->inst_area + (size_t)depth * scal_tool_state.inst_stride);
}

uint32_t scal_threads_count(void)
{
    uint32_t n = atomic_load_explicit(&registered, memory_order_acquire);
    return n < scal_tool_state.cfg.max_threads ? n : scal_tool_state.cfg.max_threads;
}

struct scal_thread *scal_thread_at(uint32_t i)
{
    return atomic_load_explicit((_Atomic(struct scal_thread *) *)&registry[i],
                                memory_order_acquire);
}

struct scal_node_stats *scal_thread_row_if_any(const struct scal_thread *t, uint32_t node)
{
    uint32_t idx = t->row_of_node[node];
    return idx ? (struct scal_node_stats *)(t->rows + (size_t)(idx - 1) * scal_tool_state.row_size)
               : NULL;
}

struct scal_node_stats *scal_thread_row(struct scal_thread *t, uint32_t node)
{
    uint32_t idx = t->row_of_node[node];
    if (__builtin_expect(idx != 0, 1))
        return (struct scal_node_stats *)(t->rows + (size_t)(idx - 1) * scal_tool_state.row_size);
    struct scal_node_stats *s =
        (struct scal_node_stats *)(t->rows + (size_t)t->nrows * scal_tool_state.row_size);
    s->min_ns = UINT64_MAX;
    s->work_inst_min_ns = UINT64_MAX;
    s->team_req_min = s->team_act_min = INT32_MAX;
    s->team_req_max = s->team_act_max = 0;
    t->nrows++;
    t->row_of_node[node] = t->nrows;
    return s;
}
