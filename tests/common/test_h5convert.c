// SPDX-License-Identifier: BSD-3-Clause
// Unit test: scal_h5_convert_rows, the conversion of a snapshot's recorded rows (common/h5util.c):
// rows recorded as the reader lays them out are copied without HDF5 and must come out byte for
// byte as HDF5's conversion gives them; other layouts still convert by member name.
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "h5util.h"
#include "layout.h"
#include "scal/status.h"
#include "scal_test.h"

/* A "regions" table (regions.kind is an enum there; time_wall_s and label were added later) with a
 * member of every type tag and padding between members. */
struct row {
    uint8_t kind;
    uint8_t flag;
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    double f64;
    uint8_t tail; /* padding after it */
    double time_wall_s;
    uint32_t label;
};

static const struct scal_h5_field fields[] = {
    SCAL_H5_FIELD(SCAL_H5_U8, struct row, kind),
    SCAL_H5_FIELD(SCAL_H5_U8, struct row, flag),
    SCAL_H5_FIELD(SCAL_H5_I32, struct row, i32),
    SCAL_H5_FIELD(SCAL_H5_U32, struct row, u32),
    SCAL_H5_FIELD(SCAL_H5_I64, struct row, i64),
    SCAL_H5_FIELD(SCAL_H5_U64, struct row, u64),
    SCAL_H5_FIELD(SCAL_H5_F64, struct row, f64),
    SCAL_H5_FIELD(SCAL_H5_U8, struct row, tail),
    SCAL_H5_FIELD(SCAL_H5_F64, struct row, time_wall_s),
    SCAL_H5_FIELD(SCAL_H5_U32, struct row, label),
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

/* The same members in another order and row size, as an older or other build might record them;
 * `old` lacks the members added later. */
struct other {
    double f64;
    uint64_t u64;
    double time_wall_s;
    int64_t i64;
    uint32_t label, u32;
    int32_t i32;
    uint8_t tail, flag, kind;
    uint8_t pad[9];
};
static const struct scal_h5_field other_fields[] = {
    SCAL_H5_FIELD(SCAL_H5_F64, struct other, f64),
    SCAL_H5_FIELD(SCAL_H5_U64, struct other, u64),
    SCAL_H5_FIELD(SCAL_H5_I64, struct other, i64),
    SCAL_H5_FIELD(SCAL_H5_U32, struct other, u32),
    SCAL_H5_FIELD(SCAL_H5_I32, struct other, i32),
    SCAL_H5_FIELD(SCAL_H5_U8, struct other, tail),
    SCAL_H5_FIELD(SCAL_H5_U8, struct other, flag),
    SCAL_H5_FIELD(SCAL_H5_U8, struct other, kind),
    /* the members added later come last: the first 8 make the "old" layout */
    SCAL_H5_FIELD(SCAL_H5_F64, struct other, time_wall_s),
    SCAL_H5_FIELD(SCAL_H5_U32, struct other, label),
};
#define NOTHER (sizeof(other_fields) / sizeof(other_fields[0]))
#define NOLD 8

#define NROWS 7

static const double f64s[NROWS] = {0.0, -0.0, 1.5e300, -INFINITY, INFINITY, 4.9e-324, 3.25};

/* Rows with garbage in every byte no member covers, every value range, and enum values inside and
 * outside the enum (200: the enum names no such kind). */
static void fill(struct row *r, struct other *o)
{
    memset(r, 0xab, NROWS * sizeof(*r));
    memset(o, 0xcd, NROWS * sizeof(*o));
    for (int i = 0; i < NROWS; i++) {
        uint8_t kind = i == 3 ? 200 : (i == 4 ? SCAL_KIND_TASK + 1 : (uint8_t)(i % 5));
        double f = i == 5 ? NAN : f64s[i];
        r[i].kind = o[i].kind = kind;
        r[i].flag = o[i].flag = (uint8_t)(255 - i);
        r[i].i32 = o[i].i32 = i == 1 ? INT32_MIN : -i * 1000;
        r[i].u32 = o[i].u32 = i == 2 ? UINT32_MAX : (uint32_t)i;
        r[i].i64 = o[i].i64 = i == 0 ? INT64_MIN : (int64_t)i << 40;
        r[i].u64 = o[i].u64 = i == 6 ? UINT64_MAX : (uint64_t)i * 3;
        r[i].f64 = o[i].f64 = f;
        r[i].tail = o[i].tail = (uint8_t)i;
        r[i].time_wall_s = o[i].time_wall_s = i == 2 ? NAN : i * 0.5;
        r[i].label = o[i].label = (uint32_t)(i + 10);
    }
}

/* What HDF5's conversion gives for rows recorded with `from` (the conversion convert_rows made for
 * every table before it copied same-layout rows). */
static void *reference(const struct scal_h5_field *from, size_t nfrom, size_t from_size,
                       const void *in)
{
    size_t size = from_size > sizeof(struct row) ? from_size : sizeof(struct row);
    hid_t stype = scal_h5_compound_type("regions", from, nfrom, from_size, H5I_INVALID_HID);
    hid_t mtype = scal_h5_compound_type("regions", fields, NFIELDS, sizeof(struct row), stype);
    unsigned char *buf = calloc(NROWS, size);
    struct row *bkg = calloc(NROWS, sizeof(*bkg));
    CHECK(stype >= 0 && mtype >= 0 && buf && bkg, "reference types");
    for (int i = 0; i < NROWS; i++) /* as convert_rows fills members the rows predate */
        if (H5Tget_member_index(stype, "time_wall_s") < 0) bkg[i].time_wall_s = NAN;
    memcpy(buf, in, NROWS * from_size);
    CHECK(H5Tconvert(stype, mtype, NROWS, buf, bkg, H5P_DEFAULT) >= 0, "H5Tconvert");
    free(bkg);
    H5Tclose(mtype);
    H5Tclose(stype);
    return buf;
}

/* The first byte of a member where rows a and b differ (HDF5 keeps a row's padding as the
 * conversion found it: in place for equal types, else from the background buffer). */
static bool same_members(const char *what, const void *a, const void *b)
{
    static const size_t size_of[] = {1, 4, 4, 8, 8, 8};
    for (int r = 0; r < NROWS; r++)
        for (size_t k = 0; k < NFIELDS; k++) {
            size_t at = r * sizeof(struct row) + fields[k].offset;
            if (memcmp((const char *)a + at, (const char *)b + at, size_of[fields[k].type])) {
                fprintf(stderr, "%s: row %d member %s differs\n", what, r, fields[k].name);
                return false;
            }
        }
    return true;
}

static void dump_diff(const char *what, const void *got, const void *want)
{
    const unsigned char *g = got, *w = want;
    for (size_t i = 0; i < NROWS * sizeof(struct row); i++)
        if (g[i] != w[i]) {
            fprintf(stderr, "%s: row %zu byte %zu: %02x, HDF5 gives %02x\n", what,
                    i / sizeof(struct row), i % sizeof(struct row), g[i], w[i]);
            return;
        }
}

int main(void)
{
    static struct row in[NROWS];
    static struct other oin[NROWS];
    void *got = NULL, *other = NULL, *old = NULL;
    scal_h5_quiet();
    fill(in, oin);

    /* 1. the same layout: byte for byte what HDF5's conversion gives */
    void *want = reference(fields, NFIELDS, sizeof(struct row), in);
    CHECK(scal_h5_convert_rows("t", "regions", fields, NFIELDS, sizeof(struct row), in, NROWS,
                               fields, NFIELDS, sizeof(struct row), &got) == SCAL_OK,
          "same layout: %s", scal__last_error(SCAL_EFORMAT));
    CHECK(got && want && !memcmp(got, want, NROWS * sizeof(struct row)),
          "same-layout rows are HDF5's conversion of them byte for byte");
    if (got && want) dump_diff("same layout", got, want);
    CHECK(got && ((struct row *)got)[3].kind == 200 && ((struct row *)got)[2].kind == 2,
          "enum values as recorded, even one the enum does not name (as HDF5 keeps it)");

    /* 2. another layout of the same members converts by name to the same rows */
    CHECK(scal_h5_convert_rows("t", "regions", other_fields, NOTHER, sizeof(struct other), oin,
                               NROWS, fields, NFIELDS, sizeof(struct row), &other) == SCAL_OK,
          "other layout");
    CHECK(got && other && same_members("other layout", got, other),
          "rows recorded in another layout convert to the same members as the copied ones");

    /* 3. an older layout without the members added later: time_wall_s NaN, label 0 */
    CHECK(scal_h5_convert_rows("t", "regions", other_fields, NOLD, sizeof(struct other), oin, NROWS,
                               fields, NFIELDS, sizeof(struct row), &old) == SCAL_OK,
          "old layout");
    void *want_old = reference(other_fields, NOLD, sizeof(struct other), oin);
    CHECK(old && want_old && !memcmp(old, want_old, NROWS * sizeof(struct row)),
          "an older layout converts as HDF5 converts it");
    for (int i = 0; old && i < NROWS; i++) {
        const struct row *r = (const struct row *)old + i;
        CHECK(isnan(r->time_wall_s) && r->label == 0 && r->i64 == in[i].i64 &&
                  r->u32 == in[i].u32 && r->flag == in[i].flag,
              "old row %d: time_wall_s NaN, label 0, the rest as recorded", i);
    }

    /* 4. a layout that names the same members but claims other offsets or a row size that does not
     * hold them: never copied as if it were the reader's */
    struct scal_h5_field moved[NFIELDS];
    memcpy(moved, fields, sizeof(moved));
    moved[9].offset = sizeof(struct row) - 2; /* label straddles the row's end */
    void *bad = NULL;
    CHECK(scal_h5_convert_rows("t", "regions", moved, NFIELDS, sizeof(struct row), in, NROWS,
                               fields, NFIELDS, sizeof(struct row), &bad) == SCAL_EFORMAT &&
              !bad,
          "a member outside its row is refused");
    CHECK(scal_h5_convert_rows("t", "regions", fields, NFIELDS, 8, in, NROWS, fields, NFIELDS,
                               sizeof(struct row), &bad) < 0 &&
              !bad,
          "a row size too small for its members is refused");

    /* 5. layouts one detail away from the reader's: converted by HDF5, never copied */
    struct scal_h5_field near[3][NFIELDS];
    for (int v = 0; v < 3; v++)
        memcpy(near[v], fields, sizeof(fields));
    near[0][2].type = SCAL_H5_U32; /* i32 recorded as unsigned: -1000 reads as INT32_MAX */
    near[1][1].name = "tail", near[1][7].name = "flag"; /* two members' names swapped */
    size_t wide = sizeof(struct row) + 8;               /* [2]: rows 8 bytes further apart */
    unsigned char *win = calloc(NROWS, wide);
    for (int i = 0; win && i < NROWS; i++)
        memcpy(win + i * wide, &in[i], sizeof(struct row));
    for (int v = 0; v < 3 && win; v++) {
        size_t size = v == 2 ? wide : sizeof(struct row);
        const void *src = v == 2 ? (const void *)win : in;
        void *conv = NULL, *ref = reference(near[v], NFIELDS, size, src);
        CHECK(scal_h5_convert_rows("t", "regions", near[v], NFIELDS, size, src, NROWS, fields,
                                   NFIELDS, sizeof(struct row), &conv) == SCAL_OK,
              "near layout %d", v);
        CHECK(conv && ref && same_members("near layout", conv, ref),
              "near layout %d converts as HDF5 converts it", v);
        const struct row *c = conv;
        if (c && v == 0) CHECK(c[2].i32 == INT32_MAX, "an unsigned -2000 reads as INT32_MAX");
        if (c && v == 1) CHECK(c[3].flag == in[3].tail, "members matched by name");
        free(conv);
        free(ref);
    }
    free(win);

    /* 6. the run file's regions table as this build records it */
    struct scal_region_row regs[3];
    memset(regs, 0x5a, sizeof(regs));
    for (int i = 0; i < 3; i++) {
        regs[i].kind = (uint8_t)(i == 2 ? 77 : i);
        regs[i].time_wall_s = i == 1 ? NAN : 1.0 + i;
    }
    const struct scal_table_desc *d = &scal_table_run_regions;
    void *rr = NULL;
    hid_t st = scal_h5_compound_type("regions", d->fields, d->nfields, d->row_size, -1);
    hid_t mt = scal_h5_compound_type("regions", d->fields, d->nfields, d->row_size, st);
    unsigned char *rwant = malloc(sizeof(regs));
    void *rbkg = calloc(3, d->row_size);
    memcpy(rwant, regs, sizeof(regs));
    CHECK(H5Tconvert(st, mt, 3, rwant, rbkg, H5P_DEFAULT) >= 0, "H5Tconvert of regions");
    CHECK(scal_h5_convert_rows("t", "regions", d->fields, d->nfields, d->row_size, regs, 3,
                               d->fields, d->nfields, d->row_size, &rr) == SCAL_OK &&
              rr && !memcmp(rr, rwant, sizeof(regs)),
          "the run file's regions rows are HDF5's conversion of them");
    H5Tclose(st);
    H5Tclose(mt);
    free(rbkg);
    free(rwant);
    free(rr);

    free(want);
    free(want_old);
    free(got);
    free(other);
    free(old);
    return scal_test_result("h5convert");
}
