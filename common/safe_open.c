// SPDX-License-Identifier: BSD-3-Clause
// Opening scal files safely (see safe_open.h): ordered checks, a probe that reads everything in a
// child first, then the real open.
#include "safe_open.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "errmsg.h"
#include "h5util.h"
#include "layout.h"
#include "probe.h"
#include "scal/status.h"
#include "validate.h"

/* HDF5 holds an exclusive lock while a file is open for writing: a campaign a running scal run is
 * writing, or whose interrupted committer is still closing it. With wait, wait for it (at most
 * 10 s); without, say at once that it is locked (HDF5 would only say "truncated or corrupt"). */
static int check_unlocked(const char *path, bool wait)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return SCAL_OK; /* the open below says why */
    int rc = SCAL_OK;
    for (int tries = 0; flock(fd, LOCK_SH | LOCK_NB) < 0; tries++) {
        if (errno != EWOULDBLOCK || tries == (wait ? 100 : 0)) {
            if (errno != EWOULDBLOCK)
                rc = SCAL_OK;
            else if (wait)
                rc = scal__fail(SCAL_ETIMEDOUT,
                                "'%s' is still open for writing in another process (a running "
                                "scal run?)",
                                path);
            else
                rc = scal__fail(SCAL_ETIMEDOUT,
                                "'%s' is locked: another process is writing it (a running scal "
                                "run); read it once that has finished",
                                path);
            break;
        }
        struct timespec ts = {0, 100000000};
        nanosleep(&ts, NULL);
    }
    close(fd);
    return rc;
}

/* CPU seconds the probe may take: generous for the file's size (HDF5 reads and inflates a campaign
 * at well over 10 MB per CPU second), short enough that a loop on damaged data ends. */
static unsigned probe_cpu_seconds(const char *path)
{
    struct stat st;
    uint64_t size = stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
    return 10u + (unsigned)(size / (10u << 20));
}

static int check_path(const char *path, unsigned flags)
{
    struct stat st;
    if (stat(path, &st) != 0 || access(path, R_OK) != 0)
        return scal__fail(errno == ENOENT   ? SCAL_ENOENT
                          : errno == EACCES ? SCAL_EPERM
                                            : SCAL_EIO,
                          "cannot read '%s' (cannot open it: %s)", path, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return scal__fail(SCAL_EFORMAT, "'%s' is a directory, not a scal file", path);
    if ((flags & SCAL_OPEN_WRITE) && access(path, W_OK) != 0)
        return scal__fail(SCAL_EPERM, "cannot write to '%s': %s", path, strerror(errno));
    return SCAL_OK;
}

static int check_format(struct scal_h5file *f, unsigned flags)
{
    char *format = NULL;
    if (!scal_h5_attr_exists(f->id, SCAL_ATTR_FORMAT))
        return scal__fail(SCAL_EFORMAT, "'%s' is not a scal file (no '%s' attribute at the root)",
                          f->path, SCAL_ATTR_FORMAT);
    if (scal_h5_attr_get_str(f->id, SCAL_ATTR_FORMAT, &format) < 0)
        return scal__fail(SCAL_EFORMAT, "'%s' is not a scal file ('%s' is not a string)", f->path,
                          SCAL_ATTR_FORMAT);
    snprintf(f->format, sizeof(f->format), "%s", format);
    bool known = !strcmp(format, SCAL_FORMAT_RUN) || !strcmp(format, SCAL_FORMAT_CAMPAIGN);
    free(format);
    if (!known)
        return scal__fail(SCAL_EFORMAT, "'%s' is a '%s' file, not a scal campaign or run file",
                          f->path, f->format);
    f->campaign = !strcmp(f->format, SCAL_FORMAT_CAMPAIGN);
    if ((flags & SCAL_OPEN_CAMPAIGN) && !f->campaign)
        return scal__fail(SCAL_EFORMAT,
                          "'%s' is not a scal campaign file (a run file: campaigns come from "
                          "scal run)",
                          f->path);
    if ((flags & SCAL_OPEN_RUN) && f->campaign)
        return scal__fail(SCAL_EFORMAT, "'%s' is not a scal run file (a campaign file)", f->path);
    if (scal_h5_attr_get_i64(f->id, SCAL_ATTR_SCHEMA_VERSION, &f->version) < 0)
        return scal__fail(SCAL_EFORMAT, "'%s' has no readable '%s' attribute", f->path,
                          SCAL_ATTR_SCHEMA_VERSION);
    if (f->version != SCAL_SCHEMA_VERSION)
        return scal__fail(SCAL_ESCHEMA,
                          "'%s': %s schema version %lld is not supported (this scal reads "
                          "version %d)",
                          f->path, f->format, (long long)f->version, SCAL_SCHEMA_VERSION);
    return SCAL_OK;
}

/* The HDF5 open and the root checks; the caller closes f on error. */
static int open_checked(struct scal_h5file *f, unsigned flags)
{
    if (H5Fis_hdf5(f->path) <= 0)
        return scal__fail(SCAL_EFORMAT, "'%s' is not an HDF5 file (or it is truncated or corrupt)",
                          f->path);
    f->id =
        H5Fopen(f->path, (flags & SCAL_OPEN_WRITE) ? H5F_ACC_RDWR : H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f->id < 0)
        return scal__fail(SCAL_EFORMAT, "'%s': HDF5 cannot open it (truncated or corrupt)",
                          f->path);
    int rc = check_format(f, flags);
    if (rc < 0) return rc;
    return scal_h5_read_strings(f->id, "strings", &f->strings, &f->nstrings);
}

/* ---- the probe: every dataset and attribute read once, in a child ---------------------------- */

struct walk {
    const char *path;
    int rc;
};

/* A 1-D dataset is read this many bytes at a time, so that the probe's memory stays small
 * whatever the table's size (a report reads only a few members of the largest tables). */
#define PROBE_SLAB_BYTES ((size_t)4 << 20)

/* Reads rows [start, start + count) of a 1-D dataset, or (count 0) a whole attribute or dataset,
 * into buf, and frees what HDF5 allocated for variable-length values. */
static herr_t read_part(hid_t obj, bool attribute, hid_t mtype, hid_t space, hsize_t start,
                        hsize_t count, void *buf)
{
    bool vlen = H5Tdetect_class(mtype, H5T_VLEN) > 0 || H5Tis_variable_str(mtype) > 0;
    if (count == 0) {
        herr_t r = attribute ? H5Aread(obj, mtype, buf)
                             : H5Dread(obj, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
        if (r >= 0 && vlen) H5Dvlen_reclaim(mtype, space, H5P_DEFAULT, buf);
        return r;
    }
    hid_t fsel = H5Scopy(space), msel = H5Screate_simple(1, &count, NULL);
    herr_t r = fsel < 0 || msel < 0 ? -1
               : H5Sselect_hyperslab(fsel, H5S_SELECT_SET, &start, NULL, &count, NULL) < 0
                   ? -1
                   : H5Dread(obj, mtype, msel, fsel, H5P_DEFAULT, buf);
    if (r >= 0 && vlen) H5Dvlen_reclaim(mtype, msel, H5P_DEFAULT, buf);
    if (msel >= 0) H5Sclose(msel);
    if (fsel >= 0) H5Sclose(fsel);
    return r;
}

/* Reads a dataset (1-D ones in slabs) or an attribute with HDF5's native memory type. */
static int read_whole(hid_t obj, bool attribute, hid_t ftype, hid_t space, const char *path,
                      const char *name)
{
    int rc = SCAL_OK;
    hid_t mtype = H5Tget_native_type(ftype, H5T_DIR_ASCEND);
    hssize_t n = H5Sget_simple_extent_npoints(space);
    size_t size = mtype >= 0 ? H5Tget_size(mtype) : 0;
    void *buf = NULL;
    if (mtype < 0 || n < 0 || size == 0) {
        rc = scal__fail(SCAL_EFORMAT, "'%s': '%s' has an unreadable type or shape", path, name);
        goto done;
    }
    if ((rc = scal_h5_check_size(obj, (uint64_t)n, size, name)) < 0 || n == 0) goto done;
    bool slabs = !attribute && H5Sget_simple_extent_ndims(space) == 1;
    hsize_t per = slabs ? (PROBE_SLAB_BYTES / size ? PROBE_SLAB_BYTES / size : 1) : (hsize_t)n;
    if (per > (hsize_t)n) per = (hsize_t)n;
    if (!(buf = calloc((size_t)per, size))) {
        rc = scal__fail(SCAL_ENOMEM, "'%s': out of memory reading '%s'", path, name);
        goto done;
    }
    for (hsize_t start = 0; start < (hsize_t)n && rc == SCAL_OK; start += per) {
        hsize_t count = slabs ? ((hsize_t)n - start < per ? (hsize_t)n - start : per) : 0;
        if (read_part(obj, attribute, mtype, space, start, count, buf) < 0)
            rc = scal__fail(SCAL_EFORMAT, "'%s': '%s' cannot be read (damaged)", path, name);
    }
done:
    free(buf);
    if (mtype >= 0) H5Tclose(mtype);
    return rc;
}

static herr_t visit_attribute(hid_t obj, const char *name, const H5A_info_t *info, void *data)
{
    struct walk *w = data;
    (void)info;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    hid_t t = a >= 0 ? H5Aget_type(a) : -1, s = a >= 0 ? H5Aget_space(a) : -1;
    if (t < 0 || s < 0)
        w->rc = scal__fail(SCAL_EFORMAT, "'%s': attribute '%s' cannot be opened (damaged)", w->path,
                           name);
    else
        w->rc = read_whole(a, true, t, s, w->path, name);
    if (s >= 0) H5Sclose(s);
    if (t >= 0) H5Tclose(t);
    if (a >= 0) H5Aclose(a);
    return w->rc < 0 ? -1 : 0;
}

/* Reads the object at name (a dataset whole) and its attributes. */
static int read_object(hid_t root, const char *name, struct walk *w)
{
    hid_t o = H5Oopen(root, name, H5P_DEFAULT);
    if (o < 0)
        return scal__fail(SCAL_EFORMAT, "'%s': '%s' cannot be opened (damaged)", w->path, name);
    int rc = SCAL_OK;
    if (H5Iget_type(o) == H5I_DATASET) {
        hid_t t = H5Dget_type(o), s = H5Dget_space(o);
        if (t < 0 || s < 0)
            rc = scal__fail(SCAL_EFORMAT, "'%s': dataset '%s' cannot be opened (damaged)", w->path,
                            name);
        else
            rc = read_whole(o, false, t, s, w->path, name);
        if (s >= 0) H5Sclose(s);
        if (t >= 0) H5Tclose(t);
    }
    hsize_t idx = 0;
    w->rc = SCAL_OK;
    if (rc == SCAL_OK &&
        H5Aiterate2(o, H5_INDEX_NAME, H5_ITER_NATIVE, &idx, visit_attribute, w) < 0)
        rc = w->rc < 0
                 ? w->rc
                 : scal__fail(SCAL_EFORMAT, "'%s': the attributes of '%s' cannot be read (damaged)",
                              w->path, name);
    H5Oclose(o);
    return rc;
}

/* H5Lvisit and H5L_info_t unversioned: the same code builds against HDF5 1.10 and 1.12+. */
static herr_t visit_link(hid_t root, const char *name, const H5L_info_t *info, void *data)
{
    struct walk *w = data;
    if (info->type == H5L_TYPE_EXTERNAL && !strcmp(name, SCAL_ANALYSIS_LINK))
        return 0; /* scal report's analysis, in a file of its own: never followed by readers */
    if (info->type != H5L_TYPE_HARD) {
        w->rc = scal__fail(SCAL_EFORMAT,
                           "'%s': '%s' is a soft or external link, which scal files never hold "
                           "(but for /%s, the report's analysis; damaged)",
                           w->path, name, SCAL_ANALYSIS_LINK);
        return -1;
    }
    w->rc = read_object(root, name, w);
    return w->rc < 0 ? -1 : 0;
}

struct probe_args {
    const char *path;
    unsigned flags;
};

static int probe_file(void *p)
{
    const struct probe_args *a = p;
    struct scal_h5file f = {.id = -1, .path = (char *)a->path};
    struct walk w = {a->path, SCAL_OK};
    int rc = open_checked(&f, a->flags & ~(unsigned)SCAL_OPEN_WRITE);
    /* the validator's reads first, as the caller will make them after this probe (scal check, a
     * reader's SCAL_OPEN_VALIDATE): HDF5 crashes on some damage only in that order */
    if (rc == SCAL_OK) scal_validate(&f, NULL, NULL);
    if (rc == SCAL_OK) rc = read_object(f.id, ".", &w);
    if (rc == SCAL_OK && H5Lvisit(f.id, H5_INDEX_NAME, H5_ITER_NATIVE, visit_link, &w) < 0)
        rc = w.rc < 0
                 ? w.rc
                 : scal__fail(SCAL_EFORMAT, "'%s': its groups cannot be read (damaged)", a->path);
    /* closed here too: HDF5 may abort closing a damaged file (its cache frees what it read) */
    if (f.id >= 0 && H5Fclose(f.id) < 0 && rc == SCAL_OK)
        rc = scal__fail(SCAL_EFORMAT, "'%s' cannot be closed (damaged)", a->path);
    scal_h5_free_strings(f.strings, f.nstrings);
    return rc;
}

/* ---- opening -------------------------------------------------------------------------------- */

/* Frees f without a message (an open that failed keeps its own). */
static void release(struct scal_h5file *f)
{
    if (f->id >= 0) H5Fclose(f->id);
    scal_h5_free_strings(f->strings, f->nstrings);
    free(f->path);
    memset(f, 0, sizeof(*f));
    f->id = H5I_INVALID_HID;
}

/* A damaged campaign whose plan and runs are kept beside it (scal run keeps them until the
 * campaign is complete): the message says how to get it back. */
static int name_recovery(const char *path, int rc)
{
    char kept[4200], msg[2048];
    snprintf(kept, sizeof(kept), "%s.runs/plan.h5", path);
    if (access(kept, F_OK) != 0) return rc;
    snprintf(msg, sizeof(msg), "%s", scal__last_error(rc));
    return scal__fail(rc, "%s; scal run --resume %s rebuilds it from the runs kept in %s.runs", msg,
                      path, path);
}

int scal_h5file_open(const char *path, unsigned flags, struct scal_h5file *f)
{
    memset(f, 0, sizeof(*f));
    f->id = H5I_INVALID_HID;
    scal_h5_quiet();
    int rc = check_path(path, flags);
    if (rc == SCAL_OK) rc = check_unlocked(path, flags & SCAL_OPEN_WAIT);
    if (rc == SCAL_OK && !(flags & SCAL_OPEN_NO_PROBE)) {
        struct probe_args a = {path, flags};
        rc = scal_probe(probe_file, &a, path, probe_cpu_seconds(path));
    }
    if (rc == SCAL_OK && !(f->path = strdup(path)))
        rc = scal__fail(SCAL_ENOMEM, "out of memory opening '%s'", path);
    if (rc == SCAL_OK) rc = open_checked(f, flags);
    if (rc == SCAL_OK && (flags & SCAL_OPEN_VALIDATE)) rc = scal_validate_file(f);
    if (rc == SCAL_EFORMAT) rc = name_recovery(path, rc);
    if (rc < 0) release(f);
    return rc;
}

int scal_h5file_close(struct scal_h5file *f)
{
    int rc = SCAL_OK;
    if (f->id >= 0 && H5Fclose(f->id) < 0)
        rc = scal__fail(SCAL_EIO, "cannot close '%s'", f->path ? f->path : "");
    f->id = H5I_INVALID_HID;
    release(f);
    return rc;
}

const char *scal_h5file_str(const struct scal_h5file *f, uint32_t index)
{
    return index < f->nstrings && f->strings[index] ? f->strings[index] : "";
}
