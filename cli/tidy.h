/* SPDX-License-Identifier: BSD-3-Clause */
/* A run or campaign file as one tidy table: a row per (run, region) with the run's configuration,
 * the region's identity and label (region_identity.h) and its statistics, plus whole-region sensor
 * values. The same table as the Python package's scal.load(); the exports are written from it.
 * The file is read by the one reader (common/campaign_reader.h); this is a view of what it read. */
#ifndef SCAL_CLI_TIDY_H
#define SCAL_CLI_TIDY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "campaign_reader.h"

struct tidy_metric {
    uint32_t name, unit; /* string indices */
};

struct tidy {
    struct scal_read r; /* the file as read: f, regions, labels, runs, inputs, stats, stat_rank */
    char **callpath;    /* labels from the root, joined by "->" */
    struct tidy_metric *metrics;
    size_t nmetrics;
    double *values;         /* r.nstats * nmetrics, NaN: none */
    double *rank_imbalance; /* per stats row: /region_rank_summary's, NaN: none */
};

/* Reads path (a run file is one run: id 0, input "run") through the one reader; flags
 * (enum scal_read_flags) SCAL_READ_TRACE for the trace tables too. */
int tidy_load(const char *path, unsigned flags, struct tidy *t);
void tidy_free(struct tidy *t);
/* The run of a stats row, NULL when the row names no run of the file. */
const struct scal_read_run *tidy_run_of(const struct tidy *t, uint32_t run);

#endif
