/* SPDX-License-Identifier: BSD-3-Clause */
/* "Did you mean ...?": the known word closest to a mistyped one. */
#ifndef SCAL_SUGGEST_H
#define SCAL_SUGGEST_H

#include <stddef.h>

/* The candidate closest to word by edit distance (insertions, deletions, substitutions and swaps
 * of neighbours), or NULL when none is close enough to be what was meant (at most a third of the
 * word's length, at least 1). candidates is NULL-terminated. */
const char *scal_suggest(const char *word, const char *const *candidates);

struct option;
/* The same over getopt_long's option table: the closest "--name" (returned in buf), or NULL. */
const char *scal_suggest_option(const char *word, const struct option *longopts, char *buf,
                                size_t len);

#endif
