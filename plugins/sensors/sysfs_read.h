// SPDX-License-Identifier: BSD-3-Clause
// Small helpers shared by the sensor plugins: read one-line sysfs/procfs files under a root.
#ifndef SCAL_SENSORS_SYSFS_READ_H
#define SCAL_SENSORS_SYSFS_READ_H

#include <stddef.h>
#include <stdint.h>

#include "scal/plugin.h"

// Compiled into each plugin; never exported from the shared object.
#define SCAL_SENSOR_HIDDEN __attribute__((visibility("hidden")))

// Reads a small text file whole into buf (nul-terminated, trailing whitespace removed).
// Returns 0 or -errno (-EFBIG when it does not fit).
SCAL_SENSOR_HIDDEN int scal__sysfs_read_text(const char *path, char *buf, size_t len);

// Reads a file holding one unsigned decimal integer. Returns 0, -errno, or -EINVAL when the text
// is not a number.
SCAL_SENSOR_HIDDEN int scal__sysfs_read_u64(const char *path, uint64_t *out);

// The sysfs root a plugin should use: its own `sysfs_root` option when set and non-empty, else the
// host's env->sysfs_root, else "/". Trailing slashes are removed ("/" becomes "") so that
// root + "/sys/..." is a clean path.
SCAL_SENSOR_HIDDEN void scal__sysfs_root(const struct scal_plugin_env *env, char *out,
                                         size_t outlen);

#endif
