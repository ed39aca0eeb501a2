/* SPDX-License-Identifier: BSD-3-Clause */
/* The one way scal opens a run or campaign file it did not just write: checks in order (exists,
 * HDF5, scal format, schema version, /strings), first in a forked child that reads the whole file
 * (HDF5 1.10 can crash, corrupt its heap or allocate gigabytes on damaged files), then for real.
 * Every error names the file and the problem. */
#ifndef SCAL_SAFE_OPEN_H
#define SCAL_SAFE_OPEN_H

#include <hdf5.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum scal_open_flags {
    SCAL_OPEN_READ = 0,
    SCAL_OPEN_WRITE = 1u << 0,    /* read-write (the probe still only reads) */
    SCAL_OPEN_RUN = 1u << 1,      /* refuse anything but a run file */
    SCAL_OPEN_CAMPAIGN = 1u << 2, /* refuse anything but a campaign file */
    SCAL_OPEN_NO_PROBE = 1u << 3, /* this process has just read the file through a probe */
    SCAL_OPEN_WAIT = 1u << 4,     /* wait (up to 10 s) while another process has it open to write */
    SCAL_OPEN_VALIDATE = 1u << 5, /* refuse a file whose content scal check rejects (validate.h) */
};

struct scal_h5file {
    hid_t id;
    char *path;
    char format[32]; /* SCAL_FORMAT_RUN or SCAL_FORMAT_CAMPAIGN */
    bool campaign;
    int64_t version; /* scal_schema_version */
    char **strings;  /* /strings */
    size_t nstrings;
};

/* Opens path with flags (enum scal_open_flags). On error returns a negative status whose message
 * (scal__last_error) names the file: SCAL_ENOENT missing, SCAL_EFORMAT not HDF5 / damaged / not a
 * scal file of the wanted kind, SCAL_ESCHEMA another schema version, SCAL_ECHILD no probe process,
 * SCAL_ETIMEDOUT locked by a process writing it (after the wait with SCAL_OPEN_WAIT). f is then
 * closed. */
int scal_h5file_open(const char *path, unsigned flags, struct scal_h5file *f);
/* Closes the HDF5 file (a negative status when HDF5 could not close it) and frees the strings. */
int scal_h5file_close(struct scal_h5file *f);
/* String `index` of /strings, "" when out of range. */
const char *scal_h5file_str(const struct scal_h5file *f, uint32_t index);

#endif
