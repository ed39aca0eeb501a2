// SPDX-License-Identifier: BSD-3-Clause
// The one reader of a run or campaign file into memory (campaign_reader.h).
#include "campaign_reader.h"

#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "h5util.h"
#include "region_identity.h"
#include "scal/status.h"
#include "scal_format.h"

/* A run file's label for its one input, as scal report, scal export and the Python package name
 * it. */
#define SCAL_READ_RUN_FILE_INPUT "run"

static const struct scal_h5_field slim_fields[] = {
    SCAL_H5_FIELD(SCAL_H5_U32, struct scal_stat_slim, run),
    SCAL_H5_FIELD(SCAL_H5_U32, struct scal_stat_slim, region),
    SCAL_H5_FIELD(SCAL_H5_F64, struct scal_stat_slim, time_total_s),
    SCAL_H5_FIELD(SCAL_H5_F64, struct scal_stat_slim, barrier_total_s),
    SCAL_H5_FIELD(SCAL_H5_F64, struct scal_stat_slim, lock_total_s),
    SCAL_H5_FIELD(SCAL_H5_F64, struct scal_stat_slim, thread_work_max_s),
    SCAL_H5_FIELD(SCAL_H5_F64, struct scal_stat_slim, thread_work_mean_s),
    SCAL_H5_FIELD(SCAL_H5_U32, struct scal_stat_slim, threads),
    SCAL_H5_FIELD(SCAL_H5_F64, struct scal_stat_slim, time_wall_s),
};

static int cmp_run_id(const void *a, const void *b)
{
    uint32_t x = ((const struct scal_read_run *)a)->id, y = ((const struct scal_read_run *)b)->id;
    return x < y ? -1 : x > y;
}

int32_t scal_read_config_ranks(const struct scal_read *r, uint32_t config)
{
    for (size_t i = 0; i < r->nconfig_ranks; i++)
        if (r->config_ranks[i].config == config) return r->config_ranks[i].ranks;
    return 0;
}

/* A run file: its regions, one run (thread count by the one rule), one stats row per region. */
static int read_run_file(struct scal_read *r)
{
    hid_t f = r->f.id;
    size_t n = 0;
    int rc = scal_table_read(f, &scal_table_run_regions, (void **)&r->run_regions, &n);
    if (rc == SCAL_OK)
        rc = scal_table_read_run_rows(f, &scal_table_sensor_values, &scal_table_run_sensor_values,
                                      (void **)&r->sensor_values, &r->nsensor_values);
    if (rc == SCAL_OK)
        rc = scal_table_read_opt(f, &scal_table_plugin_states, (void **)&r->plugin_states,
                                 &r->nplugin_states);
    if (rc == SCAL_OK && (r->flags & SCAL_READ_TRACE))
        rc = scal_table_read_opt(f, &scal_table_trace_instances, (void **)&r->trace_instances,
                                 &r->ntrace_instances);
    if (rc == SCAL_OK && (r->flags & SCAL_READ_TRACE))
        rc = scal_table_read_opt(f, &scal_table_trace_states, (void **)&r->trace_states,
                                 &r->ntrace_states);
    if (rc < 0) return rc;
    r->nregions = r->nstats = n;
    r->regions = scal_region_id_rows(r->run_regions, n);
    if (r->flags & SCAL_READ_SLIM)
        r->slim = calloc(n ? n : 1, sizeof(*r->slim));
    else
        r->stats = calloc(n ? n : 1, sizeof(*r->stats));
    r->runs = calloc(1, sizeof(*r->runs));
    r->inputs = calloc(1, sizeof(*r->inputs));
    if (!r->regions || !(r->slim || r->stats) || !r->runs || !r->inputs ||
        !(r->inputs[0] = strdup(SCAL_READ_RUN_FILE_INPUT)))
        return scal__fail(SCAL_ENOMEM, "out of memory for %zu regions", n);
    for (size_t i = 0; i < n; i++) {
        const struct scal_region_row *row = &r->run_regions[i];
        if (r->slim) {
            r->slim[i] = (struct scal_stat_slim){
                0,
                (uint32_t)i,
                row->time_total_s,
                row->barrier_total_s,
                row->lock_total_s,
                row->thread_work_max_s,
                row->thread_work_mean_s,
                row->threads,
                row->time_wall_s,
            };
            continue;
        }
        r->stats[i].run = 0;
        r->stats[i].region = (uint32_t)i;
#define SCAL_READ_COPY_STAT(h5, ctype, member) r->stats[i].member = row->member;
        SCAL_REGION_STATS_FIELDS(SCAL_READ_COPY_STAT)
#undef SCAL_READ_COPY_STAT
    }
    r->ninputs = 1;
    r->nruns = 1;
    r->runs[0] = (struct scal_read_run){.input = r->inputs[0], .frequency_khz = -1};
    scal_format_run_threads(f, &r->runs[0].threads, &r->runs[0].team);
    hid_t meta = H5Gopen2(f, "meta", H5P_DEFAULT); /* one rank of an MPI job */
    int64_t rank = -1, size = -1;
    if (meta >= 0) {
        if (scal_h5_attr_exists(meta, "mpi_rank") > 0)
            scal_h5_attr_get_i64(meta, "mpi_rank", &rank);
        if (scal_h5_attr_exists(meta, "mpi_size") > 0)
            scal_h5_attr_get_i64(meta, "mpi_size", &size);
        H5Gclose(meta);
    }
    r->runs[0].ranks = rank >= 0 && size > 0 ? (int32_t)size : 0;
    return SCAL_OK;
}

/* Every MPI rank's rows in place of the critical path's: /rank_region_stats, plus the
 * /region_stats rows of runs that have none there (rank -1). */
static int read_rank_rows(struct scal_read *r)
{
    struct scal_rank_region_stat_row *rr = NULL;
    size_t nrr = 0;
    int rc = scal_table_read_opt(r->f.id, &scal_table_rank_region_stats, (void **)&rr, &nrr);
    if (rc < 0) return rc;
    struct scal_region_stat_row *stats = malloc((nrr + r->nstats + 1) * sizeof(*stats));
    int32_t *rank = malloc((nrr + r->nstats + 1) * sizeof(*rank));
    size_t n = 0;
    if (!stats || !rank) {
        free(rr), free(stats), free(rank);
        return scal__fail(SCAL_ENOMEM, "out of memory for %zu per-rank rows", nrr);
    }
    for (size_t i = 0; i < nrr; i++) {
        stats[n].run = rr[i].run;
        stats[n].region = rr[i].region;
#define SCAL_READ_COPY_STAT(h5, ctype, member) stats[n].member = rr[i].member;
        SCAL_REGION_STATS_FIELDS(SCAL_READ_COPY_STAT)
#undef SCAL_READ_COPY_STAT
        rank[n++] = rr[i].rank;
    }
    for (size_t s = 0; s < r->nstats; s++) {
        bool ranked = false;
        for (size_t i = 0; i < nrr && !ranked; i++)
            ranked = rr[i].run == r->stats[s].run;
        if (ranked) continue;
        stats[n] = r->stats[s];
        rank[n++] = -1;
    }
    free(rr);
    free(r->stats);
    r->stats = stats;
    r->stat_rank = rank;
    r->nstats = n;
    return SCAL_OK;
}

/* The runs with their configuration, planned input and ranks, sorted by id. */
static int resolve_runs(struct scal_read *r)
{
    if (!(r->runs = calloc(r->nrun_rows ? r->nrun_rows : 1, sizeof(*r->runs))))
        return scal__fail(SCAL_ENOMEM, "out of memory for %zu runs", r->nrun_rows);
    for (size_t i = 0; i < r->nrun_rows; i++) {
        const struct scal_run_row *run = &r->run_rows[i];
        const struct scal_config_row *c = NULL;
        for (size_t k = 0; k < r->nconfigs && !c; k++)
            if (r->configs[k].id == run->config) c = &r->configs[k];
        struct scal_read_run *out = &r->runs[i];
        *out = (struct scal_read_run){run->id, run->repetition, NULL, 0, -1, run->team_observed,
                                      -1,      run->status,     0};
        if (!c || c->input >= r->ninputs) {
            if (!r->unplanned) r->unplanned_run = run->id;
            r->unplanned = true;
            if (!c) continue;
        } else {
            out->input = r->inputs[c->input];
        }
        out->input_index = c->input;
        out->threads = c->threads;
        out->frequency_khz = c->frequency_khz;
        out->ranks = scal_read_config_ranks(r, c->id);
    }
    r->nruns = r->nrun_rows;
    qsort(r->runs, r->nruns, sizeof(*r->runs), cmp_run_id); /* scal_read_run_of searches by id */
    return SCAL_OK;
}

static int read_campaign(struct scal_read *r)
{
    hid_t f = r->f.id;
    int rc = scal_table_read(f, &scal_table_configs, (void **)&r->configs, &r->nconfigs);
    r->campaign_group = scal_h5_exists(f, "campaign") == 1;
    r->campaign_inputs = r->campaign_group && scal_h5_exists(f, "campaign/inputs") == 1;
    if (rc == SCAL_OK && r->campaign_inputs)
        rc = scal_h5_read_strings(f, "campaign/inputs", &r->inputs, &r->ninputs);
    if (rc == SCAL_OK)
        rc = scal_table_read(f, &scal_table_runs, (void **)&r->run_rows, &r->nrun_rows);
    if (rc == SCAL_OK)
        rc = scal_table_read(f, &scal_table_campaign_regions, (void **)&r->regions, &r->nregions);
    if (rc == SCAL_OK)
        rc = (r->flags & SCAL_READ_SLIM)
                 ? scal_h5_read_table(f, scal_table_region_stats.name, slim_fields,
                                      sizeof(slim_fields) / sizeof(slim_fields[0]),
                                      sizeof(*r->slim), (void **)&r->slim, &r->nstats)
                 : scal_table_read(f, &scal_table_region_stats, (void **)&r->stats, &r->nstats);
    if (rc == SCAL_OK)
        rc = scal_table_read_opt(f, &scal_table_run_sensor_values, (void **)&r->sensor_values,
                                 &r->nsensor_values);
    if (rc == SCAL_OK)
        rc = scal_table_read_opt(f, &scal_table_config_ranks, (void **)&r->config_ranks,
                                 &r->nconfig_ranks);
    if (rc == SCAL_OK)
        rc = scal_table_read_opt(f, &scal_table_region_rank_summary, (void **)&r->rank_summary,
                                 &r->nrank_summary);
    if (rc == SCAL_OK) rc = scal_format_read_input_sizes(f, &r->input_sizes, &r->ninput_sizes);
    if (rc == SCAL_OK && (r->flags & SCAL_READ_PER_RANK) && !(r->flags & SCAL_READ_SLIM))
        rc = read_rank_rows(r);
    if (rc == SCAL_OK) rc = resolve_runs(r);
    return rc;
}

int scal_read_open(const char *path, struct scal_read *r)
{
    memset(r, 0, sizeof(*r));
    return scal_h5file_open(path, SCAL_OPEN_READ | SCAL_OPEN_VALIDATE, &r->f);
}

int scal_read_tables(struct scal_read *r, unsigned flags)
{
    r->flags = flags;
    int rc = r->f.campaign ? read_campaign(r) : read_run_file(r);
    if (rc < 0) return rc;
    if ((rc = scal_region_labels(r->regions, r->nregions, r->f.strings, r->f.nstrings,
                                 &r->labels)) < 0)
        return scal__fail(rc, "%s: %s", r->f.path, scal__last_error(rc));
    return SCAL_OK;
}

int scal_read_file(const char *path, unsigned flags, struct scal_read *r)
{
    int rc = scal_read_open(path, r);
    return rc < 0 ? rc : scal_read_tables(r, flags);
}

void scal_read_free(struct scal_read *r)
{
    scal_region_identities_free(r->labels, r->labels ? r->nregions : 0);
    free(r->regions);
    free(r->stats);
    free(r->slim);
    free(r->stat_rank);
    free(r->sensor_values);
    free(r->runs);
    scal_h5_free_strings(r->inputs, r->ninputs);
    free(r->input_sizes);
    free(r->configs);
    free(r->run_rows);
    free(r->config_ranks);
    free(r->rank_summary);
    free(r->run_regions);
    free(r->plugin_states);
    free(r->trace_instances);
    free(r->trace_states);
    if (r->f.path) scal_h5file_close(&r->f);
    memset(r, 0, sizeof(*r));
}

const struct scal_read_run *scal_read_run_of(const struct scal_read *r, uint32_t id)
{
    struct scal_read_run key = {.id = id};
    return r->nruns ? bsearch(&key, r->runs, r->nruns, sizeof(*r->runs), cmp_run_id) : NULL;
}
