/* SPDX-License-Identifier: BSD-3-Clause */
/* The per-thread trace buffer, shared by trace.c (filling) and writer.c (writing). */
#ifndef SCAL_TRACE_BUF_H
#define SCAL_TRACE_BUF_H

#include "tool.h"

struct scal_trace_buf {
    uint32_t capacity;
    uint32_t ninstances, nstates;
    uint64_t dropped;
    struct scal_trace_instance_row *instances;
    struct scal_trace_state_row *states;
};

#endif
