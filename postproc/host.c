// SPDX-License-Identifier: BSD-3-Clause
// The matrix store behind struct scal_pp_host: base matrices from the samples, get/put/notes.
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "report.h"

struct entry {
    char *name;
    char *unit;
    double *v;
    uint8_t *f;
    struct scal_pp_matrix m;
};

struct bucket {
    struct entry **e; /* entries are allocated one by one so that get() pointers stay valid */
    size_t n;
    const char **names; /* NULL-terminated, rebuilt on put */
};

struct notes {
    char **text;
    size_t n;
};

struct pp_host {
    struct scal_pp_host api; /* first: the API pointer is the host pointer */
    struct pp_campaign *c;
    struct scal_pp_region *regions;
    char **slices;
    char baseline[160];
    struct bucket *b;    /* nregions * nslices */
    struct notes *notes; /* nregions + 1: [0] campaign-wide */
    unsigned char *sel;
    struct pp_outputs out; /* the output files being written */
};

static struct pp_host *H(const struct scal_pp_host *api)
{
    return (struct pp_host *)(uintptr_t)api;
}

static void shape_dims(const struct pp_host *h, enum scal_pp_shape s, uint32_t *r, uint32_t *c)
{
    uint32_t ni = (uint32_t)h->c->ninputs, nt = (uint32_t)h->c->nthreads;
    switch (s) {
    case SCAL_PP_FULL:
        *r = ni, *c = nt;
        break;
    case SCAL_PP_INPUT_STEP:
        *r = ni ? ni - 1 : 0, *c = nt;
        break;
    case SCAL_PP_THREAD_STEP:
        *r = ni, *c = nt ? nt - 1 : 0;
        break;
    case SCAL_PP_BOTH_STEP:
        *r = ni ? ni - 1 : 0, *c = nt ? nt - 1 : 0;
        break;
    default:
        *r = 1, *c = 1;
        break;
    }
}

static const struct scal_pp_matrix *host_get(const struct scal_pp_host *api, size_t region,
                                             size_t slice, const char *metric)
{
    struct pp_host *h = H(api);
    if (region >= h->c->nregions || slice >= api->nslices) return NULL;
    struct bucket *b = &h->b[region * api->nslices + slice];
    for (size_t i = 0; i < b->n; i++)
        if (!strcmp(b->e[i]->name, metric)) return &b->e[i]->m;
    return NULL;
}

static int host_put(const struct scal_pp_host *api, size_t region, size_t slice, const char *metric,
                    const char *unit, enum scal_pp_shape shape, const double *values,
                    const uint8_t *flags)
{
    struct pp_host *h = H(api);
    if (region >= h->c->nregions || slice >= api->nslices || !metric || !values)
        return scal__fail(SCAL_EINVAL, "put: bad region %zu, slice %zu or metric", region, slice);
    struct bucket *b = &h->b[region * api->nslices + slice];
    struct entry *e = NULL;
    for (size_t i = 0; i < b->n; i++)
        if (!strcmp(b->e[i]->name, metric)) e = b->e[i];
    if (!e) {
        struct entry **n = realloc(b->e, (b->n + 1) * sizeof(*n));
        if (!n) return SCAL_ENOMEM;
        b->e = n;
        const char **names = realloc(b->names, (b->n + 2) * sizeof(*names));
        if (!names) return SCAL_ENOMEM;
        b->names = names;
        if (!(e = calloc(1, sizeof(*e)))) return SCAL_ENOMEM;
        if (!(e->name = strdup(metric))) {
            free(e);
            return SCAL_ENOMEM;
        }
        n[b->n] = e;
        names[b->n] = e->name;
        names[++b->n] = NULL;
    } else {
        free(e->v);
        free(e->f);
        free(e->unit);
        e->v = NULL, e->f = NULL, e->unit = NULL;
    }
    uint32_t r, c;
    shape_dims(h, shape, &r, &c);
    size_t n = (size_t)r * c;
    e->v = malloc((n ? n : 1) * sizeof(*e->v));
    e->f = calloc(n ? n : 1, 1);
    e->unit = strdup(unit ? unit : "");
    if (!e->v || !e->f || !e->unit) return SCAL_ENOMEM;
    memcpy(e->v, values, n * sizeof(*e->v));
    for (size_t i = 0; i < n; i++) {
        if (flags) e->f[i] = flags[i];
        if (isnan(e->v[i])) e->f[i] |= SCAL_PP_CELL_MISSING;
    }
    e->m = (struct scal_pp_matrix){shape, r, c, e->unit, e->v, e->f};
    return 0;
}

static int host_note(const struct scal_pp_host *api, long region, const char *text)
{
    struct pp_host *h = H(api);
    if (region >= (long)h->c->nregions || !text) return SCAL_EINVAL;
    struct notes *n = &h->notes[region < 0 ? 0 : region + 1];
    char **t = realloc(n->text, (n->n + 1) * sizeof(*t));
    if (!t) return SCAL_ENOMEM;
    n->text = t;
    if (!(t[n->n] = strdup(text))) return SCAL_ENOMEM;
    n->n++;
    return 0;
}

static size_t host_notes(const struct scal_pp_host *api, long region, const char *const **out)
{
    struct pp_host *h = H(api);
    if (region >= (long)h->c->nregions) {
        *out = NULL;
        return 0;
    }
    struct notes *n = &h->notes[region < 0 ? 0 : region + 1];
    *out = (const char *const *)n->text;
    return n->n;
}

static int host_selected(const struct scal_pp_host *api, size_t region)
{
    struct pp_host *h = H(api);
    return region < h->c->nregions && h->sel[region];
}

static const char *const *host_metrics(const struct scal_pp_host *api, size_t region, size_t slice)
{
    static const char *const none[] = {NULL};
    struct pp_host *h = H(api);
    if (region >= h->c->nregions || slice >= api->nslices) return none;
    struct bucket *b = &h->b[region * api->nslices + slice];
    return b->names ? (const char *const *)b->names : none;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double pp_stat(double *v, size_t n, const char *stat)
{
    if (n == 0) return NAN;
    if (!strcmp(stat, "mean")) {
        double s = 0;
        for (size_t i = 0; i < n; i++)
            s += v[i];
        return s / (double)n;
    }
    qsort(v, n, sizeof(*v), cmp_double);
    if (!strcmp(stat, "min")) return v[0];
    if (!strcmp(stat, "max")) return v[n - 1];
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int cmp_sample(const void *a, const void *b)
{
    const struct pp_sample *x = a, *y = b;
    if (x->region != y->region) return x->region < y->region ? -1 : 1;
    if (x->metric != y->metric) return x->metric < y->metric ? -1 : 1;
    if (x->cell != y->cell) return x->cell < y->cell ? -1 : 1;
    return 0;
}

/* Base matrices: time / time_cv / team / samples per region and slice, sensor metrics. */
static int build_base(struct pp_host *h, const char *stat, double noise_cv)
{
    struct pp_campaign *c = h->c;
    size_t ncell_slice = c->ninputs * c->nthreads, nslices = c->nfreqs;
    size_t ncells = ncell_slice * nslices;
    double *val = malloc(ncells * sizeof(*val)), *cv = malloc(ncells * sizeof(*cv));
    double *team = malloc(ncells * sizeof(*team)), *cnt = malloc(ncells * sizeof(*cnt));
    double *vmin = malloc(ncells * sizeof(*vmin)), *vmax = malloc(ncells * sizeof(*vmax));
    double *tmp = NULL;
    uint8_t *flags = malloc(ncells);
    double *rootcnt = calloc(ncells, sizeof(*rootcnt));
    int rc = SCAL_ENOMEM;
    if (!val || !cv || !team || !cnt || !flags || !rootcnt || !vmin || !vmax) goto out;
    qsort(c->samples, c->nsamples, sizeof(*c->samples), cmp_sample);
    size_t maxrun = 1;
    for (size_t i = 0, j; i < c->nsamples; i = j) {
        for (j = i; j < c->nsamples && !cmp_sample(&c->samples[i], &c->samples[j]); j++)
            ;
        if (j - i > maxrun) maxrun = j - i;
    }
    if (!(tmp = malloc(maxrun * sizeof(*tmp)))) goto out;
    size_t i = 0;
    while (i < c->nsamples) {
        uint32_t region = c->samples[i].region;
        int32_t metric = c->samples[i].metric;
        for (size_t k = 0; k < ncells; k++)
            val[k] = cv[k] = team[k] = vmin[k] = vmax[k] = NAN, cnt[k] = 0, flags[k] = 0;
        while (i < c->nsamples && c->samples[i].region == region &&
               c->samples[i].metric == metric) {
            size_t j = i, n = 0;
            uint32_t cell = c->samples[i].cell;
            for (; j < c->nsamples && !cmp_sample(&c->samples[i], &c->samples[j]); j++)
                tmp[n++] = c->samples[j].value;
            double mean = 0, var = 0;
            vmin[cell] = vmax[cell] = tmp[0];
            for (size_t k = 0; k < n; k++) {
                mean += tmp[k];
                vmin[cell] = fmin(vmin[cell], tmp[k]);
                vmax[cell] = fmax(vmax[cell], tmp[k]);
            }
            mean /= (double)n;
            for (size_t k = 0; k < n; k++)
                var += (tmp[k] - mean) * (tmp[k] - mean);
            cv[cell] = n > 1 && mean != 0 ? sqrt(var / (double)(n - 1)) / fabs(mean) : 0;
            val[cell] = pp_stat(tmp, n, stat);
            cnt[cell] = (double)n;
            if (cv[cell] > noise_cv) flags[cell] |= SCAL_PP_CELL_NOISY;
            if (metric < 0) {
                for (size_t k = 0; k < n; k++)
                    tmp[k] = c->samples[i + k].team;
                team[cell] = pp_stat(tmp, n, "median");
            }
            i = j;
        }
        if (metric < 0 && region == 0) memcpy(rootcnt, cnt, ncells * sizeof(*cnt));
        size_t missing_runs = 0, missing_cells = 0;
        if (metric < 0)
            for (size_t k = 0; k < ncells; k++) {
                if (cnt[k] < rootcnt[k]) missing_runs += (size_t)(rootcnt[k] - cnt[k]);
                if (cnt[k] == 0 && rootcnt[k] > 0) missing_cells++;
            }
        size_t noisy = 0;
        for (size_t k = 0; metric < 0 && k < ncells; k++)
            noisy += (flags[k] & SCAL_PP_CELL_NOISY) != 0;
        if (noisy) {
            char buf[300];
            snprintf(buf, sizeof(buf),
                     "%zu noisy cell(s): repetitions vary by more than %.0f%% "
                     "(coefficient of variation; marked in the diagrams)",
                     noisy, 100 * noise_cv);
            host_note(&h->api, (long)region, buf);
        }
        if (missing_runs) {
            char buf[600];
            snprintf(buf, sizeof(buf),
                     "region %s is absent from %zu run(s) (%zu configuration cell(s) have no "
                     "sample and are drawn as gaps)",
                     c->regions[region].label, missing_runs, missing_cells);
            host_note(&h->api, (long)region, buf);
            pp_campaign_note(c, "%s", buf);
        }
        for (size_t s = 0; s < nslices; s++) {
            size_t o = s * ncell_slice;
            if (metric < 0) {
                if ((rc = host_put(&h->api, region, s, "time", "s", SCAL_PP_FULL, val + o,
                                   flags + o)) < 0 ||
                    (rc = host_put(&h->api, region, s, "time_cv", "", SCAL_PP_FULL, cv + o,
                                   flags + o)) < 0 ||
                    (rc = host_put(&h->api, region, s, "team", "threads", SCAL_PP_FULL, team + o,
                                   NULL)) < 0 ||
                    (rc = host_put(&h->api, region, s, "samples", "runs", SCAL_PP_FULL, cnt + o,
                                   NULL)) < 0 ||
                    (rc = host_put(&h->api, region, s, "time_min", "s", SCAL_PP_FULL, vmin + o,
                                   NULL)) < 0 ||
                    (rc = host_put(&h->api, region, s, "time_max", "s", SCAL_PP_FULL, vmax + o,
                                   NULL)) < 0)
                    goto out;
            } else {
                char name[300]; /* "stat:" metrics (wait times) keep their name */
                snprintf(name, sizeof(name), "%s%s",
                         strncmp(c->metrics[metric], "stat:", 5) ? "sensor:" : "",
                         c->metrics[metric]);
                if ((rc = host_put(&h->api, region, s, name, c->metric_units[metric], SCAL_PP_FULL,
                                   val + o, flags + o)) < 0)
                    goto out;
            }
        }
    }
    rc = 0;
out:
    free(val);
    free(cv);
    free(team);
    free(cnt);
    free(vmin);
    free(vmax);
    free(flags);
    free(tmp);
    free(rootcnt);
    return rc;
}

static FILE *host_create(const struct scal_pp_host *api, const char *rel, char *why, size_t whylen)
{
    FILE *f;
    int rc = pp_out_create(&H(api)->out, rel, &f);
    if (rc < 0) snprintf(why, whylen, "%s", scal__last_error(rc));
    return f;
}

static int host_commit(const struct scal_pp_host *api, FILE *f, int ok, char *why, size_t whylen)
{
    int rc = pp_out_commit(&H(api)->out, f, ok != 0);
    if (rc < 0) snprintf(why, whylen, "%s", scal__last_error(rc));
    return rc;
}

int pp_host_create(struct pp_host **out, struct pp_campaign *c, const struct scal_report_options *o)
{
    struct pp_host *h = calloc(1, sizeof(*h));
    int rc = SCAL_ENOMEM;
    if (!h) return rc;
    h->c = c;
    size_t nr = c->nregions, ns = c->nfreqs;
    h->regions = calloc(nr, sizeof(*h->regions));
    h->slices = calloc(ns, sizeof(*h->slices));
    h->b = calloc(nr * ns, sizeof(*h->b));
    h->notes = calloc(nr + 1, sizeof(*h->notes));
    h->sel = calloc(nr, 1);
    if (!h->regions || !h->slices || !h->b || !h->notes || !h->sel) goto fail;
    for (size_t i = 0; i < nr; i++)
        h->regions[i] =
            (struct scal_pp_region){(uint32_t)i,        c->regions[i].parent, c->regions[i].depth,
                                    c->regions[i].kind, c->regions[i].label,  c->regions[i].slug};
    for (size_t s = 0; s < ns; s++) {
        char buf[64] = "";
        if (ns > 1 || c->freqs[s] >= 0)
            snprintf(buf, sizeof(buf), "%lld kHz", (long long)c->freqs[s]);
        if (!(h->slices[s] = strdup(buf))) goto fail;
    }
    int base = 0;
    for (size_t t = 0; t < c->nthreads; t++)
        if (c->threads[t] == 1) base = (int)t;
    if (c->threads[base] != 1)
        snprintf(h->baseline, sizeof(h->baseline),
                 "no 1-thread run: speedup and efficiency are relative to %d threads (the "
                 "smallest thread count)",
                 c->threads[base]);
    struct scal_pp_host *a = &h->api;
    a->struct_size = sizeof(*a);
    a->nregions = nr;
    a->regions = h->regions;
    a->ninputs = c->ninputs;
    a->inputs = (const char *const *)c->inputs;
    a->nthreads = c->nthreads;
    a->threads = c->threads;
    a->nslices = ns;
    a->slices = (const char *const *)h->slices;
    a->baseline_column = base;
    a->baseline_note = h->baseline;
    a->output_dir = o->output_dir;
    a->stat = o->stat ? o->stat : "median";
    a->mode = o->mode ? o->mode : SCAL_PP_DISCRETE;
    a->top = o->top;
    a->sources = (const char *const *)o->files;
    a->write_path = o->no_write || c->has_run_files ? NULL : o->files[0];
    a->single_run = c->single_run;
    a->noise_cv = 0.10;
    a->get = host_get;
    a->put = host_put;
    a->note = host_note;
    a->notes = host_notes;
    a->selected = host_selected;
    a->metrics = host_metrics;
    a->create = host_create;
    a->commit = host_commit;
    h->out.dir = o->output_dir;
    if ((rc = build_base(h, a->stat, a->noise_cv)) < 0) goto fail;
    for (size_t i = 0; i < nr; i++)
        h->sel[i] = 1;
    *out = h;
    return 0;
fail:
    pp_host_free(h);
    return rc;
}

int pp_host_select(struct pp_host *h, const char *pattern, double min_share, size_t top)
{
    size_t matched = 0;
    for (size_t i = 0; i < h->c->nregions; i++) {
        bool ok = true;
        if (pattern && i != 0) {
            ok = !fnmatch(pattern, h->regions[i].label, 0) ||
                 !fnmatch(pattern, h->regions[i].slug, 0);
            matched += ok;
        }
        if (ok && min_share > 0 && i != 0) {
            const struct scal_pp_matrix *m = host_get(&h->api, i, 0, "time_share");
            ok = m && m->values[0] * 100 >= min_share;
        }
        if (ok && top && i != 0) {
            const struct scal_pp_matrix *m = host_get(&h->api, i, 0, "rank");
            ok = m && !isnan(m->values[0]) && m->values[0] <= (double)top;
        }
        h->sel[i] = ok;
    }
    if (pattern && !matched)
        return scal__fail(SCAL_EINVAL,
                          "--region '%s' matches no region (it is matched against labels such as "
                          "'%s' and slugs such as '%s')",
                          pattern, h->c->nregions > 1 ? h->regions[1].label : h->regions[0].label,
                          h->c->nregions > 1 ? h->regions[1].slug : h->regions[0].slug);
    return SCAL_OK;
}

void pp_host_set_env(struct pp_host *h, const struct scal_plugin_env *env)
{
    h->api.env = env;
}

const struct scal_pp_host *pp_host_api(struct pp_host *h)
{
    return &h->api;
}

void pp_host_free(struct pp_host *h)
{
    if (!h) return;
    pp_outputs_free(&h->out);
    size_t nr = h->c->nregions, ns = h->c->nfreqs;
    if (h->b)
        for (size_t i = 0; i < nr * ns; i++) {
            for (size_t j = 0; j < h->b[i].n; j++) {
                free(h->b[i].e[j]->name);
                free(h->b[i].e[j]->unit);
                free(h->b[i].e[j]->v);
                free(h->b[i].e[j]->f);
                free(h->b[i].e[j]);
            }
            free(h->b[i].e);
            free(h->b[i].names);
        }
    if (h->notes)
        for (size_t i = 0; i <= nr; i++) {
            for (size_t j = 0; j < h->notes[i].n; j++)
                free(h->notes[i].text[j]);
            free(h->notes[i].text);
        }
    if (h->slices)
        for (size_t s = 0; s < ns; s++)
            free(h->slices[s]);
    free(h->slices);
    free(h->regions);
    free(h->b);
    free(h->notes);
    free(h->sel);
    free(h);
}
