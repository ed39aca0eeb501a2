/* SPDX-License-Identifier: BSD-3-Clause */
/* Text tables for the CLI: rows of string cells printed aligned for people or as CSV for scripts.
 */
#ifndef SCAL_CLI_TABLE_OUT_H
#define SCAL_CLI_TABLE_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct table_out {
    size_t ncols, nrows, cap;
    char **cells; /* nrows * ncols, row 0 is the header */
    bool *right;  /* right-align column (numbers) */
};

int table_init(struct table_out *t, size_t ncols, const char *const *header, const bool *right);
/* Adds a row; each cell is printf-formatted from a "fmt\0" list given as separate strings. */
int table_add_row(struct table_out *t, const char *const *cells);
enum table_format { TABLE_TEXT = 0, TABLE_CSV = 1, TABLE_JSON = 2 };
/* TEXT: aligned with a rule under the header; CSV: a header row; JSON: an array of objects keyed
 * by the header, right-aligned (number) columns as numbers and their empty cells as null. */
void table_print(const struct table_out *t, FILE *out, enum table_format format);
void table_free(struct table_out *t);
/* One CSV field: quoted (with doubled quotes) when it holds a comma, quote or line break. */
void table_csv_field(FILE *out, const char *s);

#endif
