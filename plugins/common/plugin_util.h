/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers every built-in plugin shares (linked in from the static scal_plugin_common, hidden):
 * carrying an error's detail into the `why` buffer, reading options and the sysfs root from the
 * host's environment, strict number parsing. */
#ifndef SCAL_PLUGIN_UTIL_H
#define SCAL_PLUGIN_UTIL_H

#include <stdbool.h>
#include <stddef.h>

#include "scal/plugin.h"

/* Writes the message into why (when why is not NULL) and returns status, so that plugin code
 * writes `return scal__why(why, whylen, SCAL_EINVAL, "threads: '%s' is not ...", v);`. */
int scal__why(char *why, size_t whylen, int status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The option's value as text (its default when unset), or NULL (also when the host gives no
 * options). */
const char *scal__option(const struct scal_plugin_env *env, const char *name);
/* Option text as a boolean: 1/true/yes/on. */
bool scal__truthy(const char *text);
/* The sysfs root the host resolved for this plugin (its sysfs_root option, SCAL_SYSFS_ROOT or
 * "/"; see scal/plugin.h); "/" for a host without one. */
const char *scal__sysfs_root(const struct scal_plugin_env *env);

/* A strictly positive decimal integer, at most max: digits only (no sign, space or suffix). */
bool scal__parse_positive(const char *text, long max, long *value);

#endif
