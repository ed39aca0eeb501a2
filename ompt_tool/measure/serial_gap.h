/* SPDX-License-Identifier: BSD-3-Clause */
/* The serial gap between two top-level regions of the initial thread (recorded by
 * scal_serial_gap_before, callbacks.c) is added to its node's statistics later: at the next
 * region's closing barrier (callbacks.c) or at flush (team.c). Its own header so that both call it
 * downward (no include/call circle; scripts/check-circles.py); inline, as it was in callbacks.c. */
#ifndef SCAL_SERIAL_GAP_H
#define SCAL_SERIAL_GAP_H

#include "tool.h"

/* Adds the gap recorded by scal_serial_gap_before to its node's statistics, if one waits. */
static inline void scal_serial_gap_settle(struct scal_thread *t)
{
    if (!t->gap_pending_node) return;
    struct scal_node_stats *row = scal_thread_row(t, t->gap_pending_node);
    scal_stats_add_time(row, t->gap_pending_ns);
    scal_stats_add_team(row, 1, 1);
    t->gap_pending_node = 0;
}

#endif
