// SPDX-License-Identifier: BSD-3-Clause
// The tidy table as CSV: full precision (%.17g), empty cells for missing values, quoted text.
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "errmsg.h"
#include "export.h"
#include "scal/status.h"
#include "table_out.h"

/* The columns of scal.load() (python/scal/_frame.py), in its order; sensor columns follow. */
static const char *const header[] = {
    "run",        "repetition", "input",     "threads",       "team",    "frequency_khz",
    "status",     "region",     "region_id", "parent_id",     "kind",    "file",
    "line_begin", "line_end",   "function",  "count",         "total_s", "wall_s",
    "mean_s",     "median_s",   "min_s",     "max_s",         "work_s",  "barrier_s",
    "lock_s",     "imbalance",  "ranks",     "rank_imbalance"};

/* A number, or an empty cell when it is missing (not finite, or a negative "not set" sentinel). */
static void real(FILE *out, double v)
{
    if (isfinite(v)) fprintf(out, "%.17g", v);
}

static void whole(FILE *out, long long v)
{
    if (v >= 0) fprintf(out, "%lld", v);
}

/* The run's columns, run to status. */
static void run_columns(FILE *out, const struct scal_read_run *r)
{
    fprintf(out, "%u,%u,", r->id, r->repetition);
    table_csv_field(out, r->input);
    fputc(',', out);
    whole(out, r->threads);
    fputc(',', out);
    whole(out, r->team);
    fputc(',', out);
    whole(out, r->frequency_khz);
    fprintf(out, ",%s", scal_run_status_name(r->status));
}

int export_csv(const struct tidy *t, const struct export_opts *o, FILE *out)
{
    for (size_t c = 0; c < sizeof(header) / sizeof(header[0]); c++)
        fprintf(out, "%s%s", c ? "," : "", header[c]);
    for (size_t m = 0; m < t->nmetrics; m++) {
        char name[512];
        snprintf(name, sizeof(name), "%s [%s]", scal_h5file_str(&t->r.f, t->metrics[m].name),
                 scal_h5file_str(&t->r.f, t->metrics[m].unit));
        fputc(',', out);
        table_csv_field(out, name);
    }
    fputc('\n', out);
    for (size_t s = 0; s < t->r.nstats; s++) {
        const struct scal_region_stat_row *st = &t->r.stats[s];
        const struct scal_read_run *r = tidy_run_of(t, st->run);
        const struct scal_region_id_row *g = &t->r.regions[st->region];
        if (!r) continue;
        run_columns(out, r);
        fputc(',', out);
        table_csv_field(out, t->r.labels[st->region]);
        fprintf(out, ",%u,", st->region);
        whole(out, g->parent);
        fprintf(out, ",%s,", scal_region_kind_name(g->kind));
        table_csv_field(out, scal_h5file_str(&t->r.f, g->file));
        fputc(',', out);
        whole(out, g->line_first);
        fputc(',', out);
        whole(out, g->line_last);
        fputc(',', out);
        table_csv_field(out, scal_h5file_str(&t->r.f, g->function));
        fprintf(out, ",%llu", (unsigned long long)st->count);
        const double v[] = {st->time_total_s,  st->time_wall_s,     st->time_mean_s,
                            st->time_median_s, st->time_min_s,      st->time_max_s,
                            st->work_total_s,  st->barrier_total_s, st->lock_total_s,
                            st->imbalance};
        for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
            fputc(',', out);
            /* statistics of a region never entered are not zeros but missing; so are work,
             * waits and imbalance of a region without a team (root, serial, user), as in
             * scal.load() */
            if (st->count && (k < 6 || st->threads > 0)) real(out, v[k]);
        }
        /* MPI: the run's ranks and the region's rank imbalance (empty without ranks) */
        fputc(',', out);
        if (r->ranks > 0) fprintf(out, "%d", r->ranks);
        fputc(',', out);
        real(out, t->rank_imbalance[s]);
        for (size_t m = 0; m < t->nmetrics; m++) {
            fputc(',', out);
            real(out, t->values[s * t->nmetrics + m]);
        }
        fputc('\n', out);
    }
    /* a run without region rows (it failed, or its run file was unreadable) is one row with its
     * run columns, as in scal.load() */
    bool *has_rows = calloc(t->r.nruns + 1, sizeof(*has_rows));
    if (!has_rows) return scal__fail(SCAL_ENOMEM, "out of memory for %zu runs", t->r.nruns);
    for (size_t s = 0; s < t->r.nstats; s++) {
        const struct scal_read_run *r = tidy_run_of(t, t->r.stats[s].run);
        if (r) has_rows[r - t->r.runs] = true;
    }
    for (size_t i = 0; i < t->r.nruns; i++) {
        const struct scal_read_run *r = &t->r.runs[i];
        if (has_rows[i]) continue;
        run_columns(out, r);
        for (size_t c = 7; c < sizeof(header) / sizeof(header[0]) + t->nmetrics; c++)
            fputc(',', out);
        fputc('\n', out);
    }
    free(has_rows);
    return ferror(out) ? scal__fail(SCAL_EIO, "cannot write the CSV output") : SCAL_OK;
}
