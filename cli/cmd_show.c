#define _GNU_SOURCE /* qsort_r */
// SPDX-License-Identifier: BSD-3-Clause
// `scal show FILE`: the region tree of a run file, or the configurations and a run-by-region
// dataframe of a campaign file, as an aligned table or as CSV.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "errmsg.h"
#include "h5util.h"
#include "layout.h"
#include "scal/status.h"
#include "region_identity.h"
#include "safe_open.h"
#include "scal_format.h"
#include "stdin_file.h"
#include "table_out.h"
#include "tidy.h"

struct show_opts {
    bool csv; /* machine output: CSV, or JSON when json is set too */
    bool json;
    int max_depth;     /* -1: all */
    size_t top;        /* 0: all */
    const char *table; /* "regions" (default), "configs" (campaigns) or "labels" */
    bool per_rank;     /* campaign: every MPI rank's rows instead of the critical path's */
};

/* Sensor metric columns: /sensors/values (run files) or /sensor_values (campaigns) rows for the
 * whole team (thread -1), one column per metric. */
struct metrics {
    size_t n;
    uint32_t names[32];
    char headers[32][128];
};

static int metric_column(struct metrics *m, const struct scal_h5file *f, uint32_t metric,
                         uint32_t unit)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->names[i] == metric) return (int)i;
    if (m->n == 32) return SCAL_ERANGE;
    m->names[m->n] = metric;
    snprintf(m->headers[m->n], sizeof(m->headers[0]), "%s [%s]", scal_h5file_str(f, metric),
             scal_h5file_str(f, unit));
    return (int)m->n++;
}

/* CSV is for programs: numbers at full precision and missing values as empty cells (a "-" would
 * turn a numeric column into text); the aligned view is for people. */
static bool csv_cells;

static const char *fmt(char *buf, size_t len, const char *f, double v)
{
    if (isnan(v))
        snprintf(buf, len, "%s", csv_cells ? "" : "-");
    else
        snprintf(buf, len, csv_cells ? "%.17g" : f, v);
    return buf;
}

/* An integer cell; negative values mean "not known" (-1 sentinels of the file). */
static const char *whole(char *buf, size_t len, long long v)
{
    if (v < 0)
        snprintf(buf, len, "%s", csv_cells ? "" : "-");
    else
        snprintf(buf, len, "%lld", v);
    return buf;
}

/* The CSV views end with where the region is: its parent (campaigns: run files have it up
 * front), file and lines. Returns the number of cells. */
static size_t where_cells(const struct scal_h5file *f, const struct scal_region_id_row *r,
                          bool with_parent, char c[3][64], const char **cells)
{
    size_t n = 0;
    if (with_parent) cells[n++] = whole(c[0], 64, r->parent);
    cells[n++] = scal_h5file_str(f, r->file);
    cells[n++] = whole(c[1], 64, r->line_first);
    cells[n++] = whole(c[2], 64, r->line_last);
    return n;
}
static const char *const where_header[] = {"parent", "file", "line_begin", "line_end"};

/* ---- run files ------------------------------------------------------------------------------- */

struct run_view {
    const struct scal_h5file *f;
    const struct scal_region_row *rows;
    size_t n;
    char *const *labels; /* stored labels, else the one rule's (region_identity.h) */
    bool *keep;
    double *metric_values; /* n * metrics.n, NaN = none */
    struct metrics metrics;
};

static void add_region_row(struct table_out *t, const struct run_view *v, size_t i,
                           const struct show_opts *o)
{
    const struct scal_region_row *r = &v->rows[i];
    char label[1024], c[24][64];
    double program = v->rows[0].time_total_s > 0 ? v->rows[0].time_total_s : NAN;
    /* program_% is the wall-clock share (files from before time_wall_s: the summed time's) */
    double wall = isnan(r->time_wall_s) ? r->time_total_s : r->time_wall_s;
    double busy = r->work_total_s + r->barrier_total_s + r->lock_total_s;
    const char *name = v->labels[i];
    snprintf(label, sizeof(label), "%*s%s", o->csv ? 0 : (int)(2 * r->depth), "", name);
    snprintf(c[0], 64, "%u", r->id);
    whole(c[1], 64, r->parent);
    snprintf(c[2], 64, "%u", r->depth);
    snprintf(c[3], 64, "%llu", (unsigned long long)r->count);
    fmt(c[4], 64, "%.6f", r->time_total_s);
    fmt(c[5], 64, "%.6f", r->count ? r->time_mean_s : NAN);
    fmt(c[6], 64, "%.6f", r->count ? r->time_median_s : NAN);
    fmt(c[7], 64, "%.1f", 100.0 * wall / program);
    fmt(c[12], 64, "%.6f", r->time_wall_s);
    fmt(c[8], 64, "%.1f", r->kind == SCAL_KIND_PARALLEL ? 100.0 * r->imbalance : NAN);
    fmt(c[9], 64, "%.1f", busy > 0 ? 100.0 * r->barrier_total_s / busy : NAN);
    fmt(c[10], 64, "%.1f", busy > 0 ? 100.0 * r->lock_total_s / busy : NAN);
    if (r->team_actual_min < 0)
        snprintf(c[11], 64, "%s", csv_cells ? "" : "-");
    else if (r->team_actual_min == r->team_actual_max)
        snprintf(c[11], 64, "%d", r->team_actual_min);
    else
        snprintf(c[11], 64, "%d-%d", r->team_actual_min, r->team_actual_max);
    const char *cells[64] = {c[0],
                             c[1],
                             label,
                             scal_h5file_str(v->f, r->function),
                             scal_region_kind_name(r->kind),
                             c[3],
                             c[4],
                             c[12],
                             c[5],
                             c[6],
                             c[7],
                             c[8],
                             c[9],
                             c[10],
                             c[11]};
    size_t nc = 15;
    char mc[32][64];
    for (size_t m = 0; m < v->metrics.n; m++) {
        fmt(mc[m], 64, "%.6g", v->metric_values[i * v->metrics.n + m]);
        cells[nc++] = mc[m];
    }
    if (o->csv) {
        char wc[3][64];
        struct scal_region_id_row id = {0};
        id.parent = r->parent, id.file = r->file, id.line_first = r->line_first,
        id.line_last = r->line_last;
        nc += where_cells(v->f, &id, false, wc, cells + nc);
        table_add_row(t, cells);
    } else {
        /* The aligned view leaves out the id columns: the indentation shows the tree. */
        table_add_row(t, cells + 2);
    }
}

static void walk(struct table_out *t, const struct run_view *v, size_t i, const struct show_opts *o)
{
    if (!v->keep[i] || (o->max_depth >= 0 && (int)v->rows[i].depth > o->max_depth)) return;
    add_region_row(t, v, i, o);
    for (size_t k = i + 1; k < v->n; k++)
        if (v->rows[k].parent == (int32_t)i) walk(t, v, k, o);
}

static int cmp_time_desc(const void *a, const void *b, void *ctx)
{
    const struct scal_region_row *rows = ctx;
    double x = rows[*(const size_t *)a].time_total_s, y = rows[*(const size_t *)b].time_total_s;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* The measurement problems of a run file: the total, then each counter that is not zero with what
 * it counts ("name: description" in /diagnostics/descriptions), e.g. tasks the tool could not
 * attribute. */
static void show_diagnostics(FILE *out, const struct scal_h5file *f)
{
    hid_t diag = H5Gopen2(f->id, "diagnostics", H5P_DEFAULT);
    if (diag < 0) return;
    int64_t total = 0;
    scal_h5_attr_get_i64(diag, "errors_total", &total);
    if (total > 0)
        fprintf(out, "  measurement problems: %lld (see /diagnostics)\n", (long long)total);
    char **text = NULL;
    size_t n = 0;
    if (scal_h5_read_strings(diag, "descriptions", &text, &n) < 0) n = 0;
    for (size_t i = 0; i < n; i++) {
        char name[128];
        const char *colon = strstr(text[i], ": ");
        size_t len = colon ? (size_t)(colon - text[i]) : 0;
        int64_t v = 0;
        if (!len || len >= sizeof(name)) continue;
        memcpy(name, text[i], len);
        name[len] = '\0';
        if (scal_h5_attr_get_i64(diag, name, &v) == 0 && v > 0)
            fprintf(out, "    %s = %lld: %s\n", name, (long long)v, colon + 2);
    }
    scal_h5_free_strings(text, n);
    H5Gclose(diag);
}

static void print_run_header(const struct scal_read *r, FILE *out)
{
    const struct scal_h5file *f = &r->f;
    char *cmd = NULL, *date = NULL, *host = NULL, *reason = NULL, *rt = NULL, *entry = NULL;
    int64_t team = -1;
    hid_t meta = H5Gopen2(f->id, "meta", H5P_DEFAULT);
    if (meta >= 0) {
        scal_h5_attr_get_str(meta, "command_line", &cmd);
        scal_h5_attr_get_str(meta, "date_utc", &date);
        scal_h5_attr_get_str(meta, "host", &host);
        scal_h5_attr_get_str(meta, "exit_reason", &reason);
        scal_h5_attr_get_i64(meta, "max_team_observed", &team);
        scal_h5_attr_get_str(meta, "omp_runtime", &rt);
        if (scal_h5_attr_exists(meta, "omp_entry_points"))
            scal_h5_attr_get_str(meta, "omp_entry_points", &entry);
        H5Gclose(meta);
    }
    fprintf(out, "run: %s\n  on %s at %s, largest team %lld, ended: %s\n", cmd ? cmd : "?",
            host ? host : "?", date ? date : "?", (long long)team, reason ? reason : "?");
    fprintf(out, "  OpenMP runtime measured: %s%s%s\n", rt ? rt : "?",
            entry ? ", entry points " : "", entry ? entry : "");
    free(rt);
    free(entry);
    free(cmd);
    free(date);
    free(host);
    free(reason);
    /* sensors: whole-run values and the plugins that could not measure */
    const struct scal_run_sensor_value_row *sv = r->sensor_values;
    const struct scal_plugin_state_row *ps = r->plugin_states;
    size_t nsv = r->nsensor_values, nps = r->nplugin_states, shown = 0;
    for (size_t i = 0; i < nsv; i++)
        if (sv[i].region < 0 && sv[i].thread < 0)
            fprintf(out, "%s%s %.6g %s",
                    shown++ ? ", " : "  whole run: ", scal_h5file_str(f, sv[i].metric), sv[i].value,
                    scal_h5file_str(f, sv[i].unit));
    if (shown) fputc('\n', out);
    for (size_t i = 0; i < nps; i++)
        if (!ps[i].available)
            fprintf(out, "  sensor %s unavailable: %s\n", scal_h5file_str(f, ps[i].name),
                    scal_h5file_str(f, ps[i].reason));
    show_diagnostics(out, f);
    fputc('\n', out);
}

static int show_run(const struct scal_read *r, const struct show_opts *o)
{
    const struct scal_h5file *f = &r->f;
    struct run_view v = {f, r->run_regions, r->nregions, r->labels, NULL, NULL, {0}};
    const struct scal_run_sensor_value_row *sv = r->sensor_values;
    size_t nsv = r->nsensor_values;
    struct table_out t;
    int rc = SCAL_OK;
    if (v.n == 0) return scal__fail(SCAL_EEMPTY, "/regions is empty");
    for (size_t i = 0; i < nsv; i++)
        if (sv[i].thread == -1 && sv[i].region >= 0)
            metric_column(&v.metrics, f, sv[i].metric, sv[i].unit);
    v.metric_values = malloc((v.n * v.metrics.n + 1) * sizeof(double));
    v.keep = calloc(v.n, sizeof(bool));
    if (!v.metric_values || !v.keep) {
        rc = scal__fail(SCAL_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < v.n * v.metrics.n; i++)
        v.metric_values[i] = NAN;
    for (size_t i = 0; i < nsv; i++) {
        if (sv[i].thread != -1 || sv[i].region < 0 || (size_t)sv[i].region >= v.n) continue;
        int col = metric_column(&v.metrics, f, sv[i].metric, sv[i].unit);
        if (col >= 0)
            v.metric_values[(size_t)sv[i].region * v.metrics.n + (size_t)col] = sv[i].value;
    }
    if (o->top) {
        size_t *order = malloc(v.n * sizeof(*order));
        if (!order) {
            rc = scal__fail(SCAL_ENOMEM, "out of memory");
            goto done;
        }
        for (size_t i = 0; i < v.n; i++)
            order[i] = i;
        qsort_r(order + 1, v.n - 1, sizeof(*order), cmp_time_desc, (void *)v.rows);
        v.keep[0] = true;
        for (size_t k = 1; k < v.n && k <= o->top; k++)
            for (int32_t i = (int32_t)order[k]; i >= 0 && !v.keep[i]; i = v.rows[i].parent)
                v.keep[i] = true;
        free(order);
    } else {
        for (size_t i = 0; i < v.n; i++)
            v.keep[i] = true;
    }
    const char *header[64] = {"id",        "parent",      "region",    "function", "kind",
                              "count",     "total_s",     "wall_s",    "mean_s",   "median_s",
                              "program_%", "imbalance_%", "barrier_%", "lock_%",   "team"};
    bool right[64] = {true, true, false, false, false, true, true, true,
                      true, true, true,  true,  true,  true, true};
    size_t nc = 15;
    for (size_t m = 0; m < v.metrics.n; m++) {
        header[nc] = v.metrics.headers[m];
        right[nc++] = true;
    }
    if (o->csv) {
        for (size_t k = 1; k < 4; k++) /* the parent is the second column already */
            header[nc + k - 1] = where_header[k], right[nc + k - 1] = k != 1; /* numbers */
        table_init(&t, nc + 3, header, right);
    } else {
        table_init(&t, nc - 2, header + 2, right + 2);
        print_run_header(r, stdout);
    }
    walk(&t, &v, 0, o);
    table_print(&t, stdout, o->json ? TABLE_JSON : o->csv ? TABLE_CSV : TABLE_TEXT);
    table_free(&t);
done:
    free(v.keep);
    free(v.metric_values);
    return rc;
}

/* ---- campaign files ---------------------------------------------------------------------------
 */

static const struct scal_config_row *config_of(const struct scal_config_row *c, size_t n,
                                               uint32_t id)
{
    for (size_t i = 0; i < n; i++)
        if (c[i].id == id) return &c[i];
    return NULL;
}

/* The MPI ranks of a configuration, -1 when the campaign has none for it. */
static int32_t ranks_of(const struct scal_read *r, uint32_t config)
{
    for (size_t i = 0; i < r->nconfig_ranks; i++)
        if (r->config_ranks[i].config == config) return r->config_ranks[i].ranks;
    return -1;
}

static int show_campaign(const struct scal_read *r, const struct show_opts *o)
{
    const struct scal_h5file *f = &r->f;
    const struct scal_config_row *configs = r->configs;
    const struct scal_run_row *runs = r->run_rows;
    const struct scal_region_id_row *regions = r->regions;
    const struct scal_region_stat_row *stats = r->stats;
    const struct scal_run_sensor_value_row *sv = r->sensor_values;
    const int32_t *stat_rank = r->stat_rank;
    size_t nconfigs = r->nconfigs, nruns = r->nrun_rows, nregions = r->nregions, nstats = r->nstats,
           nsv = r->nsensor_values;
    struct metrics metrics = {0};
    struct table_out t;
    char c[16][64];
    char *const *labels = r->labels;
    int rc = SCAL_OK;
    /* an MPI campaign: a ranks column (and, per rank, a rank column) after threads */
    bool mpi = r->nconfig_ranks > 0 || o->per_rank;
    if (nruns == 0) return scal__fail(SCAL_EEMPTY, "the campaign holds no runs yet");
    for (size_t i = 0; i < nsv; i++)
        if (sv[i].thread == -1) metric_column(&metrics, f, sv[i].metric, sv[i].unit);

    if (!o->csv || (o->table && !strcmp(o->table, "configs"))) {
        const char *h[] = {"config",  "threads",     "input",   "frequency_khz",
                           "runs_ok", "runs_failed", "command", "ranks"};
        bool right[] = {true, true, false, true, true, true, false, true};
        table_init(&t, mpi ? 8 : 7, h, right);
        for (size_t i = 0; i < nconfigs; i++) {
            unsigned ok = 0, failed = 0;
            for (size_t k = 0; k < nruns; k++)
                if (runs[k].config == configs[i].id) {
                    if (runs[k].status == SCAL_RUN_OK)
                        ok++;
                    else
                        failed++;
                }
            snprintf(c[0], 64, "%u", configs[i].id);
            snprintf(c[1], 64, "%d", configs[i].threads);
            snprintf(c[2], 64, "%lld", (long long)configs[i].frequency_khz);
            whole(c[2], 64, configs[i].frequency_khz);
            snprintf(c[3], 64, "%u", ok);
            snprintf(c[4], 64, "%u", failed);
            whole(c[5], 64, ranks_of(r, configs[i].id));
            const char *cells[] = {c[0], c[1], scal_h5file_str(f, configs[i].input_label), c[2],
                                   c[3], c[4], scal_h5file_str(f, configs[i].argv),        c[5]};
            table_add_row(&t, cells);
        }
        table_print(&t, stdout, o->json ? TABLE_JSON : o->csv ? TABLE_CSV : TABLE_TEXT);
        table_free(&t);
        if (o->csv) goto done;
        putchar('\n');
    }
    const char *header[48] = {"run",       "repetition", "input", "threads", "team",  "status",
                              "region_id", "region",     "count", "total_s", "mean_s"};
    bool right[48] = {true, true, false, true, true, false, true, false, true, true, true};
    size_t nc = 11, nbase = 11;
    if (mpi) { /* after the fixed columns: scripts reading them by position stay right */
        header[nc] = "ranks", right[nc++] = true;
        if (o->per_rank) header[nc] = "rank", right[nc++] = true;
        nbase = nc;
    }
    for (size_t m = 0; m < metrics.n; m++) {
        header[nc] = metrics.headers[m];
        right[nc++] = true;
    }
    if (o->csv)
        for (size_t k = 0; k < 4; k++)
            header[nc] = where_header[k], right[nc++] = k != 1; /* numbers (--json) */
    table_init(&t, nc, header, right);
    for (size_t s = 0; s < nstats; s++) {
        const struct scal_region_stat_row *st = &stats[s];
        const struct scal_run_row *run = NULL;
        for (size_t k = 0; k < nruns && !run; k++)
            if (runs[k].id == st->run) run = &runs[k];
        if (!run || st->region >= nregions) continue;
        const struct scal_region_id_row *reg = &regions[st->region];
        if (o->max_depth >= 0 && (int)reg->depth > o->max_depth) continue;
        const struct scal_config_row *cfg = config_of(configs, nconfigs, run->config);
        snprintf(c[0], 64, "%u", run->id);
        snprintf(c[1], 64, "%u", run->repetition);
        whole(c[2], 64, cfg ? cfg->threads : -1);
        whole(c[3], 64, run->team_observed);
        snprintf(c[4], 64, "%u", st->region);
        snprintf(c[5], 64, "%llu", (unsigned long long)st->count);
        fmt(c[6], 64, "%.6f", st->time_total_s);
        fmt(c[7], 64, "%.6f", st->count ? st->time_mean_s : NAN);
        const char *label = labels[st->region];
        const char *cells[48] = {c[0], c[1],  cfg ? scal_h5file_str(f, cfg->input_label) : "?",
                                 c[2], c[3],  scal_run_status_name(run->status),
                                 c[4], label, c[5],
                                 c[6], c[7]};
        char rc_cells[2][64];
        if (mpi) {
            cells[11] = whole(rc_cells[0], 64, cfg ? ranks_of(r, cfg->id) : -1);
            if (o->per_rank) cells[12] = whole(rc_cells[1], 64, stat_rank[s]);
        }
        char mc[32][64];
        for (size_t m = 0; m < metrics.n; m++) {
            double value = NAN;
            for (size_t k = 0; k < nsv; k++) /* whole-run values show on the whole program */
                if (sv[k].run == run->id && sv[k].thread == -1 &&
                    sv[k].metric == metrics.names[m] &&
                    (sv[k].region == (int32_t)st->region ||
                     (st->region == 0 && sv[k].region == -1 && isnan(value))))
                    value = sv[k].value;
            cells[nbase + m] = fmt(mc[m], 64, "%.6g", value);
        }
        char wc[3][64];
        if (o->csv) where_cells(f, reg, true, wc, cells + nbase + metrics.n);
        table_add_row(&t, cells);
    }
    table_print(&t, stdout, o->json ? TABLE_JSON : o->csv ? TABLE_CSV : TABLE_TEXT);
    table_free(&t);
done:
    return rc;
}

/* --table labels: per region its id, the label readers show, whether the file stores it and the
 * label the rule gives (what the tests compare, and how Python reads files from before labels were
 * stored). */
static int show_labels(const struct scal_read *r, const struct show_opts *o)
{
    const struct scal_region_id_row *ids = r->regions;
    char *const *shown = r->labels; /* the reader's: stored, else the rule's */
    char **rule = NULL;
    size_t n = r->nregions;
    int rc = scal_region_labels_by_rule(ids, n, r->f.strings, r->f.nstrings, &rule);
    if (rc == SCAL_OK) {
        const char *h[] = {"id", "stored", "label", "rule"};
        const bool right[] = {true, true, false, false};
        struct table_out t;
        char id[32];
        table_init(&t, 4, h, right);
        for (size_t i = 0; i < n; i++) {
            snprintf(id, sizeof(id), "%zu", i);
            const char *cells[] = {id, ids[i].label != SCAL_NO_STRING ? "1" : "0", shown[i],
                                   rule[i]};
            table_add_row(&t, cells);
        }
        table_print(&t, stdout, o->json ? TABLE_JSON : o->csv ? TABLE_CSV : TABLE_TEXT);
        table_free(&t);
    }
    scal_region_identities_free(rule, n);
    return rc;
}

static void usage(FILE *out)
{
    fprintf(
        out,
        "usage: scal show FILE [--csv|--json] [--depth N] [--top K] [--table "
        "configs|regions|labels]\n"
        "       (FILE '-': standard input)\n\n"
        "Run file: the region tree, indented by nesting, with count, total/mean/median time, share "
        "of the\n"
        "program, load imbalance, barrier- and lock-wait shares of the team's time and team size; "
        "sensor\n"
        "metrics (e.g. energy) as extra columns when the run has them.\n"
        "Campaign file: the configurations, then one row per (run, region) like a dataframe: run,\n"
        "repetition, input, threads, observed team, status, region, count, times, sensor "
        "metrics.\n\n"
        "  --csv          CSV with a header row for scripts (run files: adds id and parent "
        "columns;\n"
        "                 campaigns: the (run, region) table, or --table configs)\n"
        "  --json         the --csv table as a JSON array of objects (numbers as numbers,\n"
        "                 missing values as null)\n"
        "  --depth N      only regions nested at most N deep (the program is depth 0)\n"
        "  --top K        run files: the K regions with the largest total time, with their "
        "ancestors\n"
        "  --table NAME   campaigns with --csv/--json: 'regions' (default) or 'configs';\n"
        "                 'labels' (run files too): per region id, stored (1 when the file\n"
        "                 stores its label), label (as shown) and rule (the label the rule\n"
        "                 derives, which files from before stored labels are shown with)\n"
        "  --per-rank     MPI campaigns: every rank's rows (a rank column) instead of the\n"
        "                 critical path's (per region the slowest rank); MPI campaigns show a\n"
        "                 ranks column\n");
}

int scal_cmd_show(int argc, char **argv)
{
    struct show_opts o = {false, false, -1, 0, NULL, false};
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        char *end;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--per-rank")) {
            o.per_rank = true;
        } else if (!strcmp(a, "--csv")) {
            o.csv = csv_cells = true;
        } else if (!strcmp(a, "--json")) { /* the CSV table, as an array of objects */
            o.csv = csv_cells = o.json = true;
        } else if ((!strcmp(a, "--depth") || !strcmp(a, "--top")) && i + 1 < argc) {
            long v = strtol(argv[++i], &end, 10);
            if (*end || v < 0) {
                fprintf(stderr, "scal show: %s needs a whole number >= 0, not '%s'\n", a, argv[i]);
                return 2;
            }
            if (!strcmp(a, "--depth"))
                o.max_depth = (int)v;
            else
                o.top = (size_t)v;
        } else if (!strcmp(a, "--table") && i + 1 < argc) {
            o.table = argv[++i];
            if (strcmp(o.table, "configs") && strcmp(o.table, "regions") &&
                strcmp(o.table, "labels")) {
                fprintf(stderr,
                        "scal show: --table takes 'configs', 'regions' or 'labels', not '%s'\n",
                        o.table);
                return 2;
            }
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr,
                    "scal show: unknown or incomplete option '%s'; see 'scal show --help'\n", a);
            return 2;
        } else if (path) {
            fprintf(stderr, "scal show: one file at a time ('%s' and '%s')\n", path, a);
            return 2;
        } else {
            path = a;
        }
    }
    if (!path) {
        fprintf(stderr, "scal show: no run or campaign file given (see 'scal show --help')\n");
        return 2;
    }
    struct scal_read r; /* the one reader (campaign_reader.h) */
    char tmp[4096] = "";
    const char *file = stdin_file(path, tmp, sizeof(tmp)); /* "-": standard input */
    int rc = file ? scal_read_open(file, &r) : SCAL_EIO;
    if (rc < 0) {
        fprintf(stderr, "scal show: %s\n", scal__last_error(rc));
        stdin_file_done(path, tmp);
        return 1;
    }
    rc = scal_read_tables(&r, o.per_rank ? SCAL_READ_PER_RANK : 0);
    if (rc == SCAL_OK && o.table && !strcmp(o.table, "labels"))
        rc = show_labels(&r, &o);
    else if (rc == SCAL_OK)
        rc = r.f.campaign ? show_campaign(&r, &o) : show_run(&r, &o);
    if (rc < 0) fprintf(stderr, "scal show: %s: %s\n", path, scal__last_error(rc));
    scal_read_free(&r);
    stdin_file_done(path, tmp);
    return rc < 0 ? 1 : 0;
}
