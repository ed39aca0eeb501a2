/* SPDX-License-Identifier: BSD-3-Clause */
/* The exports of `scal export`: each writes one format from a tidy table (tidy.h) or, for the
 * trace, from a run file. Every writer returns 0 or a negative status with a scal__fail message. */
#ifndef SCAL_CLI_EXPORT_H
#define SCAL_CLI_EXPORT_H

#include <stdio.h>

#include "tidy.h"

/* A numeric size for an input label (--size LABEL=N), for Extra-P's parameter. */
struct export_size {
    char label[256];
    double size;
};

struct export_opts {
    const struct export_size *sizes;
    size_t nsizes;
    bool all_runs; /* include runs that did not succeed (default: status ok only) */
    bool quiet;    /* -q: no notes on standard error (what was left out), only errors */
};

/* The tidy table, one row per (run, region), values at full precision, empty cells when missing. */
int export_csv(const struct tidy *t, const struct export_opts *o, FILE *out);
/* Extra-P JSON Lines: one measurement a line (params threads and input size, call path, metric):
 * time, work, barrier wait, lock wait and every sensor metric. */
int export_extrap(const struct tidy *t, const struct export_opts *o, FILE *out);
/* Hatchet's literal format: the region tree with metrics, one tree per (threads, input) of a
 * campaign (median over its successful repetitions), one for a run file. */
int export_hatchet(const struct tidy *t, const struct export_opts *o, FILE *out);
/* Thicket: {"format": "scal-thicket-1", "profiles": [{"metadata": {run, threads, team, input,
 * input_size, repetition, status, frequency_khz[, ranks]}, "graph": [Hatchet literal root]}]},
 * one profile per run (its own values, not medians). */
int export_thicket(const struct tidy *t, const struct export_opts *o, FILE *out);
/* Chrome/Perfetto trace events of a run file recorded with SCAL_TRACE: a lane per thread, each
 * region instance as a span on the lane of every member of its team, thread states (work, barrier
 * wait, lock wait, task) as spans inside it. */
int export_chrome(const struct tidy *t, FILE *out);

#endif
