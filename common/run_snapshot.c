// SPDX-License-Identifier: BSD-3-Clause
// The run snapshot's format (see run_snapshot.h): a fixed header (magic, version, header size,
// byte-order mark, body length and CRC-32, pid, tool start, flags), then the body: the run file's
// final path and one record per operation. Strings are a u32 length (with their NUL) and bytes;
// table rows start 8-byte aligned in the body so that they can be handed to HDF5 in place.
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crc32.h"
#include "errmsg.h"
#include "run_snapshot.h"
#include "scal/status.h"

static const char magic[8] = {'S', 'C', 'A', 'L', 'S', 'N', 'A', 'P'};
#define BYTE_ORDER_MARK 0x01020304u

struct header {
    char magic[8];
    uint32_t version, header_size;
    uint64_t body_len;
    uint32_t crc, byte_order;
    int64_t pid;
    double tool_start_unix;
    uint32_t flags, reserved;
};

/* ---- recording --------------------------------------------------------------------------- */

void scal_snap_builder_init(struct scal_snap_builder *b)
{
    memset(b, 0, sizeof(*b));
}

void scal_snap_builder_free(struct scal_snap_builder *b)
{
    free(b->buf);
    memset(b, 0, sizeof(*b));
}

static int put(struct scal_snap_builder *b, const void *p, size_t n)
{
    if (b->err) return b->err;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 65536;
        while (cap < b->len + n)
            cap *= 2;
        unsigned char *grown = realloc(b->buf, cap);
        if (!grown)
            return b->err = scal__fail(SCAL_ENOMEM, "out of memory recording the run (%zu bytes)",
                                       b->len + n);
        b->buf = grown;
        b->cap = cap;
    }
    if (n) memcpy(b->buf + b->len, p, n);
    b->len += n;
    return SCAL_OK;
}

static int put_u8(struct scal_snap_builder *b, uint8_t v)
{
    return put(b, &v, sizeof(v));
}

static int put_u32(struct scal_snap_builder *b, uint32_t v)
{
    return put(b, &v, sizeof(v));
}

static int put_u64(struct scal_snap_builder *b, uint64_t v)
{
    return put(b, &v, sizeof(v));
}

static int put_str(struct scal_snap_builder *b, const char *s)
{
    if (!s) s = "";
    size_t n = strlen(s) + 1;
    if (n > UINT32_MAX) return b->err = scal__fail(SCAL_ERANGE, "a string of %zu bytes", n);
    put_u32(b, (uint32_t)n);
    return put(b, s, n);
}

static int align8(struct scal_snap_builder *b)
{
    static const unsigned char zeros[8] = {0};
    return put(b, zeros, (8 - b->len % 8) % 8);
}

static int head(struct scal_snap_builder *b, enum scal_snap_op_code code, const char *obj,
                const char *name)
{
    put_u8(b, (uint8_t)code);
    put_str(b, obj);
    return put_str(b, name);
}

int scal_snap_group(struct scal_snap_builder *b, const char *path)
{
    return head(b, SCAL_SNAP_OP_GROUP, path, "");
}

int scal_snap_attr_str(struct scal_snap_builder *b, const char *obj, const char *name,
                       const char *value)
{
    head(b, SCAL_SNAP_OP_ATTR_STR, obj, name);
    return put_str(b, value);
}

int scal_snap_attr_i64(struct scal_snap_builder *b, const char *obj, const char *name,
                       int64_t value)
{
    head(b, SCAL_SNAP_OP_ATTR_I64, obj, name);
    return put(b, &value, sizeof(value));
}

int scal_snap_attr_f64(struct scal_snap_builder *b, const char *obj, const char *name, double value)
{
    head(b, SCAL_SNAP_OP_ATTR_F64, obj, name);
    return put(b, &value, sizeof(value));
}

int scal_snap_strings(struct scal_snap_builder *b, const char *obj, const char *name,
                      const char *const *strings, size_t n)
{
    head(b, SCAL_SNAP_OP_STRINGS, obj, name);
    put_u64(b, n);
    for (size_t i = 0; i < n; i++)
        put_str(b, strings[i]);
    return b->err;
}

int scal_snap_table(struct scal_snap_builder *b, const char *obj, const char *name,
                    const struct scal_h5_field *fields, size_t nfields, size_t row_size,
                    const void *rows, size_t nrows)
{
    if (nfields > SCAL_SNAP_MAX_FIELDS && !b->err)
        b->err = scal__fail(SCAL_ERANGE, "table %s/%s has %zu members (at most %d)", obj, name,
                            nfields, SCAL_SNAP_MAX_FIELDS);
    head(b, SCAL_SNAP_OP_TABLE, obj, name);
    put_u32(b, (uint32_t)nfields);
    for (size_t i = 0; i < nfields; i++) {
        put_str(b, fields[i].name);
        put_u8(b, (uint8_t)fields[i].type);
        put_u64(b, fields[i].offset);
    }
    put_u64(b, row_size);
    put_u64(b, nrows);
    align8(b);
    return put(b, rows, row_size * nrows);
}

static int write_all(int fd, const void *p, size_t n, const char *path)
{
    const unsigned char *c = p;
    while (n) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0)
            return scal__fail(SCAL_EIO, "cannot write the run snapshot '%s': %s", path,
                              strerror(w < 0 ? errno : ENOSPC));
        c += w;
        n -= (size_t)w;
    }
    return SCAL_OK;
}

int scal_snap_write(const struct scal_snap_builder *b, const struct scal_snap_info *info, int fd,
                    const char *path)
{
    if (b->err) return b->err;
    /* the final path first: the body is self-contained */
    struct scal_snap_builder pre;
    scal_snap_builder_init(&pre);
    put_str(&pre, info->final_path);
    align8(&pre);
    if (pre.err) return pre.err;
    struct header h = {.version = SCAL_SNAP_VERSION,
                       .header_size = sizeof(h),
                       .body_len = pre.len + b->len,
                       .byte_order = BYTE_ORDER_MARK,
                       .pid = info->pid,
                       .tool_start_unix = info->tool_start_unix,
                       .flags = info->flags};
    memcpy(h.magic, magic, sizeof(magic));
    h.crc = scal_crc32(scal_crc32(0, pre.buf, pre.len), b->buf, b->len);
    int rc = write_all(fd, &h, sizeof(h), path);
    if (rc == SCAL_OK) rc = write_all(fd, pre.buf, pre.len, path);
    if (rc == SCAL_OK) rc = write_all(fd, b->buf, b->len, path);
    scal_snap_builder_free(&pre);
    return rc;
}

/* ---- reading ----------------------------------------------------------------------------- */

void scal_snap_release(struct scal_snap *s)
{
    free(s->body);
    free(s->strings);
    s->body = NULL;
    s->strings = NULL;
    s->len = s->strings_cap = 0;
}

int scal_snap_read_fd(int fd, const char *name, unsigned char **bytes, size_t *len)
{
    struct stat st;
    int rc = SCAL_OK;
    *bytes = NULL;
    *len = 0;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return scal__fail(SCAL_EFORMAT, "'%s' is not a regular file (a run snapshot is)", name);
    size_t size = (size_t)st.st_size;
    if (!(*bytes = malloc(size ? size : 1)))
        return scal__fail(SCAL_ENOMEM, "out of memory reading the run snapshot '%s'", name);
    for (size_t off = 0; off < size;) {
        ssize_t n = pread(fd, *bytes + off, size - off, (off_t)off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) { /* shorter than fstat said: what was read is checked as it is */
            if (n < 0)
                rc = scal__fail(SCAL_EIO, "cannot read the run snapshot '%s': %s", name,
                                strerror(errno));
            size = off;
            break;
        }
        off += (size_t)n;
    }
    if (rc < 0) {
        free(*bytes);
        *bytes = NULL;
        return rc;
    }
    *len = size;
    return SCAL_OK;
}

int scal_snap_read_raw(const char *path, unsigned char **bytes, size_t *len)
{
    *bytes = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return scal__fail(errno == ENOENT ? SCAL_ENOENT : SCAL_EIO,
                          "cannot open the run snapshot '%s': %s", path, strerror(errno));
    int rc = scal_snap_read_fd(fd, path, bytes, len);
    close(fd);
    return rc;
}

int scal_snap_load_mem(const char *name, const unsigned char *bytes, size_t size,
                       struct scal_snap *out)
{
    struct header h;
    int rc = SCAL_OK;
    const char *path = name;
    memset(out, 0, sizeof(*out));
    snprintf(out->path, sizeof(out->path), "%s", name);
    if (size >= sizeof(h)) memcpy(&h, bytes, sizeof(h));
    if (size < sizeof(h) || memcmp(h.magic, magic, sizeof(magic)) != 0)
        return size >= 8 && memcmp(bytes, magic, sizeof(magic)) != 0
                   ? scal__fail(SCAL_EFORMAT, "'%s' is not a scal run snapshot", path)
                   : scal__fail(SCAL_EFORMAT,
                                "the run snapshot '%s' is truncated: %zu bytes, not even its "
                                "%zu-byte header",
                                path, size, sizeof(h));
    if (h.byte_order != BYTE_ORDER_MARK || h.header_size != sizeof(h) ||
        h.version != SCAL_SNAP_VERSION)
        return scal__fail(SCAL_ESCHEMA,
                          "the run snapshot '%s' is of version %u (header %u bytes), this scal "
                          "reads version %d: convert it with the scal that measured the run",
                          path, h.version, h.header_size, SCAL_SNAP_VERSION);
    if (size - sizeof(h) != h.body_len)
        return scal__fail(SCAL_EFORMAT,
                          "the run snapshot '%s' is truncated or was extended: %zu bytes, its "
                          "header says %llu (the writing process was probably killed)",
                          path, size, (unsigned long long)(sizeof(h) + h.body_len));
    out->body = malloc(h.body_len ? h.body_len : 1);
    if (!out->body)
        return scal__fail(SCAL_ENOMEM, "out of memory reading the run snapshot '%s'", path);
    memcpy(out->body, bytes + sizeof(h), h.body_len);
    out->len = h.body_len;
    if (scal_crc32(0, out->body, out->len) != h.crc) {
        rc = scal__fail(SCAL_EFORMAT,
                        "the run snapshot '%s' is damaged: its checksum does not match its content",
                        path);
        goto done;
    }
    out->info.pid = h.pid;
    out->info.tool_start_unix = h.tool_start_unix;
    out->info.flags = h.flags;
    size_t pos = 0;
    uint32_t n;
    if (out->len < sizeof(n)) goto bad;
    memcpy(&n, out->body, sizeof(n));
    if (n == 0 || n > sizeof(out->info.final_path) || n > out->len - sizeof(n) ||
        out->body[sizeof(n) + n - 1] != '\0')
        goto bad;
    memcpy(out->info.final_path, out->body + sizeof(n), n);
    pos = sizeof(n) + n;
    pos += (8 - pos % 8) % 8;
    if (pos > out->len) goto bad;
    out->len -= pos;
    memmove(out->body, out->body + pos, out->len); /* keeps the rows' alignment (pos % 8 == 0) */
done:
    if (rc < 0) scal_snap_release(out);
    return rc;
bad:
    rc = scal__fail(SCAL_EFORMAT, "the run snapshot '%s' has no valid run file name", path);
    goto done;
}

int scal_snap_load(const char *path, struct scal_snap *out)
{
    unsigned char *bytes;
    size_t len;
    memset(out, 0, sizeof(*out));
    int rc = scal_snap_read_raw(path, &bytes, &len);
    if (rc < 0) return rc;
    rc = scal_snap_load_mem(path, bytes, len, out);
    free(bytes);
    return rc;
}

int scal_snap_load_fd(int fd, const char *name, struct scal_snap *out)
{
    unsigned char *bytes;
    size_t len;
    memset(out, 0, sizeof(*out));
    int rc = scal_snap_read_fd(fd, name, &bytes, &len);
    if (rc < 0) return rc;
    rc = scal_snap_load_mem(name, bytes, len, out);
    free(bytes);
    return rc;
}

/* Decoding with bounds checks: any overrun is the same format error. */
struct cursor {
    const unsigned char *p;
    size_t pos, len;
    bool bad;
};

static const void *take(struct cursor *c, size_t n)
{
    if (c->bad || n > c->len - c->pos) {
        c->bad = true;
        return NULL;
    }
    const void *at = c->p + c->pos;
    c->pos += n;
    return at;
}

static uint64_t take_u64(struct cursor *c, size_t size)
{
    uint64_t v = 0;
    const void *p = take(c, size);
    if (p) memcpy(&v, p, size); /* little-endian host: the byte-order mark was checked */
    return v;
}

static const char *take_str(struct cursor *c)
{
    uint32_t n = (uint32_t)take_u64(c, sizeof(uint32_t));
    const char *s = n ? take(c, n) : NULL;
    if (!s || s[n - 1] != '\0') {
        c->bad = true;
        return NULL;
    }
    return s;
}

int scal_snap_next(struct scal_snap *s, size_t *pos, struct scal_snap_op *op)
{
    struct cursor c = {s->body, *pos, s->len, false};
    if (c.pos >= c.len) return 0;
    op->code = (enum scal_snap_op_code)take_u64(&c, 1);
    op->obj = take_str(&c);
    op->name = take_str(&c);
    switch (op->code) {
    case SCAL_SNAP_OP_GROUP:
        break;
    case SCAL_SNAP_OP_ATTR_STR:
        op->str = take_str(&c);
        break;
    case SCAL_SNAP_OP_ATTR_I64:
        op->i64 = (int64_t)take_u64(&c, sizeof(int64_t));
        break;
    case SCAL_SNAP_OP_ATTR_F64: {
        const void *p = take(&c, sizeof(double));
        if (p) memcpy(&op->f64, p, sizeof(double));
        break;
    }
    case SCAL_SNAP_OP_STRINGS: {
        uint64_t n = take_u64(&c, sizeof(uint64_t));
        if (c.bad || n > (c.len - c.pos) / 5) { /* each string takes at least 5 bytes */
            c.bad = true;
            break;
        }
        if (n > s->strings_cap) {
            const char **grown = realloc(s->strings, (size_t)n * sizeof(*grown));
            if (!grown)
                return scal__fail(SCAL_ENOMEM, "out of memory reading the run snapshot '%s'",
                                  s->path);
            s->strings = grown;
            s->strings_cap = (size_t)n;
        }
        for (uint64_t i = 0; i < n && !c.bad; i++)
            s->strings[i] = take_str(&c);
        op->strings = s->strings;
        op->n = (size_t)n;
        break;
    }
    case SCAL_SNAP_OP_TABLE: {
        uint32_t nf = (uint32_t)take_u64(&c, sizeof(uint32_t));
        if (nf > SCAL_SNAP_MAX_FIELDS) c.bad = true;
        for (uint32_t i = 0; i < nf && !c.bad; i++) {
            op->fields[i].name = take_str(&c);
            op->fields[i].type = (enum scal_h5_ftype)take_u64(&c, 1);
            op->fields[i].offset = (size_t)take_u64(&c, sizeof(uint64_t));
            if (op->fields[i].type > SCAL_H5_F64) c.bad = true;
        }
        op->nfields = nf;
        op->row_size = (size_t)take_u64(&c, sizeof(uint64_t));
        op->n = (size_t)take_u64(&c, sizeof(uint64_t));
        take(&c, (8 - c.pos % 8) % 8);
        for (uint32_t i = 0; i < nf && !c.bad; i++) {
            static const size_t size_of[] = {1, 4, 4, 8, 8, 8}; /* by enum scal_h5_ftype */
            size_t size = size_of[op->fields[i].type];          /* no sum that could wrap around */
            if (op->fields[i].offset > op->row_size || size > op->row_size - op->fields[i].offset)
                c.bad = true;
        }
        if (!c.bad && op->row_size && op->n > (c.len - c.pos) / op->row_size) c.bad = true;
        op->rows = take(&c, op->row_size * op->n);
        break;
    }
    default:
        c.bad = true;
    }
    if (c.bad)
        return scal__fail(SCAL_EFORMAT,
                          "the run snapshot '%s' is damaged: record at byte %zu cannot be read",
                          s->path, *pos);
    *pos = c.pos;
    return 1;
}
