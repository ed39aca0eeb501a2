// SPDX-License-Identifier: BSD-3-Clause
// Unit test: a run snapshot's string datasets replayed into the run file (run_snapshot_h5.c) are
// stored compact when small (no chunk index: they are never appended to) and chunked when large,
// and read back as recorded either way; scal_h5_write_strings (campaign files) stays extendible.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "errmsg.h"
#include "h5util.h"
#include "layout.h"
#include "run_snapshot.h"
#include "run_snapshot_h5.h"
#include "scal/status.h"
#include "scal_test.h"

#define NBIG 2000

static H5D_layout_t layout_of(hid_t loc, const char *name)
{
    hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
    hid_t p = d >= 0 ? H5Dget_create_plist(d) : -1;
    H5D_layout_t l = p >= 0 ? H5Pget_layout(p) : H5D_LAYOUT_ERROR;
    if (p >= 0) H5Pclose(p);
    if (d >= 0) H5Dclose(d);
    return l;
}

/* name of loc holds exactly the n strings want (UTF-8 variable-length, in order). */
static bool reads_back(hid_t loc, const char *name, const char *const *want, size_t n)
{
    char **got = NULL;
    size_t ngot = 0;
    bool same = scal_h5_read_strings(loc, name, &got, &ngot) == SCAL_OK && ngot == n;
    for (size_t i = 0; same && i < n; i++)
        same = !strcmp(got[i], want[i]);
    scal_h5_free_strings(got, ngot);
    return same;
}

int main(void)
{
    static char bufs[NBIG][24];
    static const char *big[NBIG];
    const char *few[] = {"", "main", "x.c:12 (kernel)", "\xc3\xa9t\xc3\xa9 (UTF-8)",
                         "a string longer than sixteen bytes, kept in the global heap"};
    const size_t nfew = sizeof(few) / sizeof(few[0]);
    for (int i = 0; i < NBIG; i++) {
        snprintf(bufs[i], sizeof(bufs[i]), "s%d", i);
        big[i] = bufs[i];
    }
    scal_h5_quiet();

    /* 1. a snapshot with a regions table (the replay labels it and rewrites /strings), small and
     * large string lists and an empty one, replayed as the writer replays it */
    struct scal_snap_builder b;
    struct scal_region_row root;
    memset(&root, 0, sizeof(root));
    root.kind = SCAL_KIND_ROOT, root.parent = -1, root.name = 1;
    scal_snap_builder_init(&b);
    scal_snap_group(&b, "/meta");
    scal_snap_strings(&b, "/", "strings", few, nfew);
    scal_snap_strings(&b, "/meta", "big", big, NBIG);
    scal_snap_strings(&b, "/meta", "none", NULL, 0);
    scal_snap_table(&b, "/", "regions", scal_table_run_regions.fields,
                    scal_table_run_regions.nfields, scal_table_run_regions.row_size, &root, 1);
    char path[] = "/tmp/scal-test-snap-XXXXXX";
    int fd = mkstemp(path);
    struct scal_snap_info info = {.pid = getpid()};
    snprintf(info.final_path, sizeof(info.final_path), "%s.h5", path);
    CHECK(fd >= 0 && b.err == SCAL_OK && scal_snap_write(&b, &info, fd, path) == SCAL_OK,
          "snapshot written");
    if (fd >= 0) close(fd);
    scal_snap_builder_free(&b);
    struct scal_snap s;
    int rc = scal_snap_load(path, &s);
    CHECK(rc == SCAL_OK, "snapshot loaded: %s", rc < 0 ? scal__last_error(rc) : "");
    unlink(path);
    if (rc < 0) return scal_test_result("snap_strings");
    hid_t file = scal_snap_memory_file();
    rc = file >= 0 ? scal_snap_replay(&s, file) : (int)file;
    CHECK(rc >= 0, "replayed: %s", rc < 0 ? scal__last_error(rc) : "");
    scal_snap_release(&s);

    CHECK(layout_of(file, "strings") == H5D_COMPACT, "the run file's /strings is compact");
    CHECK(layout_of(file, "meta/none") == H5D_COMPACT, "an empty string list is compact");
    CHECK(layout_of(file, "meta/big") == H5D_CHUNKED, "%d strings stay chunked", NBIG);
    CHECK(reads_back(file, "meta/big", big, NBIG), "the large list reads back as recorded");
    CHECK(reads_back(file, "meta/none", NULL, 0), "the empty list reads back empty");
    char **st = NULL;
    size_t nst = 0;
    CHECK(scal_h5_read_strings(file, "strings", &st, &nst) == SCAL_OK && nst >= nfew,
          "/strings read back");
    for (size_t i = 0; st && i < nfew && i < nst; i++)
        CHECK_STR(st[i], few[i]);
    scal_h5_free_strings(st, nst);
    CHECK(nst > nfew, "the replay added the region's label to /strings (%zu strings)", nst);

    /* 2. the bound: 1024 ids of 16 bytes compact, one more chunked; the campaign's kind of string
     * dataset stays extendible */
    CHECK(scal_h5_write_strings_fixed(file, "at_bound", big, 1024) == SCAL_OK &&
              layout_of(file, "at_bound") == H5D_COMPACT && reads_back(file, "at_bound", big, 1024),
          "1024 strings: compact, read back");
    CHECK(scal_h5_write_strings_fixed(file, "past_bound", big, 1025) == SCAL_OK &&
              layout_of(file, "past_bound") == H5D_CHUNKED &&
              reads_back(file, "past_bound", big, 1025),
          "1025 strings: chunked, read back");
    CHECK(scal_h5_write_strings(file, "grows", few, 2) == SCAL_OK &&
              layout_of(file, "grows") == H5D_CHUNKED &&
              scal_h5_append_strings(file, "grows", few + 2, nfew - 2) == SCAL_OK &&
              reads_back(file, "grows", few, nfew),
          "scal_h5_write_strings makes an extendible dataset");
    if (file >= 0) H5Fclose(file);
    return scal_test_result("snap_strings");
}
