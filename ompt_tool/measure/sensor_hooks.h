/* SPDX-License-Identifier: BSD-3-Clause */
/* Where the tool meets sensor plugins: the plugin host's sensor session when scal is built with
 * plugin support (SCAL_HAVE_PLUGIN_HOST), otherwise inline no-ops so the tool builds on its own.
 * Part of the hot path: free of HDF5 (the writer's side is in writer.h). */
#ifndef SCAL_SENSOR_HOOKS_H
#define SCAL_SENSOR_HOOKS_H

#ifdef SCAL_HAVE_PLUGIN_HOST
#include "sensor_session.h"
#else
#include <stdbool.h>
#include <stdint.h>

#include "scal/status.h"

struct scal_sensor_session;
struct scal_sensor_thread_ctx;
static inline int scal_sensor_session_open(struct scal_sensor_session **s, const char *spec,
                                           uint32_t max_nodes, uint32_t max_levels)
{
    *s = 0;
    return spec && *spec ? SCAL_EUNAVAIL : SCAL_OK;
}
static inline struct scal_sensor_thread_ctx *
scal_sensor_thread_attach(struct scal_sensor_session *s, uint32_t i)
{
    return 0;
}
static inline bool scal_sensor_member_reads(const struct scal_sensor_thread_ctx *t)
{
    return false;
}
static inline void scal_sensor_enter(struct scal_sensor_thread_ctx *t, uint32_t level, int e) {}
static inline void scal_sensor_exit(struct scal_sensor_thread_ctx *t, uint32_t level, uint32_t r,
                                    uint32_t i, int e)
{
}
static inline void scal_sensor_session_stop(struct scal_sensor_session *s) {}
static inline void scal_sensor_session_close(struct scal_sensor_session *s) {}
#endif

#endif
