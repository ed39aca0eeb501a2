// SPDX-License-Identifier: BSD-3-Clause
// A run's data when its processes were MPI ranks: the rank files the tool wrote beside the
// expected run file (X.h5 -> X.rank<R>.h5, ompt_tool/mpi_rank.h) read into one payload whose parts
// the campaign writer combines (critical path, per-rank rows, summary).
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grow.h"
#include "campaign_writer.h"
#include "errmsg.h"
#include "h5util.h"
#include "run_snapshot.h"
#include "safe_open.h"

/* Splits path into its directory and the rank files' name prefix ("run-000001.rank"). */
static void rank_prefix(const char *path, char *dir, size_t dlen, char *prefix, size_t plen)
{
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    size_t n = strlen(name);
    if (slash)
        snprintf(dir, dlen, "%.*s", (int)(slash == path ? 1 : slash - path), path);
    else
        snprintf(dir, dlen, ".");
    if (n > 3 && !strcmp(name + n - 3, ".h5")) n -= 3;
    snprintf(prefix, plen, "%.*s.rank", (int)n, name);
}

/* The rank of a rank file's name (prefix, digits, ".h5", suffix), or -1. */
static long rank_of(const char *name, const char *prefix, const char *suffix)
{
    size_t p = strlen(prefix);
    if (strncmp(name, prefix, p)) return -1;
    char *end = NULL;
    const char *digits = name + p;
    if (*digits < '0' || *digits > '9') return -1;
    errno = 0;
    long r = strtol(digits, &end, 10);
    if (errno || r > INT32_MAX || strncmp(end, ".h5", 3) || strcmp(end + 3, suffix)) return -1;
    return r;
}

struct rank_file {
    long rank;
    char path[PATH_MAX + 64];
    const struct scal_cw_snapshot *snap; /* its snapshot's bytes instead of the file */
};

static int by_rank(const void *a, const void *b)
{
    const struct rank_file *x = a, *y = b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* The rank files of path (with suffix after their ".h5"), sorted by rank (*out malloc'ed, *n of
 * them). */
static int list_rank_files(const char *path, const char *suffix, struct rank_file **out, size_t *n)
{
    char dir[PATH_MAX], prefix[NAME_MAX + 16];
    rank_prefix(path, dir, sizeof(dir), prefix, sizeof(prefix));
    *out = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d) return SCAL_OK; /* no directory: no files */
    struct dirent *e;
    size_t cap = 0;
    int rc = SCAL_OK;
    while ((e = readdir(d)) != NULL) {
        long r = rank_of(e->d_name, prefix, suffix);
        if (r < 0) continue;
        if (scal_grow((void **)out, &cap, *n, sizeof(**out), 8) < 0) {
            rc = scal__fail(SCAL_ENOMEM, "out of memory listing the rank files of '%s'", path);
            break;
        }
        (*out)[*n].rank = r;
        snprintf((*out)[*n].path, sizeof((*out)[*n].path), "%s/%s", dir, e->d_name);
        ++*n;
    }
    closedir(d);
    if (rc == SCAL_OK && *n) qsort(*out, *n, sizeof(**out), by_rank);
    return rc;
}

bool scal_cw_run_files_exist(const char *path)
{
    struct rank_file *files = NULL;
    size_t n = 0;
    if (access(path, F_OK) == 0) return true;
    list_rank_files(path, "", &files, &n);
    free(files);
    return n > 0;
}

int scal_cw_run_files_each(const char *path, const char *suffix,
                           int (*fn)(const char *file, void *ctx), void *ctx)
{
    struct rank_file *files = NULL;
    size_t n = 0;
    char own[PATH_MAX + 64];
    snprintf(own, sizeof(own), "%s%s", path, suffix);
    int rc = access(own, F_OK) == 0 ? fn(own, ctx) : SCAL_OK;
    if (rc == SCAL_OK) rc = list_rank_files(path, suffix, &files, &n);
    for (size_t i = 0; i < n && rc == SCAL_OK; i++)
        rc = fn(files[i].path, ctx);
    free(files);
    return rc;
}

static void read_rank_meta(const char *path, unsigned open_flags, struct scal_cw_rank_meta *m)
{
    struct scal_h5file f;
    m->size = -1;
    m->duration_s = NAN;
    m->source[0] = 0;
    if (scal_h5file_open(path, SCAL_OPEN_RUN | SCAL_OPEN_NO_PROBE | open_flags, &f) < 0) return;
    hid_t g = H5Gopen2(f.id, "meta", H5P_DEFAULT);
    char *src = NULL;
    int64_t size;
    if (g >= 0) {
        if (scal_h5_attr_exists(g, "mpi_size") > 0 &&
            scal_h5_attr_get_i64(g, "mpi_size", &size) == 0)
            m->size = size;
        if (scal_h5_attr_exists(g, "mpi_rank_source") > 0 &&
            scal_h5_attr_get_str(g, "mpi_rank_source", &src) == 0)
            snprintf(m->source, sizeof(m->source), "%s", src);
        hid_t a = H5Aexists(g, "duration_s") > 0 ? H5Aopen(g, "duration_s", H5P_DEFAULT) : -1;
        if (a >= 0) {
            double d;
            if (H5Aread(a, H5T_NATIVE_DOUBLE, &d) >= 0) m->duration_s = d;
            H5Aclose(a);
        }
        H5Gclose(g);
    }
    free(src);
    scal_h5file_close(&f);
}

static int add_string(struct scal_cw_payload *p, const char *s, uint32_t *idx)
{
    for (size_t i = 0; i < p->nstrings; i++)
        if (!strcmp(p->strings[i], s)) return (*idx = (uint32_t)i), SCAL_OK;
    char **v = realloc(p->strings, (p->nstrings + 1) * sizeof(*v));
    if (!v) return SCAL_ENOMEM;
    p->strings = v;
    if (!(v[p->nstrings] = strdup(s))) return SCAL_ENOMEM;
    *idx = (uint32_t)p->nstrings++;
    return SCAL_OK;
}

/* The payload of the ranks' files: parts for those that could be read, a /run_ranks row for every
 * rank of the job (those without a readable file not recorded). */
static int from_rank_files(const char *path, const struct rank_file *files, size_t n,
                           unsigned open_flags, struct scal_cw_payload *p)
{
    int rc = SCAL_OK, first_error = SCAL_OK;
    char first_message[1024] = "";
    int64_t size = 0;
    struct scal_cw_rank_meta *meta = calloc(n, sizeof(*meta));
    p->parts = calloc(n, sizeof(*p->parts));
    p->part_ranks = calloc(n, sizeof(*p->part_ranks));
    if (!meta || !p->parts || !p->part_ranks) {
        free(meta);
        return scal__fail(SCAL_ENOMEM, "out of memory reading %zu rank files", n);
    }
    if ((rc = add_string(p, "", &(uint32_t){0})) < 0) goto done;
    for (size_t i = 0; i < n; i++) {
        int prc =
            files[i].snap
                ? scal_cw_payload_from_snapshot(files[i].snap, &p->parts[p->nparts], &meta[i])
                : scal_cw_payload_from_run_file(files[i].path, open_flags, &p->parts[p->nparts]);
        if (prc < 0) { /* a damaged rank file: that rank is not recorded, the others are */
            if (first_error == SCAL_OK) {
                first_error = prc;
                snprintf(first_message, sizeof(first_message), "%s", scal__last_error(prc));
            }
            meta[i].size = -2;
            continue;
        }
        if (!files[i].snap) read_rank_meta(files[i].path, open_flags, &meta[i]);
        p->part_ranks[p->nparts++] = (int32_t)files[i].rank;
        if (meta[i].size > size) size = meta[i].size;
    }
    if (!p->nparts) {
        rc = scal__fail(first_error, "%s", first_message);
        goto done;
    }
    /* every rank of the job: the launcher's size, else up to the largest rank seen */
    if (files[n - 1].rank + 1 > size) size = files[n - 1].rank + 1;
    p->ranks = calloc((size_t)size, sizeof(*p->ranks));
    if (!p->ranks) {
        rc = SCAL_ENOMEM;
        goto done;
    }
    for (int64_t r = 0; r < size && rc == SCAL_OK; r++) {
        struct scal_run_rank_row *row = &p->ranks[p->nranks++];
        *row = (struct scal_run_rank_row){.rank = (int32_t)r, .ranks = -1, .duration_s = NAN};
        for (size_t i = 0; i < n; i++)
            if (files[i].rank == r && meta[i].size != -2) {
                row->recorded = 1;
                row->ranks = (int32_t)meta[i].size;
                row->duration_s = meta[i].duration_s;
                rc = add_string(p, meta[i].source, &row->source);
            }
    }
done:
    free(meta);
    (void)path;
    return rc;
}

int scal_cw_payload_from_run_files(const char *path, unsigned open_flags, struct scal_cw_payload *p)
{
    struct rank_file *files = NULL;
    size_t n = 0;
    memset(p, 0, sizeof(*p));
    if (access(path, F_OK) == 0) return scal_cw_payload_from_run_file(path, open_flags, p);
    int rc = list_rank_files(path, "", &files, &n);
    if (rc == SCAL_OK && !n) rc = scal__fail(SCAL_ENOENT, "'%s' does not exist", path);
    if (rc == SCAL_OK) rc = from_rank_files(path, files, n, open_flags, p);
    free(files);
    if (rc < 0) scal_cw_payload_free(p);
    return rc;
}

int scal_cw_payload_from_snapshots(const char *path, const struct scal_cw_snapshot *snaps, size_t n,
                                   struct scal_cw_payload *p)
{
    char dir[PATH_MAX], prefix[NAME_MAX + 16], own[PATH_MAX + 64];
    memset(p, 0, sizeof(*p));
    snprintf(own, sizeof(own), "%s" SCAL_SNAP_SUFFIX, path);
    for (size_t i = 0; i < n; i++) /* the run's own snapshot: the run was not MPI ranks */
        if (!strcmp(snaps[i].name, own)) return scal_cw_payload_from_snapshot(&snaps[i], p, NULL);
    rank_prefix(path, dir, sizeof(dir), prefix, sizeof(prefix));
    struct rank_file *files = calloc(n ? n : 1, sizeof(*files));
    size_t nfiles = 0;
    if (!files) return scal__fail(SCAL_ENOMEM, "out of memory reading %zu rank snapshots", n);
    for (size_t i = 0; i < n; i++) {
        const char *slash = strrchr(snaps[i].name, '/');
        long r = rank_of(slash ? slash + 1 : snaps[i].name, prefix, SCAL_SNAP_SUFFIX);
        if (r < 0) continue; /* not one of this run's */
        files[nfiles].rank = r;
        snprintf(files[nfiles].path, sizeof(files[nfiles].path), "%s", snaps[i].name);
        files[nfiles++].snap = &snaps[i];
    }
    int rc = SCAL_OK;
    if (!nfiles) rc = scal__fail(SCAL_ENOENT, "'%s' left no snapshot", path);
    if (rc == SCAL_OK) {
        qsort(files, nfiles, sizeof(*files), by_rank);
        rc = from_rank_files(path, files, nfiles, 0, p);
    }
    free(files);
    if (rc < 0) scal_cw_payload_free(p);
    return rc;
}
