/* SPDX-License-Identifier: BSD-3-Clause */
/* The invariants of run and campaign files (the layout the schema describes, string indices, the
 * region tree, references between tables, one run per (configuration, repetition)), in one place:
 * scal check lists every violation, and every reader (show, report, export, merge, run --resume,
 * the Python package through scal check --json) refuses a file that violates one, so that they
 * accept exactly what check accepts. */
#ifndef SCAL_VALIDATE_H
#define SCAL_VALIDATE_H

#include <stddef.h>

#include "safe_open.h"

/* Checks f's layout against its schema (validate_layout.h), then, when that holds, its content.
 * Each problem is handed to cb as one line without the file name; returns how many
 * there were. */
size_t scal_validate(const struct scal_h5file *f, void (*cb)(void *arg, const char *problem),
                     void *arg);
/* SCAL_OK, or SCAL_EFORMAT whose message names the file, the first problem and how many more
 * there are (run scal check for the list). */
int scal_validate_file(const struct scal_h5file *f);

#endif
