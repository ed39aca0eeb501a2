/* SPDX-License-Identifier: BSD-3-Clause */
/* scal's status codes: 0 is success, every error is negative; one X-macro makes the enum, names and
 * texts. */
#ifndef SCAL_STATUS_H
#define SCAL_STATUS_H

#include "scal/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* X(name, value, text). New codes are only ever appended, values are never reused. */
#define SCAL_STATUS_MAP(X)                                                                         \
    X(OK, 0, "success")                                                                            \
    X(EINVAL, -1, "invalid argument")                                                              \
    X(ENOMEM, -2, "out of memory")                                                                 \
    X(EIO, -3, "input/output error")                                                               \
    X(ENOENT, -4, "no such file or directory")                                                     \
    X(EFORMAT, -5, "file is not in the expected format")                                           \
    X(ESCHEMA, -6, "unsupported schema version")                                                   \
    X(EDLOPEN, -7, "cannot load shared object")                                                    \
    X(ENOSYM, -8, "entry symbol not found")                                                        \
    X(EABI, -9, "plugin ABI version mismatch")                                                     \
    X(EUNAVAIL, -10, "unavailable on this machine")                                                \
    X(EPERM, -11, "permission denied")                                                             \
    X(EHDF5, -12, "HDF5 library error")                                                            \
    X(ERANGE, -13, "value out of range")                                                           \
    X(EEXIST, -14, "already exists")                                                               \
    X(ECHILD, -15, "child process failed")                                                         \
    X(ETIMEDOUT, -16, "timed out")                                                                 \
    X(EINTR, -17, "interrupted")                                                                   \
    X(ECONFLICT, -18, "conflicting data")                                                          \
    X(EEMPTY, -19, "no data")                                                                      \
    X(EINIT, -20, "initialisation failed")                                                         \
    X(ENOSPC, -21, "no space left on device")

typedef enum {
#define SCAL_STATUS_ENUM(name, value, text) SCAL_##name = value,
    SCAL_STATUS_MAP(SCAL_STATUS_ENUM)
#undef SCAL_STATUS_ENUM
} scal_status;

/* A short text for a status code ("invalid argument"); never NULL. */
SCAL_EXPORT const char *scal_strerror(int status);
/* The code's name ("SCAL_EINVAL"); never NULL. */
SCAL_EXPORT const char *scal_err_name(int status);

#ifdef __cplusplus
}
#endif
#endif
