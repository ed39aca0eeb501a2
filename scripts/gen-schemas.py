# SPDX-License-Identifier: BSD-3-Clause
# Regenerates schemas/scal-run-1.json and schemas/scal-campaign-1.json from common/layout.h (the
# tables' X-macros, the enums), common/column_meta.c (each member's units and description, the same
# strings the writers put in the column_units / column_descriptions attributes) and the attribute
# lists below. tests/layout checks that the two stay in step; scal check validates files against
# the units, descriptions and enums listed here.
#   python3 scripts/gen-schemas.py
import json
import os
import sys
import re

root = os.path.join(os.path.dirname(__file__), "..")
layout = open(os.path.join(root, "common/layout.h")).read()
column_meta = open(os.path.join(root, "common/column_meta.c")).read()
layout_c = open(os.path.join(root, "common/layout.c")).read()
# {table or None, member, units, description} rows of common/column_meta.c
METAS = [(None if t == "NULL" else t.strip('"'), m, u, d.replace('\\"', '"'))
         for t, m, u, d in re.findall(r'\{(NULL|"\w+"),\s*"(\w+)",\s*"([^"]*)",\s*"((?:[^"\\]|\\.)*)"\}',
                                      column_meta)]


def meta_of(table, member):
    """units and description of a member, as scal_column_meta() resolves them"""
    t = table.split("/")[-1]
    found = None
    for mt, mm, u, d in METAS:
        if mm != member:
            continue
        if mt == t:
            return u, d
        if mt is None and found is None:
            found = (u, d)
    return found or ("", "")


def enum_of(function, prefix):
    """name -> value of an enum whose names come from a switch in common/layout.c"""
    values = {n: int(v) for n, v in re.findall(r"(%s\w+)\s*=\s*(\d+)" % prefix, layout)}
    body = re.search(r"const char \*%s\(int \w+\)\s*\{(.*?)\n\}" % function, layout_c, re.S).group(1)
    return {name: values[c] for c, name in re.findall(r"case (%s\w+):\s*return \"([^\"]+)\";" % prefix, body)}


ENUMS = {("regions", "kind"): enum_of("scal_region_kind_name", "SCAL_KIND_"),
         ("runs", "status"): enum_of("scal_run_status_name", "SCAL_RUN_"),
         # plugin_kind_name's table in common/column_meta.c, by value
         ("plugins", "kind"): {n: v for v, n in enumerate(re.findall(r'"(\w+)"', re.search(
             r"plugin_kind_name\(int kind\)\s*\{\s*static const char \*const names\[\] = \{([^}]*)\}",
             column_meta).group(1)))}}
# descriptions of the campaign group's attributes and datasets, and of /strings
CAMPAIGN_ATTRS = {
    "program": "the measured program (its path as given to scal run)",
    "command": "the measured program's command line",
    "created_utc": "when the campaign file was created (ISO 8601, UTC)",
    "host": "host name of the machine that ran the campaign",
    "cpu_model": "CPU model of that machine",
    "order": "order of the runs: given or shuffled (scal run --order)",
    "note": "free text given to scal run",
    "omp_runtime": "the OpenMP runtime the program ran against",
    "program_identity": "the program binary: ELF build id and size, or size and modification time "
                        "(scal run --resume refuses another binary)",
    "repetitions": "repetitions per configuration (scal run -r)",
    "seed": "seed of the shuffled order (scal run --seed)",
}
STRINGS = {"path": "strings", "type": "strings", "required": True,
           "description": "the string table: text members of the tables are indices into it"}


# Descriptions earlier versions wrote into column_descriptions (still valid in their files): by
# member name and the current description.
FORMER = {
    ("imbalance", "load imbalance: 1 - mean work per thread / busiest thread's work"):
        ["load imbalance: thread_work_max_s / thread_work_mean_s - 1"],
    ("region", "region id (joinable with /regions.id)"):
        ["region id (joinable with /regions.id), -1: the whole run"],
    ("thread", "team thread index"): ["team thread index, -1: all threads"],
    ("thread", "team thread index, -1: all threads / process scope"): ["team thread index, -1: all threads"],
    ("kind", "plugin kind: sensor, actuator, postproc (enum scal_plugin_kind)"): ["plugin kind (enum scal_plugin_kind)"],
}


def describe(schema):
    """every table member: its units, description and (kind, status) enum"""
    for t in schema["tables"]:
        for m in t["members"]:
            m["units"], m["description"] = meta_of(t["path"], m["name"])
            if (m["name"], m["description"]) in FORMER:
                m["former_descriptions"] = FORMER[(m["name"], m["description"])]
            e = ENUMS.get((t["path"].split("/")[-1], m["name"]))
            if e:
                m["enum"] = e
TYPES = {"SCAL_H5_U8": "u8", "SCAL_H5_I32": "i32", "SCAL_H5_U32": "u32", "SCAL_H5_I64": "i64", "SCAL_H5_U64": "u64", "SCAL_H5_F64": "f64"}
STRING_MEMBERS = {"name", "module", "build_id", "file", "function", "input_label", "affinity", "argv", "message",
                  "stdout_tail", "stderr_tail", "metric", "unit", "version", "reason", "path", "source", "label"}
REGION_MEMBERS = {"region", "parent", "gap_prev", "gap_next"}
# Members appended after files were written without them (common/column_meta.c: readers accept
# their absence, f64 members read as NaN; scal check too).
ADDED_LATER = {"time_wall_s", "loops_unknown", "label"}


def macro_fields(name):
    m = re.search(r"#define %s\(X\)(.*?)\n\n" % name, layout, re.S)
    return [(t, n) for t, n in re.findall(r"X\((SCAL_H5_\w+),\s*\w+,\s*(\w+)\)", m.group(1))]


def members(*macros, prefix=()):
    out = [{"name": n, "type": t} for n, t in prefix]
    for mac in macros:
        for t, n in macro_fields(mac):
            out.append({"name": n, "type": TYPES[t]})
    for m in out:
        if m["name"] in STRING_MEMBERS:
            m["string_index"] = True
        if m["name"] in REGION_MEMBERS:
            m["region_ref"] = True
        if m["name"] in ADDED_LATER:
            m["added_later"] = True
    return out


ROOT_ATTRS = [{"name": "scal_format", "type": "string", "required": True},
              {"name": "scal_schema_version", "type": "int", "required": True},
              {"name": "scal_tool_version", "type": "string", "required": True}]
run = {
    "format": "scal-run", "version": 1,
    "description": "One run of a program measured by libscal_ompt.so.",
    "attributes": ROOT_ATTRS,
    "groups": [
        {"path": "meta", "required": True, "attributes": [
            {"name": n, "type": "string", "required": True} for n in
            ("command_line", "executable", "host", "cpu_model", "kernel", "date_utc", "omp_runtime", "clock_source", "exit_reason", "tool_options")] + [
            {"name": n, "type": "int", "required": True} for n in ("pid", "cpu_count", "requested_threads", "max_team_observed", "trace")] + [
            {"name": n, "type": "float", "required": True} for n in ("start_unix", "duration_s")] + [
            {"name": "omp_entry_points", "type": "string", "required": False},
            {"name": "command_line_read", "type": "string", "required": False,
             "description": "when command_line was read: 'at start (the tool was preloaded)' (before main, scal exec and scal run), or 'at the first OpenMP call (...)' (a raw OMP_TOOL_LIBRARIES load: the program may have rewritten its arguments by then); absent in older files"},
            {"name": "mpi_rank", "type": "int", "required": False,
             "description": "MPI rank from the launcher's environment, -1 when not launched as a rank"},
            {"name": "mpi_size", "type": "int", "required": False,
             "description": "ranks of the MPI job as the launcher said, -1 when unknown"},
            {"name": "mpi_rank_source", "type": "string", "required": False,
             "description": "the variable the rank came from (OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK, SLURM_PROCID), empty when none"}],
         "datasets": [{"path": "meta/environment", "type": "strings", "required": True}]},
        {"path": "diagnostics", "required": True, "attributes": [{"name": "errors_total", "type": "int", "required": True}],
         "datasets": [{"path": "diagnostics/messages", "type": "strings", "required": True},
                      {"path": "diagnostics/descriptions", "type": "strings", "required": False}]},
        {"path": "trace", "required": False, "attributes": [
            {"name": n, "type": "int", "required": True} for n in ("capacity_per_thread", "recorded", "dropped")]},
        {"path": "sensors", "required": False, "attributes": [
            {"name": "sample_period_s", "type": "float", "required": True}] + [
            {"name": n, "type": "int", "required": True} for n in
            ("samples_decimated", "read_errors", "threads_not_measured", "team_index_changes")]},
    ],
    "datasets": [STRINGS],
    "tables": [
        {"path": "regions", "required": True, "description": "one row per region node; row i has id i; row 0 is the whole program",
         "members": members("SCAL_REGION_IDENTITY_FIELDS", "SCAL_REGION_STATS_FIELDS")},
        {"path": "threads", "required": True, "description": "per (region, team thread index) totals",
         "members": members("SCAL_THREAD_FIELDS")},
        {"path": "trace/instances", "required": False, "members": members("SCAL_TRACE_INSTANCE_FIELDS")},
        {"path": "trace/states", "required": False, "members": members("SCAL_TRACE_STATE_FIELDS")},
        {"path": "sensors/values", "required": False, "members": members("SCAL_SENSOR_VALUE_FIELDS")},
        {"path": "sensors/samples", "required": False, "members": members("SCAL_SENSOR_SAMPLE_FIELDS")},
        {"path": "sensors/plugins", "required": False, "members": members("SCAL_PLUGIN_STATE_FIELDS")},
    ],
}
RUN = [("run", "u32")]
campaign = {
    "format": "scal-campaign", "version": 1,
    "description": "A campaign: many runs of one program over a configuration matrix.",
    "attributes": ROOT_ATTRS,
    "groups": [{"path": "campaign", "required": True, "attributes": [
        {"name": "program", "type": "string", "required": True, "description": CAMPAIGN_ATTRS["program"]}] + [
        {"name": n, "type": "string", "required": False, "description": CAMPAIGN_ATTRS[n]} for n in
        ("command", "created_utc", "host", "cpu_model", "order", "note", "omp_runtime", "program_identity")] + [
        {"name": n, "type": "int", "required": False, "description": CAMPAIGN_ATTRS[n]} for n in ("repetitions", "seed")] + [
        {"name": "input_sizes", "type": "float", "required": False,
         "description": "numeric size of each input of campaign/inputs (scal run --size), NaN where none was given"}],
        "datasets": [{"path": "campaign/inputs", "type": "strings", "required": False,
                      "description": "input labels in plan order (configs.input indexes them)"},
                     {"path": "campaign/runner_argv", "type": "strings", "required": False,
                      "description": "the scal run options and program as given; scal run --resume rebuilds the plan from them"}]}],
    "datasets": [STRINGS],
    "tables": [
        {"path": "configs", "required": True, "members": members("SCAL_CONFIG_FIELDS")},
        {"path": "runs", "required": True, "members": members("SCAL_RUN_FIELDS")},
        {"path": "regions", "required": True, "description": "region identities unified across runs",
         "members": members("SCAL_REGION_IDENTITY_FIELDS")},
        {"path": "region_stats", "required": True, "members": members("SCAL_REGION_STATS_FIELDS", prefix=RUN + [("region", "u32")])},
        {"path": "thread_stats", "required": False, "members": members("SCAL_THREAD_FIELDS", prefix=RUN)},
        {"path": "sensor_values", "required": False, "members": members("SCAL_SENSOR_VALUE_FIELDS", prefix=RUN)},
        {"path": "sensor_samples", "required": False, "members": members("SCAL_SENSOR_SAMPLE_FIELDS", prefix=RUN)},
        {"path": "plugins", "required": False, "members": members("SCAL_PLUGIN_STATE_FIELDS", prefix=RUN)},
        {"path": "config_ranks", "required": False, "description": "MPI campaigns: the ranks of each configuration",
         "members": members("SCAL_CONFIG_RANK_FIELDS")},
        {"path": "run_ranks", "required": False, "description": "MPI runs: one row per rank of the job, recorded or not",
         "members": members("SCAL_RUN_RANK_FIELDS")},
        {"path": "rank_region_stats", "required": False,
         "description": "MPI runs: every rank's region statistics (region_stats holds the critical path: per region the slowest rank's row)",
         "members": members("SCAL_REGION_STATS_FIELDS", prefix=RUN + [("rank", "i32"), ("region", "u32")])},
        {"path": "region_rank_summary", "required": False,
         "description": "MPI runs: per region, time_total_s over the ranks (max = critical path, mean, min) and the rank imbalance",
         "members": members("SCAL_REGION_RANK_SUMMARY_FIELDS")},
    ],
}
# --check: write nothing, fail when a committed schema differs from what the code describes
check = sys.argv[1:] == ["--check"]
stale = []
for doc in (run, campaign):
    describe(doc)
    path = os.path.join(root, "schemas", "%s-%d.json" % (doc["format"], doc["version"]))
    text = json.dumps(doc, indent=2) + "\n"
    if check:
        with open(path) as f:
            if f.read() != text:
                stale.append(path)
        continue
    with open(path, "w") as f:
        f.write(text)
    print("wrote", path)
if stale:
    sys.exit("gen-schemas: %s differ from common/layout.h and column_meta.c: run scripts/gen-schemas.py"
             % ", ".join(stale))
