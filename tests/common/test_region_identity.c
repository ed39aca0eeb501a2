// SPDX-License-Identifier: BSD-3-Clause
// Unit test: region identities are stable across runs and reject inconsistent tables.
#include <stdio.h>
#include <string.h>

#include "region_identity.h"
#include "scal/status.h"

static int failures;
#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                            \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static struct scal_region_id_row row(uint32_t id, int32_t parent, uint8_t kind, uint32_t name,
                                     uint32_t module, uint64_t offset, uint32_t file, int32_t line,
                                     uint32_t fn, int32_t gp, int32_t gn)
{
    struct scal_region_id_row r;
    memset(&r, 0, sizeof(r));
    r.id = id;
    r.parent = parent;
    r.kind = kind;
    r.name = name;
    r.module = module;
    r.offset = offset;
    r.file = file;
    r.line_first = line;
    r.function = fn;
    r.gap_prev = gp;
    r.gap_next = gn;
    return r;
}

int main(void)
{
    char *strings[] = {"", "/build/a/app", "app.c", "main", "setup", "/other/dir/app"};
    /* Run A: root, user "setup", parallel at app.c:12 under setup, a gap, a parallel without lines.
     */
    struct scal_region_id_row a[] = {
        row(0, -1, SCAL_KIND_ROOT, 0, 0, 0, 0, -1, 0, -1, -1),
        row(1, 0, SCAL_KIND_USER, 4, 0, 0, 0, -1, 0, -1, -1),
        row(2, 1, SCAL_KIND_PARALLEL, 0, 1, 0x1234, 2, 12, 3, -1, -1),
        row(3, 0, SCAL_KIND_PARALLEL, 0, 1, 0x2000, 0, -1, 3, -1, -1),
        row(4, 0, SCAL_KIND_SERIAL, 0, 0, 0, 0, -1, 0, 1, 3),
    };
    /* Run B: the same program built elsewhere, regions met in another order, another offset for the
     * region with lines (a rebuild moved it). */
    struct scal_region_id_row b[] = {
        row(0, -1, SCAL_KIND_ROOT, 0, 0, 0, 0, -1, 0, -1, -1),
        row(1, 0, SCAL_KIND_PARALLEL, 0, 5, 0x2000, 0, -1, 3, -1, -1),
        row(2, 0, SCAL_KIND_USER, 4, 0, 0, 0, -1, 0, -1, -1),
        row(3, 2, SCAL_KIND_PARALLEL, 0, 5, 0x9999, 2, 12, 3, -1, -1),
        row(4, 0, SCAL_KIND_SERIAL, 0, 0, 0, 0, -1, 0, 2, 1),
    };
    char **ia = NULL, **ib = NULL;
    EXPECT(scal_region_identities(a, 5, strings, 6, &ia) == 0, "run A identities");
    EXPECT(scal_region_identities(b, 5, strings, 6, &ib) == 0, "run B identities");
    if (ia && ib) {
        EXPECT(!strcmp(ia[0], "R"), "root is R: %s", ia[0]);
        EXPECT(!strcmp(ia[2], "R/U:setup/P:app.c:12:main"), "nested parallel identity: %s", ia[2]);
        EXPECT(!strcmp(ia[2], ib[3]), "same source region, same identity across runs: %s vs %s",
               ia[2], ib[3]);
        EXPECT(!strcmp(ia[3], ib[1]), "same module+offset without lines, same identity: %s vs %s",
               ia[3], ib[1]);
        EXPECT(!strcmp(ia[4], ib[4]), "same serial gap, same identity: %s vs %s", ia[4], ib[4]);
        EXPECT(strcmp(ia[1], ia[3]) != 0, "different regions differ");
        EXPECT(!strcmp(ia[3], "R/P:app+2000"), "without lines the module breaks the tie: %s",
               ia[3]);
        EXPECT(!strcmp(ia[4], "R/S:R/U:setup>R/P:app+2000"),
               "a gap is named by both neighbours: %s", ia[4]);
    }
    /* The same pragma in two builds (other module, other offset, another last line) is one
     * region; another pragma line or another function is another region. */
    {
        struct scal_region_id_row c[] = {
            row(0, -1, SCAL_KIND_ROOT, 0, 0, 0, 0, -1, 0, -1, -1),
            row(1, 0, SCAL_KIND_PARALLEL, 0, 1, 0x10, 2, 12, 3, -1, -1),
            row(2, 0, SCAL_KIND_PARALLEL, 0, 5, 0x99, 2, 12, 3, -1, -1),
            row(3, 0, SCAL_KIND_PARALLEL, 0, 1, 0x10, 2, 13, 3, -1, -1),
            row(4, 0, SCAL_KIND_PARALLEL, 0, 1, 0x10, 2, 12, 4, -1, -1),
            row(5, 0, SCAL_KIND_SERIAL, 0, 0, 0, 0, -1, 0, 1, 3),
            row(6, 0, SCAL_KIND_SERIAL, 0, 0, 0, 0, -1, 0, 1, 4),
        };
        c[1].line_last = 20;
        c[2].line_last = 31;
        char **ic = NULL, **lc = NULL;
        EXPECT(scal_region_identities(c, 7, strings, 6, &ic) == 0, "build identities");
        EXPECT(scal_region_labels(c, 7, strings, 6, &lc) == 0, "labels");
        if (ic && lc) {
            EXPECT(!strcmp(ic[1], ic[2]), "same pragma, other build: %s vs %s", ic[1], ic[2]);
            EXPECT(strcmp(ic[1], ic[3]) != 0, "another pragma line is another region");
            EXPECT(strcmp(ic[1], ic[4]) != 0, "another function is another region");
            EXPECT(strcmp(ic[5], ic[6]) != 0, "gaps with another next neighbour differ: %s", ic[5]);
            EXPECT(!strcmp(lc[0], "whole program"), "root label: %s", lc[0]);
            EXPECT(!strcmp(lc[1], "app.c:12-20 (main)"), "parallel label: %s", lc[1]);
            EXPECT(!strcmp(lc[3], "app.c:13 (main)"), "label without a range: %s", lc[3]);
            EXPECT(!strcmp(lc[5], "serial: app.c:12-20 (main) -> app.c:13 (main)"), "gap label: %s",
                   lc[5]);
        }
        scal_region_identities_free(ic, 7);
        scal_region_identities_free(lc, 7);
        struct scal_region_id_row d[] = {
            row(0, -1, SCAL_KIND_ROOT, 0, 0, 0, 0, -1, 0, -1, -1),
            row(1, 0, SCAL_KIND_PARALLEL, 0, 1, 0x2a, 0, -1, 0, -1, -1),
            row(2, 0, SCAL_KIND_USER, 4, 0, 0, 0, -1, 0, -1, -1)};
        EXPECT(scal_region_labels(d, 3, strings, 6, &lc) == 0, "labels without lines");
        if (lc) {
            EXPECT(!strcmp(lc[1], "app+0x2a"), "label without lines: %s", lc[1]);
            EXPECT(!strcmp(lc[2], "setup"), "user label: %s", lc[2]);
        }
        scal_region_identities_free(lc, 3);
    }
    scal_region_identities_free(ia, 5);
    scal_region_identities_free(ib, 5);
    /* A task construct under a parallel region: its own identity (never the parallel's, even at
     * the same line) and a label that says "task". */
    {
        struct scal_region_id_row t[] = {
            row(0, -1, SCAL_KIND_ROOT, 0, 0, 0, 0, -1, 0, -1, -1),
            row(1, 0, SCAL_KIND_PARALLEL, 0, 1, 0x10, 2, 12, 3, -1, -1),
            row(2, 1, SCAL_KIND_TASK, 0, 1, 0x40, 2, 12, 3, -1, -1),
            row(3, 1, SCAL_KIND_TASK, 0, 1, 0x80, 0, -1, 0, -1, -1)};
        char **it = NULL, **lt = NULL;
        EXPECT(scal_region_identities(t, 4, strings, 6, &it) == 0, "task identities");
        EXPECT(scal_region_labels(t, 4, strings, 6, &lt) == 0, "task labels");
        if (it && lt) {
            EXPECT(!strcmp(it[2], "R/P:app.c:12:main/T:app.c:12:main"), "task identity: %s", it[2]);
            EXPECT(!strcmp(it[3], "R/P:app.c:12:main/T:app+80"), "task without lines: %s", it[3]);
            EXPECT(!strcmp(lt[2], "task app.c:12 (main)"), "task label: %s", lt[2]);
            EXPECT(!strcmp(lt[3], "task app+0x80"), "task label without lines: %s", lt[3]);
        }
        scal_region_identities_free(it, 4);
        scal_region_identities_free(lt, 4);
    }

    struct scal_region_id_row bad[] = {row(0, -1, SCAL_KIND_ROOT, 0, 0, 0, 0, -1, 0, -1, -1),
                                       row(1, 2, SCAL_KIND_USER, 4, 0, 0, 0, -1, 0, -1, -1)};
    char **ic = NULL;
    EXPECT(scal_region_identities(bad, 2, strings, 6, &ic) == SCAL_EFORMAT && ic == NULL,
           "a forward parent is refused");
    bad[1].parent = 0;
    bad[1].id = 7;
    EXPECT(scal_region_identities(bad, 2, strings, 6, &ic) == SCAL_EFORMAT,
           "an id that is not the row is refused");
    struct scal_region_id_row gap[] = {row(0, -1, SCAL_KIND_ROOT, 0, 0, 0, 0, -1, 0, -1, -1),
                                       row(1, 0, SCAL_KIND_SERIAL, 0, 0, 0, 0, -1, 0, -1, 1)};
    EXPECT(scal_region_labels(gap, 2, strings, 6, &ic) == SCAL_EFORMAT,
           "a gap naming itself or a later row is refused");
    gap[1].kind = 9;
    EXPECT(scal_region_identities(gap, 2, strings, 6, &ic) == SCAL_EFORMAT,
           "an unknown kind is refused");
    if (failures == 0) printf("PASS region identities\n");
    return failures ? 1 : 0;
}
