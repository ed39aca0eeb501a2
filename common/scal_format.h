/* SPDX-License-Identifier: BSD-3-Clause */
/* The run-file and campaign-file formats in one place: tables read and written by their descriptor
 * (layout.h), the root attributes, the /campaign group with its `threads` dataset, and a new
 * campaign file with every table. The layout itself: schemas/ (kept in step by tests/layout). */
#ifndef SCAL_FORMAT_H
#define SCAL_FORMAT_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "layout.h"

/* Table d of loc into malloc'd rows of d's row type (members matched by name; sizes bounded by
 * the file's). A missing table is an SCAL_EFORMAT error naming the file and the table. */
int scal_table_read(hid_t loc, const struct scal_table_desc *d, void **rows, size_t *n);
/* The same for an optional table: absent is 0 rows. */
int scal_table_read_opt(hid_t loc, const struct scal_table_desc *d, void **rows, size_t *n);
/* A run file's optional table run_table read straight into rows of campaign_table, whose row is
 * the run file's row with the run id in front (left 0 here). */
int scal_table_read_run_rows(hid_t loc, const struct scal_table_desc *run_table,
                             const struct scal_table_desc *campaign_table, void **rows, size_t *n);
/* Creates table d (chunked, extendible) with n rows (n may be 0). */
int scal_table_write(hid_t loc, const struct scal_table_desc *d, const void *rows, size_t n);
/* Appends n rows to table d (created when missing). */
int scal_table_append(hid_t loc, const struct scal_table_desc *d, const void *rows, size_t n);

/* The root attributes every scal file carries: format, schema version, the writer's version. */
int scal_format_write_root(hid_t file, const char *format, const char *tool_version);
/* The 1-D int32 dataset `threads` under group (the thread counts of a campaign or analysis). */
int scal_format_write_threads(hid_t group, const int32_t *threads, size_t n);

/* What /campaign says about the whole campaign. */
struct scal_campaign_info {
    const char *tool_version;                                        /* NULL: this scal's version */
    const char *program, *command, *host, *cpu_model, *order, *note; /* note NULL: none */
    int64_t repetitions, seed;
    const char *const *inputs; /* labels in order */
    size_t ninputs;
    const int32_t *threads;
    size_t nthreads;
    const char *omp_runtime; /* NULL: not written */
    const char
        *program_identity; /* the binary's build id and size (--resume checks it); NULL: none */
    const char *const *runner_argv; /* scal run's arguments as given (for --resume); NULL: none */
    size_t nrunner_argv;
    /* ninputs numeric sizes of the inputs (scal run --size; NaN: none), written as
     * /campaign@input_sizes when one is known; NULL: none */
    const double *input_sizes;
};
/* /campaign@input_sizes of an open campaign: *sizes (malloc'ed) has one value per /campaign/inputs
 * label, NaN where none was given; NULL and 0 when the campaign has none. */
int scal_format_read_input_sizes(hid_t file, double **sizes, size_t *n);
/* A run file's thread count, the one rule for every reader: /meta@requested_threads when positive,
 * else @max_team_observed; *observed is @max_team_observed. Either is -1 when the file does not
 * say (no /meta or no attribute). */
void scal_format_run_threads(hid_t file, int32_t *threads, int32_t *observed);

/* The rows a new campaign file starts with (NULL and 0 for an empty table). */
struct scal_campaign_rows {
    const struct scal_config_row *configs;
    size_t nconfigs;
    const struct scal_run_row *runs;
    size_t nruns;
    const struct scal_region_id_row *regions;
    size_t nregions;
    const struct scal_region_stat_row *stats;
    size_t nstats;
    const char *const *strings; /* /strings; string 0 is "" */
    size_t nstrings;
};

/* Creates path, which must not exist (H5F_ACC_EXCL), as a campaign file: root attributes,
 * /campaign, /strings and the tables every campaign has. *out is the open file (caller closes);
 * nothing is flushed. */
int scal_campaign_file_create(const char *path, const struct scal_campaign_info *info,
                              const struct scal_campaign_rows *rows, hid_t *out);

#endif
