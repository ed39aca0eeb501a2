// SPDX-License-Identifier: BSD-3-Clause
// Analysis plugin: speedup, efficiency and the three PaScal difference matrices per region.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "scal/postproc.h"
#include "util.h"

static const char *const needs[] = {"time", "team", NULL};
static const char *const produces[] = {"speedup",   "efficiency",       "diff_input", "diff_strong",
                                       "diff_weak", "baseline_threads", NULL};

/* The region's baseline column: the campaign's (the 1-thread one if any) when the region has a
 * time there for some input, else its own smallest measured thread count (a region guarded by
 * omp_get_max_threads() > 1 has no 1-thread sample); nt when it has no time at all. */
static size_t region_baseline(const struct scal_pp_host *h, const struct scal_pp_matrix *t)
{
    for (size_t x = (size_t)h->baseline_column; x < h->nthreads; x++)
        for (size_t y = 0; y < h->ninputs; y++)
            if (!isnan(pp_at(t, y, x))) return x;
    return h->nthreads;
}

/* Efficiency uses the observed team sizes: E = (T_b * p_b) / (T * p), which is S / p with a
 * 1-thread baseline and the relative efficiency otherwise. A cell whose observed team differs from
 * the requested thread count is flagged SCAL_PP_CELL_TEAM. */
static int run(const struct scal_pp_host *h, char *why, size_t whylen)
{
    size_t ni = h->ninputs, nt = h->nthreads;
    double *s = malloc(ni * nt * sizeof(*s)), *e = malloc(ni * nt * sizeof(*e));
    double *d = malloc(ni * nt * sizeof(*d));
    uint8_t *fl = malloc(ni * nt);
    int rc = SCAL_ENOMEM;
    if (!s || !e || !d || !fl) goto out;
    for (size_t r = 0; r < h->nregions; r++)
        for (size_t sl = 0; sl < h->nslices; sl++) {
            const struct scal_pp_matrix *t = h->get(h, r, sl, "time");
            const struct scal_pp_matrix *team = h->get(h, r, sl, "team");
            if (!t) continue;
            size_t b = region_baseline(h, t);
            double bt = b < nt ? h->threads[b] : NAN;
            if ((rc = h->put(h, r, sl, "baseline_threads", "threads", SCAL_PP_SCALAR, &bt, NULL)) <
                0)
                goto out;
            if (b < nt && (int)b != h->baseline_column) {
                char buf[200];
                snprintf(buf, sizeof(buf), "%s%sbaseline: %d threads (no %d-thread runs)",
                         h->nslices > 1 ? h->slices[sl] : "", h->nslices > 1 ? ": " : "",
                         h->threads[b], h->threads[h->baseline_column]);
                h->note(h, (long)r, buf);
            }
            for (size_t y = 0; y < ni; y++)
                for (size_t x = 0; x < nt; x++) {
                    double tb = pp_at(t, y, b), tx = pp_at(t, y, x);
                    double pb = pp_at(team, y, b), px = pp_at(team, y, x);
                    fl[y * nt + x] = px > 0 && px != h->threads[x] ? SCAL_PP_CELL_TEAM : 0;
                    if (!(pb > 0)) pb = b < nt ? h->threads[b] : NAN;
                    if (!(px > 0)) px = h->threads[x];
                    s[y * nt + x] = tb / tx; /* NaN propagates: a gap stays a gap */
                    e[y * nt + x] = (tb * pb) / (tx * px);
                }
            if ((rc = h->put(h, r, sl, "speedup", "", SCAL_PP_FULL, s, fl)) < 0 ||
                (rc = h->put(h, r, sl, "efficiency", "", SCAL_PP_FULL, e, fl)) < 0)
                goto out;
            size_t k = 0;
            for (size_t y = 0; y + 1 < ni; y++)
                for (size_t x = 0; x < nt; x++)
                    d[k++] = e[(y + 1) * nt + x] - e[y * nt + x];
            if (ni > 1 &&
                (rc = h->put(h, r, sl, "diff_input", "", SCAL_PP_INPUT_STEP, d, NULL)) < 0)
                goto out;
            k = 0;
            for (size_t y = 0; y < ni; y++)
                for (size_t x = 0; x + 1 < nt; x++)
                    d[k++] = e[y * nt + x + 1] - e[y * nt + x];
            if (nt > 1 &&
                (rc = h->put(h, r, sl, "diff_strong", "", SCAL_PP_THREAD_STEP, d, NULL)) < 0)
                goto out;
            k = 0;
            for (size_t y = 0; y + 1 < ni; y++)
                for (size_t x = 0; x + 1 < nt; x++)
                    d[k++] = e[(y + 1) * nt + x + 1] - e[y * nt + x];
            if (ni > 1 && nt > 1 &&
                (rc = h->put(h, r, sl, "diff_weak", "", SCAL_PP_BOTH_STEP, d, NULL)) < 0)
                goto out;
        }
    rc = SCAL_OK;
out:
    if (rc < 0) rc = scal__why(why, whylen, rc, "cannot store matrices");
    free(s);
    free(e);
    free(d);
    free(fl);
    return rc;
}

static const struct scal_postproc_ops ops = {sizeof(ops), SCAL_PP_ANALYSIS, needs, produces, run};
static const struct scal_plugin_desc desc = {
    .abi_version = SCAL_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(desc),
    .name = "scaling",
    .version = "1",
    .kind = SCAL_PLUGIN_POSTPROC,
    .description = "speedup, efficiency (observed team size) and the input/strong/weak "
                   "difference matrices",
    .postproc = &ops,
};
SCAL_PLUGIN_DEFINE(desc)
