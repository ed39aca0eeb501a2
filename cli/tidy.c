// SPDX-License-Identifier: BSD-3-Clause
// A run or campaign file as one tidy (run, region) table for the exports.
#include "tidy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "h5util.h"
#include "region_identity.h"
#include "scal/status.h"
#include "scal_format.h"

/* A run file's label for its one input, as scal report and the Python package name it. */
#define TIDY_RUN_FILE_INPUT "run"

/* A label as one Extra-P call-path element: "->" separates elements there, so one inside a label
 * (serial gaps are "serial: A -> B") is written as an arrow character. */
static void put_callpath_element(FILE *out, const char *label)
{
    for (const char *p = label; *p; p++) {
        if (p[0] == '-' && p[1] == '>') {
            fputs("\u2192", out);
            p++;
        } else {
            fputc(*p, out);
        }
    }
}

static int join_callpaths(struct tidy *t)
{
    if (!(t->callpath = calloc(t->nregions ? t->nregions : 1, sizeof(*t->callpath))))
        return scal__fail(SCAL_ENOMEM, "out of memory for %zu call paths", t->nregions);
    for (size_t i = 0; i < t->nregions; i++) {
        int32_t parent = t->regions[i].parent; /* earlier row: checked by the label rule */
        size_t len = 0;
        FILE *s = open_memstream(&t->callpath[i], &len);
        if (!s) return scal__fail(SCAL_ENOMEM, "out of memory for call paths");
        if (parent >= 0) fprintf(s, "%s->", t->callpath[parent]);
        put_callpath_element(s, t->labels[i]);
        if (fclose(s) != 0 || !t->callpath[i])
            return scal__fail(SCAL_ENOMEM, "out of memory for call paths");
    }
    return SCAL_OK;
}

/* A run file: its regions, one run, one stats row per region. */
static int load_run_file(struct tidy *t)
{
    struct scal_region_row *rows = NULL;
    size_t n = 0;
    int rc = scal_table_read(t->f.id, &scal_table_run_regions, (void **)&rows, &n);
    if (rc < 0) return rc;
    t->nregions = t->nstats = n;
    t->regions = scal_region_id_rows(rows, n);
    t->stats = calloc(n ? n : 1, sizeof(*t->stats));
    t->runs = calloc(1, sizeof(*t->runs));
    t->inputs = calloc(1, sizeof(*t->inputs));
    if (!t->regions || !t->stats || !t->runs || !t->inputs ||
        !(t->inputs[0] = strdup(TIDY_RUN_FILE_INPUT))) {
        free(rows);
        return scal__fail(SCAL_ENOMEM, "out of memory for %zu regions", n);
    }
    for (size_t i = 0; i < n; i++) {
        t->stats[i].run = 0;
        t->stats[i].region = (uint32_t)i;
#define TIDY_COPY_STAT(h5, ctype, member) t->stats[i].member = rows[i].member;
        SCAL_REGION_STATS_FIELDS(TIDY_COPY_STAT)
#undef TIDY_COPY_STAT
    }
    free(rows);
    t->ninputs = 1;
    t->nruns = 1;
    t->runs[0] = (struct tidy_run){.input = t->inputs[0], .frequency_khz = -1};
    scal_format_run_threads(t->f.id, &t->runs[0].threads, &t->runs[0].team);
    hid_t meta = H5Gopen2(t->f.id, "meta", H5P_DEFAULT); /* one rank of an MPI job */
    int64_t rank = -1, size = -1;
    if (meta >= 0) {
        if (scal_h5_attr_exists(meta, "mpi_rank") > 0)
            scal_h5_attr_get_i64(meta, "mpi_rank", &rank);
        if (scal_h5_attr_exists(meta, "mpi_size") > 0)
            scal_h5_attr_get_i64(meta, "mpi_size", &size);
        H5Gclose(meta);
    }
    t->runs[0].ranks = rank >= 0 && size > 0 ? (int32_t)size : 0;
    return SCAL_OK;
}

static int cmp_run_id(const void *a, const void *b)
{
    uint32_t x = ((const struct tidy_run *)a)->id, y = ((const struct tidy_run *)b)->id;
    return x < y ? -1 : x > y;
}

static int load_campaign_runs(struct tidy *t)
{
    struct scal_config_row *cfg = NULL;
    struct scal_run_row *runs = NULL;
    struct scal_config_rank_row *cranks = NULL;
    size_t ncfg = 0, nruns = 0, ncranks = 0;
    hid_t group = H5Gopen2(t->f.id, "campaign", H5P_DEFAULT);
    int rc = group < 0 ? scal__fail(SCAL_EFORMAT, "%s: no /campaign group", t->f.path)
                       : scal_h5_read_strings(group, "inputs", &t->inputs, &t->ninputs);
    if (group >= 0) H5Gclose(group);
    if (rc < 0 || (rc = scal_table_read(t->f.id, &scal_table_configs, (void **)&cfg, &ncfg)) < 0 ||
        (rc = scal_table_read(t->f.id, &scal_table_runs, (void **)&runs, &nruns)) < 0 ||
        (rc = scal_table_read_opt(t->f.id, &scal_table_config_ranks, (void **)&cranks, &ncranks)) <
            0)
        goto done;
    if (!(t->runs = calloc(nruns ? nruns : 1, sizeof(*t->runs)))) {
        rc = scal__fail(SCAL_ENOMEM, "out of memory for %zu runs", nruns);
        goto done;
    }
    for (size_t i = 0; i < nruns; i++) {
        const struct scal_config_row *c = NULL;
        for (size_t k = 0; k < ncfg && !c; k++)
            if (cfg[k].id == runs[i].config) c = &cfg[k];
        if (!c || c->input >= t->ninputs) {
            rc = scal__fail(SCAL_EFORMAT, "%s: run %u has no configuration with a planned input",
                            t->f.path, runs[i].id);
            goto done;
        }
        t->runs[i] = (struct tidy_run){runs[i].id,       runs[i].repetition, t->inputs[c->input],
                                       c->input,         c->threads,         runs[i].team_observed,
                                       c->frequency_khz, runs[i].status,     0};
        for (size_t k = 0; k < ncranks; k++)
            if (cranks[k].config == c->id) t->runs[i].ranks = cranks[k].ranks;
    }
    t->nruns = nruns;
    qsort(t->runs, t->nruns, sizeof(*t->runs), cmp_run_id); /* tidy_run_of searches by id */
done:
    free(cfg);
    free(runs);
    free(cranks);
    return rc;
}

/* Whole-region, all-thread sensor values as columns "<plugin>.<metric> [unit]". */
static int load_sensor_values(struct tidy *t)
{
    struct scal_run_sensor_value_row *sv = NULL;
    size_t nsv = 0;
    int rc = t->f.campaign
                 ? scal_table_read_opt(t->f.id, &scal_table_run_sensor_values, (void **)&sv, &nsv)
                 : scal_table_read_run_rows(t->f.id, &scal_table_sensor_values,
                                            &scal_table_run_sensor_values, (void **)&sv, &nsv);
    if (rc < 0) return rc;
    t->metrics = calloc(nsv ? nsv : 1, sizeof(*t->metrics));
    if (!t->metrics) rc = scal__fail(SCAL_ENOMEM, "out of memory for sensor values");
    for (size_t i = 0; rc == SCAL_OK && i < nsv; i++) {
        bool known = false;
        for (size_t m = 0; m < t->nmetrics && !known; m++)
            known = t->metrics[m].name == sv[i].metric && t->metrics[m].unit == sv[i].unit;
        if (!known && sv[i].thread == -1)
            t->metrics[t->nmetrics++] = (struct tidy_metric){sv[i].metric, sv[i].unit};
    }
    if (rc == SCAL_OK && !(t->values = malloc((t->nstats * t->nmetrics + 1) * sizeof(double))))
        rc = scal__fail(SCAL_ENOMEM, "out of memory for sensor values");
    for (size_t i = 0; rc == SCAL_OK && i < t->nstats * t->nmetrics; i++)
        t->values[i] = NAN;
    for (size_t i = 0; rc == SCAL_OK && i < nsv; i++) {
        if (sv[i].thread != -1) continue;
        /* whole-run values (region -1) belong to the whole program's row, as in scal show */
        uint32_t region = sv[i].region >= 0 ? (uint32_t)sv[i].region : 0;
        for (size_t s = 0; s < t->nstats; s++) {
            if (t->stats[s].region != region || t->stats[s].run != sv[i].run) continue;
            for (size_t m = 0; m < t->nmetrics; m++)
                if (t->metrics[m].name == sv[i].metric && t->metrics[m].unit == sv[i].unit &&
                    (sv[i].region >= 0 || isnan(t->values[s * t->nmetrics + m])))
                    t->values[s * t->nmetrics + m] = sv[i].value;
        }
    }
    free(sv);
    return rc;
}

/* Per-rank rows in place of the critical path's: /rank_region_stats, plus the /region_stats rows of
 * runs that have none there (rank -1). */
int tidy_rank_rows(hid_t file, struct scal_region_stat_row **rows, size_t *nrows, int32_t **ranks)
{
    struct scal_rank_region_stat_row *rr = NULL;
    size_t nrr = 0;
    int rc = scal_table_read_opt(file, &scal_table_rank_region_stats, (void **)&rr, &nrr);
    if (rc < 0) return rc;
    struct scal_region_stat_row *stats = malloc((nrr + *nrows + 1) * sizeof(*stats));
    int32_t *rank = malloc((nrr + *nrows + 1) * sizeof(*rank));
    size_t n = 0;
    if (!stats || !rank) {
        free(rr), free(stats), free(rank);
        return scal__fail(SCAL_ENOMEM, "out of memory for %zu per-rank rows", nrr);
    }
    for (size_t i = 0; i < nrr; i++) {
        stats[n].run = rr[i].run;
        stats[n].region = rr[i].region;
#define TIDY_COPY_STAT(h5, ctype, member) stats[n].member = rr[i].member;
        SCAL_REGION_STATS_FIELDS(TIDY_COPY_STAT)
#undef TIDY_COPY_STAT
        rank[n++] = rr[i].rank;
    }
    for (size_t s = 0; s < *nrows; s++) {
        bool ranked = false;
        for (size_t i = 0; i < nrr && !ranked; i++)
            ranked = rr[i].run == (*rows)[s].run;
        if (ranked) continue;
        stats[n] = (*rows)[s];
        rank[n++] = -1;
    }
    free(rr);
    free(*rows);
    *rows = stats;
    *ranks = rank;
    *nrows = n;
    return SCAL_OK;
}

/* /region_rank_summary's rank imbalance beside each stats row (NaN: no summary). */
static int load_rank_imbalance(struct tidy *t)
{
    struct scal_region_rank_summary_row *sum = NULL;
    size_t nsum = 0;
    int rc = t->f.campaign ? scal_table_read_opt(t->f.id, &scal_table_region_rank_summary,
                                                 (void **)&sum, &nsum)
                           : SCAL_OK;
    if (rc < 0) return rc;
    if (!(t->rank_imbalance = malloc((t->nstats + 1) * sizeof(double)))) {
        free(sum);
        return scal__fail(SCAL_ENOMEM, "out of memory for %zu rows", t->nstats);
    }
    for (size_t s = 0; s < t->nstats; s++) {
        t->rank_imbalance[s] = NAN;
        for (size_t k = 0; k < nsum; k++)
            if (sum[k].run == t->stats[s].run && sum[k].region == t->stats[s].region)
                t->rank_imbalance[s] = sum[k].rank_imbalance;
    }
    free(sum);
    return SCAL_OK;
}

static int load(const char *path, bool per_rank, struct tidy *t)
{
    memset(t, 0, sizeof(*t));
    int rc = scal_h5file_open(path, SCAL_OPEN_READ | SCAL_OPEN_VALIDATE, &t->f);
    if (rc < 0) return rc;
    if (t->f.campaign) {
        if ((rc = scal_table_read(t->f.id, &scal_table_campaign_regions, (void **)&t->regions,
                                  &t->nregions)) < 0 ||
            (rc = scal_table_read(t->f.id, &scal_table_region_stats, (void **)&t->stats,
                                  &t->nstats)) < 0 ||
            (rc = load_campaign_runs(t)) < 0 ||
            (rc = scal_format_read_input_sizes(t->f.id, &t->input_sizes, &t->ninput_sizes)) < 0 ||
            (per_rank && (rc = tidy_rank_rows(t->f.id, &t->stats, &t->nstats, &t->stat_rank)) < 0))
            return rc;
    } else if ((rc = load_run_file(t)) < 0) {
        return rc;
    }
    if ((rc = scal_region_labels(t->regions, t->nregions, t->f.strings, t->f.nstrings,
                                 &t->labels)) < 0)
        return scal__fail(rc, "%s: %s", path, scal__last_error(rc));
    for (size_t s = 0; s < t->nstats; s++)
        if (t->stats[s].region >= t->nregions)
            return scal__fail(SCAL_EFORMAT, "%s: /region_stats row %zu names region %u of %zu",
                              path, s, t->stats[s].region, t->nregions);
    if ((rc = join_callpaths(t)) < 0) return rc;
    if ((rc = load_rank_imbalance(t)) < 0) return rc;
    return load_sensor_values(t);
}

int tidy_load(const char *path, struct tidy *t)
{
    return load(path, false, t);
}

int tidy_load_per_rank(const char *path, struct tidy *t)
{
    return load(path, true, t);
}

void tidy_free(struct tidy *t)
{
    scal_region_identities_free(t->labels, t->nregions);
    scal_region_identities_free(t->callpath, t->callpath ? t->nregions : 0);
    free(t->regions);
    free(t->runs);
    scal_h5_free_strings(t->inputs, t->ninputs);
    free(t->input_sizes);
    free(t->stats);
    free(t->metrics);
    free(t->values);
    free(t->rank_imbalance);
    free(t->stat_rank);
    if (t->f.path) scal_h5file_close(&t->f);
    memset(t, 0, sizeof(*t));
}

const struct tidy_run *tidy_run_of(const struct tidy *t, uint32_t run)
{
    struct tidy_run key = {.id = run};
    return t->nruns ? bsearch(&key, t->runs, t->nruns, sizeof(*t->runs), cmp_run_id) : NULL;
}
