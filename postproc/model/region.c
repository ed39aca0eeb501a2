// SPDX-License-Identifier: BSD-3-Clause
// A region's model from the report host's matrices, and the inputs' sizes it is fitted in.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "h5util.h"
#include "region.h"
#include "safe_open.h"
#include "scal_format.h"

static bool numeric_label(const char *s, double *v)
{
    char *end = NULL;
    double x = strtod(s, &end);
    if (end == s || *end || !isfinite(x) || x <= 0) return false;
    *v = x;
    return true;
}

int scal_model_input_sizes(const struct scal_pp_host *h, double *sizes)
{
    for (size_t i = 0; i < h->ninputs; i++)
        sizes[i] = NAN;
    for (const char *const *src = h->sources; src && *src; src++) {
        struct scal_h5file f;
        if (scal_h5file_open(*src, SCAL_OPEN_READ | SCAL_OPEN_NO_PROBE, &f) < 0) continue;
        double *sz = NULL;
        char **labels = NULL;
        size_t nsz = 0, nl = 0;
        if (f.campaign && scal_format_read_input_sizes(f.id, &sz, &nsz) == SCAL_OK && sz &&
            scal_h5_read_strings(f.id, "campaign/inputs", &labels, &nl) == SCAL_OK)
            for (size_t k = 0; k < nl && k < nsz; k++)
                for (size_t i = 0; i < h->ninputs; i++)
                    if (isnan(sizes[i]) && isfinite(sz[k]) && sz[k] > 0 &&
                        !strcmp(h->inputs[i], labels[k]))
                        sizes[i] = sz[k];
        if (labels) scal_h5_free_strings(labels, nl);
        free(sz);
        scal_h5file_close(&f);
    }
    for (size_t i = 0; i < h->ninputs; i++)
        if (isnan(sizes[i])) numeric_label(h->inputs[i], &sizes[i]);
    return SCAL_OK;
}

bool scal_model_sizes_usable(const double *sizes, size_t ninputs)
{
    if (ninputs < 3) return false;
    for (size_t i = 0; i < ninputs; i++) {
        if (!(sizes[i] > 0) || !isfinite(sizes[i])) return false;
        for (size_t j = 0; j < i; j++)
            if (sizes[j] == sizes[i]) return false;
    }
    return true;
}

void scal_region_model_free(struct scal_region_model *rm)
{
    free(rm->piece);
    memset(rm, 0, sizeof(*rm));
}

const struct scal_model *scal_region_model_piece(const struct scal_region_model *rm, size_t input)
{
    if (!rm->piece || !rm->npieces) return NULL;
    if (rm->uses_n) return &rm->piece[0];
    return input < rm->npieces ? &rm->piece[input] : NULL;
}

/* The sum of the joule sensors of a region and slice (as the energy plugin makes it), or NULL. */
static int energy_sum(const struct scal_pp_host *h, size_t region, size_t slice, double **out)
{
    size_t n = h->ninputs * h->nthreads;
    *out = NULL;
    for (const char *const *m = h->metrics(h, region, slice); *m; m++) {
        const struct scal_pp_matrix *x = h->get(h, region, slice, *m);
        if (strncmp(*m, "sensor:", 7) || !x || strcmp(x->unit, "J")) continue;
        if (!*out && !(*out = calloc(n, sizeof(**out))))
            return scal__fail(SCAL_ENOMEM, "out of memory for the energy model");
        for (size_t k = 0; k < n; k++)
            (*out)[k] += x->values[k];
    }
    return SCAL_OK;
}

/* A region's values of a metric in one slice, with what the noise of each cell is made of. */
struct cells {
    const struct scal_pp_matrix *y, *cv, *cnt;
    struct scal_pp_matrix esum;
    double *sum;      /* the energy sum, owned */
    double se_factor; /* the median's standard error is about 1.25 sigma / sqrt(n) */
};

static int cells_get(const struct scal_pp_host *h, size_t region, size_t slice, const char *metric,
                     struct cells *c)
{
    memset(c, 0, sizeof(*c));
    c->y = h->get(h, region, slice, metric);
    if (!c->y && !strcmp(metric, "energy")) { /* without the energy plugin (scal model): its sum */
        int rc = energy_sum(h, region, slice, &c->sum);
        if (rc < 0) return rc;
        c->esum = (struct scal_pp_matrix){
            SCAL_PP_FULL, (uint32_t)h->ninputs, (uint32_t)h->nthreads, "J", c->sum, NULL};
        c->y = c->sum ? &c->esum : NULL;
    }
    if (!strcmp(metric, "time")) {
        c->cv = h->get(h, region, slice, "time_cv");
        c->cnt = h->get(h, region, slice, "samples");
    }
    c->se_factor = !strcmp(h->stat, "median") ? 1.2533 : 1.0;
    return SCAL_OK;
}

/* The point of cell k (input i, thread column t) at parameter n; false when it has no value. */
static bool cells_point(const struct cells *c, const struct scal_pp_host *h, size_t k, size_t t,
                        double n, struct scal_model_point *pt)
{
    double v = c->y ? c->y->values[k] : NAN;
    if (!isfinite(v) || v <= 0) return false;
    double cv = c->cv && isfinite(c->cv->values[k]) ? c->cv->values[k] : 0;
    double reps = c->cnt && c->cnt->values[k] > 0 ? c->cnt->values[k] : 1;
    *pt = (struct scal_model_point){n, (double)h->threads[t], v, c->se_factor * cv / sqrt(reps)};
    return true;
}

int scal_model_region(const struct scal_pp_host *h, size_t region, size_t slice, const char *metric,
                      const double *sizes, struct scal_region_model *out)
{
    struct cells c = {0};
    memset(out, 0, sizeof(*out));
    out->uses_n = scal_model_sizes_usable(sizes, h->ninputs);
    out->npieces = out->uses_n ? 1 : h->ninputs;
    out->n_baseline_threads = h->threads[0];
    out->piece = calloc(out->npieces ? out->npieces : 1, sizeof(*out->piece));
    struct scal_model_point *pts = malloc((h->ninputs * h->nthreads + 1) * sizeof(*pts));
    int rc = SCAL_OK;
    if (!out->piece || !pts) {
        rc = scal__fail(SCAL_ENOMEM, "out of memory for the models");
        goto out;
    }
    if ((rc = cells_get(h, region, slice, metric, &c)) < 0) goto out;
    for (size_t piece = 0; piece < out->npieces; piece++) {
        size_t np = 0;
        for (size_t i = 0; i < h->ninputs; i++)
            for (size_t t = 0; (out->uses_n || i == piece) && t < h->nthreads; t++)
                np += cells_point(&c, h, i * h->nthreads + t, t, out->uses_n ? sizes[i] : 1.0,
                                  &pts[np]);
        if ((rc = scal_model_fit(pts, np, out->uses_n, &out->piece[piece])) < 0) goto out;
    }
out:
    free(pts);
    free(c.sum);
    if (rc < 0) scal_region_model_free(out);
    return rc;
}

bool scal_model_slice_freqs(const struct scal_pp_host *h, double *ghz)
{
    size_t distinct = 0;
    for (size_t s = 0; s < h->nslices; s++) {
        char *end = NULL;
        double khz = strtod(h->slices[s], &end);
        ghz[s] = end != h->slices[s] && khz > 0 ? khz / 1e6 : NAN;
        bool seen = false;
        for (size_t q = 0; q < s; q++)
            seen |= ghz[q] == ghz[s];
        distinct += isfinite(ghz[s]) && !seen;
    }
    return distinct >= 3;
}

int scal_model_region_freq(const struct scal_pp_host *h, size_t region, size_t input,
                           const char *metric, const double *ghz, struct scal_model *out)
{
    struct scal_model_point *pts = malloc((h->nslices * h->nthreads + 1) * sizeof(*pts));
    size_t np = 0;
    int rc = pts ? SCAL_OK : scal__fail(SCAL_ENOMEM, "out of memory for the models");
    memset(out, 0, sizeof(*out));
    for (size_t s = 0; rc == SCAL_OK && s < h->nslices; s++) {
        struct cells c;
        if (!isfinite(ghz[s]) || (rc = cells_get(h, region, s, metric, &c)) < 0) continue;
        for (size_t t = 0; t < h->nthreads; t++)
            np += cells_point(&c, h, input * h->nthreads + t, t, ghz[s], &pts[np]);
        free(c.sum);
    }
    if (rc == SCAL_OK) rc = scal_model_fit_freq(pts, np, out);
    free(pts);
    return rc;
}
