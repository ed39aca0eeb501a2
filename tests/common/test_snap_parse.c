// SPDX-License-Identifier: BSD-3-Clause
// Unit test: a run snapshot whose table claims a member beyond its row is refused when read
// (common/run_snapshot.c), also when the member's offset is so large that offset + size wraps
// around; one whose members lie inside the row is read back as written.
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "errmsg.h"
#include "run_snapshot.h"
#include "scal/status.h"
#include "scal_test.h"

struct row {
    uint64_t a;
    int32_t b;
};

/* The first operation of a snapshot holding one table whose member b is at `offset`. */
static int first_op(size_t offset, struct scal_snap_op *op, struct scal_snap *s)
{
    const struct scal_h5_field fields[] = {{"a", SCAL_H5_U64, 0}, {"b", SCAL_H5_I32, offset}};
    struct row rows[2] = {{1, 2}, {3, 4}};
    struct scal_snap_builder b;
    struct scal_snap_info info = {.pid = 1};
    snprintf(info.final_path, sizeof(info.final_path), "/nonexistent/x.h5");
    scal_snap_builder_init(&b);
    scal_snap_table(&b, "/", "t", fields, 2, sizeof(struct row), rows, 2);
    int fd = memfd_create("snap", 0);
    int rc = fd < 0 ? SCAL_EIO : scal_snap_write(&b, &info, fd, "test");
    scal_snap_builder_free(&b);
    if (rc == SCAL_OK) rc = scal_snap_load_fd(fd, "test", s);
    if (fd >= 0) close(fd);
    size_t pos = 0;
    return rc == SCAL_OK ? scal_snap_next(s, &pos, op) : rc;
}

int main(void)
{
    struct scal_snap_op op;
    struct scal_snap s;
    int rc = first_op(offsetof(struct row, b), &op, &s);
    CHECK(rc == 1 && op.n == 2 && op.nfields == 2 && op.fields[1].offset == offsetof(struct row, b),
          "a table inside its rows is read back (%d)", rc);
    if (rc == 1) CHECK(((const struct row *)op.rows)[1].b == 4, "its rows are the ones written");
    scal_snap_release(&s);
    rc = first_op(sizeof(struct row) - 2, &op, &s);
    CHECK(rc == SCAL_EFORMAT, "a member reaching past the row is refused (%d)", rc);
    scal_snap_release(&s);
    rc = first_op(SIZE_MAX - 2, &op, &s);
    CHECK(rc == SCAL_EFORMAT, "a member whose offset wraps around is refused (%d: %s)", rc,
          rc < 0 ? scal__last_error(rc) : "");
    scal_snap_release(&s);
    return scal_test_result("snap_parse");
}
