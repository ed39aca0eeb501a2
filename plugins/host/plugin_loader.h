/* SPDX-License-Identifier: BSD-3-Clause */
/* Finding and loading sensor and actuator plugins (libscal_<name>.so) through the plugin ABI, with
 * their options resolved. Shared by the OMPT tool (sensors), `scal run` (actuators) and
 * `scal plugins` (all). Free of HDF5 and of printing: every failure is a status code plus a
 * message naming the file, the symbol and the reason. */
#ifndef SCAL_PLUGIN_LOADER_H
#define SCAL_PLUGIN_LOADER_H

#include <stdbool.h>
#include <stddef.h>

#include "scal/plugin.h"

#define SCAL_PLUGIN_WHY_MAX 512
#define SCAL_PLUGIN_PATH_MAX 4096

/* Resolved options of one plugin: the descriptor's table, each with its value as text. */
struct scal_options {
    const struct scal_option_desc *descs;
    size_t count;
    char **values; /* NULL entries: unset and without default */
};

struct scal_loaded_plugin {
    char name[SCAL_PLUGIN_PATH_MAX]; /* the descriptor's name; when loading failed, as given */
    char path[SCAL_PLUGIN_PATH_MAX];
    void *handle;
    const struct scal_plugin_desc *desc;
    struct scal_options options;
    struct scal_plugin_env env;
    char sysfs_root[SCAL_PLUGIN_PATH_MAX];
};

/* The directories searched for plugins by name, in order, separated by ':' into out:
 * $SCAL_PLUGIN_PATH, then the built-in directory next to the calling library or program
 * (<libdir>/scal/plugins), then the install directory. */
void scal_plugin_search_path(char *out, size_t len);

/* Loads a plugin by name ("papi": libscal_papi.so in the search path) or by path (contains '/').
 * want is the kind required (0: any). settings are "option=value" strings for this plugin; options
 * also come from the environment as SCAL_<PLUGIN>_<OPTION> (settings win). On failure returns a
 * negative status (SCAL_ENOENT, SCAL_EDLOPEN, SCAL_ENOSYM, SCAL_EABI, SCAL_EINVAL) with the reason
 * in why, and p holds nothing to close. */
int scal_plugin_load(const char *name_or_path, int want, const char *const *settings,
                     size_t nsettings, struct scal_loaded_plugin *p, char *why, size_t whylen);
void scal_plugin_unload(struct scal_loaded_plugin *p);

/* The option's value (default applied) or NULL; the scal_option_get_fn given to plugins. */
const char *scal_plugin_option(const struct scal_options *opts, const char *name);

/* Calls fn for every libscal_*.so file in the search path (first occurrence of a name wins).
 * Stops early when fn returns non-zero. */
int scal_plugin_foreach_file(int (*fn)(const char *path, const char *name, void *arg), void *arg);

/* Frees the option values of p (part of scal_plugin_unload). */
void scal_plugin_options_free(struct scal_options *opts);
/* The environment variable that sets a plugin's option: SCAL_<PLUGIN>_<OPTION>, upper case, every
 * other character an underscore. */
void scal_plugin_option_env_name(char *out, size_t len, const char *plugin, const char *option);
/* Resolves p->options from the descriptor, the environment and settings; SCAL_EINVAL with why on
 * an unknown option or a value of the wrong type. */
int scal_plugin_options_resolve(struct scal_loaded_plugin *p, const char *const *settings,
                                size_t nsettings, char *why, size_t whylen);

#endif
