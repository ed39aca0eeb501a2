/* SPDX-License-Identifier: BSD-3-Clause */
/* A parallel region's team as the tool sees it: where each member writes its measurements (its slot
 * in one of the instance's two slot sets), how a member finds that slot from parallel_data alone,
 * and the deferred settlement of an ended instance's per-member sums into the encountering thread's
 * statistics.
 *
 * Why deferred: reading every member's slot at parallel_end puts one cache miss per member (the
 * line the member has just written on its own core) on the path between one region and the next.
 * The encountering thread instead records the ended instance as pending and settles it at its next
 * closing barrier at the same depth, where it waits for its team anyway. Its members meanwhile
 * write the other slot set (alternate instances use alternate sets), so the pending set stays
 * intact. (A team of one has no closing barrier: its primary thread's implicit-task end settles.)
 * A pending instance is also settled before another one is recorded at its depth (a primary thread
 * with no room for its member frame on the tool's stack) and, for every thread, at flush. */
#ifndef SCAL_TEAM_H
#define SCAL_TEAM_H

#include "tool.h"

/* The join barrier orders everything a member did in an instance before its encountering thread's
 * parallel_end, and so before that thread reuses the instance for the next one. libomp's barrier
 * is invisible to ThreadSanitizer (libomp is not instrumented), and since the slots are read only
 * at settlement, no acquire of ours stands at parallel_end either: in a TSan build each member
 * releases the instance when it reaches the barrier and parallel_end acquires it, as LLVM's Archer
 * annotates the same barrier. Nothing in other builds. */
#if defined(__SANITIZE_THREAD__)
#define SCAL_TEAM_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SCAL_TEAM_TSAN 1
#endif
#endif
#ifdef SCAL_TEAM_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define SCAL_TEAM_JOIN_RELEASE(inst) __tsan_release(inst)
#define SCAL_TEAM_JOIN_ACQUIRE(inst) __tsan_acquire(inst)
#else
#define SCAL_TEAM_JOIN_RELEASE(inst) ((void)0)
#define SCAL_TEAM_JOIN_ACQUIRE(inst) ((void)0)
#endif

/* An instance and its two slot sets: the stride between the instances of consecutive depths. */
static inline size_t scal_team_stride(uint32_t max_team)
{
    return sizeof(struct scal_instance) + 2 * (size_t)max_team * sizeof(struct scal_slot);
}

/* parallel_data->ptr: the instance, its low bit the slot set (instances are cache-line aligned).
 * Members read the set from the pointer they are given, not from the instance's cache line. */
static inline void *scal_team_tag(struct scal_instance *inst, unsigned set)
{
    return (void *)((uintptr_t)inst | (set & 1u));
}

static inline struct scal_instance *scal_team_untag(void *ptr, unsigned *set)
{
    uintptr_t v = (uintptr_t)ptr;
    *set = (unsigned)(v & 1u);
    return (struct scal_instance *)(v & ~(uintptr_t)1);
}

/* The slot of team member `index` (< max_team) in slot set `set`. */
static inline struct scal_slot *scal_team_slot(struct scal_instance *inst, unsigned set,
                                               uint32_t index)
{
    return (struct scal_slot *)(inst + 1) + (size_t)set * scal_tool_state.cfg.max_team + index;
}

/* The set a new instance at this depth uses: the other one than a pending instance's. */
static inline unsigned scal_team_next_set(const struct scal_instance *inst)
{
    return inst->pending.set ^ 1u;
}

/* Called by the encountering thread at parallel_end: settles what still waits at this depth, then
 * records the ended instance (its times, node and team size) as pending. */
void scal_team_end(struct scal_thread *t, struct scal_instance *inst, uint32_t depth, unsigned set,
                   uint64_t begin_ns, uint64_t end_ns);

/* Settles the instance pending at `depth` of thread t, if any (called by t itself). */
void scal_team_settle(struct scal_thread *t, uint32_t depth);

/* Settles the pending instances and serial gaps (scal_serial_gap_settle) of every thread (the
 * flush, before the data is read). Other
 * threads are idle at a normal end; after exit() inside a region or a signal they may still run
 * (a best effort, as the writer's reading of their stacks). */
void scal_settle_all(void);

#endif
