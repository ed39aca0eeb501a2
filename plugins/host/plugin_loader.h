/* SPDX-License-Identifier: BSD-3-Clause */
/* The one plugin loader: finds libscal_<name>.so, checks the descriptor and its operation table
 * (ABI version and struct_size), fills the defaults of optional operations, resolves options and
 * the sysfs root. Used for sensors (the OMPT tool), actuators (`scal run`), post-processing
 * plugins (`scal report`) and `scal plugins`. Free of HDF5 and of printing: every failure is a
 * status code plus a message naming the file, the symbol and the reason. */
#ifndef SCAL_PLUGIN_LOADER_H
#define SCAL_PLUGIN_LOADER_H

#include <stdbool.h>
#include <stddef.h>

#include "scal/plugin.h"
#include "scal/postproc.h"

#define SCAL_PLUGIN_WHY_MAX 512
#define SCAL_PLUGIN_PATH_MAX 4096

/* Resolved options of one plugin: the descriptor's table, each with its value as text. */
struct scal_options {
    const struct scal_option_desc *descs;
    size_t count;
    char **values;    /* NULL entries: unset and without default */
    bool *explicit_v; /* true: set by the environment or a setting, not the default */
};

/* A loaded plugin. Holds pointers into itself (desc, env): never copy or move one. */
struct scal_loaded_plugin {
    char name[SCAL_PLUGIN_PATH_MAX]; /* the descriptor's name; when loading failed, as given */
    char path[SCAL_PLUGIN_PATH_MAX];
    int kind; /* the descriptor's kind, also after a failure that came after reading it; else 0 */
    void *handle;
    /* The descriptor as this host sees it: a full-size copy (members the plugin was built
     * without are zero) whose operation table is the host's full-size copy below, with every
     * optional operation the plugin left NULL (or was built without) set to the host's default.
     * Callers never need to check an operation for NULL or a struct_size. */
    const struct scal_plugin_desc *desc;
    struct scal_options options;
    struct scal_plugin_env env;
    char sysfs_root[SCAL_PLUGIN_PATH_MAX];
    struct scal_plugin_desc desc_copy;
    union {
        struct scal_sensor_ops sensor;
        struct scal_actuator_ops actuator;
        struct scal_postproc_ops postproc;
    } ops_copy;
};

/* The directories searched for plugins by name, in order, separated by ':' into out:
 * $SCAL_PLUGIN_PATH (absolute entries only), then extra (a ':'-separated list, may be NULL:
 * `--plugin-dir`), then the built-in directory next to the calling library or program
 * (<libdir>/scal/plugins), then the install directory; a directory writable by others or owned by
 * another user is left out. */
void scal_plugin_search_path(char *out, size_t len, const char *extra);

/* Whether name can name a plugin: letters, digits, '_' and '-' (never a path). What users give
 * (-s, SCAL_PLUGINS) is a name; paths are for the callers that list the search path's files. */
bool scal_plugin_name_ok(const char *name);

/* Loads a plugin by name ("papi": libscal_papi.so in the search path) or by path (contains '/').
 * The file and its directory must be this user's or root's and writable by nobody else; it is
 * opened once and loaded from that descriptor.
 * want is the kind required (0: any). settings are "option=value" strings for this plugin; options
 * also come from the environment as SCAL_<PLUGIN>_<OPTION> (settings win). The sysfs root handed
 * to the plugin (env.sysfs_root) follows one rule: the plugin's own `sysfs_root` option when set
 * (environment or setting), else $SCAL_SYSFS_ROOT, else "/". On failure returns a negative status
 * (SCAL_ENOENT, SCAL_EDLOPEN, SCAL_ENOSYM, SCAL_EABI, SCAL_EINVAL) with the reason in why, and p
 * holds nothing to close. p must not be moved afterwards. */
int scal_plugin_load(const char *name_or_path, int want, const char *const *settings,
                     size_t nsettings, struct scal_loaded_plugin *p, char *why, size_t whylen);
void scal_plugin_unload(struct scal_loaded_plugin *p);

/* The option's value (default applied) or NULL; the scal_option_get_fn given to plugins. */
const char *scal_plugin_option(const struct scal_options *opts, const char *name);

/* Calls fn for every libscal_*.so file in the search path (see scal_plugin_search_path; extra may
 * be NULL), first occurrence of a name wins. Stops early when fn returns non-zero. */
int scal_plugin_foreach_file(const char *extra,
                             int (*fn)(const char *path, const char *name, void *arg), void *arg);

/* Frees the option values of p (part of scal_plugin_unload). */
void scal_plugin_options_free(struct scal_options *opts);
/* The environment variable that sets a plugin's option: SCAL_<PLUGIN>_<OPTION>, upper case, every
 * other character an underscore. */
void scal_plugin_option_env_name(char *out, size_t len, const char *plugin, const char *option);
/* Resolves p->options from the descriptor, the environment and settings; SCAL_EINVAL with why on
 * an unknown option or a value of the wrong type. */
int scal_plugin_options_resolve(struct scal_loaded_plugin *p, const char *const *settings,
                                size_t nsettings, char *why, size_t whylen);
/* The settings for one plugin out of "plugin.option=value" strings (`--plugin-opt`): pointers to
 * their "option=value" parts, at most max; returns how many. */
size_t scal_plugin_settings_for(const char *const *opts, size_t nopts, const char *plugin,
                                const char **out, size_t max);

#endif
