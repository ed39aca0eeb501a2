// SPDX-License-Identifier: BSD-3-Clause
// `scal report --compare BEFORE AFTER`: per region matched by identity (or, for a region whose
// pragma moved, by kind, file, function and order), the efficiency difference after - before over
// the cells (input label, thread count) both campaigns have, with a 95 % confidence interval from
// the repetitions; regions ranked by the mean difference (improvements first); a region counts as
// improved or regressed only when its interval excludes zero. Writes compare.txt, compare.csv, and
// the matrices the page (index.html, plugin page) draws in its compare view: compare_diff,
// compare_mean, compare_lo, compare_hi, compare_cells, compare_rank.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "report.h"

struct cmp_region {
    size_t ra, rb; /* region index after / before */
    bool moved;    /* matched by function and order, not by identity */
    double mean, lo, hi;
    size_t n;
    double *d;  /* ninputs(after) x nthreads(after), NaN where a side has no value */
    double *sd; /* the standard deviation of each cell's difference (from the repetitions) */
};

static double val_at(const struct scal_pp_host *h, size_t r, const char *metric, long y, long x)
{
    const struct scal_pp_matrix *e = h->get(h, r, 0, metric);
    return e && y >= 0 && x >= 0 && (size_t)y < e->rows && (size_t)x < e->cols
               ? e->values[(size_t)y * e->cols + (size_t)x]
               : NAN;
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

/* The efficiency of cell (y, x) of region r, the variance of that estimate and its number of
 * repetitions (the smaller of the cell's and its baseline cell's). E = T(base) b / (T(x) p): its
 * relative variance is about CV(x)^2 / n(x) + CV(base)^2 / n(base) (the time's coefficient of
 * variation over the repetitions); the baseline cell itself is 1 by definition. */
static double eff_var(const struct scal_pp_host *h, size_t r, long y, long x, double *var,
                      double *reps)
{
    double e = val_at(h, r, "efficiency", y, x);
    long b = find_threads(h, (int32_t)val_at(h, r, "baseline_threads", 0, 0));
    double cv = val_at(h, r, "time_cv", y, x), n = val_at(h, r, "samples", y, x);
    double cvb = val_at(h, r, "time_cv", y, b), nb = val_at(h, r, "samples", y, b);
    *reps = fmin(n, nb);
    *var = x == b ? 0 : e * e * (cv * cv / n + cvb * cvb / nb);
    return e;
}

/* Two-sided 95 % quantile of Student's t with df degrees of freedom. */
static double t95(double df)
{
    static const double t[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
                               2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
                               2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
                               2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
    size_t k = (size_t)df;
    return k < 1 ? NAN : k <= sizeof(t) / sizeof(*t) ? t[k - 1] : 1.96;
}

static const char *verdict(const struct cmp_region *c)
{
    if (isnan(c->mean)) return "no common cell";
    if (isnan(c->lo)) return "no interval (single repetitions)";
    return c->lo > 0 ? "improved" : c->hi < 0 ? "regressed" : "no significant change";
}

static int cmp_mean(const void *x, const void *y)
{
    const struct cmp_region *a = x, *b = y;
    if (isnan(a->mean) != isnan(b->mean)) return isnan(a->mean) ? 1 : -1;
    return (a->mean < b->mean) - (a->mean > b->mean);
}

/* ---- matching a region whose pragma moved ----
 * An identity's parallel/task parts read "P:<file>:<line>:<function>" (region_identity.h). The
 * loose key replaces each line by the rank of that line among the lines of the same kind, file
 * and function in the same campaign: a pragma moved by a few lines keeps its loose key as long as
 * the constructs of its function keep their order, and so do the serial gaps named after it. */
struct line_part {
    const char *s; /* "P:file:" inside a key */
    size_t len;    /* of kind + file + ':' */
    const char *func;
    size_t flen;
    long line;
};

static const char *part_end(const char *s)
{
    while (*s && *s != '/' && *s != '>')
        s += s[0] == '\\' && s[1] ? 2 : 1;
    return s;
}

/* The next "P:file:line:func" part at or after *pos; false when none is left. */
static bool next_part(const char **pos, struct line_part *p)
{
    for (const char *s = *pos; *s;) {
        if ((s[0] == 'P' || s[0] == 'T') && s[1] == ':') {
            const char *f = s + 2;
            while (*f && *f != ':' && *f != '/' && *f != '>')
                f += f[0] == '\\' && f[1] ? 2 : 1;
            char *end;
            long line = *f == ':' ? strtol(f + 1, &end, 10) : -1;
            if (line >= 0 && end > f + 1 && *end == ':') {
                *p = (struct line_part){s, (size_t)(f + 1 - s), end + 1, 0, line};
                p->flen = (size_t)(part_end(end + 1) - p->func);
                *pos = p->func + p->flen;
                return true;
            }
        }
        s = part_end(s); /* the next level or neighbour */
        if (*s) s++;
    }
    return false;
}

static bool same_site(const struct line_part *a, const struct line_part *b)
{
    return a->len == b->len && a->flen == b->flen && !memcmp(a->s, b->s, a->len) &&
           !memcmp(a->func, b->func, a->flen);
}

/* The loose keys of a campaign's regions (malloc'd strings). */
static char **loose_keys(const struct pp_campaign *c)
{
    size_t np = 0, cap = 16;
    struct line_part *parts = malloc(cap * sizeof(*parts)), p;
    char **out = calloc(c->nregions ? c->nregions : 1, sizeof(*out));
    if (!parts || !out) goto fail;
    for (size_t r = 0; r < c->nregions; r++)
        for (const char *s = c->regions[r].key; next_part(&s, &p);) {
            bool seen = false;
            for (size_t k = 0; k < np && !seen; k++)
                seen = same_site(&parts[k], &p) && parts[k].line == p.line;
            if (seen) continue;
            if (np == cap) {
                struct line_part *g = realloc(parts, (cap *= 2) * sizeof(*parts));
                if (!g) goto fail;
                parts = g;
            }
            parts[np++] = p;
        }
    for (size_t r = 0; r < c->nregions; r++) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f) goto fail;
        const char *s = c->regions[r].key, *done = s;
        while (next_part(&s, &p)) {
            size_t rank = 0;
            for (size_t k = 0; k < np; k++)
                rank += same_site(&parts[k], &p) && parts[k].line < p.line;
            fprintf(f, "%.*s#%zu:%.*s", (int)(p.s + p.len - done), done, rank, (int)p.flen, p.func);
            done = s;
        }
        fputs(done, f);
        if (fclose(f) || !buf) {
            free(buf);
            goto fail;
        }
        out[r] = buf;
    }
    free(parts);
    return out;
fail:
    for (size_t r = 0; out && r < c->nregions; r++)
        free(out[r]);
    free(out);
    free(parts);
    return NULL;
}

static void free_keys(char **k, size_t n)
{
    for (size_t i = 0; k && i < n; i++)
        free(k[i]);
    free(k);
}

/* ---- outputs ---- */
static int write_outputs(const char *dir, const struct scal_pp_host *a,
                         const struct scal_pp_host *b, const struct cmp_region *cr, size_t n,
                         const char *before, const char *after, const bool *matched_b,
                         const bool *matched_a)
{
    struct pp_outputs out = {.dir = dir};
    size_t ni = a->ninputs, nt = a->nthreads;
    int rc = SCAL_OK;
    FILE *f;
    if ((rc = pp_out_create(&out, "compare.txt", &f)) < 0) return rc;
    fprintf(f,
            "scal report --compare\n\nbefore: %s\nafter:  %s\n\nregions matched by identity, "
            "ranked by the mean efficiency difference after - before over the cells both have "
            "(positive: improved), with its 95%% confidence interval from the repetitions; a "
            "region improved or regressed only when the interval excludes zero:\n",
            before, after);
    for (size_t i = 0; i < n; i++) {
        char m[32] = "-", ci[64] = "";
        if (!isnan(cr[i].mean)) snprintf(m, sizeof(m), "%+.3f", cr[i].mean);
        if (!isnan(cr[i].lo)) snprintf(ci, sizeof(ci), "[%+.3f, %+.3f]", cr[i].lo, cr[i].hi);
        fprintf(f, "  %8s  %-18s  (%3zu cells)  %s  %s\n", m, ci, cr[i].n,
                a->regions[cr[i].ra].label, verdict(&cr[i]));
    }
    size_t moved = 0, only_b = 0, only_a = 0;
    for (size_t i = 0; i < n; i++)
        moved += cr[i].moved;
    for (size_t k = 0; k < b->nregions; k++)
        only_b += !matched_b[k];
    for (size_t k = 0; k < a->nregions; k++)
        only_a += !matched_a[k];
    if (moved) fprintf(f, "\nmatched by function and order (the pragma moved):\n");
    for (size_t i = 0; i < n; i++)
        if (cr[i].moved)
            fprintf(f, "  %s  (now %s)\n", b->regions[cr[i].rb].label, a->regions[cr[i].ra].label);
    fprintf(f, "\nregions only before: %zu\n", only_b);
    for (size_t k = 0; k < b->nregions; k++)
        if (!matched_b[k]) fprintf(f, "  %s\n", b->regions[k].label);
    fprintf(f, "regions only after: %zu\n", only_a);
    for (size_t k = 0; k < a->nregions; k++)
        if (!matched_a[k]) fprintf(f, "  %s\n", a->regions[k].label);
    if ((rc = pp_out_commit(&out, f, true)) < 0 ||
        (rc = pp_out_create(&out, "compare.csv", &f)) < 0)
        goto out;
    fprintf(f,
            "region,input,threads,efficiency_before,efficiency_after,difference,difference_sd\n");
    for (size_t i = 0; i < n; i++)
        for (size_t y = 0; y < ni; y++)
            for (size_t x = 0; x < nt; x++) {
                double d = cr[i].d[y * nt + x];
                if (isnan(d)) continue;
                double ea = val_at(a, cr[i].ra, "efficiency", (long)y, (long)x);
                fprintf(f, "\"%s\",%s,%d,%.9g,%.9g,%.9g,%.9g\n", a->regions[cr[i].ra].label,
                        a->inputs[y], a->threads[x], ea - d, ea, d, cr[i].sd[y * nt + x]);
            }
    rc = pp_out_commit(&out, f, true);
out:
    pp_outputs_free(&out);
    return rc;
}

/* The difference matrix of one matched pair, its mean and its confidence interval. */
static int diff_region(const struct scal_pp_host *a, const struct scal_pp_host *b,
                       struct cmp_region *c)
{
    size_t ni = a->ninputs, nt = a->nthreads;
    if (!(c->d = malloc(ni * nt * sizeof(*c->d))) || !(c->sd = malloc(ni * nt * sizeof(*c->sd))))
        return SCAL_ENOMEM;
    double sum = 0, var = 0, reps = INFINITY;
    for (size_t y = 0; y < ni; y++)
        for (size_t x = 0; x < nt; x++) {
            long yb = find_input(b, a->inputs[y]), xb = find_threads(b, a->threads[x]);
            double va, vb, na, nb;
            double d =
                eff_var(a, c->ra, (long)y, (long)x, &va, &na) - eff_var(b, c->rb, yb, xb, &vb, &nb);
            c->d[y * nt + x] = d;
            c->sd[y * nt + x] = isnan(d) ? NAN : sqrt(va + vb);
            if (isnan(d)) continue;
            sum += d, var += va + vb, c->n++;
            reps = fmin(reps, fmin(na, nb));
        }
    c->mean = c->n ? sum / (double)c->n : NAN;
    /* the mean of n cells: variance sum / n^2; Student's t with the fewest repetitions - 1
     * degrees of freedom (cautious); no interval without repetitions */
    double half = c->n && reps >= 2 ? t95(reps - 1) * sqrt(var) / (double)c->n : NAN;
    c->lo = c->mean - half, c->hi = c->mean + half;
    return SCAL_OK;
}

static int put_region(const struct scal_pp_host *a, const struct cmp_region *c, size_t rank)
{
    const char *names[] = {"compare_mean", "compare_lo", "compare_hi", "compare_cells",
                           "compare_rank"};
    double v[] = {c->mean, c->lo, c->hi, (double)c->n, (double)rank};
    int rc = a->put(a, c->ra, 0, "compare_diff", "", SCAL_PP_FULL, c->d, NULL);
    for (size_t k = 0; k < sizeof(v) / sizeof(*v) && rc == SCAL_OK; k++)
        rc = a->put(a, c->ra, 0, names[k], "", SCAL_PP_SCALAR, &v[k], NULL);
    return rc;
}

int pp_compare_write(const char *dir, const struct pp_campaign *cb, const struct scal_pp_host *b,
                     const struct pp_campaign *ca, const struct scal_pp_host *a, const char *before,
                     const char *after)
{
    size_t n = 0;
    struct cmp_region *cr = calloc(ca->nregions ? ca->nregions : 1, sizeof(*cr));
    bool *matched = calloc(cb->nregions ? cb->nregions : 1, sizeof(*matched));
    bool *matched_a = calloc(ca->nregions ? ca->nregions : 1, sizeof(*matched_a));
    char **la = loose_keys(ca), **lb = loose_keys(cb);
    int rc = SCAL_ENOMEM;
    if (!cr || !matched || !matched_a || !la || !lb) goto out;
    /* by identity first, then what is left by loose key (one to one) */
    for (int pass = 0; pass < 2; pass++)
        for (size_t ra = 0; ra < ca->nregions; ra++) {
            if (matched_a[ra]) continue;
            long rb = -1;
            for (size_t k = 0; k < cb->nregions && rb < 0; k++)
                if (!matched[k] &&
                    !strcmp(pass ? lb[k] : cb->regions[k].key, pass ? la[ra] : ca->regions[ra].key))
                    rb = (long)k;
            if (rb < 0) continue;
            matched[rb] = matched_a[ra] = true;
            cr[n++] = (struct cmp_region){.ra = ra, .rb = (size_t)rb, .moved = pass == 1};
        }
    for (size_t i = 0; i < n; i++)
        if ((rc = diff_region(a, b, &cr[i])) < 0) goto out;
    qsort(cr, n, sizeof(*cr), cmp_mean);
    rc = write_outputs(dir, a, b, cr, n, before, after, matched, matched_a);
    /* for the page's compare view: per matched region of AFTER its difference matrix, its mean,
     * interval and rank; campaign-wide what was compared and what was not matched */
    for (size_t i = 0; i < n && rc == SCAL_OK; i++)
        rc = put_region(a, &cr[i], i + 1);
    char note[2400];
    size_t only_b = 0, only_a = 0;
    for (size_t k = 0; k < cb->nregions; k++)
        only_b += !matched[k];
    for (size_t k = 0; k < ca->nregions; k++)
        only_a += !matched_a[k];
    snprintf(note, sizeof(note),
             "compare: efficiency after - before (before: %s; after: %s); %zu regions matched, "
             "%zu only before, %zu only after",
             before, after, n, only_b, only_a);
    if (rc == SCAL_OK) rc = a->note(a, -1, note);
    for (size_t k = 0; k < cb->nregions && rc == SCAL_OK; k++)
        if (!matched[k]) {
            snprintf(note, sizeof(note), "compare: only before: %s", cb->regions[k].label);
            rc = a->note(a, -1, note);
        }
    for (size_t k = 0; k < ca->nregions && rc == SCAL_OK; k++)
        if (!matched_a[k]) {
            snprintf(note, sizeof(note), "compare: only after: %s", ca->regions[k].label);
            rc = a->note(a, -1, note);
        }
out:
    for (size_t i = 0; cr && i < n; i++)
        free(cr[i].d), free(cr[i].sd);
    free(cr);
    free(matched);
    free(matched_a);
    free_keys(la, ca->nregions);
    free_keys(lb, cb->nregions);
    return rc;
}
