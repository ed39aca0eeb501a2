/* SPDX-License-Identifier: BSD-3-Clause */
/* The sensor session inside the OMPT tool: loads the sensor plugins named in SCAL_PLUGINS, reads
 * run sensors at start and end, runs the sampler thread, and attributes region sensors to region
 * nodes per thread (inclusive) in memory bounded by the node limit. The run-file writer reads the
 * results from these structures at flush time (ompt_tool/record/sensor_write.c). */
#ifndef SCAL_SENSOR_SESSION_H
#define SCAL_SENSOR_SESSION_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "plugin_loader.h"

#define SCAL_SENSOR_MAX_PLUGINS 16
#define SCAL_SENSOR_MAX_METRICS 64 /* region-timed metrics of all plugins together */
#define SCAL_SENSOR_MAX_THREADS 1024
/* (node, team index) pairs a thread met besides the first team index it had in a node (libomp may
 * give a thread another index in a later instance, e.g. around nested teams) */
#define SCAL_SENSOR_SIDE_ROWS 64

struct scal_sensor_plugin {
    struct scal_loaded_plugin lp;
    scal_sensor_state *state;
    const struct scal_metric_desc *metrics;
    size_t nmetrics;
    uint32_t timing;      /* scal_sensor_timing bits in use */
    uint32_t region_base; /* first index of its metrics in the region vector */
    bool process_only;    /* every metric process-wide: read only on encountering threads */
    int status;           /* 0 available; negative: load or init failed */
    char why[SCAL_PLUGIN_WHY_MAX];
    double *run_begin, *run_end; /* run timing: nmetrics values each */
    int run_status;
};

struct scal_sensor_sample {
    uint32_t plugin, metric;
    double time_s, value;
};

/* Per OS thread: the plugins' thread handles, the readings taken when each of the tool's frames
 * opened (indexed by the frame's level, so they follow the tool's own stack) and the per-node
 * sums. */
struct scal_sensor_thread_ctx {
    /* a copy of the session's member_reads, on the line the hot path reads anyway */
    bool member_reads;
    uint32_t failed_plugins; /* bit i: plugin i's thread_init failed on this thread */
    struct scal_sensor_session *session;
    uint32_t gtid;
    uint64_t errors;
    scal_sensor_thread *handles[SCAL_SENSOR_MAX_PLUGINS];
    double *begin;      /* [max_levels][nregion] */
    double *now;        /* [nregion] */
    double *acc;        /* [max_nodes][nregion] */
    uint64_t *inst_all; /* [max_nodes] instances this thread took part in */
    uint64_t *inst_enc; /* [max_nodes] instances this thread encountered (opened) */
    int32_t *team;      /* [max_nodes] team index of the first instance, -1 none */
    uint32_t nside;
    uint32_t side_node[SCAL_SENSOR_SIDE_ROWS];
    int32_t side_team[SCAL_SENSOR_SIDE_ROWS];
    uint64_t side_inst_all[SCAL_SENSOR_SIDE_ROWS], side_inst_enc[SCAL_SENSOR_SIDE_ROWS];
    double *side_acc; /* [SCAL_SENSOR_SIDE_ROWS][nregion] */
};

struct scal_sensor_session {
    struct scal_sensor_plugin plugins[SCAL_SENSOR_MAX_PLUGINS];
    uint32_t nplugins;
    /* region-timed metrics, all plugins concatenated */
    uint32_t nregion;
    bool member_reads; /* some region-timed metric is thread-scoped (scal_sensor_member_reads) */
    uint32_t region_plugin[SCAL_SENSOR_MAX_METRICS];
    uint32_t region_metric[SCAL_SENSOR_MAX_METRICS];
    uint32_t max_nodes;
    uint32_t max_levels; /* the tool's frames per thread */
    _Atomic uint32_t nthreads;
    struct scal_sensor_thread_ctx *threads[SCAL_SENSOR_MAX_THREADS];
    _Atomic uint64_t threads_dropped, team_changes;
    /* sampler */
    uint64_t t0_ns, period_ns;
    pthread_t sampler;
    int sampler_running;
    atomic_int stop;
    struct scal_sensor_sample *samples;
    size_t nsamples, max_samples;
    size_t metrics_per_tick; /* samples one sampler tick adds */
    uint64_t samples_decimated;
    atomic_int stopped;
};

/* Opens the sensors named in spec ("papi,rapl" or paths); their options come from the environment.
 * Plugins that fail or are unavailable are kept with their reason; the session exists as long as
 * spec names something. Region nodes are below max_nodes, frame levels below max_levels. */
int scal_sensor_session_open(struct scal_sensor_session **s, const char *spec, uint32_t max_nodes,
                             uint32_t max_levels);
/* The calling thread's context (created on first use, on that thread). */
struct scal_sensor_thread_ctx *scal_sensor_thread_attach(struct scal_sensor_session *s,
                                                         uint32_t gtid);
/* Whether team members other than the encountering thread have anything to read at region
 * boundaries: only thread-scoped metrics are attributed to them (process-scope ones, such as PAPI
 * SDE counters, only on the encountering thread), so without one the tool skips their enter/exit,
 * which would record nothing. */
static inline bool scal_sensor_member_reads(const struct scal_sensor_thread_ctx *t)
{
    return t && t->member_reads;
}
/* Region boundaries on the calling thread, keyed by the level (index) of the tool's frame that
 * opens or closes: enter takes the readings of that level, exit attributes the difference since
 * then to (node, team_index). The tool calls exit only for a frame it called enter for, so no
 * stack of its own is kept here. encountering = 1 for the thread that opens or closes the region
 * (process-scope metrics are attributed only there), 0 for other team members. */
void scal_sensor_enter(struct scal_sensor_thread_ctx *t, uint32_t level, int encountering);
void scal_sensor_exit(struct scal_sensor_thread_ctx *t, uint32_t level, uint32_t node,
                      uint32_t team_index, int encountering);
/* Stops the sampler and takes the run sensors' end readings (before the file is written). */
void scal_sensor_session_stop(struct scal_sensor_session *s);
/* Ends the session at process end: stops the sampler; plugins and memory stay (worker threads may
 * still read them). */
void scal_sensor_session_close(struct scal_sensor_session *s);

#endif
