// SPDX-License-Identifier: BSD-3-Clause
// bytes.h: the buffer grows by doubling; the cursor checks every length against what is left.
#include <stdlib.h>
#include <string.h>

#include "bytes.h"

void scal_bytes_put(struct scal_bytes *b, const void *data, size_t n)
{
    if (b->failed) return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 1024;
        while (cap < b->len + n)
            cap *= 2;
        unsigned char *p = realloc(b->p, cap);
        if (!p) {
            b->failed = true;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    if (n) memcpy(b->p + b->len, data, n);
    b->len += n;
}

void scal_bytes_u64(struct scal_bytes *b, uint64_t v)
{
    scal_bytes_put(b, &v, sizeof(v));
}

void scal_bytes_u32(struct scal_bytes *b, uint32_t v)
{
    scal_bytes_put(b, &v, sizeof(v));
}

void scal_bytes_str(struct scal_bytes *b, const char *s)
{
    uint32_t n = (uint32_t)strnlen(s, 8192);
    scal_bytes_u32(b, n);
    scal_bytes_put(b, s, n);
}

void scal_cursor_get(struct scal_cursor *c, void *out, size_t n)
{
    if (c->bad || (size_t)(c->end - c->p) < n) {
        c->bad = true;
        memset(out, 0, n);
        return;
    }
    memcpy(out, c->p, n);
    c->p += n;
}

uint64_t scal_cursor_u64(struct scal_cursor *c)
{
    uint64_t v;
    scal_cursor_get(c, &v, sizeof(v));
    return v;
}

uint32_t scal_cursor_u32(struct scal_cursor *c)
{
    uint32_t v;
    scal_cursor_get(c, &v, sizeof(v));
    return v;
}

void scal_cursor_str(struct scal_cursor *c, char *out, size_t len)
{
    uint32_t n = scal_cursor_u32(c);
    if (c->bad || n >= len || (size_t)(c->end - c->p) < n) {
        c->bad = true;
        out[0] = '\0';
        return;
    }
    memcpy(out, c->p, n);
    out[n] = '\0';
    c->p += n;
}

char *scal_cursor_strdup(struct scal_cursor *c)
{
    uint32_t n = scal_cursor_u32(c);
    char *s = !c->bad && (size_t)(c->end - c->p) >= n ? malloc((size_t)n + 1) : NULL;
    if (!s) {
        c->bad = true;
        return NULL;
    }
    memcpy(s, c->p, n);
    s[n] = '\0';
    c->p += n;
    return s;
}
