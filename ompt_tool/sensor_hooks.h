/* SPDX-License-Identifier: BSD-3-Clause */
/* Where the tool meets sensor plugins: the plugin host's sensor session when scal is built with
 * plugin support (SCAL_HAVE_PLUGIN_HOST), otherwise inline no-ops so the tool builds on its own. */
#ifndef SCAL_SENSOR_HOOKS_H
#define SCAL_SENSOR_HOOKS_H

#ifdef SCAL_HAVE_PLUGIN_HOST
#include "sensor_session.h"
#include <hdf5.h>

#include "strtab.h"
/* ompt_tool/sensor_write.c (the writer library) */
int scal_sensor_session_write(struct scal_sensor_session *s, hid_t file, struct scal_strtab *st,
                              uint32_t nnodes);
#else
#include <hdf5.h>
#include <stdint.h>

#include "strtab.h"

struct scal_sensor_session;
struct scal_sensor_thread_ctx;
static inline int scal_sensor_session_open(struct scal_sensor_session **s, const char *spec,
                                           uint32_t max_nodes)
{
    *s = 0;
    return spec && *spec ? -10 /* SCAL_EUNAVAIL */ : 0;
}
static inline struct scal_sensor_thread_ctx *
scal_sensor_thread_attach(struct scal_sensor_session *s, uint32_t i)
{
    return 0;
}
static inline void scal_sensor_enter(struct scal_sensor_thread_ctx *t, uint32_t r, uint32_t i,
                                     int e)
{
}
static inline void scal_sensor_exit(struct scal_sensor_thread_ctx *t, uint32_t r, uint32_t i, int e)
{
}
static inline int scal_sensor_session_write(struct scal_sensor_session *s, hid_t f,
                                            struct scal_strtab *st, uint32_t n)
{
    return 0;
}
static inline void scal_sensor_session_stop(struct scal_sensor_session *s) {}
static inline void scal_sensor_session_close(struct scal_sensor_session *s) {}
#endif

#endif
