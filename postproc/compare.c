// SPDX-License-Identifier: BSD-3-Clause
// `scal report --compare BEFORE AFTER`: per region matched by identity, the efficiency difference
// after - before over the cells (input label, thread count) both campaigns have; regions ranked by
// the mean difference (improvements first); compare.txt, compare.csv, and the matrices the page
// (index.html, plugin page) draws in its compare view: compare_diff, compare_mean, compare_cells.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "report.h"

struct cmp_region {
    size_t ra, rb; /* region index after / before */
    double mean;
    size_t n;
    double *d; /* ninputs(after) x nthreads(after), NaN where a side has no value */
};

static double eff_at(const struct scal_pp_host *h, size_t r, size_t y, size_t x)
{
    const struct scal_pp_matrix *e = h->get(h, r, 0, "efficiency");
    return e && y < e->rows && x < e->cols ? e->values[y * e->cols + x] : NAN;
}

static long find_input(const struct scal_pp_host *h, const char *label)
{
    for (size_t i = 0; i < h->ninputs; i++)
        if (!strcmp(h->inputs[i], label)) return (long)i;
    return -1;
}

static long find_threads(const struct scal_pp_host *h, int32_t t)
{
    for (size_t i = 0; i < h->nthreads; i++)
        if (h->threads[i] == t) return (long)i;
    return -1;
}

static int cmp_mean(const void *x, const void *y)
{
    const struct cmp_region *a = x, *b = y;
    if (isnan(a->mean) != isnan(b->mean)) return isnan(a->mean) ? 1 : -1;
    return (a->mean < b->mean) - (a->mean > b->mean);
}

static int write_outputs(const char *dir, const struct scal_pp_host *a,
                         const struct scal_pp_host *b, const struct cmp_region *cr, size_t n,
                         const char *before, const char *after, size_t only_before,
                         size_t only_after)
{
    struct pp_outputs out = {.dir = dir};
    size_t ni = a->ninputs, nt = a->nthreads;
    int rc = SCAL_OK;
    FILE *f;
    if ((rc = pp_out_create(&out, "compare.txt", &f)) < 0) return rc;
    fprintf(f,
            "scal report --compare\n\nbefore: %s\nafter:  %s\n\nregions matched by identity, "
            "ranked by the mean efficiency difference after - before over the cells both have "
            "(positive: improved):\n",
            before, after);
    for (size_t i = 0; i < n; i++) {
        if (isnan(cr[i].mean))
            fprintf(f, "  %8s  (%3zu cells)  %s\n", "-", cr[i].n, a->regions[cr[i].ra].label);
        else
            fprintf(f, "  %+8.3f  (%3zu cells)  %s  %s\n", cr[i].mean, cr[i].n,
                    a->regions[cr[i].ra].label,
                    cr[i].mean > 0.02    ? "improved"
                    : cr[i].mean < -0.02 ? "regressed"
                                         : "unchanged");
    }
    fprintf(f, "\nregions only before: %zu; only after: %zu\n", only_before, only_after);
    if ((rc = pp_out_commit(&out, f, true)) < 0 ||
        (rc = pp_out_create(&out, "compare.csv", &f)) < 0)
        goto out;
    fprintf(f, "region,input,threads,efficiency_before,efficiency_after,difference\n");
    for (size_t i = 0; i < n; i++)
        for (size_t y = 0; y < ni; y++)
            for (size_t x = 0; x < nt; x++) {
                double d = cr[i].d[y * nt + x];
                if (isnan(d)) continue;
                double ea = eff_at(a, cr[i].ra, y, x);
                fprintf(f, "\"%s\",%s,%d,%.9g,%.9g,%.9g\n", a->regions[cr[i].ra].label,
                        a->inputs[y], a->threads[x], ea - d, ea, d);
            }
    (void)b;
    rc = pp_out_commit(&out, f, true);
out:
    pp_outputs_free(&out);
    return rc;
}

int pp_compare_write(const char *dir, const struct pp_campaign *cb, const struct scal_pp_host *b,
                     const struct pp_campaign *ca, const struct scal_pp_host *a, const char *before,
                     const char *after)
{
    size_t ni = a->ninputs, nt = a->nthreads, n = 0, only_after = 0;
    struct cmp_region *cr = calloc(ca->nregions ? ca->nregions : 1, sizeof(*cr));
    bool *matched = calloc(cb->nregions ? cb->nregions : 1, sizeof(*matched));
    int rc = SCAL_ENOMEM;
    if (!cr || !matched) goto out;
    for (size_t ra = 0; ra < ca->nregions; ra++) {
        long rb = -1;
        for (size_t k = 0; k < cb->nregions && rb < 0; k++)
            if (!strcmp(cb->regions[k].key, ca->regions[ra].key)) rb = (long)k;
        if (rb < 0) {
            only_after++;
            continue;
        }
        matched[rb] = true;
        struct cmp_region *c = &cr[n++];
        c->ra = ra, c->rb = (size_t)rb;
        if (!(c->d = malloc(ni * nt * sizeof(*c->d)))) goto out;
        double sum = 0;
        for (size_t y = 0; y < ni; y++)
            for (size_t x = 0; x < nt; x++) {
                long yb = find_input(b, a->inputs[y]), xb = find_threads(b, a->threads[x]);
                double d = yb < 0 || xb < 0 ? NAN
                                            : eff_at(a, ra, y, x) -
                                                  eff_at(b, (size_t)rb, (size_t)yb, (size_t)xb);
                c->d[y * nt + x] = d;
                if (!isnan(d)) sum += d, c->n++;
            }
        c->mean = c->n ? sum / (double)c->n : NAN;
    }
    size_t only_before = 0;
    for (size_t k = 0; k < cb->nregions; k++)
        only_before += !matched[k];
    qsort(cr, n, sizeof(*cr), cmp_mean);
    rc = write_outputs(dir, a, b, cr, n, before, after, only_before, only_after);
    /* for the page's compare view: per matched region of AFTER its difference matrix, its mean
     * and rank; campaign-wide what was compared */
    for (size_t i = 0; i < n && rc == SCAL_OK; i++) {
        double mean = cr[i].mean, cells = (double)cr[i].n, rank = (double)(i + 1);
        rc = a->put(a, cr[i].ra, 0, "compare_diff", "", SCAL_PP_FULL, cr[i].d, NULL);
        if (rc == SCAL_OK)
            rc = a->put(a, cr[i].ra, 0, "compare_mean", "", SCAL_PP_SCALAR, &mean, NULL);
        if (rc == SCAL_OK)
            rc = a->put(a, cr[i].ra, 0, "compare_cells", "", SCAL_PP_SCALAR, &cells, NULL);
        if (rc == SCAL_OK)
            rc = a->put(a, cr[i].ra, 0, "compare_rank", "", SCAL_PP_SCALAR, &rank, NULL);
    }
    char note[2400];
    snprintf(note, sizeof(note),
             "compare: efficiency after - before (before: %s; after: %s); %zu regions matched by "
             "identity, %zu only before, %zu only after",
             before, after, n, only_before, only_after);
    if (rc == SCAL_OK) rc = a->note(a, -1, note);
out:
    for (size_t i = 0; cr && i < n; i++)
        free(cr[i].d);
    free(cr);
    free(matched);
    return rc;
}
