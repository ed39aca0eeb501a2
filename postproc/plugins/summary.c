// SPDX-License-Identifier: BSD-3-Clause
// Output plugin: summary.txt with the notes, the ranking and every region's findings.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "scal/postproc.h"
#include "util.h"

static double scalar(const struct scal_pp_host *h, size_t r, const char *m)
{
    return pp_at(h->get(h, r, 0, m), 0, 0);
}

/* "lost core-seconds over N cells: 12.3 = imbalance 4.1 + barrier/taskwait wait 2.0 + ..." */
static void breakdown(FILE *f, const struct scal_pp_host *h, size_t r)
{
    static const char *const parts[] = {"lost_imbalance", "lost_barrier", "lost_lock",
                                        "lost_serial", "lost_rest"};
    static const char *const names[] = {"imbalance", "barrier/taskwait wait", "lock wait",
                                        "serial share", "the rest"};
    const struct scal_pp_matrix *L = h->get(h, r, 0, "lost_cells");
    if (!L) return;
    double sum[5] = {0}, total = 0;
    size_t cells = 0;
    for (size_t i = 0; i < (size_t)L->rows * L->cols; i++) {
        if (isnan(L->values[i])) continue;
        cells++;
        total += L->values[i];
        for (size_t k = 0; k < 5; k++) {
            double v = pp_at(h->get(h, r, 0, parts[k]), i / L->cols, i % L->cols);
            sum[k] += isnan(v) ? 0 : v;
        }
    }
    if (!cells) {
        fprintf(f, "  - lost time: no baseline (no cell beyond the baseline)\n");
        return;
    }
    fprintf(f, "  - lost core-seconds over %zu cells: %.4g =", cells, total);
    for (size_t k = 0; k < 5; k++)
        fprintf(f, "%s %s %.4g", k ? " +" : "", names[k], sum[k]);
    fprintf(f, "\n");
}

/* The model plugin's ranking (model_rank): regions by the core-seconds their models predict they
 * lose at its target configuration (named in its note); nothing without the model plugin. */
static void model_ranking(FILE *f, const struct scal_pp_host *h)
{
    size_t shown = 0;
    for (size_t k = 1; k < h->nregions && shown < (h->top ? h->top : 20); k++)
        for (size_t r = 1; r < h->nregions; r++)
            if (scalar(h, r, "model_rank") == (double)k) {
                if (!shown++)
                    fprintf(f, "\nregions by predicted lost core-seconds (models; rank, "
                               "core-seconds, label):\n");
                fprintf(f, "  %3zu  %10.4g  %s\n", k, scalar(h, r, "model_lost"),
                        h->regions[r].label);
            }
}

static int run(const struct scal_pp_host *h, char *why, size_t whylen)
{
    FILE *f = pp_create(h, "summary.txt", why, whylen);
    if (!f) return SCAL_EIO;
    const char *const *notes;
    fprintf(f, "scal report summary\n\nsources:");
    for (const char *const *s = h->sources; s && *s; s++)
        fprintf(f, " %s", *s);
    fprintf(f, "\nstatistic of repetitions: %s; %s: %zu; thread counts:", h->stat,
            pp_rows_are_ranks(h) ? "rank counts (MPI, --axes ranks,threads)" : "inputs",
            h->ninputs);
    for (size_t t = 0; t < h->nthreads; t++)
        fprintf(f, " %d", h->threads[t]);
    fprintf(f, "\nbaseline: %s%s\n",
            *h->baseline_note ? h->baseline_note : "the 1-thread run of each ",
            *h->baseline_note      ? ""
            : pp_rows_are_ranks(h) ? "rank count"
                                   : "input");
    size_t n = h->notes(h, -1, &notes);
    if (n) fprintf(f, "\nnotes:\n");
    for (size_t i = 0; i < n; i++)
        fprintf(f, "  - %s\n", notes[i]);
    /* ranking */
    fprintf(f, "\nregions by share of the program's lost time (rank, share, label):\n");
    size_t shown = 0;
    for (size_t k = 1; k <= h->nregions && shown < (h->top ? h->top : 20); k++)
        for (size_t r = 1; r < h->nregions; r++)
            if (scalar(h, r, "rank") == (double)k) {
                fprintf(f, "  %3zu  %6.1f%%  %s\n", k, 100 * scalar(h, r, "lost_share"),
                        h->regions[r].label);
                shown++;
            }
    if (!shown)
        fprintf(f, "  (none: %s)\n",
                h->nthreads < 2 ? "needs at least two thread counts"
                                : "no region has lost time beyond its baseline");
    model_ranking(f, h);
    fprintf(f, "\nfindings:\n");
    for (size_t r = 0; r < h->nregions; r++) {
        if (!h->selected(h, r)) continue;
        fprintf(f, "\n%s [%s]\n", h->regions[r].label, h->regions[r].slug);
        n = h->notes(h, (long)r, &notes);
        for (size_t i = 0; i < n; i++)
            fprintf(f, "  - %s\n", notes[i]);
        if (!n) fprintf(f, "  - (no finding)\n");
        breakdown(f, h, r);
    }
    return pp_commit(h, f, true, why, whylen);
}

static const struct scal_postproc_ops ops = {sizeof(ops), SCAL_PP_OUTPUT, NULL, NULL, run};
static const struct scal_plugin_desc desc = {
    .abi_version = SCAL_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(desc),
    .name = "summary",
    .version = "1",
    .kind = SCAL_PLUGIN_POSTPROC,
    .description = "summary.txt: notes, ranking by lost efficiency, findings per region",
    .postproc = &ops,
};
SCAL_PLUGIN_DEFINE(desc)
