/* SPDX-License-Identifier: BSD-3-Clause */
/* The one reader of a run or campaign file into memory: opened through the safe open with the
 * validator (safe_open.h, validate.h), its tables read once (configurations, runs, regions and
 * their labels, statistics, sensor values, MPI ranks, plan inputs), the thread count of a run
 * file taken by the one rule (scal_format_run_threads). scal show, scal export's tidy table
 * (cli/tidy.h), scal report and scal model (postproc/load.c) build their views from it; nothing
 * else reads these tables for them. */
#ifndef SCAL_CAMPAIGN_READER_H
#define SCAL_CAMPAIGN_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "layout.h"
#include "safe_open.h"

enum scal_read_flags {
    /* statistics: every MPI rank's rows (/rank_region_stats, rank in stat_rank) in place of the
     * critical path's; the /region_stats rows of runs without per-rank rows stay (rank -1); not
     * with SCAL_READ_SLIM */
    SCAL_READ_PER_RANK = 1u << 0,
    /* statistics as the few members the report uses (slim) instead of whole rows (stats): a
     * campaign of 2,000 runs x 300 regions then costs 64 bytes per row instead of 216 */
    SCAL_READ_SLIM = 1u << 1,
    /* run files: the trace tables (/trace/instances, /trace/states) too */
    SCAL_READ_TRACE = 1u << 2,
};

/* A /region_stats row's members the report uses (SCAL_READ_SLIM). */
struct scal_stat_slim {
    uint32_t run, region;
    double time_total_s;
    double barrier_total_s, lock_total_s, thread_work_max_s, thread_work_mean_s;
    uint32_t threads;
    double time_wall_s; /* NaN in files from before it */
};

/* A run with its configuration resolved. A run file is one run: id 0, input "run". */
struct scal_read_run {
    uint32_t id, repetition;
    const char *input;     /* its planned input's label (NULL: see scal_read.unplanned) */
    uint32_t input_index;  /* order of the input in the plan */
    int32_t threads, team; /* requested; observed (-1: unknown) */
    int64_t frequency_khz; /* -1: not set */
    uint8_t status;        /* enum scal_run_status */
    int32_t ranks;         /* MPI ranks of the run (/config_ranks; a rank's run file: its job's
                              size); 0: not an MPI run */
};

struct scal_read {
    struct scal_h5file f;
    unsigned flags; /* enum scal_read_flags */
    /* regions (a run file's as identity rows) and their labels (scal_region_labels) */
    struct scal_region_id_row *regions;
    char **labels;
    size_t nregions;
    /* (run, region) statistics: stats, or slim with SCAL_READ_SLIM (the other NULL); a run
     * file's /regions rows are run 0's */
    struct scal_region_stat_row *stats;
    struct scal_stat_slim *slim;
    size_t nstats;
    int32_t *stat_rank; /* with SCAL_READ_PER_RANK: each stats row's MPI rank (-1: none) */
    /* sensor values of every run (a run file's /sensors/values as run 0's) */
    struct scal_run_sensor_value_row *sensor_values;
    size_t nsensor_values;
    /* the runs, sorted by id (scal_read_run_of) */
    struct scal_read_run *runs;
    size_t nruns;
    bool unplanned;         /* some run has no configuration with a planned input ... */
    uint32_t unplanned_run; /* ... the first of them in /runs order */
    char **inputs;          /* /campaign/inputs in plan order (a run file: "run") */
    size_t ninputs;
    bool campaign_group;  /* the campaign has a /campaign group */
    bool campaign_inputs; /* ... with /campaign/inputs */
    double *input_sizes;  /* /campaign@input_sizes (NaN: none), or NULL */
    size_t ninput_sizes;
    /* campaigns: the tables as stored */
    struct scal_config_row *configs;
    size_t nconfigs;
    struct scal_run_row *run_rows;
    size_t nrun_rows;
    struct scal_config_rank_row *config_ranks;
    size_t nconfig_ranks;
    struct scal_region_rank_summary_row *rank_summary;
    size_t nrank_summary;
    /* run files: the /regions rows whole, the plugins' states, the trace (SCAL_READ_TRACE) */
    struct scal_region_row *run_regions;
    struct scal_plugin_state_row *plugin_states;
    size_t nplugin_states;
    struct scal_trace_instance_row *trace_instances;
    size_t ntrace_instances;
    struct scal_trace_state_row *trace_states;
    size_t ntrace_states;
};

/* Opens path through the safe open and the validator (a damaged file gets their errors, which
 * name it). */
int scal_read_open(const char *path, struct scal_read *r);
/* Reads the tables of the file scal_read_open opened (flags: enum scal_read_flags). Errors of the
 * label rule name the file. */
int scal_read_tables(struct scal_read *r, unsigned flags);
/* Both. */
int scal_read_file(const char *path, unsigned flags, struct scal_read *r);
/* Frees everything and closes the file (r may be zeroed or partly read). */
void scal_read_free(struct scal_read *r);
/* The run of an id, NULL when the file has none. */
const struct scal_read_run *scal_read_run_of(const struct scal_read *r, uint32_t id);
/* The MPI ranks of configuration id, 0 when the campaign names none. */
int32_t scal_read_config_ranks(const struct scal_read *r, uint32_t config);

#endif
