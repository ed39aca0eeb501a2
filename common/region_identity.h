/* SPDX-License-Identifier: BSD-3-Clause */
/* The identity of a region across runs: the same region in two run files (or two campaigns) gets
 * the same identity string, whatever its row id. Used to unify regions in campaign files.
 *
 * A region's identity is its kind and location, prefixed by its parent's identity:
 *   parallel  "P:<module basename>:<file>:<line_first>:<function>" when source lines are known,
 *             "P:<module basename>+<offset>" otherwise;
 *   user      "U:<name>";  serial  "S:<previous sibling's identity>><next sibling's identity>";
 *   root      "R".
 * Module paths are reduced to their base name so a program rebuilt in another directory or run
 * from another working directory keeps its identities. */
#ifndef SCAL_REGION_IDENTITY_H
#define SCAL_REGION_IDENTITY_H

#include <stddef.h>

#include "layout.h"

/* Fills ids[i] (malloc'd strings; free with scal_region_identities_free) for n rows of /regions
 * (identity members only are used). strings/nstrings is the file's /strings. Rows must be in id
 * order with parents before children (as scal writes them). Returns 0 or a negative status naming
 * the first inconsistent row. */
int scal_region_identities(const struct scal_region_id_row *rows, size_t n, char *const *strings,
                           size_t nstrings, char ***ids);
void scal_region_identities_free(char **ids, size_t n);

#endif
