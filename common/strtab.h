/* SPDX-License-Identifier: BSD-3-Clause */
/* A de-duplicating string table: strings are stored once and referred to by index (index 0 is ""),
 * the way scal's HDF5 tables refer to /strings. Not thread-safe; used at flush and by tools. */
#ifndef SCAL_STRTAB_H
#define SCAL_STRTAB_H

#include <stddef.h>
#include <stdint.h>

struct scal_strtab {
    char **strings;
    size_t count, cap;
    uint32_t *slots; /* open addressing: index + 1, 0 = empty */
    size_t nslots;
};

int scal_strtab_init(struct scal_strtab *t);
void scal_strtab_free(struct scal_strtab *t);
/* Index of s (added when new); s NULL is "". Returns a negative status on allocation failure. */
int64_t scal_strtab_add(struct scal_strtab *t, const char *s);
/* A table holding the n strings at their own indices (a file's /strings, to add to): SCAL_EFORMAT
 * naming `what` when string 0 is not "" or a string repeats an earlier one. */
int scal_strtab_from(struct scal_strtab *t, const char *const *strings, size_t n, const char *what);
/* Index of s, or -1 when absent. */
int64_t scal_strtab_find(const struct scal_strtab *t, const char *s);

#endif
