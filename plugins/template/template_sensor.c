// SPDX-License-Identifier: BSD-3-Clause
// A commented example sensor plugin to copy when writing your own: CPU time of the process and of
// each thread, and (optionally) wall-clock time.
//
// ---- What a sensor plugin is ---------------------------------------------------------------
// A shared object exporting ONE function, scal_plugin_entry(), that returns a pointer to a const
// `struct scal_plugin_desc` (include/scal/plugin.h). SCAL_PLUGIN_DEFINE(desc) writes that
// function for you. Everything else in the file should be `static`.
//
// ---- Building it by hand and using it --------------------------------------------------------
//     cc -O2 -Wall -Wextra -shared -fPIC -I<prefix>/include template_sensor.c -o
//     libscal_mysensor.so
// (<prefix> is where scal is installed: it holds include/scal/plugin.h.) Rename the plugin
// (`.name` below, the metric prefix and the file: libscal_<name>.so) and put the file in a
// directory listed in SCAL_PLUGIN_PATH (colon-separated), or next to the installed plugins in
// <prefix>/lib/scal/plugins. Then ask for it by name:
//     SCAL_PLUGINS=mysensor OMP_TOOL_LIBRARIES=<prefix>/lib/libscal_ompt.so ./app
// Options are set as SCAL_<PLUGIN>_<OPTION>=value (here SCAL_TEMPLATE_SENSOR_WALL=false) or with
// `scal run --plugin-opt template_sensor.wall=false`.
//
// ---- The rules ---------------------------------------------------------------------------------
//  - Never print, never exit(), never abort(): the host runs inside someone else's program.
//    Errors are named negative scal status codes (scal/status.h) plus a message in `why`. (The
//    built-in plugins write both at once with scal__why from plugins/common; this file uses only
//    the installed headers so that it builds on its own, hence plain snprintf.)
//  - Operations you do not need may be NULL: the host supplies the defaults (see scal/plugin.h).
//  - "Cannot work on this machine" is not an error of the run: init returns SCAL_EUNAVAIL (or
//    SCAL_EPERM when it is a permission problem) and explains in `why` what is missing, naming the
//    file/device/event ("no RAPL: /sys/class/powercap does not exist"). The host records the
//    reason and the run continues without the plugin.
//  - thread_read is the hot path (called at every region boundary on every thread): no malloc, no
//    locks, no file I/O beyond the counter read itself. Allocate what it needs in thread_init.
//  - read() may be called from the host's sampler thread while regions are read on other
//    threads: state that read() changes must be protected (a mutex is fine there).
//  - Values are doubles. COUNTER metrics must be monotone (unwrap wrapping counters yourself);
//    the host stores differences. GAUGE metrics are stored as read.
#define _POSIX_C_SOURCE 200809L // clock_gettime, pthread_getcpuclockid with -std=c11
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scal/plugin.h"

// ---- The plugin's state ------------------------------------------------------------------------
// `struct scal_sensor_state` is declared (not defined) by plugin.h: each plugin defines its own.
// init allocates it; the host hands it back to every other operation and never looks inside.
struct scal_sensor_state {
    bool wall; // option "wall": also report wall-clock time
    size_t nmetrics;
};

// Per-thread state for region reads, created by thread_init on the thread itself.
struct scal_sensor_thread {
    clockid_t cpu_clock; // this thread's CPU-time clock
};

// ---- Metrics -----------------------------------------------------------------------------------
// name:  "<plugin>.<metric>", unique; unit: "s", "J", "count", "bytes", "kHz"...
// kind:  COUNTER (monotone, host records end - begin) or GAUGE (a level, host records values).
// scope: THREAD when each thread has its own value (thread CPU time, hardware counters), PROCESS
//        when there is one value for everybody (energy, wall time): the host then attributes it
//        only on the thread that encounters the region, so it is not counted once per thread.
// read() and thread_read() fill values[i] for metric i of this table.
static const struct scal_metric_desc template_metrics[] = {
    // read(): the whole process's CPU time; thread_read(): the calling thread's.
    {"template_sensor.cpu_time", "s", SCAL_METRIC_COUNTER, SCAL_SCOPE_THREAD},
    // CLOCK_MONOTONIC: the same for every thread. Listed only with wall=true (the default).
    {"template_sensor.wall_time", "s", SCAL_METRIC_COUNTER, SCAL_SCOPE_PROCESS},
};

static double seconds(const struct timespec *t)
{
    return (double)t->tv_sec + (double)t->tv_nsec * 1e-9;
}

// ---- Operations --------------------------------------------------------------------------------

// init: read options, check the machine, allocate the state. `env` is valid only during init;
// copy what you need. Options come as text through env->get_option (the default when the user
// set nothing; NULL for a name that is not in your options table).
static int template_init(const struct scal_plugin_env *env, scal_sensor_state **state, char *why,
                         size_t whylen)
{
    struct timespec res;
    if (clock_getres(CLOCK_THREAD_CPUTIME_ID, &res) != 0) {
        // Not a failure of the run: this machine just cannot do it. Say why.
        snprintf(why, whylen, "no per-thread CPU clock (clock_getres(CLOCK_THREAD_CPUTIME_ID))");
        return SCAL_EUNAVAIL;
    }
    const char *wall = env->get_option(env->options, "wall");
    bool with_wall = true;
    if (wall && (strcmp(wall, "false") == 0 || strcmp(wall, "0") == 0 || strcmp(wall, "no") == 0))
        with_wall = false;
    else if (wall && strcmp(wall, "true") != 0 && strcmp(wall, "1") != 0 &&
             strcmp(wall, "yes") != 0) {
        snprintf(why, whylen, "option wall: '%s' is not a boolean (true/false)", wall);
        return SCAL_EINVAL;
    }
    struct scal_sensor_state *s = calloc(1, sizeof(*s));
    if (!s) {
        snprintf(why, whylen, "out of memory");
        return SCAL_ENOMEM;
    }
    s->wall = with_wall;
    s->nmetrics = with_wall ? 2 : 1;
    *state = s;
    return SCAL_OK;
}

// metrics: the list is fixed after init (it may depend on options and on the machine, e.g. one
// metric per RAPL zone found). The pointers must stay valid until fini.
static size_t template_list(scal_sensor_state *s, const struct scal_metric_desc **out)
{
    *out = template_metrics;
    return s->nmetrics;
}

// read: run timing (start and end of the run) and sampled timing (the host's sampler thread).
// Return 0, or a negative status when a value could not be read (the host counts such failures).
static int template_read(scal_sensor_state *s, double *values)
{
    struct timespec t;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t) != 0) return SCAL_EIO;
    values[0] = seconds(&t);
    if (s->wall) {
        if (clock_gettime(CLOCK_MONOTONIC, &t) != 0) return SCAL_EIO;
        values[1] = seconds(&t);
    }
    return SCAL_OK;
}

// thread_init: region timing; called once on each thread, on that thread, before its first
// thread_read. Allocate here whatever thread_read needs. Plugins without per-thread state set
// .thread_init = NULL and get thread == NULL in thread_read.
static int template_thread_init(scal_sensor_state *s, scal_sensor_thread **thread, char *why,
                                size_t whylen)
{
    (void)s;
    struct scal_sensor_thread *t = malloc(sizeof(*t));
    if (!t) {
        snprintf(why, whylen, "out of memory");
        return SCAL_ENOMEM;
    }
    int rc = pthread_getcpuclockid(pthread_self(), &t->cpu_clock);
    if (rc != 0) {
        snprintf(why, whylen, "pthread_getcpuclockid: %s", strerror(rc));
        free(t);
        return SCAL_EUNAVAIL;
    }
    *thread = t;
    return SCAL_OK;
}

// thread_read: the hot path, at region boundaries on the calling thread. No allocation, no locks.
static int template_thread_read(scal_sensor_state *s, scal_sensor_thread *t, double *values)
{
    struct timespec now;
    if (clock_gettime(t->cpu_clock, &now) != 0) return SCAL_EIO;
    values[0] = seconds(&now);
    if (s->wall) {
        if (clock_gettime(CLOCK_MONOTONIC, &now) != 0) return SCAL_EIO;
        values[1] = seconds(&now);
    }
    return SCAL_OK;
}

// thread_fini: the thread is done (called on that thread or at shutdown); free what thread_init
// made.
static void template_thread_fini(scal_sensor_state *s, scal_sensor_thread *t)
{
    (void)s;
    free(t);
}

// fini: after the last read; release everything.
static void template_fini(scal_sensor_state *s)
{
    free(s);
}

// ---- Tables ------------------------------------------------------------------------------------

// struct_size lets newer hosts know which members this plugin was built with; timing says which
// of RUN / SAMPLED / REGION the plugin supports (the host uses the plugin only that way).
// REGION needs thread_read; thread_init and thread_fini may be NULL.
static const struct scal_sensor_ops template_ops = {
    .struct_size = sizeof(struct scal_sensor_ops),
    .timing = SCAL_SENSOR_RUN | SCAL_SENSOR_SAMPLED | SCAL_SENSOR_REGION,
    .init = template_init,
    .metrics = template_list,
    .read = template_read,
    .thread_init = template_thread_init,
    .thread_read = template_thread_read,
    .thread_fini = template_thread_fini,
    .fini = template_fini,
};

// Options: {name, type, default as text (NULL: none), one-line description}, ended by {0}.
// Types: SCAL_OPT_STRING, INT, DOUBLE, BOOL, LIST (comma-separated); values always arrive as text.
static const struct scal_option_desc template_options[] = {
    {"wall", SCAL_OPT_BOOL, "true", "also report wall-clock time (template_sensor.wall_time)"},
    {0},
};

static const struct scal_plugin_desc template_desc = {
    .abi_version = SCAL_PLUGIN_ABI_VERSION,         // the ABI this file was compiled against
    .struct_size = sizeof(struct scal_plugin_desc), // likewise, for appended members
    .name = "template_sensor",                      // what users write in SCAL_PLUGINS
    .version = "1",                                 // your plugin's own version
    .kind = SCAL_PLUGIN_SENSOR,
    .description = "Example sensor: process/thread CPU time and wall-clock time",
    .options = template_options,
    .sensor = &template_ops,
};

SCAL_PLUGIN_DEFINE(template_desc)
