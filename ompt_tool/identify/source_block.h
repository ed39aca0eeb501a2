/* SPDX-License-Identifier: BSD-3-Clause */
/* The last line of an OpenMP construct's structured block, from the source (source_block.c). */
#ifndef SCAL_SOURCE_BLOCK_H
#define SCAL_SOURCE_BLOCK_H

#include <stdbool.h>
#include <stddef.h>

/* The last line of the statement that the `#pragma omp` directive on line `pragma_line` (1-based)
 * of `text` applies to; -1 when that line holds no such directive or the statement does not end. */
int scal_source_block_last(const char *text, size_t size, int pragma_line);
/* The same for a file (-1 when it cannot be read). */
int scal_source_block_last_in_file(const char *path, int pragma_line);

#endif
