// SPDX-License-Identifier: BSD-3-Clause
// Unit test: the file type of a table written by scal_h5_write_table(_fixed) (common/h5util.c) is
// its rows' memory type packed by HDF5 (H5Tpack of scal_h5_compound_type): the same members in the
// same order at the same offsets, enums included, for every table of the layout and for a field
// list out of offset order; rows read back as written; a field list HDF5 would refuse (a member
// outside the row, overlapping members, a name twice) is refused.
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "column_meta.h"
#include "errmsg.h"
#include "h5util.h"
#include "layout.h"
#include "run_snapshot_h5.h"
#include "scal/status.h"
#include "scal_test.h"

/* Members out of offset order (H5Tpack sorts them by offset) with padding between them. */
struct row {
    uint8_t kind;
    double f64;
    uint32_t u32;
    uint8_t flag;
    int64_t i64;
    int32_t i32;
    uint64_t u64;
};
static const struct scal_h5_field shuffled[] = {
    SCAL_H5_FIELD(SCAL_H5_I64, struct row, i64), SCAL_H5_FIELD(SCAL_H5_U8, struct row, kind),
    SCAL_H5_FIELD(SCAL_H5_U64, struct row, u64), SCAL_H5_FIELD(SCAL_H5_F64, struct row, f64),
    SCAL_H5_FIELD(SCAL_H5_U8, struct row, flag), SCAL_H5_FIELD(SCAL_H5_I32, struct row, i32),
    SCAL_H5_FIELD(SCAL_H5_U32, struct row, u32),
};
#define NSHUFFLED (sizeof(shuffled) / sizeof(shuffled[0]))

/* Whether types a and b have the same members (order, names, offsets, classes, sizes, enum
 * values) and size; what differs is printed. */
static bool same_type(const char *what, hid_t a, hid_t b)
{
    int na = H5Tget_nmembers(a), nb = H5Tget_nmembers(b);
    if (na != nb || H5Tget_size(a) != H5Tget_size(b)) {
        fprintf(stderr, "%s: %d members, %zu bytes; H5Tpack: %d, %zu\n", what, na, H5Tget_size(a),
                nb, H5Tget_size(b));
        return false;
    }
    for (int i = 0; i < na; i++) {
        char *ma = H5Tget_member_name(a, (unsigned)i), *mb = H5Tget_member_name(b, (unsigned)i);
        hid_t ta = H5Tget_member_type(a, (unsigned)i), tb = H5Tget_member_type(b, (unsigned)i);
        bool same = ma && mb && !strcmp(ma, mb) &&
                    H5Tget_member_offset(a, (unsigned)i) == H5Tget_member_offset(b, (unsigned)i) &&
                    H5Tequal(ta, tb) > 0;
        if (!same)
            fprintf(stderr, "%s: member %d is %s at %zu; H5Tpack: %s at %zu\n", what, i,
                    ma ? ma : "?", H5Tget_member_offset(a, (unsigned)i), mb ? mb : "?",
                    H5Tget_member_offset(b, (unsigned)i));
        H5free_memory(ma);
        H5free_memory(mb);
        H5Tclose(ta);
        H5Tclose(tb);
        if (!same) return false;
    }
    return true;
}

/* Writes table name with n rows (fixed: as a run file's) and checks its file type against H5Tpack
 * of its memory type and its rows read back member by member. */
static void check_table(hid_t file, const char *name, const struct scal_h5_field *fields,
                        size_t nfields, size_t row_size, const void *rows, size_t n, bool fixed)
{
    char where[300];
    snprintf(where, sizeof(where), "%s (%s, %zu rows)", name, fixed ? "fixed" : "extendible", n);
    for (const char *slash = strchr(name, '/'); slash; slash = strchr(slash + 1, '/')) {
        char group[256]; /* "t3/sensors/values": its groups first */
        snprintf(group, sizeof(group), "%.*s", (int)(slash - name), name);
        if (!scal_h5_exists(file, group)) H5Gclose(H5Gcreate2(file, group, 0, 0, 0));
    }
    int rc = fixed ? scal_h5_write_table_fixed(file, name, fields, nfields, row_size, rows, n)
                   : scal_h5_write_table(file, name, fields, nfields, row_size, rows, n);
    CHECK(rc == SCAL_OK, "%s written: %s", where, rc < 0 ? scal__last_error(rc) : "");
    if (rc < 0) return;
    hid_t mtype = scal_h5_compound_type(name, fields, nfields, row_size, H5I_INVALID_HID);
    hid_t packed = H5Tcopy(mtype);
    H5Tpack(packed);
    hid_t dset = H5Dopen2(file, name, H5P_DEFAULT), ftype = H5Dget_type(dset);
    CHECK(same_type(where, ftype, packed), "%s: the file type is the rows' type packed", where);
    H5Tclose(ftype);
    H5Dclose(dset);
    H5Tclose(packed);
    H5Tclose(mtype);
    void *back = NULL;
    size_t nback = 0;
    rc = scal_h5_read_table(file, name, fields, nfields, row_size, &back, &nback);
    bool same = rc == SCAL_OK && nback == n;
    static const size_t size_of[] = {1, 4, 4, 8, 8, 8};
    for (size_t r = 0; same && r < n; r++)
        for (size_t k = 0; same && k < nfields; k++) {
            size_t at = r * row_size + fields[k].offset;
            same =
                !memcmp((const char *)back + at, (const char *)rows + at, size_of[fields[k].type]);
        }
    CHECK(same, "%s: rows read back as written", where);
    free(back);
}

int main(void)
{
    scal_h5_quiet();
    hid_t file = scal_snap_memory_file();
    CHECK(file >= 0, "an HDF5 file in memory");
    if (file < 0) return scal_test_result("h5table");

    /* every table of the layout, rows of bytes 0..255 (enum members a value they name) */
    static unsigned char bytes[3 * 4096];
    for (size_t i = 0; i < sizeof(bytes); i++)
        bytes[i] = (unsigned char)(i * 7 + 3);
    for (const struct scal_table_desc *const *d = scal_all_tables; *d; d++) {
        char name[300]; /* in a group of its own: the campaign's and the run's have one name */
        snprintf(name, sizeof(name), "t%d/%s", (int)(d - scal_all_tables), (*d)->name);
        const char *(*name_of)(int);
        int nvalues;
        CHECK((*d)->row_size * 3 <= sizeof(bytes), "%s fits the test's rows", (*d)->name);
        if ((*d)->row_size * 3 > sizeof(bytes)) continue;
        unsigned char *rows = malloc(3 * (*d)->row_size);
        memcpy(rows, bytes, 3 * (*d)->row_size);
        for (size_t k = 0; k < (*d)->nfields; k++)
            if (scal_column_enum((*d)->name, (*d)->fields[k].name, &name_of, &nvalues))
                for (size_t r = 0; r < 3; r++)
                    rows[r * (*d)->row_size + (*d)->fields[k].offset] = (unsigned char)(r % 2);
        check_table(file, name, (*d)->fields, (*d)->nfields, (*d)->row_size, rows, 3, true);
        free(rows);
    }

    /* a field list out of offset order, fixed and extendible, with rows and without */
    struct row rows[5];
    memset(rows, 0xee, sizeof(rows));
    for (int i = 0; i < 5; i++) {
        rows[i].kind = (uint8_t)(i % 5), rows[i].flag = (uint8_t)(200 + i);
        rows[i].f64 = i == 2 ? NAN : -1.5 * i, rows[i].u32 = UINT32_MAX - (uint32_t)i;
        rows[i].i64 = INT64_MIN + i, rows[i].i32 = -i, rows[i].u64 = UINT64_MAX - (uint64_t)i;
    }
    check_table(file, "shuffled/regions", shuffled, NSHUFFLED, sizeof(struct row), rows, 5, true);
    check_table(file, "shuffled/runs", shuffled, NSHUFFLED, sizeof(struct row), rows, 5, false);
    check_table(file, "empty", shuffled, NSHUFFLED, sizeof(struct row), NULL, 0, true);

    /* many rows read back converted (a subset of the members, out of order: HDF5 converts them
     * through its transfer buffers in pieces, keeping the members it does not read) */
    enum { NBIG = 20000 };
    struct row *big = malloc(NBIG * sizeof(*big)), *got = NULL;
    for (int i = 0; big && i < NBIG; i++) {
        memset(&big[i], 0, sizeof(big[i]));
        big[i].kind = (uint8_t)(i % 5), big[i].flag = (uint8_t)i, big[i].f64 = i * 0.25;
        big[i].u32 = (uint32_t)i * 3u, big[i].i64 = -(int64_t)i, big[i].i32 = i, big[i].u64 = i;
    }
    size_t ngot = 0;
    const struct scal_h5_field subset[] = {shuffled[6], shuffled[3],
                                           shuffled[1]}; /* u32 f64 kind */
    CHECK(big && scal_h5_write_table(file, "big", shuffled, NSHUFFLED, sizeof(*big), big, NBIG) ==
                     SCAL_OK,
          "%d rows written", NBIG);
    int rc = scal_h5_read_table(file, "big", subset, 3, sizeof(*big), (void **)&got, &ngot);
    bool same = rc == SCAL_OK && ngot == NBIG;
    for (int i = 0; same && i < NBIG; i++)
        same = got[i].u32 == big[i].u32 && got[i].f64 == big[i].f64 && got[i].kind == big[i].kind &&
               got[i].i64 == 0 && got[i].flag == 0;
    CHECK(same, "%d rows read back converted: the members asked for, the others zero", NBIG);
    free(got);
    free(big);

    /* field lists HDF5 refuses as a memory type: refused, nothing read outside the row */
    struct scal_h5_field bad[NSHUFFLED];
    const char *why[] = {"a member past the row's end", "a member whose offset wraps around",
                         "overlapping members", "a name twice"};
    for (int v = 0; v < 4; v++) {
        char name[32];
        memcpy(bad, shuffled, sizeof(bad));
        if (v == 0) bad[2].offset = sizeof(struct row) - 4;
        if (v == 1) bad[2].offset = SIZE_MAX - 2;
        if (v == 2) bad[5].offset = offsetof(struct row, flag);
        if (v == 3) bad[6].name = "f64";
        snprintf(name, sizeof(name), "bad%d", v);
        int rc = scal_h5_write_table_fixed(file, name, bad, NSHUFFLED, sizeof(struct row), rows, 5);
        CHECK(rc == SCAL_EHDF5 && strstr(scal__last_error(rc), name), "%s is refused (%d)", why[v],
              rc);
    }
    H5Fclose(file);
    return scal_test_result("h5table");
}
