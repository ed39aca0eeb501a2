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
//  - no verdict rests on a cell without a value: a region without any cell beyond its baseline gets
//    "no verdict", and each verdict names the cells it rests on or its largest drop;
//  - lost time of a region, summed over every cell (inputs x threads) that the region and the
//    program both have (or the one cell of option `at`): L = T(x) * p_x / p_b - T(b)
//    (core-seconds beyond the region's own baseline); share = L_region / L_program; rank 1 =
//    largest share (root excluded); time_share = region time / program time over those cells.
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scal/postproc.h"
#include "util.h"

#define SCAL_FIND_EPS 0.02
#define SCAL_FIND_EFF 0.5

static const char *const needs[] = {"efficiency", "time", "team", NULL};
static const char *const produces[] = {
    "lost_time",    "lost_share", "rank",        "time_share", "lost_cells", "lost_imbalance",
    "lost_barrier", "lost_lock",  "lost_serial", "lost_rest",  NULL};

enum { KIND_PARALLEL = 1, KIND_SERIAL = 2 }; /* enum scal_region_kind (common/layout.h) */

/* Where the lost core-seconds of every cell go: imbalance, barrier/taskwait wait, lock wait (the
 * "stat:" wait matrices, beyond the baseline's), serial share (the serial gaps' whole loss; for the
 * whole program the sum of its gaps'), and the rest. */
static const char *const parts[] = {"lost_imbalance", "lost_barrier", "lost_lock", "lost_serial",
                                    "lost_rest"};
static const char *const waits[] = {"stat:imbalance", "stat:barrier", "stat:lock"};

/* What a difference matrix says, from the cells that have a value (NaN cells are no evidence). */
struct verdict {
    size_t from;      /* first row from which no value is below -EPS; rows = none */
    size_t cells;     /* cells with a value in rows from..end */
    size_t rows_data; /* rows with a value */
    bool drop;        /* some value below -EPS */
    double worst;     /* the most negative value */
    size_t wy, wx;    /* and where */
    size_t y0, y1;    /* first and last row with a value */
};

static struct verdict judge(const struct scal_pp_matrix *m, size_t col0)
{
    struct verdict v = {.from = m->rows, .worst = INFINITY, .y0 = m->rows};
    size_t cells = 0;
    bool stop = false;
    for (size_t y = m->rows; y-- > 0;) {
        bool ok = true, any = false;
        for (size_t x = col0; x < m->cols; x++) {
            double d = pp_at(m, y, x);
            if (isnan(d)) continue;
            any = true;
            if (d < v.worst) v.worst = d, v.wy = y, v.wx = x;
            if (d < -SCAL_FIND_EPS) ok = false;
            if (!stop) cells++;
        }
        if (!any) continue;
        v.rows_data++;
        if (v.y0 == m->rows) v.y1 = y;
        v.y0 = y;
        if (!ok) v.drop = true, stop = true;
        if (!stop) v.from = y, v.cells = cells;
    }
    return v;
}

/* The words of the row axis: inputs, or MPI rank counts (pp_rows_are_ranks). */
struct rows {
    const char *at;      /* before a row's label: "input " or "" ("2 ranks" names itself) */
    const char *grows;   /* "input size" or "the rank count" */
    const char *growing; /* "the input grows" or "ranks are added" */
    const char *fixed;   /* "input" or "rank count" (at a fixed ..., per ...) */
    const char *with;    /* "input" or "ranks" (threads and ... grow together) */
};

static struct rows rows_of(const struct scal_pp_host *h)
{
    return pp_rows_are_ranks(h)
               ? (struct rows){"", "the rank count", "ranks are added", "rank count", "ranks"}
               : (struct rows){"input ", "input size", "the input grows", "input", "input"};
}

static const char *row_name(const struct scal_pp_host *h, const struct scal_pp_matrix *m, size_t y)
{
    return (m->shape == SCAL_PP_INPUT_STEP || m->shape == SCAL_PP_BOTH_STEP) ? h->inputs[y + 1]
                                                                             : h->inputs[y];
}

/* "the largest drop -0.31 at input i2, 4->8 threads" */
static void worst_cell(const struct scal_pp_host *h, const struct rows *w,
                       const struct scal_pp_matrix *m, const struct verdict *v, char *out,
                       size_t len)
{
    size_t y = v->wy, x = v->wx;
    switch (m->shape) {
    case SCAL_PP_INPUT_STEP:
        snprintf(out, len, "largest drop %+.2f from %s%s to %s at %d threads", v->worst, w->at,
                 h->inputs[y], h->inputs[y + 1], h->threads[x]);
        break;
    case SCAL_PP_THREAD_STEP:
        snprintf(out, len, "largest drop %+.2f at %s%s, %d->%d threads", v->worst, w->at,
                 h->inputs[y], h->threads[x], h->threads[x + 1]);
        break;
    default:
        snprintf(out, len, "largest drop %+.2f from (%s, %d threads) to (%s, %d threads)", v->worst,
                 h->inputs[y], h->threads[x], h->inputs[y + 1], h->threads[x + 1]);
    }
}

static void findings(const struct scal_pp_host *h, size_t r, size_t s, size_t b)
{
    char buf[900], pre[64] = "", cell[200];
    if (h->nslices > 1) snprintf(pre, sizeof(pre), "[%s] ", h->slices[s]);
    const struct rows w = rows_of(h);
    const struct scal_pp_matrix *in = h->get(h, r, s, "diff_input");
    const struct scal_pp_matrix *st = h->get(h, r, s, "diff_strong");
    const struct scal_pp_matrix *wk = h->get(h, r, s, "diff_weak");
    const struct scal_pp_matrix *e = h->get(h, r, s, "efficiency");
    size_t evalues = 0;
    for (size_t i = 0; e && i < (size_t)e->rows * e->cols; i++)
        evalues += !isnan(e->values[i]) && (i % e->cols) != b;
    if (!evalues) {
        snprintf(buf, sizeof(buf),
                 "%sno verdict: no cell beyond the baseline has both a time and a baseline time",
                 pre);
        h->note(h, (long)r, buf);
        return;
    }
    if (in) {
        struct verdict v = judge(in, b + 1 < in->cols ? b + 1 : 0);
        worst_cell(h, &w, in, &v, cell, sizeof(cell));
        if (v.rows_data == 0)
            ;
        else if (!v.drop)
            snprintf(buf, sizeof(buf),
                     "%sscales with %s (efficiency does not drop as %s, at any thread count; "
                     "rests on %zu cells, %s%s to %s)",
                     pre, w.grows, w.growing, v.cells, *w.at ? "inputs " : "", h->inputs[v.y0],
                     h->inputs[v.y1 + 1]);
        else if (v.from < in->rows)
            snprintf(buf, sizeof(buf),
                     "%sscales with %s from %s on (rests on %zu cells; before: %s)", pre, w.grows,
                     h->inputs[v.from], v.cells, cell);
        else
            snprintf(buf, sizeof(buf), "%sdoes not scale with %s (%s)", pre, w.grows, cell);
        if (v.rows_data) h->note(h, (long)r, buf);
    }
    if (st) {
        struct verdict v = judge(st, b);
        worst_cell(h, &w, st, &v, cell, sizeof(cell));
        size_t n = 0;
        for (size_t i = 0; i < (size_t)st->rows * st->cols; i++)
            n += (i % st->cols) >= b && !isnan(st->values[i]);
        if (v.rows_data && v.drop)
            snprintf(buf, sizeof(buf),
                     "%snot strongly scalable (efficiency drops as threads are added at a fixed "
                     "%s; %s)",
                     pre, w.fixed, cell);
        else if (v.rows_data)
            snprintf(buf, sizeof(buf),
                     "%sstrongly scalable (efficiency holds as threads are added at a fixed %s; "
                     "rests on %zu cells)",
                     pre, w.fixed, n);
        if (v.rows_data) h->note(h, (long)r, buf);
    }
    if (wk) {
        struct verdict v = judge(wk, b);
        worst_cell(h, &w, wk, &v, cell, sizeof(cell));
        if (v.rows_data == 0)
            ;
        else if (!v.drop)
            snprintf(buf, sizeof(buf),
                     "%sweakly scalable (no efficiency drop when threads and %s grow together; "
                     "rests on %zu cells)",
                     pre, w.with, v.cells);
        else if (v.from < wk->rows)
            snprintf(buf, sizeof(buf),
                     "%sweakly scalable from %s on (rests on %zu cells; before: %s)", pre,
                     row_name(h, wk, v.from), v.cells, cell);
        else
            snprintf(buf, sizeof(buf), "%snot weakly scalable (%s)", pre, cell);
        if (v.rows_data) h->note(h, (long)r, buf);
    }
    if (e && h->nthreads > 1) {
        /* Per input: the largest thread count whose efficiency is still >= SCAL_FIND_EFF. */
        char list[2048] = "";
        size_t len = 0;
        bool any = false;
        for (size_t y = 0; y < e->rows && len + 64 < sizeof(list); y++) {
            size_t lim = e->cols, have = 0;
            for (size_t x = b; x < e->cols; x++) {
                if (!isnan(pp_at(e, y, x)) && x != b) have++;
                if (pp_at(e, y, x) >= SCAL_FIND_EFF) lim = x;
            }
            int n;
            if (!have)
                n = snprintf(list + len, sizeof(list) - len, "%s%s: no baseline", y ? ", " : "",
                             h->inputs[y]);
            else if (lim == e->cols)
                n = snprintf(list + len, sizeof(list) - len,
                             "%s%s: below %.2f at every measured "
                             "thread count",
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
                 "%s%s (last thread count with efficiency >= %.2f) per %s: %.600s", pre,
                 any ? "efficiency limit at" : "no efficiency limit", SCAL_FIND_EFF, w.fixed, list);
        h->note(h, (long)r, buf);
    }
    /* Cells whose observed team differs from the requested thread count. */
    size_t mism = 0, my = 0, mx = 0;
    const struct scal_pp_matrix *team = h->get(h, r, s, "team");
    for (size_t i = 0; e && e->flags && i < (size_t)e->rows * e->cols; i++)
        if (e->flags[i] & SCAL_PP_CELL_TEAM) {
            if (!mism) my = i / e->cols, mx = i % e->cols;
            mism++;
        }
    if (mism) {
        snprintf(buf, sizeof(buf),
                 "%steam size differs from the requested thread count in %zu cell(s) (first: %s%s, "
                 "%d threads requested, %.0f observed): efficiency uses the observed team; these "
                 "cells are marked",
                 pre, mism, w.at, h->inputs[my], h->threads[mx], pp_at(team, my, mx));
        h->note(h, (long)r, buf);
    }
}

/* The region's baseline column (scaling's "baseline_threads"), nthreads when it has none. */
static size_t base_col(const struct scal_pp_host *h, size_t r)
{
    double bt = pp_at(h->get(h, r, 0, "baseline_threads"), 0, 0);
    for (size_t x = 0; x < h->nthreads; x++)
        if (h->threads[x] == bt) return x;
    return h->nthreads;
}

/* Core-seconds lost in one cell beyond the region's baseline: T(x) * p_x / p_b - T(b). */
static double lost(const struct scal_pp_host *h, size_t r, size_t b, size_t y, size_t x)
{
    const struct scal_pp_matrix *t = h->get(h, r, 0, "time"), *team = h->get(h, r, 0, "team");
    if (b >= h->nthreads) return NAN;
    double pb = pp_at(team, y, b), px = pp_at(team, y, x);
    if (!(pb > 0)) pb = h->threads[b];
    if (!(px > 0)) px = h->threads[x];
    return pp_at(t, y, x) * px / pb - pp_at(t, y, b);
}

static double lost(const struct scal_pp_host *h, size_t r, size_t b, size_t y, size_t x);

/* Wait k ("stat:" matrix) of region r in cell (y, x) beyond its baseline column b, in core-seconds
 * relative to the baseline's team (as lost() counts); 0 without a value. */
static double wait_beyond(const struct scal_pp_host *h, size_t r, size_t b, size_t y, size_t x,
                          size_t k)
{
    const struct scal_pp_matrix *w = h->get(h, r, 0, waits[k]), *team = h->get(h, r, 0, "team");
    if (!w || b >= h->nthreads) return 0;
    double pb = pp_at(team, y, b);
    if (!(pb > 0)) pb = h->threads[b];
    double d = (pp_at(w, y, x) - (isnan(pp_at(w, y, b)) ? 0 : pp_at(w, y, b))) / pb;
    return isnan(d) ? 0 : d;
}

/* A parallel region with no parallel region around it: its waits are the program's (those of
 * nested regions happen inside its members' time). */
static bool outermost_parallel(const struct scal_pp_host *h, size_t g)
{
    if (h->regions[g].kind != KIND_PARALLEL) return false;
    for (int32_t p = h->regions[g].parent; p > 0 && (size_t)p < h->nregions;
         p = h->regions[p].parent)
        if (h->regions[p].kind == KIND_PARALLEL) return false;
    return true;
}

/* The whole program's breakdown adds up: its waits are its outermost parallel regions' (each
 * beyond its own baseline), its serial share its serial gaps' whole loss, the rest what remains. */
static int breakdown(const struct scal_pp_host *h, size_t r, size_t b)
{
    size_t ni = h->ninputs, nt = h->nthreads, n = ni * nt;
    double *v = malloc(6 * n * sizeof(*v));
    if (!v) return SCAL_ENOMEM;
    double *L = v, *P = v + n; /* P: the five parts, n each */
    for (size_t y = 0; y < ni; y++)
        for (size_t x = 0; x < nt; x++) {
            size_t i = y * nt + x;
            L[i] = b < nt && x != b ? lost(h, r, b, y, x) : NAN;
            double sum = 0;
            for (size_t k = 0; k < 3; k++) {
                double d = 0;
                if (r != 0)
                    d = wait_beyond(h, r, b, y, x, k);
                else
                    for (size_t g = 1; g < h->nregions; g++)
                        if (outermost_parallel(h, g))
                            d += wait_beyond(h, g, base_col(h, g), y, x, k);
                P[k * n + i] = isnan(L[i]) ? NAN : d;
                sum += d;
            }
            double ser = 0;
            if (h->regions[r].kind == KIND_SERIAL)
                ser = L[i] - sum;
            else if (r == 0)
                for (size_t g = 1; g < h->nregions; g++) {
                    if (h->regions[g].kind != KIND_SERIAL) continue;
                    const struct scal_pp_matrix *gb = h->get(h, g, 0, "baseline_threads");
                    size_t bg = nt;
                    for (size_t k = 0; k < nt; k++)
                        if (h->threads[k] == pp_at(gb, 0, 0)) bg = k;
                    double lg = bg < nt ? lost(h, g, bg, y, x) : NAN;
                    ser += isnan(lg) ? 0 : lg;
                }
            P[3 * n + i] = isnan(L[i]) ? NAN : ser;
            P[4 * n + i] = isnan(L[i]) ? NAN : L[i] - sum - ser;
        }
    int rc = h->put(h, r, 0, "lost_cells", "core*s", SCAL_PP_FULL, L, NULL);
    for (size_t k = 0; k < 5 && rc >= 0; k++)
        rc = h->put(h, r, 0, parts[k], "core*s", SCAL_PP_FULL, P + k * n, NULL);
    free(v);
    return rc;
}

static int cmp_share(const void *a, const void *b)
{
    double x = ((const double *)a)[0], y = ((const double *)b)[0];
    if (isnan(x) != isnan(y)) return isnan(x) ? 1 : -1;
    return (x < y) - (x > y);
}

/* Option at = "THREADS,INPUT": the one cell to rank by; returns 0 and sets *ay and *ax, or -1. */
static int parse_at(const struct scal_pp_host *h, const char *at, size_t *ay, size_t *ax)
{
    char *end;
    long t = strtol(at, &end, 10);
    if (end == at || *end != ',') return -1;
    const char *in = end + 1;
    *ax = *ay = SIZE_MAX;
    for (size_t x = 0; x < h->nthreads; x++)
        if (h->threads[x] == t) *ax = x;
    for (size_t y = 0; y < h->ninputs; y++)
        if (!strcmp(h->inputs[y], in)) *ay = y;
    return *ax == SIZE_MAX || *ay == SIZE_MAX ? -1 : 0;
}

static int run(const struct scal_pp_host *h, char *why, size_t whylen)
{
    for (size_t r = 0; r < h->nregions; r++)
        for (size_t s = 0; s < h->nslices; s++)
            findings(h, r, s, base_col(h, r));
    const char *at = pp_option(h, "at");
    size_t ay = SIZE_MAX, ax = SIZE_MAX;
    if (at && *at && parse_at(h, at, &ay, &ax) < 0)
        return scal__why(why, whylen, SCAL_EINVAL,
                         "--at %s: no such cell (use THREADS,INPUT with a measured thread count "
                         "and an input label)",
                         at);
    /* Time share over the cells the whole program has (Hackstadt's reduction uses it). */
    const struct scal_pp_matrix *t0 = h->get(h, 0, 0, "time");
    double ptime = 0;
    for (size_t i = 0; t0 && i < (size_t)t0->rows * t0->cols; i++)
        if (!isnan(t0->values[i])) ptime += t0->values[i];
    for (size_t r = 0; r < h->nregions; r++) {
        const struct scal_pp_matrix *t = h->get(h, r, 0, "time");
        double rt = 0;
        for (size_t i = 0; t && t0 && i < (size_t)t->rows * t->cols; i++)
            if (!isnan(t->values[i]) && !isnan(t0->values[i])) rt += t->values[i];
        double share = ptime > 0 ? rt / ptime : NAN;
        int rc = h->put(h, r, 0, "time_share", "", SCAL_PP_SCALAR, &share, NULL);
        if (rc < 0) return rc;
    }
    if (h->nthreads < 2)
        return scal__why(why, whylen, SCAL_EUNAVAIL,
                         "one thread count: no ranking by lost efficiency");
    for (size_t r = 0; r < h->nregions; r++) {
        int rc = breakdown(h, r, base_col(h, r));
        if (rc < 0) return scal__why(why, whylen, rc, "cannot store the lost-time breakdown");
    }
    /* Lost core-seconds summed over every cell the region and the program both have (or --at's
     * one cell). */
    size_t b0 = base_col(h, 0), cells = 0;
    double total = 0;
    double(*order)[2] = calloc(h->nregions, sizeof(*order));
    if (!order) return SCAL_ENOMEM;
    for (size_t r = 0; r < h->nregions; r++) {
        size_t b = r ? base_col(h, r) : b0;
        double l = 0;
        size_t n = 0;
        for (size_t y = 0; y < h->ninputs; y++)
            for (size_t x = 0; x < h->nthreads; x++) {
                if (ax != SIZE_MAX && (y != ay || x != ax)) continue;
                double v = lost(h, r, b, y, x), v0 = lost(h, 0, b0, y, x);
                if (isnan(v) || isnan(v0)) continue;
                l += v, n++;
            }
        if (r == 0) total = l, cells = n;
        if (!n) l = NAN;
        double share = total > 0 ? l / total : NAN;
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
    char buf[400];
    if (ax != SIZE_MAX)
        snprintf(buf, sizeof(buf),
                 "regions are ranked by their share of the whole program's lost time at %d "
                 "threads, %s%s (%.6g core-seconds beyond the baseline)",
                 h->threads[ax], rows_of(h).at, h->inputs[ay], total);
    else
        snprintf(buf, sizeof(buf),
                 "regions are ranked by their share of the whole program's lost core-seconds "
                 "summed over the whole matrix (%zu cells, %.6g core-seconds beyond the baseline)",
                 cells, total);
    h->note(h, -1, buf);
    return SCAL_OK;
}

static const struct scal_option_desc options[] = {
    {"at", SCAL_OPT_STRING, "",
     "rank by one cell, THREADS,INPUT (scal report --at); default: the whole matrix"},
    {0},
};
static const struct scal_postproc_ops ops = {sizeof(ops), SCAL_PP_ANALYSIS, needs, produces, run};
static const struct scal_plugin_desc desc = {
    .abi_version = SCAL_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(desc),
    .name = "findings",
    .version = "1",
    .kind = SCAL_PLUGIN_POSTPROC,
    .description = "findings in the PaScal Viewer's terms and the ranking of regions by lost "
                   "efficiency",
    .options = options,
    .postproc = &ops,
};
SCAL_PLUGIN_DEFINE(desc)
