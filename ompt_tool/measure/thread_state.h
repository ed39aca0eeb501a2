/* SPDX-License-Identifier: BSD-3-Clause */
/* The calling thread's state (thread_state.c), on the hot path: every callback starts with it.
 * Apart from tool.h so that tool.h needs nothing thread_state.c defines (no include/call circle;
 * scripts/check-circles.py). */
#ifndef SCAL_THREAD_STATE_H
#define SCAL_THREAD_STATE_H

#include "tool.h"

/* The calling thread's state, created at its first event (NULL when the thread table is full or
 * memory could not be reserved: the event is then not measured). Inline: every callback starts
 * with it, and an initial-exec TLS load is one instruction. */
struct scal_thread *scal_thread_create_self(void);
#ifndef SCAL_TOOL_WRITER
extern _Thread_local struct scal_thread *scal_self __attribute__((tls_model("initial-exec")));
static inline struct scal_thread *scal_thread_get(void)
{
    struct scal_thread *t = scal_self;
    return __builtin_expect(t != NULL, 1) ? t : scal_thread_create_self();
}
#endif

#endif
