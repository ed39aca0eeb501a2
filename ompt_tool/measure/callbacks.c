// SPDX-License-Identifier: BSD-3-Clause
// The OMPT callbacks: the measurement hot path.
//
// Every callback runs on the thread whose event it reports, touches only that thread's state (and
// its own team slot), never allocates after the thread's first event, never locks (except the
// one-time insertion of a new node), never prints. Anomalies are counted in scal_diag_counters.
//
// Times of one parallel-region instance:
//   wall    = parallel_end - parallel_begin on the encountering thread (overlap counted once);
//   member i: work    = [implicit-task begin, join-barrier begin] minus inner waits and lock waits,
//             barrier = inner barrier/taskwait waits + [join-barrier begin, parallel_end],
//             lock    = mutex_acquire -> mutex_acquired.
// A worker's implicit-task end and join-barrier end arrive late (when it is woken for the next
// region), so the join-barrier begin marks the end of its work and parallel_end the end of its
// wait.
// Explicit tasks: time a thread spends running explicit-task code (task_schedule) is work, even
// inside a barrier or taskwait; it is taken out of the wait it happened in (inner waits and the
// closing barrier) and also counted, per task construct, in a child node of kind task.
#include <omp-tools.h>
#include <string.h>

#include "fork_hook.h"
#include "sensor_hooks.h"
#include "serial_gap.h"
#include "team.h"
#include "thread_state.h"
#include "tool.h"

/* parallel_data belongs to the runtime: libomp copies it into the team after parallel_begin
 * returns and publishes the team to the workers through its own synchronisation, which TSan cannot
 * see (libomp is not instrumented). The one read of it is therefore kept out of TSan's view; the
 * memory it points to (our instance) is published with release/acquire on its generation. It holds
 * the instance tagged with its slot set (team.h). */
__attribute__((no_sanitize("thread"))) static struct scal_instance *
instance_of(const ompt_data_t *parallel_data, unsigned *set)
{
    return scal_team_untag(parallel_data ? parallel_data->ptr : NULL, set);
}

#define MAX_DEPTH (scal_tool_state.cfg.max_depth)
#define MAX_TEAM (scal_tool_state.cfg.max_team)

static inline struct scal_frame *top_frame(struct scal_thread *t)
{
    return t->depth ? &t->frames[t->depth - 1] : NULL;
}

static inline bool at_top_level(const struct scal_thread *t)
{
    return t->is_initial && t->depth == 1 && t->frames[0].role == SCAL_FRAME_ROOT &&
           t->task_cur == NULL;
}

/* Serial code between two consecutive top-level regions of the initial thread is a node too. Its
 * length goes into the gap node's statistics later (scal_serial_gap_settle), where the thread waits
 * at the next region's closing barrier, not on the way from one region to the next. */
void scal_serial_gap_before(struct scal_thread *t, uint32_t next_node, uint64_t now)
{
    if (!at_top_level(t)) return;
    struct scal_frame *root = &t->frames[0];
    if (root->gap_cache_prev != root->last_child_node ||
        root->gap_cache_next != (int32_t)next_node || root->gap_cache_node == 0) {
        root->gap_cache_prev = root->last_child_node;
        root->gap_cache_next = (int32_t)next_node;
        root->gap_cache_node = scal_node_lookup(SCAL_KIND_SERIAL, 0, 0, NULL, root->last_child_node,
                                                (int32_t)next_node);
    }
    scal_serial_gap_settle(t); /* the previous one, if no closing barrier came in between */
    t->gap_pending_ns = now > root->last_child_end_ns ? now - root->last_child_end_ns : 0;
    t->gap_pending_node = root->gap_cache_node;
}

void scal_child_ended(struct scal_thread *t, uint32_t node, uint64_t now)
{
    if (at_top_level(t)) {
        t->frames[0].last_child_end_ns = now;
        t->frames[0].last_child_node = (int32_t)node;
        scal_modules_refresh(); /* in no team: may wait for the dynamic loader */
        scal_fork_hooks_refresh();
    } else if (t->depth == 0 && t->task_cur == NULL) {
        scal_fork_hooks_refresh(); /* another root thread (a pthread), in no team either */
    }
}

void scal_root_open(struct scal_thread *t)
{
    struct scal_frame *f = &t->frames[0];
    memset(f, 0, sizeof(*f));
    f->node = 0;
    f->kind = SCAL_KIND_ROOT;
    f->role = SCAL_FRAME_ROOT;
    f->begin_ns = scal_tool_state.start_ns;
    f->last_child_end_ns = scal_tool_state.start_ns;
    f->last_child_node = -1;
    f->gap_cache_node = 0;
    t->depth = 1;
    t->is_initial = true;
}

/* ---- explicit tasks ------------------------------------------------------------------------ */

/* Brings the task-code clocks up to now (call before the running task or a wait changes). */
static inline void task_clock(struct scal_thread *t, uint64_t now)
{
    if (t->in_task_code) {
        uint64_t d = now - t->task_since_ns;
        t->task_ns += d;
        t->task_cur->own_ns += d;
    }
    t->task_since_ns = now;
}

static inline void task_recompute(struct scal_thread *t)
{
    t->in_task_code = t->task_cur && t->task_cur->waits == 0;
}

/* A task's ompt_data_t holds its record (NULL: a task the tool did not see created, or an implicit
 * task, whose data the tool never writes). The creating thread writes it, the threads that run the
 * task read it and the record; the runtime publishes the task between them through its own
 * synchronisation, which TSan cannot see (libomp is not instrumented): these accesses are kept out
 * of its view, and a TSan build hands the record over with release/acquire (team.h). */
__attribute__((no_sanitize("thread"))) static void task_data_set(ompt_data_t *d,
                                                                 struct scal_task *k)
{
    d->ptr = k;
}

__attribute__((no_sanitize("thread"))) static struct scal_task *task_of(const ompt_data_t *d)
{
    return d ? (struct scal_task *)d->ptr : NULL;
}

/* The encountering thread names the task construct: a node of kind task under the region it is in.
 * A task created by a task belongs to the creating task's region: the creating task may run in the
 * closing barrier, after this thread left the region's frame, or on another thread. */
static void on_task_create(ompt_data_t *encountering_task_data,
                           const ompt_frame_t *encountering_task_frame, ompt_data_t *new_task_data,
                           int flags, int has_dependences, const void *codeptr_ra)
{
    task_data_set(new_task_data, NULL);
    if (!(flags & ompt_task_explicit)) return;
    struct scal_thread *t = scal_thread_get();
    if (!t) return;
    struct scal_task *k = scal_task_get(t);
    if (!k) {
        scal_diag_count(SCAL_DIAG_tasks_beyond_pool);
        return;
    }
    struct scal_task *creator = t->task_cur;
    int32_t parent =
        creator && creator->depth == t->depth ? creator->parent : scal_innermost_node(t);
    uint32_t node;
    /* only a taskloop creates tasks from inside the runtime */
    bool from_runtime =
        __builtin_expect(t->taskloop_codeptr || (creator && creator->taskloop), 0) &&
        scal_callsite_in_runtime(codeptr_ra);
    if (from_runtime && creator && creator->taskloop) {
        /* A taskloop task created by one of the taskloop's tasks: libomp splits a large taskloop
         * into tasks that create the rest (also on other threads). They are the taskloop's; the
         * splitting task is the runtime's bookkeeping, not one of the taskloop's tasks. */
        node = creator->node;
        parent = creator->parent;
        creator->splitter = true;
    } else {
        if (from_runtime && t->taskloop_codeptr) codeptr_ra = t->taskloop_codeptr;
        uint64_t key = (uint64_t)(uintptr_t)codeptr_ra;
        /* shares the parallel-node cache: a task's call site is never a parallel region's */
        unsigned slot = (unsigned)((key >> 4) ^ (uint64_t)parent) & (SCAL_NODE_CACHE_SLOTS - 1u);
        if (t->node_cache[slot].codeptr == key && t->node_cache[slot].parent == ~parent && key) {
            node = t->node_cache[slot].node;
        } else {
            node = scal_node_lookup(SCAL_KIND_TASK, parent, key, NULL, -1, -1);
            t->node_cache[slot].codeptr = key;
            t->node_cache[slot].body = 0;
            t->node_cache[slot].parent = ~parent; /* parallel entries hold parent >= 0 */
            t->node_cache[slot].node = node;
        }
    }
    k->node = node;
    k->parent = parent;
    k->own_ns = 0;
    k->waits = 0; /* depth: set where it starts to run */
    k->taskloop = from_runtime;
    k->splitter = false;
    SCAL_TEAM_JOIN_RELEASE(k);
    task_data_set(new_task_data, k);
}

/* The thread switches from `prior` to `next` at a scheduling point: task start or resumption
 * (ompt_task_switch, also when an untied task's part ends and it returns to the task that
 * scheduled it), taskyield, completion, cancellation or detachment of `prior`. Whatever ran on the
 * thread up to now is the running task's; `next` runs from now on. No order among tasks is assumed:
 * untied tasks resume on any thread, tied tasks interleave at every scheduling point. */
static void on_task_schedule(ompt_data_t *prior_task_data, ompt_task_status_t prior_task_status,
                             ompt_data_t *next_task_data)
{
    /* a detached task's event fulfilled elsewhere: it no longer runs, no thread switches */
    if (prior_task_status == ompt_task_early_fulfill || prior_task_status == ompt_task_late_fulfill)
        return;
    struct scal_thread *t = scal_thread_get();
    if (!t) return;
    uint64_t now = scal_now_ns();
    task_clock(t, now);
    struct scal_task *prior = task_of(prior_task_data), *next = task_of(next_task_data);
    /* libomp runs the continuation of an untied task that it could not defer, nested in the part
     * that scheduled it, right after reporting the switch back to the scheduling task: the task
     * then "switches" to itself from whatever ran. Any other prior that is not the running task
     * means a switch the tool did not see: the running task got the time up to now. */
    if (__builtin_expect(prior != t->task_cur && prior != next, 0))
        scal_diag_count(SCAL_DIAG_task_unmatched);
    if (prior && prior_task_status != ompt_task_switch && prior_task_status != ompt_task_yield) {
        /* its code is over (complete, cancel, detach): one instance of its node */
        SCAL_TEAM_JOIN_ACQUIRE(prior);
        if (!prior->splitter) {
            struct scal_node_stats *row = scal_thread_row(t, prior->node);
            scal_stats_add_time(row, prior->own_ns);
            row->work_ns += prior->own_ns;
        }
        task_data_set(prior_task_data, NULL);
        scal_task_put(t, prior);
    } else if (prior) {
        SCAL_TEAM_JOIN_RELEASE(prior); /* it may resume on another thread */
    }
    if (next) {
        SCAL_TEAM_JOIN_ACQUIRE(next);
        next->depth = t->depth;
    }
    t->task_cur = next;
    task_recompute(t);
    if (t->join_slot)
        atomic_store_explicit(&t->join_slot->join_task_ns, t->task_ns - t->join_task_mark,
                              memory_order_release);
}

/* A region encountered by an explicit task: the thread runs the region's implicit task (and its
 * explicit tasks) until parallel_end, then the task again. The region's whole time is the task's
 * (a node's time includes its children's); in task_ns it replaces what the region's own explicit
 * tasks added meanwhile. */
static inline void task_suspend(struct scal_thread *t, struct scal_frame *f, uint64_t now)
{
    task_clock(t, now);
    f->saved_task = t->task_cur;
    f->saved_task_ns = t->task_ns;
    t->task_cur = NULL;
    t->in_task_code = false;
}

static inline void task_resume(struct scal_thread *t, struct scal_frame *f, uint64_t now)
{
    struct scal_task *k = f->saved_task;
    task_clock(t, now);
    if (__builtin_expect(t->task_cur != NULL, 0)) /* a task of the region never switched back */
        scal_diag_count(SCAL_DIAG_task_left_running);
    t->task_cur = k;
    if (k && k->waits == 0) {
        uint64_t d = now - f->begin_ns;
        k->own_ns += d;
        t->task_ns = f->saved_task_ns + d;
    }
    task_recompute(t);
}

/* ---- parallel regions ---------------------------------------------------------------------- */

static void on_parallel_begin(ompt_data_t *encountering_task_data,
                              const ompt_frame_t *encountering_task_frame,
                              ompt_data_t *parallel_data, unsigned int requested_parallelism,
                              int flags, const void *codeptr_ra)
{
    struct scal_thread *t = scal_thread_get();
    parallel_data->ptr = NULL;
    if (!t) return;
    uint64_t now = scal_now_ns();
    const void *reported = codeptr_ra;
    if (__builtin_expect(scal_callsite_in_runtime(codeptr_ra), 0))
        codeptr_ra = scal_callsite_outside_runtime(codeptr_ra);
    /* the outlined body, noted by a fork trampoline: tells apart bodies behind one call site */
    uint64_t body = scal_fork_body_take(reported, codeptr_ra);
    int32_t parent = scal_region_parent(t);
    uint64_t key = (uint64_t)(uintptr_t)codeptr_ra;
    /* call sites and bodies are at least 16 bytes apart in practice: the low bits carry little */
    unsigned slot =
        (unsigned)((key >> 4) ^ (body >> 4) ^ (uint64_t)parent) & (SCAL_NODE_CACHE_SLOTS - 1u);
    uint32_t node;
    if (t->node_cache[slot].codeptr == key && t->node_cache[slot].body == body &&
        t->node_cache[slot].parent == parent && key) {
        node = t->node_cache[slot].node;
    } else {
        if (!body) scal_fork_hooks_want(); /* its module may have been loaded since */
        node = scal_node_lookup_fork(parent, key, body);
        t->node_cache[slot].codeptr = key;
        t->node_cache[slot].body = body;
        t->node_cache[slot].parent = parent;
        t->node_cache[slot].node = node;
    }
    scal_serial_gap_before(t, node, now);
    if (t->depth >= MAX_DEPTH) {
        scal_diag_count(SCAL_DIAG_stack_overflow);
        return;
    }
    struct scal_instance *inst = scal_thread_inst(t, t->depth);
    struct scal_frame *f = &t->frames[t->depth++];
    f->node = node;
    f->kind = SCAL_KIND_PARALLEL;
    f->role = SCAL_FRAME_ENCOUNTER;
    f->begin_ns = now;
    f->inst = inst;
    f->set = (uint8_t)scal_team_next_set(inst); /* the previous instance may await settlement */
    f->sensed = t->sensors != NULL;
    inst->node = node;
    inst->requested = (int32_t)requested_parallelism;
    inst->begin_ns = now;
    inst->codeptr = codeptr_ra;
    atomic_store_explicit(&inst->actual, (int32_t)requested_parallelism, memory_order_relaxed);
    /* Release publishes the fields above to members that read them lazily (the runtime's own fork
     * is invisible to TSan). Only this thread writes the generation. */
    atomic_store_explicit(&inst->generation,
                          atomic_load_explicit(&inst->generation, memory_order_relaxed) + 1,
                          memory_order_release);
    parallel_data->ptr = scal_team_tag(inst, f->set);
    task_suspend(t, f, now);
    scal_wall_enter(node, now);
    if (f->sensed) scal_sensor_enter(t->sensors, scal_frame_level(t, f), 1);
}

/* A member reached the join barrier (or its implicit task ended without one): its work is done.
 * Explicit tasks it runs from now on until the barrier ends go to its slot's join_task_ns. The
 * primary thread then settles the previous instance at this depth (team.h): it waits for the team
 * now, and the slots of that instance are no longer written. */
static void member_done(struct scal_thread *t, struct scal_frame *f, uint64_t now)
{
    struct scal_slot *s = f->slot;
    if (s) {
        atomic_store_explicit(&s->join_task_ns, 0, memory_order_relaxed);
        atomic_store_explicit(&s->barrier_ns, now, memory_order_release);
        t->join_slot = s;
        t->join_task_mark = t->task_ns;
    }
    if (f->sensed)
        scal_sensor_exit(t->sensors, scal_frame_level(t, f), scal_frame_node(f), f->team_index, 0);
    SCAL_TEAM_JOIN_RELEASE(f->inst); /* after this member's last read of the instance */
    t->member_frame = f->prev_member;
    t->depth--;
    atomic_store_explicit(&t->depth_published, t->depth, memory_order_relaxed);
    /* the primary thread's member frame sits right above its encountering frame of f->inst */
    if (f->team_index == 0 && t->depth >= 1 && t->frames[t->depth - 1].inst == f->inst) {
        scal_team_settle(t, t->depth - 1);
        scal_serial_gap_settle(t);
    }
}

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                             ompt_data_t *task_data, unsigned int actual_parallelism,
                             unsigned int index, int flags)
{
    if (flags & ompt_task_initial) return; /* the initial task of a thread: no region */
    struct scal_thread *t = scal_thread_get();
    if (!t) return;
    if (endpoint == ompt_scope_begin) {
        unsigned set;
        struct scal_instance *inst = instance_of(parallel_data, &set);
        if (!inst) {
            scal_diag_count(SCAL_DIAG_unknown_parallel);
            return;
        }
        uint64_t now = scal_now_ns();
        if (t->depth >= MAX_DEPTH) {
            scal_diag_count(SCAL_DIAG_stack_overflow);
            return;
        }
        struct scal_frame *f = &t->frames[t->depth];
        /* The primary thread owns the instance and knows its node; a worker learns it lazily. */
        f->node = index == 0 ? inst->node : SCAL_NODE_LAZY;
        f->kind = SCAL_KIND_PARALLEL;
        f->role = SCAL_FRAME_MEMBER;
        f->team_index = index;
        f->begin_ns = now;
        f->inst = inst;
        f->slot = index < MAX_TEAM ? scal_team_slot(inst, set, index) : NULL;
        f->task_data = task_data;
        f->prev_member = t->member_frame;
        t->join_slot = NULL;
        if (__builtin_expect(index != 0 && t->task_cur != NULL, 0)) {
            /* a worker joining a team runs no explicit task: one marked running lost its end */
            scal_diag_count(SCAL_DIAG_task_left_running);
            t->task_cur = NULL;
            t->in_task_code = false;
        }
        /* The primary thread's readings belong to its encountering frame below; other members
         * read only when some metric is thread-scoped. */
        f->sensed = index != 0 && scal_sensor_member_reads(t->sensors);
        t->member_frame = (int)t->depth;
        t->depth++;
        atomic_store_explicit(&t->depth_published, t->depth, memory_order_relaxed);
        if (f->slot) {
            struct scal_slot *s = f->slot;
            atomic_store_explicit(&s->work_begin_ns, now, memory_order_relaxed);
            atomic_store_explicit(&s->inner_wait_ns, 0, memory_order_relaxed);
            atomic_store_explicit(&s->lock_ns, 0, memory_order_relaxed);
            atomic_store_explicit(&s->join_task_ns, 0, memory_order_relaxed);
            atomic_store_explicit(&s->gtid, t->gtid, memory_order_relaxed);
        } else {
            scal_diag_count(SCAL_DIAG_team_beyond_max);
        }
        if (index == 0)
            atomic_store_explicit(&inst->actual, (int32_t)actual_parallelism, memory_order_relaxed);
        if (f->sensed) scal_sensor_enter(t->sensors, scal_frame_level(t, f), 0);
    } else {
        /* A worker's late end finds another frame (or none) on top and is ignored. The runtime's
         * task_data is compared, never written: its memory is the runtime's. */
        struct scal_frame *f = top_frame(t);
        if (f && f->role == SCAL_FRAME_MEMBER && f->task_data == task_data)
            member_done(t, f, scal_now_ns());
    }
}

/* parallel_end arrives on the encountering thread, and the regions a thread encounters nest
 * strictly, so the region ending is this thread's innermost ENCOUNTER frame. The runtime's
 * parallel_data only says whether the tool tracked the region at all: libomp 14 reads it from the
 * team after returning the team to its pool, so with nested teams another thread's region, forked
 * meanwhile on the reused team, can already have replaced it. The instance's times and team are
 * recorded for settlement at this thread's next closing barrier (team.h). */
static void on_parallel_end(ompt_data_t *parallel_data, ompt_data_t *encountering_task_data,
                            int flags, const void *codeptr_ra)
{
    struct scal_thread *t = scal_thread_get();
    unsigned set;
    if (!t || !instance_of(parallel_data, &set)) return;
    uint64_t now = scal_now_ns();
    struct scal_frame *f = top_frame(t);
    /* The primary thread's own member frame (its implicit-task end did not pop it). */
    if (f && f->role == SCAL_FRAME_MEMBER && t->depth >= 2 &&
        t->frames[t->depth - 2].role == SCAL_FRAME_ENCOUNTER &&
        t->frames[t->depth - 2].inst == f->inst) {
        member_done(t, f, now);
        f = top_frame(t);
    }
    if (!f || f->role != SCAL_FRAME_ENCOUNTER || f->kind != SCAL_KIND_PARALLEL) {
        scal_diag_count(SCAL_DIAG_unmatched_end); /* e.g. a user region left open inside it */
        return;
    }
    uint32_t node = f->node;
    SCAL_TEAM_JOIN_ACQUIRE(f->inst);
    /* at the event, not at the deferred settlement: the union needs enters and exits in order */
    scal_wall_exit(node, now);
    if (f->sensed) scal_sensor_exit(t->sensors, scal_frame_level(t, f), node, 0, 1);
    t->depth--;
    scal_team_end(t, f->inst, t->depth, f->set, f->begin_ns, now);
    t->join_slot = NULL;
    task_resume(t, f, now);
    scal_child_ended(t, node, now);
}

/* ---- synchronisation, locks, worksharing ---------------------------------------------------- */

static inline struct scal_slot *member_slot(struct scal_thread *t)
{
    return t->member_frame < 0 ? NULL : t->frames[t->member_frame].slot;
}

/* A member reads the instance's call site, written by the encountering thread at parallel_begin
 * and published by the generation's release (a plain load on x86). */
static inline const void *instance_codeptr(struct scal_instance *inst)
{
    (void)atomic_load_explicit(&inst->generation, memory_order_acquire);
    return inst->codeptr;
}

static void on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                           ompt_data_t *parallel_data, ompt_data_t *task_data,
                           const void *codeptr_ra)
{
    struct scal_thread *t = scal_thread_get();
    if (!t) return;
    struct scal_frame *f = top_frame(t);
    if (endpoint == ompt_scope_begin) {
        uint64_t now = scal_now_ns();
        /* The join barrier closing a parallel region: libomp >= 15 says so in the kind; libomp 14
         * reports "implicit" for it and for worksharing barriers alike, and gives the join barrier
         * no code pointer on workers and the region's own on the primary thread. */
        bool join =
            kind == ompt_sync_region_barrier_implicit_parallel ||
            (kind == ompt_sync_region_barrier_implicit && f && f->role == SCAL_FRAME_MEMBER &&
             (codeptr_ra == NULL || codeptr_ra == instance_codeptr(f->inst)));
        if (join && f && f->role == SCAL_FRAME_MEMBER && f->task_data == task_data) {
            member_done(t, f, now);
            return;
        }
        struct scal_task *k = task_of(task_data);
        if (k) { /* a taskwait or taskgroup inside an explicit task */
            task_clock(t, now);
            k->waits++;
            task_recompute(t);
        }
        if (t->sync_depth++ == 0) {
            t->wait_begin_ns = now;
            t->wait_task_mark = t->task_ns;
        }
    } else {
        if (t->sync_depth == 0) return; /* the end of a join barrier: accounted at parallel_end */
        uint64_t now = scal_now_ns();
        struct scal_task *k = task_of(task_data);
        if (k) {
            task_clock(t, now);
            if (k->waits) k->waits--;
            task_recompute(t);
        }
        /* Inside a closing barrier the whole wait is already the barrier's. */
        if (--t->sync_depth == 0 && !t->join_slot) {
            struct scal_slot *s = member_slot(t);
            uint64_t tasks = t->task_ns - t->wait_task_mark, len = now - t->wait_begin_ns;
            if (s)
                atomic_store_explicit(
                    &s->inner_wait_ns,
                    atomic_load_explicit(&s->inner_wait_ns, memory_order_relaxed) +
                        (len > tasks ? len - tasks : 0),
                    memory_order_relaxed);
        }
    }
}

static void on_mutex_acquire(ompt_mutex_t kind, unsigned int hint, unsigned int impl,
                             ompt_wait_id_t wait_id, const void *codeptr_ra)
{
    struct scal_thread *t = scal_thread_get();
    if (t) t->lock_begin_ns = scal_now_ns();
}

static void on_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr_ra)
{
    struct scal_thread *t = scal_thread_get();
    if (!t || !t->lock_begin_ns) return;
    uint64_t now = scal_now_ns();
    struct scal_slot *s = member_slot(t);
    if (s) s->lock_ns += now - t->lock_begin_ns;
    if (t->trace && t->member_frame >= 0)
        scal_trace_state(t, t->gtid, scal_frame_node(&t->frames[t->member_frame]), SCAL_STATE_LOCK,
                         t->lock_begin_ns, now);
    t->lock_begin_ns = 0;
}

static void on_work(ompt_work_t wstype, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                    ompt_data_t *task_data, uint64_t count, const void *codeptr_ra)
{
    if (wstype == ompt_work_taskloop) {
        struct scal_thread *t = scal_thread_get();
        /* libomp 14 reports its own address here too: one unwind per taskloop (not per task) */
        if (t && endpoint == ompt_scope_begin && scal_callsite_in_runtime(codeptr_ra))
            codeptr_ra = scal_callsite_caller_outside_runtime(codeptr_ra);
        if (t) t->taskloop_codeptr = endpoint == ompt_scope_begin ? codeptr_ra : NULL;
        return;
    }
    if (endpoint != ompt_scope_begin || wstype != ompt_work_loop) return;
    struct scal_thread *t = scal_thread_get();
    if (!t || t->member_frame < 0) return;
    struct scal_frame *m = &t->frames[t->member_frame];
    if (m->team_index != 0) return; /* every member reports the loop; the primary counts it */
    struct scal_node_stats *row = scal_thread_row(t, scal_frame_node(m));
    row->loops++;
    row->loop_iterations += count;
}

static void on_thread_begin(ompt_thread_t thread_type, ompt_data_t *thread_data)
{
    struct scal_thread *t = scal_thread_get();
    if (t)
        atomic_store_explicit(&t->is_worker, thread_type == ompt_thread_worker,
                              memory_order_relaxed);
    if (t && t->sensors == NULL && scal_tool_state.sensors)
        t->sensors = scal_sensor_thread_attach(scal_tool_state.sensors, t->gtid);
}

/* ---- registration ------------------------------------------------------------------------ */

int scal_callbacks_register(void *lookup_fn)
{
    ompt_function_lookup_t lookup = (ompt_function_lookup_t)lookup_fn;
    ompt_set_callback_t set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
    int missing = 0;
    if (!set_callback) return -1;
        /* ompt_set_never means the runtime cannot deliver the event: the measurement it feeds is
         * then missing, which is reported once in the diagnostics. */
#define SCAL_REGISTER(event, fn)                                                                   \
    do {                                                                                           \
        if (set_callback(event, (ompt_callback_t)(fn)) == ompt_set_never) {                        \
            scal_diag_message(                                                                     \
                "the OpenMP runtime cannot deliver %s; its measurements are missing", #event);     \
            missing++;                                                                             \
        }                                                                                          \
    } while (0)
    SCAL_REGISTER(ompt_callback_thread_begin, on_thread_begin);
    SCAL_REGISTER(ompt_callback_parallel_begin, on_parallel_begin);
    SCAL_REGISTER(ompt_callback_parallel_end, on_parallel_end);
    SCAL_REGISTER(ompt_callback_implicit_task, on_implicit_task);
    SCAL_REGISTER(ompt_callback_sync_region, on_sync_region);
    SCAL_REGISTER(ompt_callback_mutex_acquire, on_mutex_acquire);
    SCAL_REGISTER(ompt_callback_mutex_acquired, on_mutex_acquired);
    SCAL_REGISTER(ompt_callback_work, on_work);
    SCAL_REGISTER(ompt_callback_task_create, on_task_create);
    SCAL_REGISTER(ompt_callback_task_schedule, on_task_schedule);
#undef SCAL_REGISTER
    return missing;
}
