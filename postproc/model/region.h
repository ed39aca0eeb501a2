/* SPDX-License-Identifier: BSD-3-Clause */
/* A region's model from the report host's matrices (time or energy per input x thread count):
 * one model in n and p when the inputs have at least three distinct numeric sizes, else one model
 * in p per input. Shared by `scal model` and the report's model plugin. */
#ifndef SCAL_MODEL_REGION_H
#define SCAL_MODEL_REGION_H

#include <stdint.h>

#include "model.h"
#include "scal/postproc.h"

struct scal_region_model {
    bool uses_n;
    size_t npieces;            /* 1 with uses_n, else one per input */
    struct scal_model *piece;  /* malloc'ed */
    double n_baseline_threads; /* the smallest measured thread count */
};

/* The inputs' sizes: /campaign@input_sizes of the sources (scal run --size), else the input
 * label when it is a number; NaN where neither. sizes has h->ninputs entries. */
int scal_model_input_sizes(const struct scal_pp_host *h, double *sizes);
/* Whether the sizes make n a model parameter (three or more inputs, all sized, all distinct). */
bool scal_model_sizes_usable(const double *sizes, size_t ninputs);

/* Fits the model of metric ("time", "energy", "sensor:...") of a region and slice. A missing
 * matrix gives a model with no piece fitted. */
int scal_model_region(const struct scal_pp_host *h, size_t region, size_t slice, const char *metric,
                      const double *sizes, struct scal_region_model *out);
void scal_region_model_free(struct scal_region_model *rm);

/* The slices' frequencies in GHz (NaN for a slice without one); true when there are three or more
 * distinct ones: then each input's time (or energy) gets a model in f and p too. */
bool scal_model_slice_freqs(const struct scal_pp_host *h, double *ghz);
/* That model: the input's cells of every slice, f in GHz. */
int scal_model_region_freq(const struct scal_pp_host *h, size_t region, size_t input,
                           const char *metric, const double *ghz, struct scal_model *out);
/* The piece for a prediction: the input index (with per-input pieces), or any input with n. */
const struct scal_model *scal_region_model_piece(const struct scal_region_model *rm, size_t input);

/* "threads=16,32,input=large" or "16,32,large": the thread counts (at most max) and the input
 * (label or size; "" when none). SCAL_EINVAL with the message. */
int scal_model_parse_target(const char *arg, int32_t *threads, size_t max, size_t *nthreads,
                            char *input, size_t inputlen);

/* A target input, given as a label or a size: *input is its index (SIZE_MAX for a size no input
 * has) and *n its size (NaN when unknown). SCAL_EINVAL with the message when it names nothing. */
int scal_model_target_input(const char *const *inputs, const double *sizes, size_t ninputs,
                            const char *spec, size_t *input, double *n);

/* What a region's model says at a target configuration (threads p, an input index and/or size n):
 * the prediction, its interval, the efficiency against the model's own baseline, the predicted
 * lost core-seconds (p T(p) - p0 T(p0)), and findings as sentences. With unit "s" it is a time
 * (speedup, efficiency, lost time, where it stops scaling); else another quantity such as energy
 * (the prediction and its interval only). */
struct scal_model_reading {
    bool ok; /* a reliable prediction */
    double pred, lo, hi, speedup, efficiency, lost;
    char why[200]; /* when not ok */
    size_t nlines;
    char line[6][256];
};
void scal_model_read(const struct scal_region_model *rm, size_t input, double n, double p,
                     const char *unit, struct scal_model_reading *out);

/* The reading of a frequency model in sentences (the model; for a time, the share of T(fmax, p)
 * that scales with the clock), into out->line. */
void scal_model_read_freq(const struct scal_model *m, const char *input, double fmax, double p,
                          const char *unit, struct scal_model_reading *out);

#endif
