// SPDX-License-Identifier: BSD-3-Clause
// Wall-clock time per node: the length of the union of its instances' intervals over every thread
// that encountered one. Summed time (time_total_s) counts instances that several threads run at
// once (nested teams, regions inside tasks) once per thread, so it can exceed the enclosing
// region and the program; the union cannot.
//
// Per node: `active`, the number of its instances open now, and `span`, which accumulates -t when
// active goes 0 -> 1 and +t when it goes 1 -> 0 (t: the instance's begin or end time, taken before
// the atomic step). With no instance open, span is the union's length; an instance still open at
// write time adds the write time. A begin on one thread racing an end on another can count their
// overlap (the time between reading the clock and the atomic step) twice: the writer clamps the
// result to the summed time and the parent's wall time.
//
// Called in the callbacks of parallel and user regions on the encountering thread: two atomic
// read-modify-writes on the node's own cache line per instance, no lock, no allocation (the
// array is reserved at initialisation; the OS maps its pages when a node is first used).
#include <stdlib.h>

#include "tool.h"

struct node_wall {
    _Atomic uint64_t active;
    _Atomic int64_t span;
} __attribute__((aligned(SCAL_CACHE_LINE)));

static struct node_wall *walls;
static uint32_t capacity;

int scal_wall_init(uint32_t cap)
{
    walls = scal_reserve_zeroed((size_t)cap * sizeof(*walls));
    capacity = walls ? cap : 0;
    return walls ? 0 : -1;
}

void scal_wall_enter(uint32_t node, uint64_t now)
{
    if (node >= capacity) return;
    struct node_wall *w = &walls[node];
    if (atomic_fetch_add_explicit(&w->active, 1, memory_order_relaxed) == 0)
        atomic_fetch_sub_explicit(&w->span, (int64_t)now, memory_order_relaxed);
}

void scal_wall_exit(uint32_t node, uint64_t now)
{
    if (node >= capacity) return;
    struct node_wall *w = &walls[node];
    if (atomic_fetch_sub_explicit(&w->active, 1, memory_order_relaxed) == 1)
        atomic_fetch_add_explicit(&w->span, (int64_t)now, memory_order_relaxed);
}

uint64_t scal_wall_ns(uint32_t node, uint64_t end_ns)
{
    if (node >= capacity) return 0;
    struct node_wall *w = &walls[node];
    int64_t span = atomic_load_explicit(&w->span, memory_order_relaxed);
    if (atomic_load_explicit(&w->active, memory_order_relaxed) > 0) span += (int64_t)end_ns;
    return span > 0 ? (uint64_t)span : 0;
}
