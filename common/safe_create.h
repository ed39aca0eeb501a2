/* SPDX-License-Identifier: BSD-3-Clause */
/* The one way scal creates a file: first under an unpredictable temporary name next to it, created
 * exclusively (a planted symlink is never followed), then moved into place, never onto anything but
 * a regular file. */
#ifndef SCAL_SAFE_CREATE_H
#define SCAL_SAFE_CREATE_H

#include <stdbool.h>
#include <stddef.h>

/* Refuses a final path that exists and is not a regular file (device, fifo, directory, symlink),
 * and one that exists at all unless replace. */
int scal_safe_check_final(const char *final, bool replace);
/* Creates an empty file with an unpredictable name in final's directory (O_EXCL through mkstemp,
 * mode 0666 minus the umask) and puts its name in tmp. The caller fills it and calls
 * scal_safe_publish, or unlinks tmp. */
int scal_safe_create_temp(const char *final, bool replace, char *tmp, size_t len);
/* Creation by a library that opens the file itself (HDF5): create(tmp, ctx) must create tmp
 * exclusively (H5F_ACC_EXCL: O_CREAT | O_EXCL, never through a link, never re-opening a name made
 * earlier) at an unpredictable name in final's directory, drawn again when it is taken. The name is
 * in tmp; the caller publishes it, or unlinks it. */
int scal_safe_create_with(const char *final, bool replace, char *tmp, size_t len,
                          int (*create)(const char *tmp, void *ctx), void *ctx);
/* Moves tmp to final (fsync'd first): without replace an existing final is refused and kept
 * (no window where it could be overwritten); a final that is not a regular file is always refused.
 * On error tmp is removed. */
int scal_safe_publish(const char *tmp, const char *final, bool replace);
/* scal_safe_create_temp, returning the temporary file open for writing (a file descriptor >= 0,
 * close-on-exec) instead of closing it. */
int scal_safe_create_open(const char *final, bool replace, char *tmp, size_t len);
/* scal_safe_publish without the fsync of the file and its directory: for outputs that are
 * regenerated from the data (a report's thousands of files), not for data that must survive a
 * crash. */
int scal_safe_publish_nosync(const char *tmp, const char *final, bool replace);
/* Creates directory path (mode 0777 minus the umask) or accepts an existing one; refuses a path
 * that exists as anything but a directory, a symbolic link to one included (files are never
 * written through a link planted at a directory's name). */
int scal_safe_mkdir(const char *path);
/* A copy of src under an exclusive temporary name next to final (its name in tmp), for the caller
 * to change and publish, or to unlink. */
int scal_safe_copy_temp(const char *src, const char *final, bool replace, char *tmp, size_t len);
/* A copy of src at final: scal_safe_copy_temp, then scal_safe_publish. */
int scal_safe_copy(const char *src, const char *final, bool replace);

#endif
