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
 * region; "serial: <previous label> -> <next label>" for a gap.
 *
 * Labels are data: the writers of run files (the snapshot's replay, run_snapshot_h5.c) and of
 * campaigns (scal_campaign_file_create, the campaign writer) derive them once with this rule and
 * store them in the /regions member `label`; readers take the stored label, and derive it only for
 * files written before the member existed (label 0 there). */
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
 * same validation as scal_region_identities: the stored label (member `label`, an index into
 * strings) of every row that has one, the rule's for the others (files written before labels were
 * stored; a gap's label then names its neighbours' stored labels). */
int scal_region_labels(const struct scal_region_id_row *rows, size_t n, char *const *strings,
                       size_t nstrings, char ***labels);

/* The same by the rule alone, whatever the rows store: what a writer stores, and what tests
 * compare stored labels with. */
int scal_region_labels_by_rule(const struct scal_region_id_row *rows, size_t n,
                               char *const *strings, size_t nstrings, char ***labels);

/* Stores labels: sets the member `label` of every row that has none (0) to the index of its label
 * (scal_region_labels) in strings, a table whose indices are the file's /strings indices (new
 * labels are added to it: the caller writes them). Returns 0, or the errors of
 * scal_region_labels. */
struct scal_strtab;
int scal_region_labels_store(struct scal_region_id_row *rows, size_t n,
                             struct scal_strtab *strings);

/* The identity members of n run-file /regions rows, as campaign-style rows (malloc'd; NULL when out
 * of memory). */
struct scal_region_id_row *scal_region_id_rows(const struct scal_region_row *rows, size_t n);

#endif
