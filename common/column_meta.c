// SPDX-License-Identifier: BSD-3-Clause
// Units and one-sentence descriptions of every member of scal's tables, keyed by member name
// (with a few per-table overrides), written as the column_units / column_descriptions attributes.
#include <string.h>

#include "column_meta.h"
#include "layout.h"
#include "scal/plugin.h"

struct column_meta {
    const char *table; /* dataset name (last path component), NULL: any table */
    const char *member;
    const char *units;
    const char *description;
};

/* Units: "s" seconds, "s^2" square seconds, "kHz", "count", "1" dimensionless ratio or flag,
 * "" identifiers, string indices, enums and line numbers. */
static const struct column_meta metas[] = {
    {"plugins", "kind", "", "plugin kind: sensor, actuator, postproc (enum scal_plugin_kind)"},
    /* sensor values: region and thread are signed, -1 meaning the whole run / every thread; in the
     * other tables they are unsigned ids (see the generic entries below) */
    {"values", "region", "", "region id (joinable with /regions.id), -1: the whole run"},
    {"values", "thread", "", "team thread index, -1: all threads / process scope"},
    {"sensor_values", "region", "", "region id (joinable with /regions.id), -1: the whole run"},
    {"sensor_values", "thread", "", "team thread index, -1: all threads / process scope"},
    {"plugins", "name", "", "string index of the plugin name"},
    {"configs", "threads", "count", "OpenMP threads requested for the configuration"},
    {"configs", "id", "", "configuration id, referenced by runs.config"},
    {"runs", "id", "", "run id, referenced by the run column of the per-run tables"},
    {NULL, "run", "", "run id (joinable with /runs.id)"},
    {NULL, "id", "", "region id, unique in the file"},
    {NULL, "parent", "", "id of the enclosing region, -1 for the root"},
    {NULL, "depth", "count", "nesting depth, 0 for the root"},
    {NULL, "kind", "", "region kind: root, parallel, serial, user or task"},
    {NULL, "name", "", "string index of the region name"},
    {NULL, "module", "", "string index of the module (shared object or executable)"},
    {NULL, "build_id", "", "string index of the module's build id"},
    {NULL, "offset", "", "code offset of the region in its module"},
    {NULL, "file", "", "string index of the source file"},
    {NULL, "line_first", "", "first source line, -1 when unknown"},
    {NULL, "line_last", "", "last source line, -1 when unknown"},
    {NULL, "function", "", "string index of the enclosing function"},
    {NULL, "gap_prev", "", "serial gap: id of the region before it, -1 otherwise"},
    {NULL, "gap_next", "", "serial gap: id of the region after it, -1 otherwise"},
    {NULL, "label", "",
     "string index of the region's label, derived by scal's one rule when the file was written"},
    {NULL, "count", "count", "number of instances of the region"},
    {NULL, "time_total_s", "s",
     "summed duration of all instances over the threads that encountered them (CPU-like)"},
    {NULL, "loops_unknown", "1",
     "1 when gcc's inlined static loops may run unseen: loops counts only the others"},
    {NULL, "time_wall_s", "s",
     "wall-clock time: union of the instances' intervals over threads, at most the parent's"},
    {NULL, "time_min_s", "s", "shortest instance duration"},
    {NULL, "time_max_s", "s", "longest instance duration"},
    {NULL, "time_mean_s", "s", "mean instance duration"},
    {NULL, "time_var_s2", "s^2", "variance of the instance durations"},
    {NULL, "time_median_s", "s", "median instance duration"},
    {NULL, "median_exact", "1", "1 when time_median_s is exact, 0 when estimated"},
    {NULL, "team_requested_min", "count", "smallest team size requested"},
    {NULL, "team_requested_max", "count", "largest team size requested"},
    {NULL, "team_actual_min", "count", "smallest team size obtained"},
    {NULL, "team_actual_max", "count", "largest team size obtained"},
    {NULL, "work_total_s", "s", "work time summed over threads and instances"},
    {NULL, "work_inst_max_s", "s", "largest per-instance work time"},
    {NULL, "work_inst_min_s", "s", "smallest per-instance work time"},
    {NULL, "barrier_total_s", "s", "barrier wait summed over threads and instances"},
    {NULL, "barrier_inst_max_s", "s", "largest per-instance barrier wait"},
    {NULL, "lock_total_s", "s", "lock wait summed over threads and instances"},
    {NULL, "lock_inst_max_s", "s", "largest per-instance lock wait"},
    {NULL, "threads", "count", "number of distinct threads that ran the region"},
    {NULL, "thread_work_max_s", "s", "work time of the busiest thread"},
    {NULL, "thread_work_min_s", "s", "work time of the least busy thread"},
    {NULL, "thread_work_mean_s", "s", "mean work time per thread"},
    {NULL, "imbalance", "1", "load imbalance: 1 - mean work per thread / busiest thread's work"},
    {NULL, "loops", "count", "worksharing loops executed in the region"},
    {NULL, "loop_iterations", "count", "iterations of those loops"},
    {NULL, "region", "", "region id (joinable with /regions.id)"},
    {NULL, "thread", "", "team thread index"},
    {NULL, "instances", "count", "number of region instances"},
    {NULL, "work_s", "s", "time spent working"},
    {NULL, "barrier_s", "s", "time spent waiting in barriers"},
    {NULL, "lock_s", "s", "time spent waiting for locks"},
    {NULL, "begin_s", "s", "start, seconds since the start of the run"},
    {NULL, "end_s", "s", "end, seconds since the start of the run"},
    {NULL, "state", "", "thread state: 0 work, 1 barrier, 2 lock"},
    {NULL, "metric", "", "string index of \"<plugin>.<metric>\""},
    {NULL, "unit", "", "string index of the unit of value"},
    {NULL, "value", "", "measured value, in the unit named by the unit column"},
    {NULL, "time_s", "s", "sample time, seconds since the start of the run"},
    {NULL, "version", "", "string index of the plugin version"},
    {NULL, "available", "1", "1 when the plugin was available and used, 0 otherwise"},
    {NULL, "reason", "", "string index: why the plugin was unavailable"},
    {NULL, "path", "", "string index of the shared object loaded"},
    {NULL, "input", "", "string index of the input argument"},
    {NULL, "input_label", "", "string index of the input label"},
    {NULL, "frequency_khz", "kHz", "requested CPU frequency, 0 when not set"},
    {NULL, "affinity", "", "string index of the affinity setting"},
    {NULL, "argv", "", "string index of the command line"},
    {NULL, "config", "", "configuration id (joinable with /configs.id)"},
    {NULL, "repetition", "count", "repetition number within the configuration"},
    {NULL, "status", "", "run status: ok, failed, signaled, timeout, launch-error, no-data"},
    {NULL, "exit_code", "", "exit code of the program"},
    {NULL, "signal", "", "signal that killed the program, 0 when none"},
    {NULL, "wall_s", "s", "wall-clock duration of the run"},
    {NULL, "started_unix", "s", "start time, seconds since the Unix epoch"},
    {NULL, "team_requested", "count", "team size requested"},
    {NULL, "team_observed", "count", "largest team size observed"},
    {NULL, "team_mismatch", "1", "1 when the observed team differs from the requested one"},
    {NULL, "frequency_observed_khz", "kHz", "CPU frequency observed during the run"},
    {NULL, "message", "", "string index of the runner's message"},
    {NULL, "stdout_tail", "", "string index of the end of the program's stdout"},
    {NULL, "stderr_tail", "", "string index of the end of the program's stderr"},
    {"config_ranks", "ranks", "count", "MPI ranks the configuration is launched with"},
    {"run_ranks", "ranks", "count", "ranks of the job as the launcher said, -1 when unknown"},
    {"region_rank_summary", "ranks", "count", "number of ranks that ran the region"},
    {NULL, "rank", "", "MPI rank (0 .. ranks-1)"},
    {NULL, "recorded", "1", "1 when the rank's run file was read, 0 when it left none"},
    {NULL, "duration_s", "s", "the rank's own duration (its run file), NaN when not recorded"},
    {NULL, "source", "",
     "string index of the variable the rank came from (OMPI_COMM_WORLD_RANK...)"},
    {NULL, "critical_rank", "",
     "the rank with the largest time_total_s of the region (critical path)"},
    {NULL, "rank_time_max_s", "s", "largest time_total_s over the ranks (the critical path)"},
    {NULL, "rank_time_mean_s", "s", "mean time_total_s over the ranks that ran the region"},
    {NULL, "rank_time_min_s", "s", "smallest time_total_s over the ranks that ran the region"},
    {NULL, "rank_imbalance", "1", "rank imbalance: 1 - rank_time_mean_s / rank_time_max_s"},
};

static const char *last_component(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

int scal_column_meta(const char *table, const char *member, const char **units,
                     const char **description)
{
    const char *t = table ? last_component(table) : "";
    const struct column_meta *any = NULL;
    for (size_t i = 0; i < sizeof(metas) / sizeof(metas[0]); i++) {
        if (strcmp(metas[i].member, member)) continue;
        if (metas[i].table && !strcmp(metas[i].table, t)) {
            any = &metas[i];
            break;
        }
        if (!metas[i].table && !any) any = &metas[i];
    }
    *units = any ? any->units : "";
    *description = any ? any->description : "";
    return any != NULL;
}

/* enum scal_plugin_kind by value (0 is never written). */
static const char *plugin_kind_name(int kind)
{
    static const char *const names[] = {"none", "sensor", "actuator", "postproc"};
    return kind >= 0 && kind < 4 ? names[kind] : "unknown";
}

int scal_column_enum(const char *table, const char *member, const char *(**name_of)(int), int *n)
{
    const char *t = table ? last_component(table) : "";
    if (!strcmp(t, "regions") && !strcmp(member, "kind")) {
        *name_of = scal_region_kind_name;
        *n = SCAL_KIND_TASK + 1;
        return 1;
    }
    if (!strcmp(t, "runs") && !strcmp(member, "status")) {
        *name_of = scal_run_status_name;
        *n = SCAL_RUN_NODATA + 1;
        return 1;
    }
    if (!strcmp(t, "plugins") && !strcmp(member, "kind")) { /* older files: plain uint8 */
        *name_of = plugin_kind_name;
        *n = SCAL_PLUGIN_POSTPROC + 1;
        return 1;
    }
    return 0;
}

/* Members appended to a table after files were written without them: readers accept their absence
 * (f64 members then read as NaN), scal check too. */
static const struct {
    const char *table, *member;
} added_later[] = {
    {"regions", "time_wall_s"},   {"region_stats", "time_wall_s"},
    {"regions", "loops_unknown"}, {"region_stats", "loops_unknown"},
    {"regions", "label"},
};

int scal_column_added_later(const char *table, const char *member)
{
    const char *t = table ? last_component(table) : "";
    for (size_t i = 0; i < sizeof(added_later) / sizeof(added_later[0]); i++)
        if (!strcmp(t, added_later[i].table) && !strcmp(member, added_later[i].member)) return 1;
    return 0;
}
