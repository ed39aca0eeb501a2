/* SPDX-License-Identifier: BSD-3-Clause */
/* The machine-readable schemas (schemas/<format>-<version>.json) as scal check and every reader
 * (validate.h) use them. */
#ifndef SCAL_SCHEMA_H
#define SCAL_SCHEMA_H

#include <jansson.h>
#include <stdint.h>

/* Loads the schema of a format and version from $SCAL_SCHEMA_DIR, the source tree, or the install
 * tree (../share/scal/schemas next to the executable). Returns NULL with a message in err. */
json_t *schema_load(const char *format, int64_t version, char *err, size_t errlen);
/* The directory schemas are read from (for messages), after a successful schema_load. */
const char *schema_dir(void);

#endif
