// SPDX-License-Identifier: BSD-3-Clause
// The OpenMP runtime's start-up and the tool's own start as nodes of their own, so that the
// whole-program row adds up for a program that times its first region (which sees the start-up,
// while the region does not), and the runtime is not charged with the tool's work.
//
// libomp calls ompt_start_tool when it begins to initialise (at its first use: the first parallel
// region, or a runtime call such as omp_get_max_threads) and the tool's initialize at the end of
// that initialisation. Between the two the runtime initialises itself: that span is the user-kind
// node "OpenMP runtime start-up". The tool's own work (its library constructor, ompt_start_tool
// and initialize: configuration, memory reservations, callbacks, sensor plugins) is the node "scal
// tool start-up", one instance made of those pieces. Both sit under the root and are taken out of
// the first serial gap they lie in. Runs on the initial thread, before any other thread exists:
// outside the hot path.
#include "tool.h"

static uint64_t marks[SCAL_STARTUP_MARKS];

void scal_startup_mark(enum scal_startup_mark m)
{
    marks[m] = scal_now_ns();
}

/* Adds one instance of the root's user-kind child `name` made of the pieces [begin, end] (in time
 * order; empty ones skipped); returns its length. */
static uint64_t add_node(struct scal_thread *t, const char *name, const uint64_t (*pieces)[2],
                         int npieces)
{
    uint64_t total = 0;
    for (int i = 0; i < npieces; i++)
        if (pieces[i][0] && pieces[i][1] > pieces[i][0]) total += pieces[i][1] - pieces[i][0];
    if (!total) return 0;
    uint32_t node = scal_user_node_lookup(0, name);
    struct scal_node_stats *row = scal_thread_row(t, node);
    if (!row) return 0;
    scal_stats_add_time(row, total);
    scal_stats_add_team(row, 1, 1);
    for (int i = 0; i < npieces; i++)
        if (pieces[i][0] && pieces[i][1] > pieces[i][0]) {
            scal_wall_enter(node, pieces[i][0]);
            scal_wall_exit(node, pieces[i][1]);
        }
    return total;
}

void scal_startup_end(struct scal_thread *t)
{
    uint64_t now = scal_now_ns();
    if (!t || !marks[SCAL_STARTUP_TOOL_BEGIN] || t->depth != 1 ||
        t->frames[0].role != SCAL_FRAME_ROOT)
        return;
    const uint64_t runtime[][2] = {
        {marks[SCAL_STARTUP_TOOL_PAUSE], marks[SCAL_STARTUP_TOOL_RESUME]}};
    const uint64_t tool[][2] = {{marks[SCAL_STARTUP_LOADED_BEGIN], marks[SCAL_STARTUP_LOADED_END]},
                                {marks[SCAL_STARTUP_TOOL_BEGIN], marks[SCAL_STARTUP_TOOL_PAUSE]},
                                {marks[SCAL_STARTUP_TOOL_RESUME], now}};
    uint64_t span = add_node(t, SCAL_STARTUP_NAME, runtime, 1);
    span += add_node(t, SCAL_TOOL_STARTUP_NAME, tool, 3);
    /* the first serial gap runs from the process's start to the first region: without either */
    struct scal_frame *root = &t->frames[0];
    root->last_child_end_ns =
        root->last_child_end_ns + span < now ? root->last_child_end_ns + span : now;
}
