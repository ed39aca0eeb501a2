// SPDX-License-Identifier: BSD-3-Clause
// Analysis plugin: findings in the PaScal Viewer's terms and the ranking of regions by their share
// of the whole program's lost efficiency.
//
// Thresholds (documented in schemas/README-analysis.md):
//  - a difference counts as a drop when it is below -SCAL_FIND_EPS (0.02);
//  - "scales with input size [from X on]": no input-growth difference below -EPS, at any thread
//    count above the baseline, for inputs from X on;
//  - "not strongly scalable": some strong-scaling difference below -EPS;
//  - "weakly scalable [from X on]": no weak-scaling difference below -EPS from input X on;
//  - "efficiency limit at ... per input": for each input the largest thread count whose
//    efficiency is still >= SCAL_FIND_EFF (0.5);
//  - lost time of a region at the largest thread count P and largest input measured by both the
//    region and the program: L = T(P) * p_P / p_b - T(b) (core-seconds beyond the baseline);
//    share = L_region / L_program; rank 1 = largest share (root excluded).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "scal/postproc.h"
#include "util.h"

#define SCAL_FIND_EPS 0.02
#define SCAL_FIND_EFF 0.5

static const char *const needs[] = {"efficiency", "time", "team", NULL};
static const char *const produces[] = {"lost_time", "lost_share", "rank", NULL};

/* First row from which every value of m (rows x cols, skipping NaN) is >= -EPS; rows = none. */
static size_t ok_from(const struct scal_pp_matrix *m, size_t col0, bool *any_drop)
{
    size_t from = m->rows;
    *any_drop = false;
    for (size_t y = m->rows; y-- > 0;) {
        bool ok = true;
        for (size_t x = col0; x < m->cols; x++)
            if (pp_at(m, y, x) < -SCAL_FIND_EPS) ok = false;
        if (!ok) {
            *any_drop = true;
            break;
        }
        from = y;
    }
    return from;
}

static void findings(const struct scal_pp_host *h, size_t r, size_t s)
{
    char buf[640], pre[64] = "";
    if (h->nslices > 1) snprintf(pre, sizeof(pre), "[%s] ", h->slices[s]);
    const struct scal_pp_matrix *in = h->get(h, r, s, "diff_input");
    const struct scal_pp_matrix *st = h->get(h, r, s, "diff_strong");
    const struct scal_pp_matrix *wk = h->get(h, r, s, "diff_weak");
    const struct scal_pp_matrix *e = h->get(h, r, s, "efficiency");
    bool drop;
    if (in) {
        size_t from = ok_from(
            in, (size_t)h->baseline_column + 1 < in->cols ? (size_t)h->baseline_column + 1 : 0,
            &drop);
        if (!drop)
            snprintf(buf, sizeof(buf),
                     "%sscales with input size (efficiency does not drop as the "
                     "input grows, at any thread count)",
                     pre);
        else if (from < in->rows)
            snprintf(buf, sizeof(buf), "%sscales with input size from %s on", pre, h->inputs[from]);
        else
            snprintf(buf, sizeof(buf),
                     "%sdoes not scale with input size (efficiency drops as "
                     "the input grows to %s)",
                     pre, h->inputs[in->rows]);
        h->note(h, (long)r, buf);
    }
    if (st) {
        ok_from(st, 0, &drop);
        snprintf(buf, sizeof(buf),
                 drop ? "%snot strongly scalable (efficiency drops as threads "
                        "are added at a fixed input)"
                      : "%sstrongly scalable (efficiency holds as threads are "
                        "added at a fixed input)",
                 pre);
        h->note(h, (long)r, buf);
    }
    if (wk) {
        size_t from = ok_from(wk, 0, &drop);
        if (!drop)
            snprintf(buf, sizeof(buf),
                     "%sweakly scalable (no efficiency drop when threads and "
                     "input grow together)",
                     pre);
        else if (from < wk->rows)
            snprintf(buf, sizeof(buf), "%sweakly scalable from %s on", pre, h->inputs[from]);
        else
            snprintf(buf, sizeof(buf), "%snot weakly scalable", pre);
        h->note(h, (long)r, buf);
    }
    if (e && h->nthreads > 1) {
        /* Per input: the largest thread count whose efficiency is still >= SCAL_FIND_EFF. */
        char list[2048] = "";
        size_t len = 0;
        bool any = false;
        for (size_t y = 0; y < e->rows && len + 64 < sizeof(list); y++) {
            size_t lim = e->cols;
            for (size_t x = 0; x < e->cols; x++)
                if (pp_at(e, y, x) >= SCAL_FIND_EFF) lim = x;
            int n;
            if (lim == e->cols)
                n = snprintf(list + len, sizeof(list) - len, "%s%s: below %.2f everywhere",
                             y ? ", " : "", h->inputs[y], SCAL_FIND_EFF);
            else if (lim + 1 == e->cols)
                n = snprintf(list + len, sizeof(list) - len, "%s%s: none up to %d", y ? ", " : "",
                             h->inputs[y], h->threads[lim]);
            else {
                n = snprintf(list + len, sizeof(list) - len, "%s%s: %d", y ? ", " : "",
                             h->inputs[y], h->threads[lim]);
                any = true;
            }
            len += n > 0 ? (size_t)n : 0;
        }
        snprintf(buf, sizeof(buf),
                 "%s%s (last thread count with efficiency >= %.2f) per input: "
                 "%.380s",
                 pre,
                 any ? "efficiency limit at"
                     : "no efficiency "
                       "limit",
                 SCAL_FIND_EFF, list);
        h->note(h, (long)r, buf);
    }
}

static double lost(const struct scal_pp_host *h, size_t r, size_t y, size_t x)
{
    const struct scal_pp_matrix *t = h->get(h, r, 0, "time"), *team = h->get(h, r, 0, "team");
    size_t b = (size_t)h->baseline_column;
    double pb = pp_at(team, y, b), px = pp_at(team, y, x);
    if (!(pb > 0)) pb = h->threads[b];
    if (!(px > 0)) px = h->threads[x];
    return pp_at(t, y, x) * px / pb - pp_at(t, y, b);
}

static int cmp_share(const void *a, const void *b)
{
    double x = ((const double *)a)[0], y = ((const double *)b)[0];
    if (isnan(x) != isnan(y)) return isnan(x) ? 1 : -1;
    return (x < y) - (x > y);
}

static int run(const struct scal_pp_host *h, char *why, size_t whylen)
{
    for (size_t r = 0; r < h->nregions; r++)
        for (size_t s = 0; s < h->nslices; s++)
            findings(h, r, s);
    if (h->nthreads < 2) {
        return scal__why(why, whylen, SCAL_EUNAVAIL,
                         "one thread count: no ranking by lost efficiency");
    }
    /* The cell: largest thread count and largest input the whole program has. */
    const struct scal_pp_matrix *t0 = h->get(h, 0, 0, "time");
    size_t x = h->nthreads - 1, y = h->ninputs;
    while (y-- > 0 && (isnan(pp_at(t0, y, x)) || isnan(pp_at(t0, y, h->baseline_column))))
        ;
    if (y >= h->ninputs) {
        return scal__why(why, whylen, SCAL_EUNAVAIL, "the whole program has no time at %d threads",
                         h->threads[x]);
    }
    double total = lost(h, 0, y, x);
    double(*order)[2] = calloc(h->nregions, sizeof(*order));
    if (!order) return SCAL_ENOMEM;
    for (size_t r = 0; r < h->nregions; r++) {
        double l = lost(h, r, y, x), share = total > 0 ? l / total : NAN;
        order[r][0] = r == 0 ? NAN : share;
        order[r][1] = (double)r;
        int rc;
        if ((rc = h->put(h, r, 0, "lost_time", "core*s", SCAL_PP_SCALAR, &l, NULL)) < 0 ||
            (rc = h->put(h, r, 0, "lost_share", "", SCAL_PP_SCALAR, &share, NULL)) < 0) {
            free(order);
            return rc;
        }
    }
    qsort(order, h->nregions, sizeof(*order), cmp_share);
    for (size_t i = 0; i < h->nregions; i++) {
        double rank = isnan(order[i][0]) ? NAN : (double)(i + 1);
        h->put(h, (size_t)order[i][1], 0, "rank", "", SCAL_PP_SCALAR, &rank, NULL);
    }
    free(order);
    char buf[300];
    snprintf(buf, sizeof(buf),
             "regions are ranked by their share of the whole program's lost "
             "time at %d threads, input %s (%.6g core-seconds beyond the "
             "baseline)",
             h->threads[x], h->inputs[y], total);
    h->note(h, -1, buf);
    return SCAL_OK;
}

static const struct scal_postproc_ops ops = {sizeof(ops), SCAL_PP_ANALYSIS, needs, produces, run};
static const struct scal_plugin_desc desc = {
    .abi_version = SCAL_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(desc),
    .name = "findings",
    .version = "1",
    .kind = SCAL_PLUGIN_POSTPROC,
    .description = "findings in the PaScal Viewer's terms and the ranking of regions by lost "
                   "efficiency",
    .postproc = &ops,
};
SCAL_PLUGIN_DEFINE(desc)
