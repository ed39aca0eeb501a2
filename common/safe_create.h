/* SPDX-License-Identifier: BSD-3-Clause */
/* The one way scal creates a file: first under an unpredictable temporary name next to it, created
 * exclusively (a planted symlink is never followed) and written through what that creation opened
 * (never re-opened by name), then moved into place, never onto anything but a regular file. */
#ifndef SCAL_SAFE_CREATE_H
#define SCAL_SAFE_CREATE_H

#include <stdbool.h>
#include <stddef.h>

/* Refuses a final path that exists and is not a regular file (device, fifo, directory, symlink),
 * and one that exists at all unless replace. */
int scal_safe_check_final(const char *final, bool replace);
/* The one exclusive creation: create(tmp, ctx) must create tmp exclusively (O_CREAT | O_EXCL, as
 * H5F_ACC_EXCL does: never through a link) and keep what it opened (a descriptor, an HDF5 file)
 * to write through: never a second open of the name. tmp is an unpredictable name in final's
 * directory (".BASE.XXXXXXXXXXXX"), drawn again when it is taken or when create returns
 * SCAL_EEXIST. The name is in tmp; the caller publishes it, or unlinks it. */
int scal_safe_create_with(const char *final, bool replace, char *tmp, size_t len,
                          int (*create)(const char *tmp, void *ctx), void *ctx);
/* Moves tmp to final (fsync'd first): without replace an existing final is refused and kept
 * (no window where it could be overwritten); a final that is not a regular file is always refused.
 * On error tmp is removed. */
int scal_safe_publish(const char *tmp, const char *final, bool replace);
/* scal_safe_create_with for a plain file: returns it open for writing (a file descriptor >= 0,
 * close-on-exec, mode 0666 minus the umask), the only descriptor the caller writes through. On
 * error tmp is empty. */
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
