/* SPDX-License-Identifier: BSD-3-Clause */
/* The OpenMP runtime's idle threads held asleep while the run file is written (park.c). After a
 * program's last parallel region, libomp's workers spin for KMP_BLOCKTIME (200 ms by default)
 * before they sleep; at the end that spin lasts exactly as long as the flush, and costs a core's
 * CPU time for it. The flush asks each idle thread to sleep until it is done. */
#ifndef SCAL_TOOL_PARK_H
#define SCAL_TOOL_PARK_H

/* At the tool's initialization: the runtime's ompt_get_state (async-signal-safe by the OpenMP
 * specification), which tells a thread whether it is idle. */
void scal_park_init(void *lookup);
/* Puts every worker thread of the runtime but the caller that is idle in it (outside every region,
 * waiting for work) to sleep, through a real-time signal the program does not use; a thread doing
 * anything else (in a region, in a task), and the program's initial threads, are left alone.
 * Nothing happens when no such signal is free or sensor plugins run. Async-signal-safe: a signal's
 * flush may call it. */
void scal_park_idle_threads(void);
/* Wakes the parked threads; they go on where they were. */
void scal_park_release(void);

#endif
