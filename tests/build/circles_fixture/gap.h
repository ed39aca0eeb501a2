/* SPDX-License-Identifier: BSD-3-Clause */
/* A planted circle for scripts/check-circles.py (never compiled): gap.h's inline calls team.c,
 * which includes gap.h (the shape tool.h and thread_state.c had). */
#ifndef GAP_H
#define GAP_H
int team_settle(int depth);
static inline int gap_settle(int depth)
{
    return team_settle(depth) + 1;
}
#endif
