// SPDX-License-Identifier: BSD-3-Clause
// The OpenMP runtime's start-up as a node of its own, so that the whole-program row adds up for a
// program that times its first region (which sees the start-up, while the region does not).
//
// libomp calls ompt_start_tool when it begins to initialise (at its first use: the first parallel
// region, or a runtime call such as omp_get_max_threads) and the tool's initialize at the end of
// that initialisation. The span between them (the runtime's serial initialisation, including
// loading and starting this tool and its plugins) is recorded, once, as the user-kind node
// "OpenMP runtime start-up" under the root, and taken out of the first serial gap it lies in. Runs
// on the initial thread, before any other thread exists: outside the hot path.
#include "tool.h"

static uint64_t startup_begin_ns;

void scal_startup_begin(void)
{
    startup_begin_ns = scal_now_ns();
}

void scal_startup_end(struct scal_thread *t)
{
    uint64_t now = scal_now_ns();
    if (!t || !startup_begin_ns || t->depth != 1 || t->frames[0].role != SCAL_FRAME_ROOT) return;
    uint64_t span = now > startup_begin_ns ? now - startup_begin_ns : 0;
    struct scal_frame *root = &t->frames[0];
    uint32_t node = scal_user_node_lookup(0, SCAL_STARTUP_NAME);
    struct scal_node_stats *row = scal_thread_row(t, node);
    if (!row) return;
    scal_stats_add_time(row, span);
    scal_stats_add_team(row, 1, 1);
    scal_wall_enter(node, startup_begin_ns);
    scal_wall_exit(node, now);
    /* the first serial gap runs from the process's start to the first region: without the start-up
     */
    root->last_child_end_ns =
        root->last_child_end_ns + span < now ? root->last_child_end_ns + span : now;
}
