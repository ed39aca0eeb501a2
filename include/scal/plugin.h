/* SPDX-License-Identifier: BSD-3-Clause */
/* The scal plugin ABI: sensors, actuators and post-processing steps are shared objects that export
 * one entry function returning a const descriptor.
 *
 * Rules (they keep old plugins loading in new hosts and the reverse):
 *  - Every plugin exports SCAL_PLUGIN_ENTRY_NAME ("scal_plugin_entry"), built with
 * SCAL_PLUGIN_DEFINE.
 *  - The descriptor begins with abi_version and struct_size; members are only ever appended, and
 * the host reads a member only when struct_size says the plugin has it. A plugin built for a newer
 *    ABI major than the host is refused with a message naming the file and both versions.
 *  - Every table (the descriptor and each operation table) starts with its struct_size. A table
 *    smaller than the host's is fine as long as it holds the required operations (sensor: init,
 *    metrics; actuator: init, apply; post-processing: run): the members it lacks are treated as
 *    NULL. A larger (newer) table is fine too.
 *  - Optional operations may be NULL; the host supplies the defaults (in one place: the loader):
 *    sensor read/thread_read: none (the timing bits that need them are dropped), thread_init: no
 *    per-thread state, thread_fini/fini: nothing; actuator test/save/restore: nothing to do
 *    (success), observe: SCAL_EUNAVAIL, fini: nothing.
 *  - Plugins that read sysfs get the root in env->sysfs_root, resolved by the host with one rule:
 *    the plugin's own `sysfs_root` option when the user set it, else SCAL_SYSFS_ROOT, else "/".
 *  - "Unavailable here" is not a failure: init returns SCAL_EUNAVAIL (or SCAL_EPERM) and fills the
 *    reason; the plugin stays listed with that reason and the run goes on without it.
 *  - Plugins never print and never call exit(); they return negative scal status codes and write a
 *    message into the `why` buffer they are given.
 * See plugins/template/ for a commented example to copy.
 */
#ifndef SCAL_PLUGIN_H
#define SCAL_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#include "scal/export.h"
#include "scal/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SCAL_PLUGIN_ABI_MAJOR 1
#define SCAL_PLUGIN_ABI_MINOR                                                                      \
    3 /* 1.1: scal_launch.set_cpus; 1.2: scal_pp_host.env;                                         \
         1.3: scal_pp_host.create/commit */
#define SCAL_PLUGIN_ABI_VERSION ((SCAL_PLUGIN_ABI_MAJOR << 16) | SCAL_PLUGIN_ABI_MINOR)
#define SCAL_PLUGIN_ENTRY_NAME "scal_plugin_entry"

enum scal_plugin_kind {
    SCAL_PLUGIN_SENSOR = 1,
    SCAL_PLUGIN_ACTUATOR = 2,
    SCAL_PLUGIN_POSTPROC = 3, /* analyses and outputs of `scal report`; ops in scal/postproc.h */
};

enum scal_option_type {
    SCAL_OPT_STRING = 1,
    SCAL_OPT_INT = 2,
    SCAL_OPT_DOUBLE = 3,
    SCAL_OPT_BOOL = 4,
    SCAL_OPT_LIST = 5, /* comma-separated strings */
};

/* One option a plugin accepts. Set through SCAL_<PLUGIN>_<OPTION> in the environment or the
 * runner's --plugin-opt NAME.OPTION=VALUE. */
struct scal_option_desc {
    const char *name;
    enum scal_option_type type;
    const char *default_value; /* as text; NULL for none */
    const char *description;
};

/* Options as the host resolved them (defaults applied), handed to init. */
struct scal_options;
/* Returns the option's value as text (the default when unset), or NULL when the plugin has no
 * option of that name. Valid until fini. */
typedef const char *(*scal_option_get_fn)(const struct scal_options *opts, const char *name);

/* What a plugin's init receives from the host. Appended-only, like the descriptor. */
struct scal_plugin_env {
    uint32_t struct_size;
    const struct scal_options *options;
    scal_option_get_fn get_option;
    const char *sysfs_root; /* "/" unless pointed elsewhere: see the sysfs-root rule above */
};

/* ---- Sensors ---------------------------------------------------------------------------- */

enum scal_sensor_timing {
    SCAL_SENSOR_RUN = 1u << 0,     /* read at the start and the end of the run */
    SCAL_SENSOR_SAMPLED = 1u << 1, /* read by a background thread every period */
    SCAL_SENSOR_REGION = 1u << 2,  /* read at region boundaries, on the thread that crosses them */
};

/* Whether a metric counts per thread (a thread's own counter) or per process (one value for all,
 * e.g. energy, PAPI SDE counters): process metrics are only attributed on the encountering thread
 * so that concurrent windows are not counted twice. */
enum scal_metric_scope { SCAL_SCOPE_THREAD = 1, SCAL_SCOPE_PROCESS = 2 };

enum scal_metric_kind {
    SCAL_METRIC_COUNTER = 1, /* monotone; the host records differences (end - begin) */
    SCAL_METRIC_GAUGE = 2,   /* a level; the host records the values themselves */
};

struct scal_metric_desc {
    const char *name; /* "<plugin>.<metric>", e.g. "rapl.package-0" */
    const char *unit; /* "J", "count", "kHz", "bytes", "s" */
    enum scal_metric_kind kind;
    enum scal_metric_scope scope;
};

/* A running sensor's state; opaque to the host. */
typedef struct scal_sensor_state scal_sensor_state;
/* Per-thread state of a region sensor; opaque to the host. */
typedef struct scal_sensor_thread scal_sensor_thread;

struct scal_sensor_ops {
    uint32_t struct_size;
    uint32_t timing; /* scal_sensor_timing bits the plugin supports */
    /* Starts the sensor. On SCAL_EUNAVAIL/SCAL_EPERM the reason goes into why (nul-terminated). */
    int (*init)(const struct scal_plugin_env *env, scal_sensor_state **state, char *why,
                size_t whylen);
    /* The metrics this sensor produces; valid after a successful init, until fini. */
    size_t (*metrics)(scal_sensor_state *state, const struct scal_metric_desc **out);
    /* Reads every metric into values[0..nmetrics). Run and sampled timing; may be called from the
     * sampler thread. Counters may wrap: the plugin returns values already unwrapped. */
    int (*read)(scal_sensor_state *state, double *values);
    /* Region timing: per-thread setup on the thread itself (first event of that thread); may
     * allocate. NULL when the plugin needs no per-thread state. */
    int (*thread_init)(scal_sensor_state *state, scal_sensor_thread **thread, char *why,
                       size_t whylen);
    /* Region timing: reads the calling thread's values; hot path: no allocation, no locks, no I/O
     * beyond the counter read itself. */
    int (*thread_read)(scal_sensor_state *state, scal_sensor_thread *thread, double *values);
    void (*thread_fini)(scal_sensor_state *state, scal_sensor_thread *thread);
    void (*fini)(scal_sensor_state *state);
};

/* ---- Actuators -------------------------------------------------------------------------- */

/* An actuator changes the machine or the program's launch between runs (LIKWID sysFeatures
 * style): it can test whether it works here, read the current setting, apply a value and restore
 * what it saved. Values are text ("2400000", "0-3", "performance"). */
typedef struct scal_actuator_state scal_actuator_state;

/* How an actuator changes a launch (threads, affinity, input): environment and arguments. */
struct scal_launch {
    uint32_t struct_size;
    /* setenv-like: the host owns the storage. */
    int (*set_env)(struct scal_launch *launch, const char *name, const char *value);
    /* Replaces every "{placeholder}" in the program's arguments with value. */
    int (*set_placeholder)(struct scal_launch *launch, const char *placeholder, const char *value);
    /* Appends arguments (split by the host as given, no shell). */
    int (*append_args)(struct scal_launch *launch, const char *const *args, size_t nargs);
    void *host_data;
    /* ABI 1.1: restricts the program to a CPU list ("0-3,8"); the host applies it with
     * sched_setaffinity in the child before exec. Check struct_size before use. */
    int (*set_cpus)(struct scal_launch *launch, const char *cpulist);
};

struct scal_actuator_ops {
    uint32_t struct_size;
    int (*init)(const struct scal_plugin_env *env, scal_actuator_state **state, char *why,
                size_t whylen);
    /* 0 when the actuator can act on this machine; SCAL_EUNAVAIL/SCAL_EPERM with the reason. */
    int (*test)(scal_actuator_state *state, char *why, size_t whylen);
    /* Saves what apply will change; called once before the first apply. */
    int (*save)(scal_actuator_state *state, char *why, size_t whylen);
    /* Applies value before a run; may change the launch (NULL for machine-only actuators). */
    int (*apply)(scal_actuator_state *state, const char *value, struct scal_launch *launch,
                 char *why, size_t whylen);
    /* Reads back what is actually in effect (e.g. the observed frequency) as text. */
    int (*observe)(scal_actuator_state *state, char *out, size_t outlen);
    /* Restores what save saved; must be safe to call from a signal-initiated shutdown path and
     * more than once. */
    int (*restore)(scal_actuator_state *state, char *why, size_t whylen);
    void (*fini)(scal_actuator_state *state);
};

/* ---- The descriptor ----------------------------------------------------------------------- */

struct scal_postproc_ops; /* scal/postproc.h */

struct scal_plugin_desc {
    uint32_t abi_version; /* SCAL_PLUGIN_ABI_VERSION the plugin was built with */
    uint32_t struct_size; /* sizeof(struct scal_plugin_desc) the plugin was built with */
    const char *name;     /* short, lower case, unique: "papi", "rapl", "frequency" */
    const char *version;  /* the plugin's own version */
    enum scal_plugin_kind kind;
    const char *description;
    const struct scal_option_desc *options;   /* terminated by an entry with name NULL */
    const struct scal_sensor_ops *sensor;     /* kind SENSOR */
    const struct scal_actuator_ops *actuator; /* kind ACTUATOR */
    const struct scal_postproc_ops *postproc; /* kind POSTPROC */
};

typedef const struct scal_plugin_desc *(*scal_plugin_entry_fn)(void);

#define SCAL_PLUGIN_DEFINE(desc_var)                                                               \
    SCAL_EXPORT const struct scal_plugin_desc *scal_plugin_entry(void)                             \
    {                                                                                              \
        return &(desc_var);                                                                        \
    }

#ifdef __cplusplus
}
#endif
#endif
