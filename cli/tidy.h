/* SPDX-License-Identifier: BSD-3-Clause */
/* A run or campaign file as one tidy table: a row per (run, region) with the run's configuration,
 * the region's identity and label (region_identity.h) and its statistics, plus whole-region sensor
 * values. The same table as the Python package's scal.load(); the exports are written from it. */
#ifndef SCAL_CLI_TIDY_H
#define SCAL_CLI_TIDY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "layout.h"
#include "safe_open.h"

struct tidy_run {
    uint32_t id, repetition;
    const char *input;     /* label */
    uint32_t input_index;  /* order of the input in the plan */
    int32_t threads, team; /* requested; observed (-1: unknown) */
    int64_t frequency_khz; /* -1: not set */
    uint8_t status;        /* enum scal_run_status */
};

struct tidy_metric {
    uint32_t name, unit; /* string indices */
};

struct tidy {
    struct scal_h5file f;
    struct scal_region_id_row *regions;
    char **labels;   /* the one label rule */
    char **callpath; /* labels from the root, joined by "->" */
    size_t nregions;
    struct tidy_run *runs;
    size_t nruns;
    char **inputs; /* input labels in plan order */
    size_t ninputs;
    double *input_sizes; /* their numeric sizes (scal run --size; NaN: none), or NULL */
    size_t ninput_sizes;
    struct scal_region_stat_row *stats; /* (run, region) rows */
    size_t nstats;
    struct tidy_metric *metrics;
    size_t nmetrics;
    double *values; /* nstats * nmetrics, NaN: none */
};

/* Reads path (a run file is one run: id 0, input "run") through the safe open. */
int tidy_load(const char *path, struct tidy *t);
void tidy_free(struct tidy *t);
/* The run of a stats row, NULL when the row names no run of the file. */
const struct tidy_run *tidy_run_of(const struct tidy *t, uint32_t run);

#endif
