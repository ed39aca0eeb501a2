// SPDX-License-Identifier: BSD-3-Clause
// A run snapshot (run_snapshot.h) replayed into its HDF5 run file, through the same h5util calls
// the writer made before snapshots existed, so the file is the same for every reader. Used by the
// runner (one HDF5 for every run of a campaign) and by the writer program scal-run-writer. The one
// thing added on the way: the regions' labels (region_identity.h), derived here, where the file is
// written, never in the measured process.
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errmsg.h"
#include "h5util.h"
#include "layout.h"
#include "region_identity.h"
#include "run_snapshot.h"
#include "run_snapshot_h5.h"
#include "safe_create.h"
#include "scal_format.h"
#include "scal/status.h"
#include "strtab.h"

static hid_t open_obj(hid_t file, const char *path)
{
    return H5Gopen2(file, path, H5P_DEFAULT);
}

/* The run file's /strings and /regions with the regions' labels stored (and the labels added to
 * the strings): what the replay writes in place of the two operations. */
struct labelled {
    bool found;
    struct scal_strtab strings;
    struct scal_region_row *rows;
    size_t n;
};

static bool is_root_op(const struct scal_snap_op *op, enum scal_snap_op_code code, const char *name)
{
    return op->code == code && !strcmp(op->obj, "/") && !strcmp(op->name, name);
}

/* Reads the snapshot's /strings and /regions (the last of each, as in the file) and labels the
 * regions. A snapshot without both is replayed as it is. */
static int label_regions(struct scal_snap *s, struct labelled *l)
{
    struct scal_snap_op op;
    size_t pos = 0, n = 0;
    int got = 0, rc = SCAL_OK;
    bool have_strings = false;
    void *rows = NULL;
    while (rc == SCAL_OK && (got = scal_snap_next(s, &pos, &op)) == 1) {
        if (is_root_op(&op, SCAL_SNAP_OP_STRINGS, "strings")) {
            if (have_strings) scal_strtab_free(&l->strings);
            rc = scal_strtab_from(&l->strings, op.strings, op.n, s->path);
            have_strings = rc == SCAL_OK;
        } else if (is_root_op(&op, SCAL_SNAP_OP_TABLE, "regions")) {
            free(rows);
            rc = scal_h5_convert_rows(s->path, op.name, op.fields, op.nfields, op.row_size, op.rows,
                                      op.n, scal_table_run_regions.fields,
                                      scal_table_run_regions.nfields,
                                      scal_table_run_regions.row_size, &rows);
            n = rc == SCAL_OK ? op.n : 0;
        }
    }
    if (rc == SCAL_OK && got < 0) rc = got;
    struct scal_region_id_row *ids = rc == SCAL_OK && rows ? scal_region_id_rows(rows, n) : NULL;
    if (rc == SCAL_OK && rows && have_strings) {
        if (!ids) rc = scal__fail(SCAL_ENOMEM, "out of memory labelling %zu regions", n);
        for (size_t i = 0; i < n && rc == SCAL_OK; i++)
            ids[i].label = SCAL_NO_STRING; /* derived here, whatever was recorded */
        if (rc == SCAL_OK) rc = scal_region_labels_store(ids, n, &l->strings);
        for (size_t i = 0; i < n && rc == SCAL_OK; i++)
            ((struct scal_region_row *)rows)[i].label = ids[i].label;
        if (rc == SCAL_OK) {
            l->found = true, l->rows = rows, l->n = n;
            rows = NULL;
        }
    }
    free(ids);
    free(rows);
    if (have_strings && !l->found) scal_strtab_free(&l->strings);
    return rc < 0 ? scal__fail(rc, "cannot label the regions of the run snapshot '%s': %s", s->path,
                               scal__last_error(rc))
                  : SCAL_OK;
}

static void labelled_free(struct labelled *l)
{
    if (l->found) scal_strtab_free(&l->strings);
    free(l->rows);
    memset(l, 0, sizeof(*l));
}

int scal_snap_replay(struct scal_snap *s, hid_t file)
{
    struct scal_snap_op op;
    struct labelled l = {0};
    size_t pos = 0;
    hid_t obj = H5I_INVALID_HID; /* the group the last operation named, kept open for the next */
    const char *obj_path = NULL;
    int got = label_regions(s, &l);
    while (got >= 0 && (got = scal_snap_next(s, &pos, &op)) == 1) {
        int rc = SCAL_OK;
        if (op.code == SCAL_SNAP_OP_GROUP) {
            hid_t g = H5Gcreate2(file, op.obj, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
            if (g < 0) {
                got = scal__fail(SCAL_EHDF5, "cannot create group %s", op.obj);
                break;
            }
            H5Gclose(g);
            continue;
        }
        if (obj < 0 || strcmp(obj_path, op.obj) != 0) {
            if (obj >= 0) H5Gclose(obj);
            obj = open_obj(file, op.obj);
            obj_path = op.obj;
        }
        if (obj < 0) {
            got =
                scal__fail(SCAL_EFORMAT, "the run snapshot '%s' names group %s before creating it",
                           s->path, op.obj);
            break;
        }
        if (l.found && is_root_op(&op, SCAL_SNAP_OP_STRINGS, "strings"))
            rc = scal_h5_write_strings_fixed(obj, op.name, (const char *const *)l.strings.strings,
                                             l.strings.count);
        else if (l.found && is_root_op(&op, SCAL_SNAP_OP_TABLE, "regions"))
            rc = scal_h5_write_table_fixed(
                obj, scal_table_run_regions.name, scal_table_run_regions.fields,
                scal_table_run_regions.nfields, scal_table_run_regions.row_size, l.rows, l.n);
        else
            switch (op.code) {
            case SCAL_SNAP_OP_ATTR_STR:
                rc = scal_h5_attr_set_str(obj, op.name, op.str);
                break;
            case SCAL_SNAP_OP_ATTR_I64:
                rc = scal_h5_attr_set_i64(obj, op.name, op.i64);
                break;
            case SCAL_SNAP_OP_ATTR_F64:
                rc = scal_h5_attr_set_f64(obj, op.name, op.f64);
                break;
            case SCAL_SNAP_OP_STRINGS:
                rc = scal_h5_write_strings_fixed(obj, op.name, op.strings, op.n);
                break;
            case SCAL_SNAP_OP_TABLE:
                rc = scal_h5_write_table_fixed(obj, op.name, op.fields, op.nfields, op.row_size,
                                               op.rows, op.n);
                break;
            default:
                break;
            }
        if (rc < 0) { /* h5util's message names the object */
            got = rc;
            break;
        }
    }
    if (obj >= 0) H5Gclose(obj);
    labelled_free(&l);
    return got;
}

/* Moves the written file to `path`, never over the file of a process that wrote it while the
 * measured one ran (a child it exec'd, a concurrent process of a launcher): link() fails when the
 * name exists; a file older than the tool's start in the measured process is a finished process's
 * (an earlier run, an earlier step of a script) and is replaced as before; a newer one is kept and
 * this process's data goes to "<name>.<pid>.h5" instead (said on stderr). path is updated to the
 * name used. */
static int put_in_place(const char *tmp, char *path, size_t len, const struct scal_snap_info *info)
{
    struct stat old;
    if (link(tmp, path) == 0) {
        unlink(tmp);
        return SCAL_OK;
    }
    if (errno != EEXIST || stat(path, &old) != 0 ||
        (double)old.st_mtim.tv_sec + old.st_mtim.tv_nsec * 1e-9 < info->tool_start_unix) {
        if (rename(tmp, path) != 0) /* no hard links here, or an earlier run's file */
            return scal__fail(SCAL_EIO, "cannot rename '%s' to '%s': %s", tmp, path,
                              strerror(errno));
        return SCAL_OK;
    }
    char mine[4300];
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    int stem = dot && (!slash || dot > slash) ? (int)(dot - path) : (int)strlen(path);
    snprintf(mine, sizeof(mine), "%.*s.%lld%s", stem, path, (long long)info->pid,
             dot && (!slash || dot > slash) ? dot : "");
    if (rename(tmp, mine) != 0)
        return scal__fail(SCAL_EIO, "cannot rename '%s' to '%s': %s", tmp, mine, strerror(errno));
    fprintf(stderr, "scal: %s was written by another process of this run; process %lld wrote %s\n",
            path, (long long)info->pid, mine);
    snprintf(path, len, "%s", mine);
    return SCAL_OK;
}

/* HDF5's core driver without a backing store creates nothing on disk, but every H5Fcreate first
 * opens its name on disk to see whether the file is open already (and would read in whole a file
 * found there), and tells two open files apart by their names: the name is one that cannot exist
 * (a path below /dev/null), unique in this process. The memory grows by 64 KiB (1 MiB steps made
 * each run file cost ~10 ms more here). */
hid_t scal_snap_memory_file(void)
{
    static _Atomic unsigned long made;
    char name[96];
    hid_t file = H5I_INVALID_HID, fapl = H5Pcreate(H5P_FILE_ACCESS);
    snprintf(name, sizeof(name), "/dev/null/scal-run-file-%ld-%lu", (long)getpid(),
             (unsigned long)made++);
    if (fapl >= 0 && H5Pset_fapl_core(fapl, 64 << 10, 0) >= 0)
        file = H5Fcreate(name, H5F_ACC_EXCL, H5P_DEFAULT, fapl);
    if (fapl >= 0) H5Pclose(fapl);
    return file < 0 ? scal__fail(SCAL_EHDF5, "cannot create an HDF5 file in memory") : file;
}

/* The file is built in memory and written with plain write(2): a full disk or an I/O error is an
 * error of ours, never an HDF5 file left half-open in this process. file: made ahead, or
 * H5I_INVALID_HID; closed here. */
static int build_image(hid_t file, struct scal_snap *s, void **image, size_t *size)
{
    if (file < 0) file = scal_snap_memory_file();
    int rc = file < 0 ? (int)file : SCAL_OK;
    if (rc == SCAL_OK) rc = scal_snap_replay(s, file);
    if (rc == SCAL_OK && H5Fflush(file, H5F_SCOPE_GLOBAL) < 0)
        rc = scal__fail(SCAL_EHDF5, "cannot flush the HDF5 file in memory");
    ssize_t n = rc == SCAL_OK ? H5Fget_file_image(file, NULL, 0) : -1;
    if (rc == SCAL_OK && (n <= 0 || !(*image = malloc((size_t)n)) ||
                          H5Fget_file_image(file, *image, (size_t)n) != n))
        rc = scal__fail(SCAL_EHDF5, "cannot take the HDF5 file's image (%zd bytes)", n);
    *size = n > 0 ? (size_t)n : 0;
    if (file >= 0) H5Fclose(file);
    return rc;
}

/* Writes the image through fd, the descriptor of the file's exclusive creation (never a re-open by
 * name), and closes it. */
static int write_image(int fd, const char *tmp, const void *image, size_t size)
{
    const char *p = image;
    int rc = SCAL_OK;
    while (size && rc == SCAL_OK) {
        ssize_t w = write(fd, p, size);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0)
            rc = scal__fail(SCAL_EIO, "cannot write '%s': %s", tmp,
                            strerror(w < 0 ? errno : ENOSPC));
        else
            p += w, size -= (size_t)w;
    }
    if (close(fd) != 0 && rc == SCAL_OK)
        rc = scal__fail(SCAL_EIO, "cannot write '%s': %s", tmp, strerror(errno));
    return rc;
}

int scal_snap_convert(const char *snapshot, unsigned flags, char *final, size_t len)
{
    return scal_snap_convert_in(H5I_INVALID_HID, snapshot, flags, final, len);
}

/* Writes the run file of the loaded snapshot s (released here), named `source` in messages. Once
 * the run file is in place, the snapshot has served: a snapshot file (source_fd < 0) is removed,
 * one handed over at source_fd is emptied (the sign its sender reads if no answer comes). */
static int convert_loaded(hid_t file, struct scal_snap *s, const char *source, int source_fd,
                          unsigned flags, char *final, size_t len)
{
    char tmp[4300] = "", path[4300];
    void *image = NULL;
    size_t size = 0;
    snprintf(path, sizeof(path), "%s", s->info.final_path);
    scal_h5_quiet();
    int rc = scal_safe_check_final(path, true);
    if (rc == SCAL_OK)
        rc = build_image(file, s, &image, &size);
    else if (file >= 0)
        H5Fclose(file);
    int fd = rc == SCAL_OK ? scal_safe_create_open(path, true, tmp, sizeof(tmp)) : rc;
    if (fd < 0) rc = fd, tmp[0] = 0;
    if (rc == SCAL_OK) rc = write_image(fd, tmp, image, size);
    free(image);
    if (rc == SCAL_OK) rc = put_in_place(tmp, path, sizeof(path), &s->info);
    if (rc < 0) {
        char why[1200];
        snprintf(why, sizeof(why), "%s", scal__last_error(rc));
        if (tmp[0]) unlink(tmp);
        rc = scal__fail(rc, "cannot write the run file %s from the snapshot %s: %s", path, source,
                        why);
    } else {
        if (source_fd < 0) /* the run file is in place: the snapshot has served */
            unlink(source);
        else /* failing, the sender would write the run file again: as before this sign */
            (void)!ftruncate(source_fd, 0);
        if ((s->info.flags & SCAL_SNAP_VERBOSE) && !(flags & SCAL_SNAP_CONVERT_QUIET))
            fprintf(stderr, "scal: wrote %s\n", path);
    }
    if (final) snprintf(final, len, "%s", path);
    scal_snap_release(s);
    return rc;
}

int scal_snap_convert_in(hid_t file, const char *snapshot, unsigned flags, char *final, size_t len)
{
    struct scal_snap s;
    int rc = scal_snap_load(snapshot, &s);
    if (rc < 0) {
        if (file >= 0) H5Fclose(file);
        return rc;
    }
    return convert_loaded(file, &s, snapshot, -1, flags, final, len);
}

int scal_snap_convert_fd_in(hid_t file, int fd, const char *name, unsigned flags, char *final,
                            size_t len)
{
    struct scal_snap s;
    int rc = scal_snap_load_fd(fd, name, &s);
    if (rc < 0) {
        if (file >= 0) H5Fclose(file);
        return rc;
    }
    return convert_loaded(file, &s, name, fd, flags, final, len);
}
