// SPDX-License-Identifier: BSD-3-Clause
// Deferred settlement of parallel-region instances (see team.h): the per-member work, barrier and
// lock sums of an ended instance go into its encountering thread's statistics at that thread's
// next closing barrier, at its next instance's end, or at flush.
//
// Runs on the encountering thread (hot path: no allocation, no lock, no printing), except
// scal_settle_all, which the flush runs for every thread (instances and serial gaps).
#include "team.h"

#include "serial_gap.h"

_Static_assert(SCAL_MAX_DEPTH <= 64, "pending_depths has one bit per depth");

/* Adds one ended instance to the row of its node: the wall time, the team size and, for each member
 * that took part, its work, barrier and lock times (see callbacks.c for their definitions). */
static void settle(struct scal_thread *t, struct scal_instance *inst)
{
    struct scal_team_pending *p = &inst->pending;
    const uint64_t now = p->end_ns, begin = p->begin_ns;
    const uint32_t node = p->node;
    struct scal_node_stats *row = scal_thread_row(t, node);
    scal_stats_add_time(row, now - begin);
    scal_stats_add_team(row, p->requested, p->actual);

    uint32_t n = p->actual > 0 ? (uint32_t)p->actual : 0, members = 0;
    if (n > scal_tool_state.cfg.max_team) n = scal_tool_state.cfg.max_team;
    uint64_t sum_work = 0, max_work = 0, min_work = UINT64_MAX, sum_bar = 0, max_bar = 0,
             sum_lock = 0, max_lock = 0;
    struct scal_slot *slots = scal_team_slot(inst, p->set, 0);
    for (uint32_t i = 0; i < n; i++) {
        struct scal_slot *s = &slots[i];
        uint64_t tb = atomic_load_explicit(&s->barrier_ns, memory_order_acquire);
        uint64_t wb = atomic_load_explicit(&s->work_begin_ns, memory_order_relaxed);
        if (wb < begin) continue; /* this member never started this instance */
        if (tb == 0 || tb > now) tb = now;
        uint64_t busy = tb > wb ? tb - wb : 0;
        uint64_t inner = atomic_load_explicit(&s->inner_wait_ns, memory_order_relaxed);
        uint64_t lock = atomic_load_explicit(&s->lock_ns, memory_order_relaxed);
        /* written before the runtime saw the member's last task complete, hence before now */
        uint64_t joined = atomic_load_explicit(&s->join_task_ns, memory_order_relaxed);
        if (joined > now - tb) joined = now - tb;
        uint64_t work = (busy > inner + lock ? busy - inner - lock : 0) + joined;
        uint64_t bar = inner + (now - tb) - joined;
        struct scal_team_total *tt = &row->team[i];
        tt->instances++;
        tt->work_ns += work;
        tt->barrier_ns += bar;
        tt->lock_ns += lock;
        if (i + 1 > row->team_tracked) row->team_tracked = i + 1;
        sum_work += work;
        sum_bar += bar;
        sum_lock += lock;
        if (work > max_work) max_work = work;
        if (work < min_work) min_work = work;
        if (bar > max_bar) max_bar = bar;
        if (lock > max_lock) max_lock = lock;
        members++;
        if (t->trace) {
            uint32_t gtid = atomic_load_explicit(&s->gtid, memory_order_relaxed);
            scal_trace_state(t, gtid, node, SCAL_STATE_WORK, wb, tb);
            scal_trace_state(t, gtid, node, SCAL_STATE_BARRIER, tb, now);
        }
    }
    if (members) {
        row->work_ns += sum_work;
        row->work_inst_max_ns += max_work;
        row->work_inst_min_ns =
            row->work_inst_min_ns == UINT64_MAX ? min_work : row->work_inst_min_ns + min_work;
        row->barrier_ns += sum_bar;
        row->barrier_inst_max_ns += max_bar;
        row->lock_ns += sum_lock;
        row->lock_inst_max_ns += max_lock;
        row->inst_mean_work_ns += (double)sum_work / members;
    }
    if (t->trace) scal_trace_instance(t, node, begin, now);
}

/* Settles depth d of t if an instance waits there. The bit is cleared only afterwards, so a
 * concurrent flush (exit() inside a region) can at worst settle it twice, never lose it. */
static inline void settle_depth(struct scal_thread *t, uint32_t depth)
{
    uint64_t mask = atomic_load_explicit(&t->pending_depths, memory_order_relaxed);
    if (!(mask & 1ull << depth)) return;
    settle(t, scal_thread_inst(t, depth));
    atomic_store_explicit(&t->pending_depths, mask & ~(1ull << depth), memory_order_relaxed);
}

void scal_team_settle(struct scal_thread *t, uint32_t depth)
{
    settle_depth(t, depth);
}

void scal_team_end(struct scal_thread *t, struct scal_instance *inst, uint32_t depth, unsigned set,
                   uint64_t begin_ns, uint64_t end_ns)
{
    settle_depth(t, depth); /* not settled when its primary's member frame ended */
    struct scal_team_pending *p = &inst->pending;
    p->begin_ns = begin_ns;
    p->end_ns = end_ns;
    p->node = inst->node;
    p->requested = inst->requested;
    p->actual = atomic_load_explicit(&inst->actual, memory_order_relaxed);
    p->set = (uint8_t)set;
    atomic_store_explicit(&t->pending_depths,
                          atomic_load_explicit(&t->pending_depths, memory_order_relaxed) |
                              1ull << depth,
                          memory_order_relaxed);
}

/* At a normal end every other thread is idle in the runtime; after exit() inside a region or a
 * signal some may still run while their pending instances are settled here: a best-effort read of
 * their state, like the writer's reading of their stacks, kept out of TSan's view. */
__attribute__((no_sanitize("thread"))) void scal_settle_all(void)
{
    uint32_t n = scal_threads_count();
    for (uint32_t i = 0; i < n; i++) {
        struct scal_thread *t = scal_thread_at(i);
        if (!t) continue;
        uint64_t mask = atomic_load_explicit(&t->pending_depths, memory_order_relaxed);
        while (mask) {
            uint32_t d = (uint32_t)__builtin_ctzll(mask);
            mask &= mask - 1;
            settle_depth(t, d);
        }
        scal_serial_gap_settle(t);
    }
}
