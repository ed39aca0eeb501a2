/* SPDX-License-Identifier: BSD-3-Clause */
/* Small HDF5 helpers shared by the tool, the runner and the post-processor: attributes, string
 * tables and chunked compound tables described once by a field list (so writer and reader agree).
 */
#ifndef SCAL_H5UTIL_H
#define SCAL_H5UTIL_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "table_field.h"

/* Turns off HDF5's automatic error stack printing: errors are reported as scal status codes with
 * a message naming the object (see errmsg.h). Safe to call repeatedly. */
void scal_h5_quiet(void);

int scal_h5_attr_set_str(hid_t obj, const char *name, const char *value);
int scal_h5_attr_set_i64(hid_t obj, const char *name, int64_t value);
int scal_h5_attr_set_f64(hid_t obj, const char *name, double value);
/* A 1-D float64 attribute of n values (n >= 1). */
int scal_h5_attr_set_f64_n(hid_t obj, const char *name, const double *values, size_t n);
/* Reads a float64 attribute (scalar or 1-D) into *out (malloc'ed, *n values). */
int scal_h5_attr_get_f64_n(hid_t obj, const char *name, double **out, size_t *n);
/* *out is malloc'd; the caller frees it. Fixed- and variable-length strings are accepted. */
int scal_h5_attr_get_str(hid_t obj, const char *name, char **out);
int scal_h5_attr_get_i64(hid_t obj, const char *name, int64_t *out);
int scal_h5_attr_exists(hid_t obj, const char *name);

/* A 1-D dataset of variable-length UTF-8 strings (h5py reads it as an array of str/bytes). */
int scal_h5_write_strings(hid_t loc, const char *name, const char *const *strings, size_t n);
/* The same for a dataset that is never appended to (a run file's): a small one is stored compact.
 * Readers see the same strings; only scal_h5_append_strings cannot grow it. */
int scal_h5_write_strings_fixed(hid_t loc, const char *name, const char *const *strings, size_t n);
/* *out is an array of n malloc'd strings; free with scal_h5_free_strings. */
int scal_h5_read_strings(hid_t loc, const char *name, char ***out, size_t *n);
void scal_h5_free_strings(char **strings, size_t n);
/* Appends n strings to a string dataset made by scal_h5_write_strings (created when missing). */
int scal_h5_append_strings(hid_t loc, const char *name, const char *const *strings, size_t n);

/* The HDF5 memory type for the fields of table `table` (caller closes it); regions.kind and
 * runs.status are enums when writing (ftype < 0) or when ftype, the file's type, has them as
 * enums. */
hid_t scal_h5_compound_type(const char *table, const struct scal_h5_field *fields, size_t nfields,
                            size_t struct_size, hid_t ftype);

/* Creates a chunked, extendible 1-D table (shuffle + deflate) and writes nrows rows (may be 0). */
int scal_h5_write_table(hid_t loc, const char *name, const struct scal_h5_field *fields,
                        size_t nfields, size_t struct_size, const void *rows, size_t nrows);
/* The same for a table that is never appended to (a run file's): a small one is stored compact. */
int scal_h5_write_table_fixed(hid_t loc, const char *name, const struct scal_h5_field *fields,
                              size_t nfields, size_t struct_size, const void *rows, size_t nrows);
/* Appends rows to a table made by scal_h5_write_table (creates it when it does not exist). */
int scal_h5_append_table(hid_t loc, const char *name, const struct scal_h5_field *fields,
                         size_t nfields, size_t struct_size, const void *rows, size_t nrows);
/* A table kept open for appends (a campaign's tables while its committer adds runs): its dataset
 * and the rows' memory type are made once, and the chunks HDF5 caches for it stay decompressed
 * between appends. */
struct scal_h5_appender {
    hid_t dset, mtype;
    const char *name;
};
/* Opens table name of loc (created empty, as scal_h5_write_table makes it, when missing). */
int scal_h5_appender_open(hid_t loc, const char *name, const struct scal_h5_field *fields,
                          size_t nfields, size_t struct_size, struct scal_h5_appender *a);
int scal_h5_appender_add(struct scal_h5_appender *a, const void *rows, size_t nrows);
void scal_h5_appender_close(struct scal_h5_appender *a);
/* Reads a table into malloc'd rows of the caller's struct. Members are matched by name, so a
 * file may carry more members than the reader asks for; a member the reader needs that the file
 * lacks is an SCAL_EFORMAT error naming the file, the table and the member. */
int scal_h5_read_table(hid_t loc, const char *name, const struct scal_h5_field *fields,
                       size_t nfields, size_t struct_size, void **rows, size_t *nrows);
/* scal_h5_read_table's conversion without a file: n rows recorded with the member list `from` (a
 * run snapshot's table, run_snapshot.h) into malloc'ed rows of the caller's struct, members
 * matched by name and converted by HDF5 as a read of the written table would; source names the
 * rows' origin in messages. */
int scal_h5_convert_rows(const char *source, const char *name, const struct scal_h5_field *from,
                         size_t nfrom, size_t from_size, const void *from_rows, size_t n,
                         const struct scal_h5_field *fields, size_t nfields, size_t struct_size,
                         void **rows);
/* Number of rows of a 1-D table, or a negative status. */
int64_t scal_h5_table_rows(hid_t loc, const char *name);

/* SCAL_EFORMAT (naming the file and the object) when n elements of size bytes are more than the
 * file holding obj can store even compressed: a damaged extent would make a reader allocate
 * gigabytes. Every reader here checks it before allocating. */
int scal_h5_check_size(hid_t obj, uint64_t n, size_t size, const char *name);

/* 1 if a link of that name exists under loc, 0 if not. */
int scal_h5_exists(hid_t loc, const char *name);

#endif
