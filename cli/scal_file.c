// SPDX-License-Identifier: BSD-3-Clause
// Opening scal files for the CLI: ordered checks that say exactly what is wrong with a file.
#include "scal_file.h"

#include <errno.h>
#include <stdlib.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "errmsg.h"
#include "probe.h"
#include "h5util.h"
#include "layout.h"
#include "scal/status.h"

static sigjmp_buf guard_env;

static void on_crash(int sig)
{
    siglongjmp(guard_env, sig);
}

int scal_guarded(int (*fn)(void *), void *arg)
{
    /* A child reads first: HDF5 may corrupt its heap on a damaged file and abort. */
    int prc = scal_probe(fn, arg);
    if (prc < 0) return prc;
    struct sigaction sa, old_segv, old_bus;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_crash;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &old_segv);
    sigaction(SIGBUS, &sa, &old_bus);
    volatile int rc;
    if (sigsetjmp(guard_env, 1) == 0)
        rc = fn(arg);
    else
        rc = scal__fail(SCAL_EFORMAT, "the HDF5 library crashed reading it (the file is damaged)");
    sigaction(SIGSEGV, &old_segv, NULL);
    sigaction(SIGBUS, &old_bus, NULL);
    return rc;
}

struct open_args {
    const char *path;
    struct scal_file *f;
};

static int open_inner(void *p)
{
    struct open_args *a = p;
    struct scal_file *f = a->f;
    char *format = NULL;
    int rc;
    f->id = H5Fopen(a->path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f->id < 0) return scal__fail(SCAL_EFORMAT, "HDF5 cannot open it (truncated or corrupt)");
    if (!scal_h5_attr_exists(f->id, SCAL_ATTR_FORMAT))
        return scal__fail(SCAL_EFORMAT, "not a scal file (no '%s' attribute at the root)",
                          SCAL_ATTR_FORMAT);
    rc = scal_h5_attr_get_str(f->id, SCAL_ATTR_FORMAT, &format);
    if (rc < 0) return rc;
    snprintf(f->format, sizeof(f->format), "%s", format);
    free(format);
    if (strcmp(f->format, SCAL_FORMAT_RUN) && strcmp(f->format, SCAL_FORMAT_CAMPAIGN))
        return scal__fail(SCAL_EFORMAT, "unknown scal format '%s' (expected %s or %s)", f->format,
                          SCAL_FORMAT_RUN, SCAL_FORMAT_CAMPAIGN);
    rc = scal_h5_attr_get_i64(f->id, SCAL_ATTR_SCHEMA_VERSION, &f->version);
    if (rc < 0) return rc;
    if (f->version != SCAL_SCHEMA_VERSION)
        return scal__fail(SCAL_ESCHEMA,
                          "%s schema version %lld is not supported (this scal reads version %d)",
                          f->format, (long long)f->version, SCAL_SCHEMA_VERSION);
    return scal_h5_read_strings(f->id, "strings", &f->strings, &f->nstrings);
}

int scal_file_open(const char *path, struct scal_file *f, char *err, size_t errlen)
{
    struct stat st;
    int rc;
    memset(f, 0, sizeof(*f));
    f->id = -1;
    scal_h5_quiet();
    if (stat(path, &st) != 0) {
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
        return SCAL_ENOENT;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: is a directory, not a scal file", path);
        return SCAL_EFORMAT;
    }
    if (H5Fis_hdf5(path) <= 0) {
        snprintf(err, errlen, "%s: not an HDF5 file", path);
        return SCAL_EFORMAT;
    }
    struct open_args a = {path, f};
    rc = scal_guarded(open_inner, &a);
    if (rc < 0) {
        snprintf(err, errlen, "%s: %s", path, scal__last_error(rc));
        scal_file_close(f);
    }
    return rc;
}

void scal_file_close(struct scal_file *f)
{
    if (f->id >= 0) H5Fclose(f->id);
    scal_h5_free_strings(f->strings, f->nstrings);
    f->strings = NULL;
    f->id = -1;
}

const char *scal_file_str(const struct scal_file *f, uint32_t index)
{
    return index < f->nstrings ? f->strings[index] : "?";
}
