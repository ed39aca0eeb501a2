// SPDX-License-Identifier: BSD-3-Clause
// The tidy table as CSV: full precision (%.17g), empty cells for missing values, quoted text.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "errmsg.h"
#include "export.h"
#include "scal/status.h"

/* The columns of scal.load() (python/scal/_frame.py), in its order; sensor columns follow. */
static const char *const header[] = {
    "run",      "repetition", "input",     "threads",  "team",     "frequency_khz", "status",
    "region",   "region_id",  "parent_id", "kind",     "file",     "line_begin",    "line_end",
    "function", "count",      "total_s",   "mean_s",   "median_s", "min_s",         "max_s",
    "work_s",   "barrier_s",  "lock_s",    "imbalance"};

static void text(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"') fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

/* A number, or an empty cell when it is missing (not finite, or a negative "not set" sentinel). */
static void real(FILE *out, double v)
{
    if (isfinite(v)) fprintf(out, "%.17g", v);
}

static void whole(FILE *out, long long v)
{
    if (v >= 0) fprintf(out, "%lld", v);
}

int export_csv(const struct tidy *t, const struct export_opts *o, FILE *out)
{
    for (size_t c = 0; c < sizeof(header) / sizeof(header[0]); c++)
        fprintf(out, "%s%s", c ? "," : "", header[c]);
    for (size_t m = 0; m < t->nmetrics; m++) {
        char name[512];
        snprintf(name, sizeof(name), "%s [%s]", scal_h5file_str(&t->f, t->metrics[m].name),
                 scal_h5file_str(&t->f, t->metrics[m].unit));
        fputc(',', out);
        text(out, name);
    }
    fputc('\n', out);
    for (size_t s = 0; s < t->nstats; s++) {
        const struct scal_region_stat_row *st = &t->stats[s];
        const struct tidy_run *r = tidy_run_of(t, st->run);
        const struct scal_region_id_row *g = &t->regions[st->region];
        if (!r || (!o->all_runs && r->status != SCAL_RUN_OK)) continue;
        fprintf(out, "%u,%u,", r->id, r->repetition);
        text(out, r->input);
        fputc(',', out);
        whole(out, r->threads);
        fputc(',', out);
        whole(out, r->team);
        fputc(',', out);
        whole(out, r->frequency_khz);
        fprintf(out, ",%s,", scal_run_status_name(r->status));
        text(out, t->labels[st->region]);
        fprintf(out, ",%u,", st->region);
        whole(out, g->parent);
        fprintf(out, ",%s,", scal_region_kind_name(g->kind));
        text(out, scal_h5file_str(&t->f, g->file));
        fputc(',', out);
        whole(out, g->line_first);
        fputc(',', out);
        whole(out, g->line_last);
        fputc(',', out);
        text(out, scal_h5file_str(&t->f, g->function));
        fprintf(out, ",%llu", (unsigned long long)st->count);
        const double v[] = {st->time_total_s,    st->time_mean_s,  st->time_median_s,
                            st->time_min_s,      st->time_max_s,   st->work_total_s,
                            st->barrier_total_s, st->lock_total_s, st->imbalance};
        for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
            fputc(',', out);
            /* statistics of a region never entered are not zeros but missing */
            if (st->count) real(out, v[k]);
        }
        for (size_t m = 0; m < t->nmetrics; m++) {
            fputc(',', out);
            real(out, t->values[s * t->nmetrics + m]);
        }
        fputc('\n', out);
    }
    return ferror(out) ? scal__fail(SCAL_EIO, "cannot write the CSV output") : SCAL_OK;
}
