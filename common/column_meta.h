/* SPDX-License-Identifier: BSD-3-Clause */
/* Units and descriptions of the members of scal's tables (attributes column_units and
 * column_descriptions of every table dataset; schemas/README.md). */
#ifndef SCAL_COLUMN_META_H
#define SCAL_COLUMN_META_H

#define SCAL_ATTR_COLUMN_UNITS "column_units"
#define SCAL_ATTR_COLUMN_DESCRIPTIONS "column_descriptions"

/* Sets *units and *description of `member` in the table named `table` (its dataset path or
 * name); returns 1 when known, 0 (and two empty strings) otherwise. */
int scal_column_meta(const char *table, const char *member, const char **units,
                     const char **description);

/* 1 when `member` of `table` is stored as an HDF5 enum over u8 (regions.kind, runs.status), with
 * *name_of giving the name of values 0..*n-1; 0 otherwise. */
int scal_column_enum(const char *table, const char *member, const char *(**name_of)(int), int *n);

/* 1 when `member` of `table` was appended after files were written without it: readers accept
 * its absence (an f64 member then reads as NaN). */
int scal_column_added_later(const char *table, const char *member);

#endif
