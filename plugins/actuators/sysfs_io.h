// SPDX-License-Identifier: BSD-3-Clause
/* Small helpers shared by the actuator plugins: text files under a sysfs root and CPU lists. */
#ifndef SCAL_ACTUATORS_SYSFS_IO_H
#define SCAL_ACTUATORS_SYSFS_IO_H

#include <stdbool.h>
#include <stddef.h>

#include "scal/plugin.h"

/* Upper bound on CPU ids accepted in lists (matches the kernel's NR_CPUS on large configs). */
#define SYSFS_MAX_CPUS 8192

/* Joins root and rel ("/sys/devices/...") into out; root "/" or "" yields rel itself. */
void sysfs_path(const char *root, const char *rel, char *out, size_t outlen);

/* Reads the small text file root/rel into buf without its trailing newline.
 * SCAL_ENOENT when missing, SCAL_EPERM when not readable, SCAL_EIO otherwise; why names the path.
 */
int sysfs_read(const char *root, const char *rel, char *buf, size_t buflen, char *why,
               size_t whylen);
/* Writes text to root/rel (an existing file; no create, truncating). Same errors as sysfs_read;
 * uses only open/write/close so it may run on a shutdown path. */
int sysfs_write(const char *root, const char *rel, const char *text, char *why, size_t whylen);
/* sysfs_read + a non-negative decimal integer. */
int sysfs_read_long(const char *root, const char *rel, long *value, char *why, size_t whylen);
/* Explains why access(path, W_OK) failed with errno e: "permission denied writing <path> (needs
 * root)" or the system's reason; returns SCAL_EUNAVAIL for a missing file, else SCAL_EPERM. */
int sysfs_unwritable(const char *path, int e, char *why, size_t whylen);
/* Whether root/rel exists (any type). */
bool sysfs_exists(const char *root, const char *rel);

/* Parses a CPU list ("0-3,8,10-11") into a sorted, duplicate-free malloc'd array.
 * SCAL_EINVAL with a message on bad syntax; an empty list is an error. */
int cpulist_parse(const char *text, int **cpus, size_t *ncpus, char *why, size_t whylen);
/* Formats sorted CPUs as a compact list ("0-3,8"); SCAL_ERANGE when out is too small. */
int cpulist_format(const int *cpus, size_t ncpus, char *out, size_t outlen);

/* The CPUs that have root/sys/devices/system/cpu/cpu<N>/<sub> (sub NULL: the cpu<N> directory
 * itself), sorted; an empty result is not an error. */
int sysfs_list_cpus(const char *root, const char *sub, int **cpus, size_t *ncpus, char *why,
                    size_t whylen);

/* The sysfs root a plugin uses: its sysfs_root option unless unset or "/", else env->sysfs_root,
 * else "/". */
const char *sysfs_root_of(const struct scal_plugin_env *env);
/* The option's value as text, or NULL (also when the host has no get_option). */
const char *sysfs_option(const struct scal_plugin_env *env, const char *name);
/* Option text as a boolean: 1/true/yes/on. */
bool sysfs_truthy(const char *text);

#endif
