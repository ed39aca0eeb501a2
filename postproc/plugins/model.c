// SPDX-License-Identifier: BSD-3-Clause
// Analysis plugin: every region's empirical model of time (and energy, with joule sensors) in
// threads and input size (postproc/model: the search of `scal model`), as findings and matrices:
// the model's value and 90 % interval at every measured cell (model_time, model_low, model_high),
// the predicted lost core-seconds at the target configuration (model_lost) and the regions' rank
// by it (model_rank), and the models' findings ("model: T(n,p) = ...", "stops scaling at about N
// threads", "serial fraction s", "grows as n*log2(n)", the prediction at the target).
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "region.h"
#include "util.h"

static const char *const needs[] = {"time", NULL};
static const char *const produces[] = {"model_time", "model_low",  "model_high",
                                       "model_lost", "model_rank", NULL};

/* The target of the findings: option `at` (THREADS,INPUT or threads=N,input=X), else 8 x the
 * largest thread count and the largest input. */
static int target(const struct scal_pp_host *h, const double *sizes, int32_t *p, size_t *input,
                  double *n, char *why, size_t whylen)
{
    const char *at = pp_option(h, "at");
    char in[256] = "";
    size_t k = 0;
    *p = 8 * h->threads[h->nthreads - 1];
    if (at && *at && scal_model_parse_target(at, p, 1, &k, in, sizeof(in)) < 0)
        return scal__why(why, whylen, SCAL_EINVAL, "option at: %s", scal__last_error(SCAL_EINVAL));
    if (*in)
        return scal_model_target_input(h->inputs, sizes, h->ninputs, in, input, n) < 0
                   ? scal__why(why, whylen, SCAL_EINVAL, "option at: %s",
                               scal__last_error(SCAL_EINVAL))
                   : SCAL_OK;
    *input = h->ninputs - 1;
    for (size_t i = 0; i < h->ninputs; i++)
        if (sizes[i] > sizes[*input]) *input = i;
    *n = sizes[*input];
    return SCAL_OK;
}

/* The model's value and interval at every measured cell. */
static int put_cells(const struct scal_pp_host *h, size_t r, size_t s,
                     const struct scal_region_model *rm, const double *sizes, double *buf)
{
    size_t nc = h->ninputs * h->nthreads;
    double *v = buf, *lo = buf + nc, *hi = buf + 2 * nc;
    for (size_t i = 0; i < h->ninputs; i++)
        for (size_t t = 0; t < h->nthreads; t++) {
            size_t k = i * h->nthreads + t;
            const struct scal_model *m = scal_region_model_piece(rm, i);
            char why[200];
            v[k] = lo[k] = hi[k] = NAN;
            if (m && m->reliable)
                scal_model_predict(m, rm->uses_n ? sizes[i] : 1, h->threads[t], &v[k], &lo[k],
                                   &hi[k], why, sizeof(why));
        }
    int rc = h->put(h, r, s, "model_time", "s", SCAL_PP_FULL, v, NULL);
    if (rc == SCAL_OK) rc = h->put(h, r, s, "model_low", "s", SCAL_PP_FULL, lo, NULL);
    if (rc == SCAL_OK) rc = h->put(h, r, s, "model_high", "s", SCAL_PP_FULL, hi, NULL);
    return rc;
}

static int note_reading(const struct scal_pp_host *h, size_t r, size_t s,
                        const struct scal_model_reading *rd)
{
    for (size_t l = 0; l < rd->nlines; l++) {
        char buf[400];
        snprintf(buf, sizeof(buf), "%s%s%s%s", h->nslices > 1 ? "[" : "",
                 h->nslices > 1 ? h->slices[s] : "", h->nslices > 1 ? "] " : "", rd->line[l]);
        int rc = h->note(h, (long)r, buf);
        if (rc < 0) return rc;
    }
    return SCAL_OK;
}

/* With three or more frequency slices: the region's time and energy in f and p, per input. */
static int frequency_models(const struct scal_pp_host *h, size_t r)
{
    double *ghz = malloc((h->nslices + 1) * sizeof(*ghz)), fmax = 0;
    int rc = ghz ? SCAL_OK : SCAL_ENOMEM;
    if (rc < 0 || !scal_model_slice_freqs(h, ghz)) goto out;
    for (size_t s = 0; s < h->nslices; s++)
        if (isfinite(ghz[s]) && ghz[s] > fmax) fmax = ghz[s];
    static const char *const metrics[] = {"time", "energy"}, *const units[] = {"s", "J"};
    for (size_t k = 0; k < 2; k++)
        for (size_t i = 0; i < h->ninputs && rc == SCAL_OK; i++) {
            struct scal_model m;
            struct scal_model_reading rd;
            if ((rc = scal_model_region_freq(h, r, i, metrics[k], ghz, &m)) < 0) goto out;
            if (!m.npoints) continue;
            scal_model_read_freq(&m, h->inputs[i], fmax, h->threads[h->nthreads - 1], units[k],
                                 &rd);
            for (size_t l = 0; l < rd.nlines && rc == SCAL_OK; l++)
                rc = h->note(h, (long)r, rd.line[l]);
        }
out:
    free(ghz);
    return rc;
}

static int run(const struct scal_pp_host *h, char *why, size_t whylen)
{
    size_t nc = h->ninputs * h->nthreads;
    double *sizes = malloc((h->ninputs + 1) * sizeof(*sizes));
    double *buf = malloc((3 * nc + 1) * sizeof(*buf));
    double *lost = calloc(h->nregions + 1, sizeof(*lost));
    int rc = SCAL_ENOMEM;
    size_t input;
    double n;
    int32_t p;
    if (!sizes || !buf || !lost) goto out;
    if (h->nthreads < 2) {
        rc = scal__why(why, whylen, SCAL_EUNAVAIL, "models need several thread counts");
        goto out;
    }
    if ((rc = scal_model_input_sizes(h, sizes)) < 0 ||
        (rc = target(h, sizes, &p, &input, &n, why, whylen)) < 0)
        goto out;
    for (size_t r = 0; r < h->nregions; r++) {
        lost[r] = NAN;
        for (size_t s = 0; s < h->nslices; s++) {
            struct scal_region_model rm, em;
            struct scal_model_reading rd;
            if ((rc = scal_model_region(h, r, s, "time", sizes, &rm)) < 0) goto out;
            rc = put_cells(h, r, s, &rm, sizes, buf);
            scal_model_read(&rm, input, n, p, "s", &rd);
            if (rc == SCAL_OK) rc = note_reading(h, r, s, &rd);
            if (s == 0) lost[r] = rd.lost;
            scal_region_model_free(&rm);
            if (rc < 0) goto out;
            if ((rc = scal_model_region(h, r, s, "energy", sizes, &em)) < 0) goto out;
            bool have = false;
            for (size_t q = 0; q < em.npieces; q++)
                have |= em.piece[q].npoints > 0;
            if (have) {
                scal_model_read(&em, input, n, p, "J", &rd);
                rc = note_reading(h, r, s, &rd);
            }
            scal_region_model_free(&em);
            if (rc < 0) goto out;
        }
        if ((rc = frequency_models(h, r)) < 0) goto out;
        double v = lost[r];
        if ((rc = h->put(h, r, 0, "model_lost", "core*s", SCAL_PP_SCALAR, &v, NULL)) < 0) goto out;
    }
    /* rank by predicted lost core-seconds (the whole program is not ranked) */
    for (size_t r = 0; r < h->nregions; r++) {
        double rank = NAN;
        if (r > 0 && isfinite(lost[r])) {
            rank = 1;
            for (size_t q = 1; q < h->nregions; q++)
                if (q != r && isfinite(lost[q]) &&
                    (lost[q] > lost[r] || (lost[q] == lost[r] && q < r)))
                    rank++;
        }
        if ((rc = h->put(h, r, 0, "model_rank", "", SCAL_PP_SCALAR, &rank, NULL)) < 0) goto out;
    }
    char note[400], nbuf[64];
    if (input < h->ninputs)
        snprintf(nbuf, sizeof(nbuf), "%s%s", pp_rows_are_ranks(h) ? "" : "input ",
                 h->inputs[input]);
    else
        snprintf(nbuf, sizeof(nbuf), "input size %g", n);
    snprintf(note, sizeof(note),
             "models (scal model): predictions and model findings at %d threads, %s "
             "(option model.at); regions ranked by predicted lost core-seconds there (model_rank)",
             p, nbuf);
    rc = h->note(h, -1, note);
out:
    free(sizes);
    free(buf);
    free(lost);
    return rc;
}

static const struct scal_postproc_ops ops = {sizeof(ops), SCAL_PP_ANALYSIS, needs, produces, run};
static const struct scal_option_desc options[] = {
    {"at", SCAL_OPT_STRING, "",
     "THREADS[,INPUT] (or threads=N,input=SIZE|LABEL): the configuration of the model findings "
     "and ranking (default: 8 x the largest thread count, the largest input)"},
    {0},
};
static const struct scal_plugin_desc desc = {
    .abi_version = SCAL_PLUGIN_ABI_VERSION,
    .struct_size = sizeof(desc),
    .name = "model",
    .version = "1",
    .kind = SCAL_PLUGIN_POSTPROC,
    .description = "empirical models of time and energy in threads and input size (PMNF, Amdahl, "
                   "USL; cross-validated), predictions with intervals, findings",
    .options = options,
    .postproc = &ops,
};
SCAL_PLUGIN_DEFINE(desc)
