/* SPDX-License-Identifier: BSD-3-Clause */
/* The one rule for what makes two regions "the same region" (within a run, across the runs of a
 * campaign, across campaigns and builds) and the one rule for how a region is named to people.
 * The tool's writer, the campaign writer (scal run, merge, import), the report's loader and
 * scal show all call these; nothing else may derive identities or labels.
 *
 * Identity: a region is its kind and its place in the source, prefixed by its parent's identity:
 *   parallel  "P:<file base name>:<first line>:<function>" when the source line is known: the
 *             pragma's file, line and function identify it, whatever the build flags, addresses,
 *             build directory or module path. The last line is left out on purpose: it is
 *             derived from the line table and moves with inlining, while the pragma does not.
 *             "P:<module base name>+<offset>" when no source line is known (no debug info): the
 *             module only breaks the tie where lines are unknown.
 *   task      "T:..." like parallel, for the explicit task construct (its task_create call site).
 *   user      "U:<name>";   root "R";
 *   serial    "S:<previous sibling's identity>><next sibling's identity>" ("start"/"end" at the
 *             ends): a gap is the code between two neighbours, so both name it.
 *
 * Label: "whole program"; "<file base name>:<first>-<last> (<function>)" for parallel regions
 * with lines (the stored name, else "<module base name>+0x<offset>", without); the same prefixed by
 * "task " for a task construct; the name of a user
 * region; "serial: <previous label> -> <next label>" for a gap. */
#ifndef SCAL_REGION_IDENTITY_H
#define SCAL_REGION_IDENTITY_H

#include <stddef.h>

#include "layout.h"

/* Fills ids[i] (malloc'd strings; free with scal_region_identities_free) for n rows of /regions
 * (identity members only are used). strings/nstrings is the file's /strings. Rows must be in id
 * order with parents and gap neighbours before the rows that name them (as scal writes them).
 * Returns 0 or SCAL_EFORMAT naming the first inconsistent row, or SCAL_ENOMEM. */
int scal_region_identities(const struct scal_region_id_row *rows, size_t n, char *const *strings,
                           size_t nstrings, char ***ids);
void scal_region_identities_free(char **ids, size_t n);

/* Fills labels[i] (malloc'd; free with scal_region_identities_free) for the same rows, with the
 * same validation as scal_region_identities. */
int scal_region_labels(const struct scal_region_id_row *rows, size_t n, char *const *strings,
                       size_t nstrings, char ***labels);

/* The identity members of n run-file /regions rows, as campaign-style rows (malloc'd; NULL when out
 * of memory). */
struct scal_region_id_row *scal_region_id_rows(const struct scal_region_row *rows, size_t n);

#endif
