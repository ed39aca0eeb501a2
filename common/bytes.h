/* SPDX-License-Identifier: BSD-3-Clause */
/* Little records of bytes in the machine's own order, for files and messages that never leave
 * the machine (the identity cache's records, the resolver's requests and answers): a growing
 * buffer to put numbers and strings in, and a cursor that takes them out, bounds checked. */
#ifndef SCAL_BYTES_H
#define SCAL_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A growing buffer ({0} is an empty one); failed once memory ran out (later puts do nothing). */
struct scal_bytes {
    unsigned char *p;
    size_t len, cap;
    bool failed;
};

void scal_bytes_put(struct scal_bytes *b, const void *data, size_t n);
void scal_bytes_u32(struct scal_bytes *b, uint32_t v);
void scal_bytes_u64(struct scal_bytes *b, uint64_t v);
/* A string as its length (u32) and its bytes, at most 8192 of them. */
void scal_bytes_str(struct scal_bytes *b, const char *s);

/* A reader over [p, end): every get fails (bad, zeros, "") once one ran past the end. */
struct scal_cursor {
    const unsigned char *p, *end;
    bool bad;
};

void scal_cursor_get(struct scal_cursor *c, void *out, size_t n);
uint32_t scal_cursor_u32(struct scal_cursor *c);
uint64_t scal_cursor_u64(struct scal_cursor *c);
/* A string put by scal_bytes_str into out (len bytes): bad when it does not fit. */
void scal_cursor_str(struct scal_cursor *c, char *out, size_t len);
/* The same, copied into memory of its own (free it; NULL when bad or out of memory). */
char *scal_cursor_strdup(struct scal_cursor *c);

#endif
