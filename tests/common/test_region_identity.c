// SPDX-License-Identifier: BSD-3-Clause
// Unit test: region identities are stable across runs and reject inconsistent tables; labels are
// stored once by the rule and read back as stored.
#include <stdio.h>
#include <string.h>

#include "region_identity.h"
#include "scal/status.h"
#include "scal_test.h"
#include "strtab.h"

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
    CHECK(scal_region_identities(a, 5, strings, 6, &ia) == 0, "run A identities");
    CHECK(scal_region_identities(b, 5, strings, 6, &ib) == 0, "run B identities");
    if (ia && ib) {
        CHECK(!strcmp(ia[0], "R"), "root is R: %s", ia[0]);
        CHECK(!strcmp(ia[2], "R/U:setup/P:app.c:12:main"), "nested parallel identity: %s", ia[2]);
        CHECK(!strcmp(ia[2], ib[3]), "same source region, same identity across runs: %s vs %s",
              ia[2], ib[3]);
        CHECK(!strcmp(ia[3], ib[1]), "same module+offset without lines, same identity: %s vs %s",
              ia[3], ib[1]);
        CHECK(!strcmp(ia[4], ib[4]), "same serial gap, same identity: %s vs %s", ia[4], ib[4]);
        CHECK(strcmp(ia[1], ia[3]) != 0, "different regions differ");
        CHECK(!strcmp(ia[3], "R/P:app+2000"), "without lines the module breaks the tie: %s", ia[3]);
        CHECK(!strcmp(ia[4], "R/S:R/U:setup>R/P:app+2000"), "a gap is named by both neighbours: %s",
              ia[4]);
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
        CHECK(scal_region_identities(c, 7, strings, 6, &ic) == 0, "build identities");
        CHECK(scal_region_labels(c, 7, strings, 6, &lc) == 0, "labels");
        if (ic && lc) {
            CHECK(!strcmp(ic[1], ic[2]), "same pragma, other build: %s vs %s", ic[1], ic[2]);
            CHECK(strcmp(ic[1], ic[3]) != 0, "another pragma line is another region");
            CHECK(strcmp(ic[1], ic[4]) != 0, "another function is another region");
            CHECK(strcmp(ic[5], ic[6]) != 0, "gaps with another next neighbour differ: %s", ic[5]);
            CHECK(!strcmp(lc[0], "whole program"), "root label: %s", lc[0]);
            CHECK(!strcmp(lc[1], "app.c:12-20 (main)"), "parallel label: %s", lc[1]);
            CHECK(!strcmp(lc[3], "app.c:13 (main)"), "label without a range: %s", lc[3]);
            CHECK(!strcmp(lc[5], "serial: app.c:12-20 (main) -> app.c:13 (main)"), "gap label: %s",
                  lc[5]);
        }
        scal_region_identities_free(ic, 7);
        scal_region_identities_free(lc, 7);
        struct scal_region_id_row d[] = {
            row(0, -1, SCAL_KIND_ROOT, 0, 0, 0, 0, -1, 0, -1, -1),
            row(1, 0, SCAL_KIND_PARALLEL, 0, 1, 0x2a, 0, -1, 0, -1, -1),
            row(2, 0, SCAL_KIND_USER, 4, 0, 0, 0, -1, 0, -1, -1)};
        CHECK(scal_region_labels(d, 3, strings, 6, &lc) == 0, "labels without lines");
        if (lc) {
            CHECK(!strcmp(lc[1], "app+0x2a"), "label without lines: %s", lc[1]);
            CHECK(!strcmp(lc[2], "setup"), "user label: %s", lc[2]);
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
        CHECK(scal_region_identities(t, 4, strings, 6, &it) == 0, "task identities");
        CHECK(scal_region_labels(t, 4, strings, 6, &lt) == 0, "task labels");
        if (it && lt) {
            CHECK(!strcmp(it[2], "R/P:app.c:12:main/T:app.c:12:main"), "task identity: %s", it[2]);
            CHECK(!strcmp(it[3], "R/P:app.c:12:main/T:app+80"), "task without lines: %s", it[3]);
            CHECK(!strcmp(lt[2], "task app.c:12 (main)"), "task label: %s", lt[2]);
            CHECK(!strcmp(lt[3], "task app+0x80"), "task label without lines: %s", lt[3]);
        }
        scal_region_identities_free(it, 4);
        scal_region_identities_free(lt, 4);
    }

    /* Stored labels: scal_region_labels_store gives every row without one the rule's (added to
     * the string table at new indices, or at the index of an equal string), keeps stored ones;
     * readers show the stored label, a gap names its neighbours' stored labels; the rule alone
     * ignores what is stored. */
    {
        struct scal_region_id_row c[] = {
            row(0, -1, SCAL_KIND_ROOT, 0, 0, 0, 0, -1, 0, -1, -1),
            row(1, 0, SCAL_KIND_PARALLEL, 0, 1, 0x10, 2, 12, 3, -1, -1),
            row(2, 0, SCAL_KIND_USER, 4, 0, 0, 0, -1, 0, -1, -1),
            row(3, 0, SCAL_KIND_SERIAL, 0, 0, 0, 0, -1, 0, 1, 2),
            row(4, 0, SCAL_KIND_SERIAL, 0, 0, 0, 0, -1, 0, 2, -1),
        };
        c[1].line_last = 20;
        struct scal_strtab st;
        char **stored = NULL, **rule = NULL;
        CHECK(scal_strtab_from(&st, (const char *const *)strings, 6, "strings") == 0, "a table");
        c[4].label = 3; /* "main": stored already, kept */
        CHECK(scal_region_labels_store(c, 5, &st) == 0, "labels stored");
        CHECK(c[2].label == 4, "a label equal to a string takes its index: %u", c[2].label);
        CHECK(c[0].label >= 6 && c[1].label >= 6 && c[3].label >= 6 && c[4].label == 3 &&
                  st.count == 9,
              "new labels are new strings, stored ones stay (%zu strings)", st.count);
        CHECK(c[0].label < st.count && !strcmp(st.strings[c[0].label], "whole program"),
              "the root's stored label");
        CHECK(c[3].label < st.count &&
                  !strcmp(st.strings[c[3].label], "serial: app.c:12-20 (main) -> setup"),
              "a gap's stored label");
        c[1].label = 5; /* another label than the rule's: readers show it */
        CHECK(scal_region_labels(c, 5, st.strings, st.count, &stored) == 0, "stored labels read");
        CHECK(scal_region_labels_by_rule(c, 5, st.strings, st.count, &rule) == 0,
              "rule labels read");
        if (stored && rule) {
            CHECK(!strcmp(stored[1], "/other/dir/app"), "the stored label is read: %s", stored[1]);
            CHECK(!strcmp(rule[1], "app.c:12-20 (main)"), "the rule ignores it: %s", rule[1]);
            CHECK(!strcmp(stored[4], "main") && !strcmp(rule[4], "serial: setup -> end"),
                  "stored %s, rule %s", stored[4], rule[4]);
        }
        scal_region_identities_free(stored, 5);
        c[3].label = 0; /* not stored (an older file): the rule, naming the stored neighbours */
        CHECK(scal_region_labels(c, 5, st.strings, st.count, &stored) == 0, "mixed labels read");
        if (stored)
            CHECK(!strcmp(stored[3], "serial: /other/dir/app -> setup"), "a gap without: %s",
                  stored[3]);
        scal_region_identities_free(stored, 5);
        scal_region_identities_free(rule, 5);
        scal_strtab_free(&st);
        char *dup[] = {"", "a", "a"};
        CHECK(scal_strtab_from(&st, (const char *const *)dup, 3, "dup") == SCAL_EFORMAT,
              "a string table with a repeated string is refused");
    }

    struct scal_region_id_row bad[] = {row(0, -1, SCAL_KIND_ROOT, 0, 0, 0, 0, -1, 0, -1, -1),
                                       row(1, 2, SCAL_KIND_USER, 4, 0, 0, 0, -1, 0, -1, -1)};
    char **ic = NULL;
    CHECK(scal_region_identities(bad, 2, strings, 6, &ic) == SCAL_EFORMAT && ic == NULL,
          "a forward parent is refused");
    bad[1].parent = 0;
    bad[1].id = 7;
    CHECK(scal_region_identities(bad, 2, strings, 6, &ic) == SCAL_EFORMAT,
          "an id that is not the row is refused");
    struct scal_region_id_row gap[] = {row(0, -1, SCAL_KIND_ROOT, 0, 0, 0, 0, -1, 0, -1, -1),
                                       row(1, 0, SCAL_KIND_SERIAL, 0, 0, 0, 0, -1, 0, -1, 1)};
    CHECK(scal_region_labels(gap, 2, strings, 6, &ic) == SCAL_EFORMAT,
          "a gap naming itself or a later row is refused");
    gap[1].kind = 9;
    CHECK(scal_region_identities(gap, 2, strings, 6, &ic) == SCAL_EFORMAT,
          "an unknown kind is refused");
    /* Names holding the syntax's separators or differing only past any buffer size stay apart:
     * "a/U:b" at the top is not "b" inside "a"; gaps whose neighbours' names hold '>' neither. */
    {
        static char longa[9000], longb[9000];
        memset(longa, 'x', sizeof(longa) - 1);
        memset(longb, 'x', sizeof(longb) - 1);
        longb[8500] = 'y';
        char *names[] = {"", "a/U:b", "a", "b", "p>R/U:q", "q>R/U:r", "p", "r", longa, longb};
        struct scal_region_id_row e[] = {
            row(0, -1, SCAL_KIND_ROOT, 0, 0, 0, 0, -1, 0, -1, -1),
            row(1, 0, SCAL_KIND_USER, 1, 0, 0, 0, -1, 0, -1, -1),
            row(2, 0, SCAL_KIND_USER, 2, 0, 0, 0, -1, 0, -1, -1),
            row(3, 2, SCAL_KIND_USER, 3, 0, 0, 0, -1, 0, -1, -1),
            row(4, 0, SCAL_KIND_USER, 4, 0, 0, 0, -1, 0, -1, -1),
            row(5, 0, SCAL_KIND_USER, 5, 0, 0, 0, -1, 0, -1, -1),
            row(6, 0, SCAL_KIND_USER, 6, 0, 0, 0, -1, 0, -1, -1),
            row(7, 0, SCAL_KIND_USER, 7, 0, 0, 0, -1, 0, -1, -1),
            row(8, 0, SCAL_KIND_SERIAL, 0, 0, 0, 0, -1, 0, 4, 7),
            row(9, 0, SCAL_KIND_SERIAL, 0, 0, 0, 0, -1, 0, 6, 5),
            row(10, 0, SCAL_KIND_USER, 8, 0, 0, 0, -1, 0, -1, -1),
            row(11, 0, SCAL_KIND_USER, 9, 0, 0, 0, -1, 0, -1, -1),
        };
        char **ie = NULL, **le = NULL;
        CHECK(scal_region_identities(e, 12, names, 10, &ie) == 0, "identities of odd names");
        CHECK(scal_region_labels(e, 12, names, 10, &le) == 0, "labels of odd names");
        if (ie && le) {
            CHECK(strcmp(ie[1], ie[3]) != 0, "'a/U:b' is not 'b' inside 'a': both %s", ie[1]);
            CHECK(strcmp(ie[8], ie[9]) != 0, "gaps p>R/U:q -> r and p -> q>R/U:r differ: %s",
                  ie[8]);
            CHECK(strcmp(ie[10], ie[11]) != 0, "names differing at character 8501 differ");
            CHECK(strlen(le[11]) == strlen(longb), "labels are never cut (%zu)", strlen(le[11]));
        }
        scal_region_identities_free(ie, 12);
        scal_region_identities_free(le, 12);
    }
    return scal_test_result("region identities");
}
