/* SPDX-License-Identifier: BSD-3-Clause */
/* Opening a scal file for the CLI with clear errors (missing, not HDF5, corrupt, not a scal file),
 * and running HDF5 reads under a guard that turns a library crash on a damaged file into an error.
 */
#ifndef SCAL_CLI_SCAL_FILE_H
#define SCAL_CLI_SCAL_FILE_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

struct scal_file {
    hid_t id;
    char format[64]; /* "scal-run" or "scal-campaign" */
    int64_t version; /* scal_schema_version */
    char **strings;  /* /strings */
    size_t nstrings;
};

/* Opens path and reads its format, version and /strings. On error returns a negative status with
 * a message that names the file and the problem in err. */
int scal_file_open(const char *path, struct scal_file *f, char *err, size_t errlen);
void scal_file_close(struct scal_file *f);
const char *scal_file_str(const struct scal_file *f, uint32_t index);

/* Runs fn(arg) and returns its status, or SCAL_EFORMAT if it crashed (SIGSEGV/SIGBUS inside the
 * HDF5 library reading a damaged file). Not reentrant; CLI use only. */
int scal_guarded(int (*fn)(void *), void *arg);

#endif
