/* SPDX-License-Identifier: BSD-3-Clause */
/* The run snapshot: the whole content of one run file (groups, attributes, string lists, tables)
 * recorded as a compact binary log, so that the measured process never maps HDF5. The tool's
 * writer records it and hands it over; the runner (which has HDF5 loaded) or a writer process
 * replays it into the HDF5 run file (run_snapshot_h5.c). This module owns the format: a versioned
 * header carrying the body's length and CRC-32, so a truncated or damaged snapshot is refused with
 * a message naming the file. Free of HDF5 (the writer library includes it). */
#ifndef SCAL_RUN_SNAPSHOT_H
#define SCAL_RUN_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "table_field.h"

#define SCAL_SNAP_VERSION 1
#define SCAL_SNAP_SUFFIX ".snap" /* the snapshot of run file F left for the caller: F.snap */
/* Where the writer program lives, relative to the directory of libscal_ompt.so (as plugins do). */
#define SCAL_SNAP_WRITER_REL "scal/scal-run-writer"

/* Flags of scal_snap_convert (run_snapshot_h5.h). */
#define SCAL_SNAP_CONVERT_QUIET 1u /* no "scal: wrote" line, whatever the snapshot asks */

/* Flags of a snapshot. */
#define SCAL_SNAP_VERBOSE 1u /* SCAL_VERBOSE: the converter says where the run file went */

/* What the converter needs besides the content: where the run file goes and whose it is. */
struct scal_snap_info {
    int64_t pid; /* the measured process */
    double
        tool_start_unix; /* when the tool started in it (files newer than that are not replaced) */
    uint32_t flags;
    char final_path[4096]; /* the run file's name */
};

/* ---- recording (the tool's writer) -------------------------------------------------------- */

/* Errors are sticky: every call after a failure returns it, so callers may check once at the end.
 */
struct scal_snap_builder {
    unsigned char *buf;
    size_t len, cap;
    int err;
};
void scal_snap_builder_init(struct scal_snap_builder *b);
void scal_snap_builder_free(struct scal_snap_builder *b);
/* obj and path are absolute ("/", "/meta"); a group's parent must have been created before. */
int scal_snap_group(struct scal_snap_builder *b, const char *path);
int scal_snap_attr_str(struct scal_snap_builder *b, const char *obj, const char *name,
                       const char *value);
int scal_snap_attr_i64(struct scal_snap_builder *b, const char *obj, const char *name,
                       int64_t value);
int scal_snap_attr_f64(struct scal_snap_builder *b, const char *obj, const char *name,
                       double value);
/* A 1-D dataset of strings (scal_h5_write_strings). */
int scal_snap_strings(struct scal_snap_builder *b, const char *obj, const char *name,
                      const char *const *strings, size_t n);
/* A compound table (scal_h5_write_table): the field list travels with the rows. */
int scal_snap_table(struct scal_snap_builder *b, const char *obj, const char *name,
                    const struct scal_h5_field *fields, size_t nfields, size_t row_size,
                    const void *rows, size_t nrows);
/* Writes header and body to fd (path names it in messages). */
int scal_snap_write(const struct scal_snap_builder *b, const struct scal_snap_info *info, int fd,
                    const char *path);

/* ---- reading (the converters) ------------------------------------------------------------- */

enum scal_snap_op_code {
    SCAL_SNAP_OP_GROUP = 1,
    SCAL_SNAP_OP_ATTR_STR,
    SCAL_SNAP_OP_ATTR_I64,
    SCAL_SNAP_OP_ATTR_F64,
    SCAL_SNAP_OP_STRINGS,
    SCAL_SNAP_OP_TABLE,
};

#define SCAL_SNAP_MAX_FIELDS 128

/* One decoded operation; its pointers point into the snapshot (valid until the next call). */
struct scal_snap_op {
    enum scal_snap_op_code code;
    const char *obj, *name; /* GROUP: obj is the group's path */
    const char *str;        /* ATTR_STR */
    int64_t i64;            /* ATTR_I64 */
    double f64;             /* ATTR_F64 */
    size_t n;               /* STRINGS: count; TABLE: rows */
    const char **strings;   /* STRINGS */
    struct scal_h5_field fields[SCAL_SNAP_MAX_FIELDS];
    size_t nfields, row_size; /* TABLE */
    const void *rows;         /* TABLE (8-byte aligned) */
};

struct scal_snap {
    char path[4096];
    struct scal_snap_info info;
    unsigned char *body;
    size_t len;
    const char **strings; /* scratch for STRINGS */
    size_t strings_cap;
};
/* Reads and checks a snapshot: SCAL_EFORMAT naming the file when it is not one, is truncated, was
 * changed (checksum) or is of another version. */
int scal_snap_load(const char *path, struct scal_snap *out);
/* scal_snap_load of the snapshot open at fd (a file, or one handed over in memory), read from its
 * start; name stands for it in messages. fd stays open. */
int scal_snap_load_fd(int fd, const char *name, struct scal_snap *out);
/* The snapshot file at path, whole and unchecked (*bytes malloc'ed): a copy kept or sent elsewhere,
 * checked when loaded with scal_snap_load_mem. */
int scal_snap_read_raw(const char *path, unsigned char **bytes, size_t *len);
/* The same of the snapshot open at fd (read from its start; fd stays open). */
int scal_snap_read_fd(int fd, const char *name, unsigned char **bytes, size_t *len);
/* scal_snap_load of a snapshot's bytes (a copy made by scal_snap_read_raw); name stands for it in
 * messages. The bytes are copied: the caller keeps them. */
int scal_snap_load_mem(const char *name, const unsigned char *bytes, size_t len,
                       struct scal_snap *out);
void scal_snap_release(struct scal_snap *s);
/* The operation at *pos: 1 and *pos advanced, 0 at the end, or SCAL_EFORMAT naming the file. */
int scal_snap_next(struct scal_snap *s, size_t *pos, struct scal_snap_op *op);

#endif
