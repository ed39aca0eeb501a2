// SPDX-License-Identifier: BSD-3-Clause
// What a region's model says at a target configuration: prediction, interval, speedup, lost
// core-seconds, and the findings in words.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "region.h"

int scal_model_target_input(const char *const *inputs, const double *sizes, size_t ninputs,
                            const char *spec, size_t *input, double *n)
{
    *input = SIZE_MAX;
    *n = NAN;
    for (size_t i = 0; i < ninputs; i++)
        if (!strcmp(inputs[i], spec)) {
            *input = i;
            *n = sizes[i];
            return SCAL_OK;
        }
    char *end = NULL;
    double v = strtod(spec, &end);
    if (end == spec || *end || !isfinite(v) || v <= 0)
        return scal__fail(SCAL_EINVAL,
                          "input '%s' is neither an input label of the campaign nor a positive "
                          "size",
                          spec);
    *n = v;
    for (size_t i = 0; i < ninputs; i++)
        if (sizes[i] == v) *input = i;
    return SCAL_OK;
}

void scal_model_read(const struct scal_region_model *rm, size_t input, double n, double p,
                     const char *unit, struct scal_model_reading *out)
{
    memset(out, 0, sizeof(*out));
    out->pred = out->lo = out->hi = out->speedup = out->efficiency = out->lost = NAN;
    const struct scal_model *m = scal_region_model_piece(rm, input);
    if (!m) {
        snprintf(out->why, sizeof(out->why), "%s",
                 rm->uses_n ? "no model"
                            : "no model for this input: the inputs have no sizes (scal run --size "
                              "or numeric input labels, three or more), so each input has its own "
                              "model in p and an input size cannot be predicted");
        return;
    }
    if (!rm->uses_n) n = 1.0;
    double p0 = rm->n_baseline_threads > 0 ? rm->n_baseline_threads : 1;
    char expr[400];
    bool time = !strcmp(unit, "s");
    scal_model_expr(&m->f, expr, sizeof(expr));
    if (m->fitted)
        snprintf(out->line[out->nlines++], sizeof(out->line[0]),
                 "%smodel: %s%s = %s (%s; cross-validated error %.2g %%, R^2 %.3f, %zu "
                 "configurations)",
                 time ? "" : "energy ", time ? "T" : "E", rm->uses_n ? "(n,p)" : "(p)", expr,
                 scal_model_family(&m->f), m->smape_cv, m->r2, m->npoints);
    out->ok =
        scal_model_predict(m, n, p, &out->pred, &out->lo, &out->hi, out->why, sizeof(out->why));
    if (!m->reliable) {
        snprintf(out->line[out->nlines++], sizeof(out->line[0]), "%s%s",
                 time ? "" : "energy: ", m->why);
        return;
    }
    double base = scal_model_fn_eval(&m->f, n, p0);
    if (time && out->ok && out->pred > 0 && base > 0) {
        out->speedup = base / out->pred * p0;
        out->efficiency = out->speedup / p;
        out->lost = p * out->pred - p0 * base;
        if (fabs(out->lost) < 1e-9 * p * out->pred) out->lost = 0; /* rounding, not a loss */
    }
    double stop = scal_model_stop_threads(&m->f, n, p0);
    double s = scal_model_serial_fraction(&m->f, n, 1.0);
    char growth[64];
    scal_model_growth(&m->f, growth, sizeof(growth));
    if (time && stop > 0 && stop <= p0)
        snprintf(out->line[out->nlines++], sizeof(out->line[0]),
                 "does not scale with the threads (doubling them from %.0f gains less than 10 %%)",
                 p0);
    else if (time && stop > 0)
        snprintf(out->line[out->nlines++], sizeof(out->line[0]),
                 "stops scaling at about %.0f threads (doubling the threads beyond gains less "
                 "than 10 %%)",
                 stop);
    if (time && isfinite(s) && s > 0.0005)
        snprintf(out->line[out->nlines++], sizeof(out->line[0]),
                 "serial fraction %.3g (Amdahl: speedup at most %.3g)", s, 1 / s);
    if (*growth)
        snprintf(out->line[out->nlines++], sizeof(out->line[0]), "grows as %s with the input",
                 growth);
    if (out->ok && time)
        snprintf(out->line[out->nlines++], sizeof(out->line[0]),
                 "predicted at %.0f threads: %.4g s [%.4g, %.4g], efficiency %.2f, %.4g "
                 "core-seconds lost",
                 p, out->pred, out->lo, out->hi, out->efficiency, out->lost);
    else if (out->ok)
        snprintf(out->line[out->nlines++], sizeof(out->line[0]),
                 "energy predicted at %.0f threads: %.4g %s [%.4g, %.4g]", p, out->pred, unit,
                 out->lo, out->hi);
    else
        snprintf(out->line[out->nlines++], sizeof(out->line[0]), "%sat %.0f threads: %s",
                 time ? "" : "energy ", p, out->why);
}

void scal_model_read_freq(const struct scal_model *m, const char *input, double fmax, double p,
                          const char *unit, struct scal_model_reading *out)
{
    bool time = !strcmp(unit, "s");
    char expr[400];
    memset(out, 0, sizeof(*out));
    if (!m->fitted) {
        snprintf(out->line[out->nlines++], sizeof(out->line[0]),
                 "%smodel in frequency, input %s: %s", time ? "" : "energy ", input, m->why);
        return;
    }
    scal_model_expr(&m->f, expr, sizeof(expr));
    snprintf(out->line[out->nlines++], sizeof(out->line[0]),
             "%smodel in frequency, input %s: %s(f,p) = %s (f in GHz; cross-validated error "
             "%.2g %%, R^2 %.3f, %zu configurations)",
             time ? "" : "energy ", input, time ? "T" : "E", expr, m->smape_cv, m->r2, m->npoints);
    if (!m->reliable) {
        snprintf(out->line[out->nlines++], sizeof(out->line[0]), "%s", m->why);
        return;
    }
    double share = scal_model_clock_share(&m->f, fmax, p);
    if (time && isfinite(share))
        snprintf(out->line[out->nlines++], sizeof(out->line[0]),
                 "at %.3g GHz and %.0f threads, %.0f %% of the time scales with the clock (the "
                 "rest does not get faster with the frequency: memory, waits)",
                 fmax, p, 100 * share);
}

int scal_model_parse_target(const char *arg, int32_t *threads, size_t max, size_t *nthreads,
                            char *input, size_t inputlen)
{
    char buf[512];
    bool in_input = false;
    snprintf(buf, sizeof(buf), "%s", arg);
    *nthreads = 0;
    input[0] = '\0';
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (!strncmp(tok, "threads=", 8))
            tok += 8, in_input = false;
        else if (!strncmp(tok, "input=", 6))
            tok += 6, in_input = true;
        char *end = NULL;
        long v = in_input ? 0 : strtol(tok, &end, 10);
        /* with one thread count ("64,4000"), what follows it is the input */
        if (!in_input && end != tok && !*end && v > 0 && v <= 1 << 20 &&
            !(max == 1 && *nthreads == 1)) {
            if (*nthreads == max)
                return scal__fail(SCAL_EINVAL, "'%s': at most %zu thread count%s", arg, max,
                                  max > 1 ? "s" : "");
            threads[(*nthreads)++] = (int32_t)v;
        } else if (!input[0] && *tok && (in_input || *nthreads)) {
            snprintf(input, inputlen, "%s", tok);
            in_input = true;
        } else
            return scal__fail(SCAL_EINVAL,
                              "'%s': expected threads=LIST[,input=SIZE|LABEL] (e.g. "
                              "threads=16,32,input=4000)",
                              arg);
    }
    if (!*nthreads) return scal__fail(SCAL_EINVAL, "'%s' names no thread count", arg);
    return SCAL_OK;
}
