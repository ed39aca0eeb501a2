// SPDX-License-Identifier: BSD-3-Clause
/* Text files under a sysfs root and CPU lists, for the plugins that read or write sysfs (the one
 * copy: sensors and actuators alike). Errors are scal status codes with the path in why. */
#ifndef SCAL_PLUGIN_SYSFS_IO_H
#define SCAL_PLUGIN_SYSFS_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scal/plugin.h"

/* Upper bound on CPU ids accepted in lists (matches the kernel's NR_CPUS on large configs). */
#define SCAL_SYSFS_MAX_CPUS 8192

/* Joins root and rel ("/sys/devices/...") into out; root NULL, "" or "/" yields rel itself, and
 * trailing slashes of root do not matter. */
void scal__sysfs_path(const char *root, const char *rel, char *out, size_t outlen);

/* Reads the small text file root/rel into buf without its trailing whitespace.
 * SCAL_ENOENT when missing, SCAL_EPERM when not readable, SCAL_EIO otherwise; why names the path.
 */
int scal__sysfs_read(const char *root, const char *rel, char *buf, size_t buflen, char *why,
                     size_t whylen);
/* Writes text to root/rel (an existing file; no create, truncating). Same errors as
 * scal__sysfs_read; uses only open/write/close so it may run on a shutdown path. */
int scal__sysfs_write(const char *root, const char *rel, const char *text, char *why,
                      size_t whylen);
/* scal__sysfs_read + a non-negative decimal integer (SCAL_EFORMAT naming the path otherwise). */
int scal__sysfs_read_u64(const char *root, const char *rel, uint64_t *value, char *why,
                         size_t whylen);
/* A file read again and again (a counter read at every region boundary): opened once here
 * (read-only, close-on-exec; the full path goes to path for messages), then read with
 * scal__sysfs_pread_u64, one system call per read instead of open+read+close. The caller closes
 * fd. Same errors as scal__sysfs_read. */
int scal__sysfs_open(const char *root, const char *rel, int *fd, char *path, size_t pathlen,
                     char *why, size_t whylen);
/* Reads the integer in the file behind fd from offset 0 (sysfs makes the text anew at every read
 * from 0). Same errors as scal__sysfs_read_u64; why names path. */
int scal__sysfs_pread_u64(int fd, const char *path, uint64_t *value, char *why, size_t whylen);
/* Explains why access(path, W_OK) failed with errno e: "permission denied writing <path> (needs
 * root)" or the system's reason; returns SCAL_EUNAVAIL for a missing file, else SCAL_EPERM. */
int scal__sysfs_unwritable(const char *path, int e, char *why, size_t whylen);
/* Whether root/rel exists (any type). */
bool scal__sysfs_exists(const char *root, const char *rel);

/* Parses a CPU list ("0-3,8,10-11") into a sorted, duplicate-free malloc'd array.
 * SCAL_EINVAL with a message on bad syntax; an empty list is an error. */
int scal__cpulist_parse(const char *text, int **cpus, size_t *ncpus, char *why, size_t whylen);
/* Formats sorted CPUs as a compact list ("0-3,8"); SCAL_ERANGE when out is too small. */
int scal__cpulist_format(const int *cpus, size_t ncpus, char *out, size_t outlen);

/* The CPUs that have root/sys/devices/system/cpu/cpu<N>/<sub> (sub NULL: the cpu<N> directory
 * itself), sorted; an empty result is not an error. */
int scal__sysfs_list_cpus(const char *root, const char *sub, int **cpus, size_t *ncpus, char *why,
                          size_t whylen);

#endif
