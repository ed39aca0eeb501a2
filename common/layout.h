/* SPDX-License-Identifier: BSD-3-Clause */
/* The HDF5 layout of scal's files as C rows: one X-macro per table generates the struct and the
 * field list that writers and readers pass to h5util, so that code and schemas/ stay in step.
 * Human description: schemas/README.md; machine-readable: schemas/scal-run-1.json and
 * schemas/scal-campaign-1.json (checked against these lists by tests/layout). */
#ifndef SCAL_LAYOUT_H
#define SCAL_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "table_field.h"

#define SCAL_FORMAT_RUN "scal-run"
#define SCAL_FORMAT_CAMPAIGN "scal-campaign"
/* `scal report`'s analysis of campaign C.h5: C.analysis.h5, whose /analysis group the campaign's
 * /analysis external link (its only non-hard link) points to. */
#define SCAL_FORMAT_ANALYSIS "scal-analysis"
#define SCAL_ANALYSIS_SUFFIX ".analysis.h5"
#define SCAL_ANALYSIS_LINK "analysis"
#define SCAL_SCHEMA_VERSION 1
/* Root attributes every scal file carries. */
#define SCAL_ATTR_FORMAT "scal_format"
#define SCAL_ATTR_SCHEMA_VERSION "scal_schema_version"
#define SCAL_ATTR_TOOL_VERSION "scal_tool_version"

/* Region kinds (member `kind` of the region tables). */
enum scal_region_kind {
    SCAL_KIND_ROOT = 0,     /* the whole program */
    SCAL_KIND_PARALLEL = 1, /* an OpenMP parallel region */
    SCAL_KIND_SERIAL = 2,   /* serial code between two consecutive top-level regions */
    SCAL_KIND_USER = 3,     /* a scal_region_begin/end region */
    SCAL_KIND_TASK = 4,     /* an explicit task construct, child of the region creating it */
};
const char *scal_region_kind_name(int kind);

/* Thread states of the trace (member `state` of /trace/states). */
enum scal_thread_state { SCAL_STATE_WORK = 0, SCAL_STATE_BARRIER = 1, SCAL_STATE_LOCK = 2 };

#define SCAL_NO_STRING 0u /* string index 0 is always "" */
#define SCAL_NO_REGION (-1)

/* X(h5type, ctype, member) */
#define SCAL_REGION_IDENTITY_FIELDS(X)                                                             \
    X(SCAL_H5_U32, uint32_t, id)                                                                   \
    X(SCAL_H5_I32, int32_t, parent)                                                                \
    X(SCAL_H5_U32, uint32_t, depth)                                                                \
    X(SCAL_H5_U8, uint8_t, kind)                                                                   \
    X(SCAL_H5_U32, uint32_t, name)                                                                 \
    X(SCAL_H5_U32, uint32_t, module)                                                               \
    X(SCAL_H5_U32, uint32_t, build_id)                                                             \
    X(SCAL_H5_U64, uint64_t, offset)                                                               \
    X(SCAL_H5_U32, uint32_t, file)                                                                 \
    X(SCAL_H5_I32, int32_t, line_first)                                                            \
    X(SCAL_H5_I32, int32_t, line_last)                                                             \
    X(SCAL_H5_U32, uint32_t, function)                                                             \
    X(SCAL_H5_I32, int32_t, gap_prev)                                                              \
    X(SCAL_H5_I32, int32_t, gap_next)                                                              \
    X(SCAL_H5_U32, uint32_t, label) /* added later (region_identity.h): 0 in older files */

#define SCAL_REGION_STATS_FIELDS(X)                                                                \
    X(SCAL_H5_U64, uint64_t, count)                                                                \
    X(SCAL_H5_F64, double, time_total_s)                                                           \
    X(SCAL_H5_F64, double, time_min_s)                                                             \
    X(SCAL_H5_F64, double, time_max_s)                                                             \
    X(SCAL_H5_F64, double, time_mean_s)                                                            \
    X(SCAL_H5_F64, double, time_var_s2)                                                            \
    X(SCAL_H5_F64, double, time_median_s)                                                          \
    X(SCAL_H5_U8, uint8_t, median_exact)                                                           \
    X(SCAL_H5_I32, int32_t, team_requested_min)                                                    \
    X(SCAL_H5_I32, int32_t, team_requested_max)                                                    \
    X(SCAL_H5_I32, int32_t, team_actual_min)                                                       \
    X(SCAL_H5_I32, int32_t, team_actual_max)                                                       \
    X(SCAL_H5_F64, double, work_total_s)                                                           \
    X(SCAL_H5_F64, double, work_inst_max_s)                                                        \
    X(SCAL_H5_F64, double, work_inst_min_s)                                                        \
    X(SCAL_H5_F64, double, barrier_total_s)                                                        \
    X(SCAL_H5_F64, double, barrier_inst_max_s)                                                     \
    X(SCAL_H5_F64, double, lock_total_s)                                                           \
    X(SCAL_H5_F64, double, lock_inst_max_s)                                                        \
    X(SCAL_H5_U32, uint32_t, threads)                                                              \
    X(SCAL_H5_F64, double, thread_work_max_s)                                                      \
    X(SCAL_H5_F64, double, thread_work_min_s)                                                      \
    X(SCAL_H5_F64, double, thread_work_mean_s)                                                     \
    X(SCAL_H5_F64, double, imbalance)                                                              \
    X(SCAL_H5_U64, uint64_t, loops)                                                                \
    X(SCAL_H5_U64, uint64_t, loop_iterations)                                                      \
    X(SCAL_H5_F64, double, time_wall_s)   /* added later: NaN when read from older files */        \
    X(SCAL_H5_U8, uint8_t, loops_unknown) /* added later: 0 when read from older files */

#define SCAL_THREAD_FIELDS(X)                                                                      \
    X(SCAL_H5_U32, uint32_t, region)                                                               \
    X(SCAL_H5_U32, uint32_t, thread)                                                               \
    X(SCAL_H5_U64, uint64_t, instances)                                                            \
    X(SCAL_H5_F64, double, work_s)                                                                 \
    X(SCAL_H5_F64, double, barrier_s)                                                              \
    X(SCAL_H5_F64, double, lock_s)

#define SCAL_TRACE_INSTANCE_FIELDS(X)                                                              \
    X(SCAL_H5_U32, uint32_t, region)                                                               \
    X(SCAL_H5_U32, uint32_t, thread)                                                               \
    X(SCAL_H5_F64, double, begin_s)                                                                \
    X(SCAL_H5_F64, double, end_s)

#define SCAL_TRACE_STATE_FIELDS(X)                                                                 \
    X(SCAL_H5_U32, uint32_t, thread)                                                               \
    X(SCAL_H5_U32, uint32_t, region)                                                               \
    X(SCAL_H5_U8, uint8_t, state)                                                                  \
    X(SCAL_H5_F64, double, begin_s)                                                                \
    X(SCAL_H5_F64, double, end_s)

/* Sensor data (plugins). In a run file under /sensors/, in a campaign with a leading `run`. */
#define SCAL_SENSOR_VALUE_FIELDS(X)                                                                \
    X(SCAL_H5_I32, int32_t, region)  /* region id, -1: the whole run (begin/end sensors) */        \
    X(SCAL_H5_I32, int32_t, thread)  /* team thread index, -1: all threads / process scope */      \
    X(SCAL_H5_U32, uint32_t, metric) /* string index of "<plugin>.<metric>" */                     \
    X(SCAL_H5_U32, uint32_t, unit)   /* string index of the unit */                                \
    X(SCAL_H5_U64, uint64_t, instances)                                                            \
    X(SCAL_H5_F64, double, value) /* counters: sum of differences; gauges: last value */

#define SCAL_SENSOR_SAMPLE_FIELDS(X)                                                               \
    X(SCAL_H5_U32, uint32_t, metric)                                                               \
    X(SCAL_H5_U32, uint32_t, unit)                                                                 \
    X(SCAL_H5_F64, double, time_s) /* seconds since the start of the run */                        \
    X(SCAL_H5_F64, double, value)

#define SCAL_PLUGIN_STATE_FIELDS(X)                                                                \
    X(SCAL_H5_U32, uint32_t, name)                                                                 \
    X(SCAL_H5_U32, uint32_t, version)                                                              \
    X(SCAL_H5_U8, uint8_t, kind)      /* enum scal_plugin_kind */                                  \
    X(SCAL_H5_U8, uint8_t, available) /* 1 available and used, 0 unavailable or failed */          \
    X(SCAL_H5_U32, uint32_t, reason)  /* string index: why unavailable, "" when available */       \
    X(SCAL_H5_U32, uint32_t, path)    /* string index: the shared object loaded */

/* Campaign tables (written by scal run / scal merge / scal import). */
#define SCAL_CONFIG_FIELDS(X)                                                                      \
    X(SCAL_H5_U32, uint32_t, id)                                                                   \
    X(SCAL_H5_I32, int32_t, threads)                                                               \
    X(SCAL_H5_U32, uint32_t, input)                                                                \
    X(SCAL_H5_U32, uint32_t, input_label)                                                          \
    X(SCAL_H5_I64, int64_t, frequency_khz)                                                         \
    X(SCAL_H5_U32, uint32_t, affinity)                                                             \
    X(SCAL_H5_U32, uint32_t, argv)

#define SCAL_RUN_FIELDS(X)                                                                         \
    X(SCAL_H5_U32, uint32_t, id)                                                                   \
    X(SCAL_H5_U32, uint32_t, config)                                                               \
    X(SCAL_H5_U32, uint32_t, repetition)                                                           \
    X(SCAL_H5_U8, uint8_t, status)                                                                 \
    X(SCAL_H5_I32, int32_t, exit_code)                                                             \
    X(SCAL_H5_I32, int32_t, signal)                                                                \
    X(SCAL_H5_F64, double, wall_s)                                                                 \
    X(SCAL_H5_F64, double, started_unix)                                                           \
    X(SCAL_H5_I32, int32_t, team_requested)                                                        \
    X(SCAL_H5_I32, int32_t, team_observed)                                                         \
    X(SCAL_H5_U8, uint8_t, team_mismatch)                                                          \
    X(SCAL_H5_I64, int64_t, frequency_observed_khz)                                                \
    X(SCAL_H5_U32, uint32_t, message)                                                              \
    X(SCAL_H5_U32, uint32_t, stdout_tail)                                                          \
    X(SCAL_H5_U32, uint32_t, stderr_tail)

/* Campaign tables of MPI + OpenMP runs (scal run --ranks, or any run whose processes were MPI
 * ranks): absent from campaigns without ranks. /region_stats of such a run holds the critical
 * path: per region, the row of the rank with the largest time_total_s. */
#define SCAL_CONFIG_RANK_FIELDS(X)                                                                 \
    X(SCAL_H5_U32, uint32_t, config)                                                               \
    X(SCAL_H5_I32, int32_t, ranks)

#define SCAL_RUN_RANK_FIELDS(X)                                                                    \
    X(SCAL_H5_U32, uint32_t, run)                                                                  \
    X(SCAL_H5_I32, int32_t, rank)                                                                  \
    X(SCAL_H5_I32, int32_t, ranks)     /* ranks of the job as the launcher said, -1 unknown */     \
    X(SCAL_H5_U8, uint8_t, recorded)   /* 1: the rank's run file was read */                       \
    X(SCAL_H5_F64, double, duration_s) /* the rank's own duration, NaN when not recorded */        \
    X(SCAL_H5_U32, uint32_t, source)   /* string index: the variable the rank came from */

#define SCAL_REGION_RANK_SUMMARY_FIELDS(X)                                                         \
    X(SCAL_H5_U32, uint32_t, run)                                                                  \
    X(SCAL_H5_U32, uint32_t, region)                                                               \
    X(SCAL_H5_U32, uint32_t, ranks)        /* ranks that ran the region */                         \
    X(SCAL_H5_I32, int32_t, critical_rank) /* the rank with the largest time_total_s */            \
    X(SCAL_H5_F64, double, rank_time_max_s)                                                        \
    X(SCAL_H5_F64, double, rank_time_mean_s)                                                       \
    X(SCAL_H5_F64, double, rank_time_min_s)                                                        \
    X(SCAL_H5_F64, double, rank_imbalance)

/* Run status (member `status` of /runs). */
enum scal_run_status {
    SCAL_RUN_OK = 0,
    SCAL_RUN_FAILED = 1,   /* non-zero exit */
    SCAL_RUN_SIGNALED = 2, /* killed by a signal */
    SCAL_RUN_TIMEOUT = 3,  /* killed by the runner after --timeout */
    SCAL_RUN_LAUNCH = 4,   /* could not be started */
    SCAL_RUN_NODATA = 5,   /* exited 0 but wrote no readable run file */
};
const char *scal_run_status_name(int status);

#define SCAL_DECLARE_MEMBER(h5, ctype, member) ctype member;

struct scal_region_row {
    SCAL_REGION_IDENTITY_FIELDS(SCAL_DECLARE_MEMBER)
    SCAL_REGION_STATS_FIELDS(SCAL_DECLARE_MEMBER)
};
/* Campaign /region_stats: one row per (run, region). */
struct scal_region_stat_row {
    uint32_t run;
    uint32_t region;
    SCAL_REGION_STATS_FIELDS(SCAL_DECLARE_MEMBER)
};
struct scal_thread_row {
    SCAL_THREAD_FIELDS(SCAL_DECLARE_MEMBER)
};
/* Campaign /thread_stats: /threads rows of every run. */
struct scal_thread_stat_row {
    uint32_t run;
    SCAL_THREAD_FIELDS(SCAL_DECLARE_MEMBER)
};
struct scal_trace_instance_row {
    SCAL_TRACE_INSTANCE_FIELDS(SCAL_DECLARE_MEMBER)
};
struct scal_trace_state_row {
    SCAL_TRACE_STATE_FIELDS(SCAL_DECLARE_MEMBER)
};
struct scal_config_row {
    SCAL_CONFIG_FIELDS(SCAL_DECLARE_MEMBER)
};
struct scal_run_row {
    SCAL_RUN_FIELDS(SCAL_DECLARE_MEMBER)
};
struct scal_sensor_value_row {
    SCAL_SENSOR_VALUE_FIELDS(SCAL_DECLARE_MEMBER)
};
struct scal_sensor_sample_row {
    SCAL_SENSOR_SAMPLE_FIELDS(SCAL_DECLARE_MEMBER)
};
struct scal_plugin_state_row {
    SCAL_PLUGIN_STATE_FIELDS(SCAL_DECLARE_MEMBER)
};
struct scal_config_rank_row {
    SCAL_CONFIG_RANK_FIELDS(SCAL_DECLARE_MEMBER)
};
struct scal_run_rank_row {
    SCAL_RUN_RANK_FIELDS(SCAL_DECLARE_MEMBER)
};
/* Campaign /rank_region_stats: one row per (run, rank, region). */
struct scal_rank_region_stat_row {
    uint32_t run;
    int32_t rank;
    uint32_t region;
    SCAL_REGION_STATS_FIELDS(SCAL_DECLARE_MEMBER)
};
struct scal_region_rank_summary_row {
    SCAL_REGION_RANK_SUMMARY_FIELDS(SCAL_DECLARE_MEMBER)
};
/* Campaign variants: the run's rows with the run id in front. */
struct scal_run_sensor_value_row {
    uint32_t run;
    SCAL_SENSOR_VALUE_FIELDS(SCAL_DECLARE_MEMBER)
};
struct scal_run_sensor_sample_row {
    uint32_t run;
    SCAL_SENSOR_SAMPLE_FIELDS(SCAL_DECLARE_MEMBER)
};
struct scal_run_plugin_state_row {
    uint32_t run;
    SCAL_PLUGIN_STATE_FIELDS(SCAL_DECLARE_MEMBER)
};
/* Campaign /regions: identity only (ids unified across runs). */
struct scal_region_id_row {
    SCAL_REGION_IDENTITY_FIELDS(SCAL_DECLARE_MEMBER)
};

/* Field lists for h5util. */
struct scal_table_desc {
    const char *name; /* dataset path relative to the file root, e.g. "regions" */
    const struct scal_h5_field *fields;
    size_t nfields;
    size_t row_size;
};
extern const struct scal_table_desc scal_table_run_regions;         /* run file /regions */
extern const struct scal_table_desc scal_table_threads;             /* run file /threads */
extern const struct scal_table_desc scal_table_trace_instances;     /* run file /trace/instances */
extern const struct scal_table_desc scal_table_trace_states;        /* run file /trace/states */
extern const struct scal_table_desc scal_table_configs;             /* campaign /configs */
extern const struct scal_table_desc scal_table_runs;                /* campaign /runs */
extern const struct scal_table_desc scal_table_campaign_regions;    /* campaign /regions */
extern const struct scal_table_desc scal_table_region_stats;        /* campaign /region_stats */
extern const struct scal_table_desc scal_table_thread_stats;        /* campaign /thread_stats */
extern const struct scal_table_desc scal_table_sensor_values;       /* run file /sensors/values */
extern const struct scal_table_desc scal_table_sensor_samples;      /* run file /sensors/samples */
extern const struct scal_table_desc scal_table_plugin_states;       /* run file /sensors/plugins */
extern const struct scal_table_desc scal_table_run_sensor_values;   /* campaign /sensor_values */
extern const struct scal_table_desc scal_table_run_sensor_samples;  /* campaign /sensor_samples */
extern const struct scal_table_desc scal_table_run_plugin_states;   /* campaign /plugins */
extern const struct scal_table_desc scal_table_config_ranks;        /* campaign /config_ranks */
extern const struct scal_table_desc scal_table_run_ranks;           /* campaign /run_ranks */
extern const struct scal_table_desc scal_table_rank_region_stats;   /* /rank_region_stats */
extern const struct scal_table_desc scal_table_region_rank_summary; /* /region_rank_summary */

/* Every table above, for schema checks (NULL-terminated). */
extern const struct scal_table_desc *const scal_all_tables[];

#endif
