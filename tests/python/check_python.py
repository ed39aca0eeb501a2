# SPDX-License-Identifier: BSD-3-Clause
# The scal Python package (python/scal) on real run and campaign files: every value it returns is
# recomputed here from the raw h5py tables or compared with `scal show --csv`.
#
#   check_python.py SCENARIO --scal SCAL --prog CAMPAIGN_PROG --demo SCAL_DEMO --tool LIBSCAL_OMPT
#                   --source CAMPAIGN_PROG_C --gen GEN_CAMPAIGN --build BUILD_DIR
import argparse
import csv
import io
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from scal_check import check, fail  # noqa: E402  (tests/scal_check.py)

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import scal  # noqa: E402  (PYTHONPATH: the source python/ folder)

INPUTS = ["small", "big"]
COLUMNS = [
    "run", "repetition", "input", "threads", "team", "frequency_khz", "status",
    "region", "region_id", "parent_id", "kind", "file", "line_begin", "line_end", "function",
    "count", "total_s", "wall_s", "mean_s", "median_s", "min_s", "max_s", "work_s", "barrier_s", "lock_s", "imbalance",
    "ranks", "rank_imbalance",
    "input_size", "exit_code", "signal", "message", "stdout_tail", "stderr_tail",
]
INT64 = ["threads", "team", "frequency_khz", "region_id", "parent_id", "line_begin", "line_end", "count", "exit_code",
         "signal"]
FLOAT = ["total_s", "wall_s", "mean_s", "median_s", "min_s", "max_s", "work_s", "barrier_s", "lock_s", "imbalance"]


def sh(args, cmd, expect=0, env=None):
    e = dict(os.environ, OMP_WAIT_POLICY="passive")
    e.update(env or {})
    p = subprocess.run(cmd, capture_output=True, text=True, env=e, cwd=args.work, timeout=600)
    if expect is not None and p.returncode != expect:
        fail("%s -> exit %d (expected %d)\nstderr: %s" % (" ".join(cmd[:3]), p.returncode, expect, p.stderr[-1500:]))
    return p


def show_csv(args, path):
    """scal show --csv as a list of dicts (the campaign's (run, region) table or the run's tree)."""
    out = sh(args, [args.scal, "show", path, "--csv"]).stdout
    reader = csv.DictReader(io.StringIO(out))
    return reader.fieldnames, list(reader)


def raw(path):
    """The raw tables of a file, decoded only by h5py."""
    f = h5py.File(path, "r")
    t = {name: f[name][()] for name in ("regions", "configs", "runs", "region_stats", "sensor_values") if name in f}
    t["strings"] = list(f["strings"].asstr()[()])
    if "sensors/values" in f:
        t["sensors/values"] = f["sensors/values"][()]
    t["meta"] = dict(f["meta"].attrs) if "meta" in f else {}
    f.close()
    return t


def make_campaign(args, name, *extra):
    out = os.path.join(args.work, name)
    sh(args, [args.scal, "run", "-c", "1,2", "-r", "2", "-i", "5", "--label", "small", "-i", "10", "--label", "big"] + list(extra)
       + ["-o", out, "--", args.prog, "{input}"])
    return out


def make_run_file(args, name, **env):
    out = os.path.join(args.work, name)
    sh(args, [args.demo, "5"], env=dict(env, OMP_NUM_THREADS="2", OMP_TOOL_LIBRARIES=args.tool, SCAL_OUTPUT=out, SCAL_PLUGINS="rusage"))
    check(os.path.exists(out), "the tool wrote " + name)
    return out


def check_columns(df, metrics):
    check(list(df.columns) == COLUMNS + metrics, "columns in order: %s" % list(df.columns))
    for col in INT64:
        check(str(df[col].dtype) == "Int64", "%s is nullable Int64 (%s)" % (col, df[col].dtype))
    for col in FLOAT + ["input_size"] + metrics:
        want = "Int64" if col.endswith(" [count]") else "float64"  # counts are integers
        check(str(df[col].dtype) == want, "%s is %s (%s)" % (col, want, df[col].dtype))
    for col in ("run", "repetition"):
        check(str(df[col].dtype) == "int64", "%s is int64" % col)
    check(list(df["status"].cat.categories) == ["ok", "failed", "signaled", "timeout", "launch-error", "no-data"], "status: categorical run states")
    check(list(df["kind"].cat.categories) == ["root", "parallel", "serial", "user", "task"], "kind: categorical region kinds")


def check_labels_match_show(args, path, df, campaign):
    """Python (scal.load) and scal show name every (run, region) the same way."""
    header, rows = show_csv(args, path)
    if campaign:
        shown = {(int(r["run"]), int(r["region_id"])): r["region"] for r in rows}
        mine = {(int(r.run), int(r.region_id)): r.region for r in df.itertuples()}
    else:
        shown = {int(r["id"]): r["region"] for r in rows}
        mine = {int(r.region_id): r.region for r in df.itertuples()}
    diff = [(k, shown.get(k), mine.get(k)) for k in sorted(set(shown) | set(mine)) if shown.get(k) != mine.get(k)]
    check(not diff and len(shown) == len(df), "%d labels identical to scal show --csv (%s)%s" % (len(shown), os.path.basename(path), "; differ: %s" % diff[:3] if diff else ""))
    return header, rows


def scenario_campaign(args):
    path = make_campaign(args, "small.h5", "-s", "rusage")
    t = raw(path)
    s = t["strings"]
    df = scal.load(path)
    # rows: every (run, region) of /region_stats; the program has 8 regions (2 parallel, 3 gaps, the
    # OpenMP runtime's start-up, the tool's start-up, root)
    check(len(t["runs"]) == 8 and all(r["status"] == 0 for r in t["runs"]), "8 runs, all ok")
    check(len(t["regions"]) == 8, "8 regions in the campaign")
    check(len(t["region_stats"]) == 64 and len(df) == 64, "64 rows = 8 runs x 8 regions (%d)" % len(df))
    metrics = []
    for v in t["sensor_values"]:
        name = "%s [%s]" % (s[v["metric"]], s[v["unit"]])
        if v["thread"] == -1 and name not in metrics:
            metrics.append(name)
    check("rusage.utime [s]" in metrics, "rusage metrics recorded")
    check_columns(df, metrics)
    check(list(df["input"].cat.categories) == INPUTS and df["input"].cat.ordered, "input: ordered categorical in plan order")
    check(df["input"].min() == "small" and df["input"].max() == "big", "input order is the plan's, not the alphabet's")
    check(df["frequency_khz"].isna().all(), "no frequency set: <NA>")
    check((df["status"] == "ok").all(), "status decoded: ok")
    # run columns against /runs and /configs
    for r in t["runs"]:
        c = t["configs"][r["config"]]
        rows = df[df["run"] == int(r["id"])]
        check(len(rows) == 8 and (rows["threads"] == c["threads"]).all() and (rows["input"] == s[c["input_label"]]).all()
              and (rows["repetition"] == r["repetition"]).all() and (rows["team"] == r["team_observed"]).all(),
              "run %d: threads %d, input %s, repetition %d" % (r["id"], c["threads"], s[c["input_label"]], r["repetition"]))
    # statistics against /region_stats, identities against /regions
    with open(args.source) as src:  # the pragma lines, marked in the program's source
        source = src.read().split("\n")
    first, second = [[n for n, line in enumerate(source, 1) if m in line][0] for m in ("/* FIRST */", "/* SECOND */")]
    by_key = df.set_index(["run", "region_id"])
    for st in t["region_stats"]:
        row = by_key.loc[(int(st["run"]), int(st["region"]))]
        reg = t["regions"][st["region"]]
        team = st["threads"] > 0  # work, waits and imbalance: missing (NaN), not 0, for regions without a team
        same = (lambda a, b: a == b) if team else (lambda a, b: np.isnan(a))
        if not (row["total_s"] == st["time_total_s"] and row["wall_s"] == st["time_wall_s"] and row["count"] == st["count"] and row["median_s"] == st["time_median_s"]
                and same(row["work_s"], st["work_total_s"]) and same(row["barrier_s"], st["barrier_total_s"]) and same(row["imbalance"], st["imbalance"])
                and row["min_s"] == st["time_min_s"] and row["max_s"] == st["time_max_s"] and same(row["lock_s"], st["lock_total_s"])
                and row["kind"] == ["root", "parallel", "serial", "user", "task"][reg["kind"]] and row["function"] == s[reg["function"]]):
            fail("run %d region %d differs from /region_stats: %s" % (st["run"], st["region"], row.to_dict()))
    serial = df[df["kind"].isin(["root", "serial", "user"])]
    check(len(serial) and serial[["work_s", "barrier_s", "lock_s", "imbalance"]].isna().all().all(),
          "root/serial/user rows: work, waits and imbalance are missing (NaN), not 0 (%d rows)" % len(serial))
    par = df[df["kind"] == "parallel"]
    check(len(par) and par["work_s"].notna().all(), "parallel rows keep their work")
    for r in t["runs"]:
        rows = df[df["run"] == int(r["id"])]
        check((rows["exit_code"] == r["exit_code"]).all() and rows["signal"].isna().all() and
              (rows["stdout_tail"] == s[r["stdout_tail"]]).all() and (rows["message"] == s[r["message"]]).all(),
              "run %d: exit code, signal, message and output tail from /runs" % r["id"])
    check(df["stdout_tail"].str.contains("done").all(), "the output tail is the program's")
    check(True, "every (run, region) row carries its /region_stats values and decoded /regions identity")
    par = df[df["kind"] == "parallel"]
    check(sorted(par["line_begin"].unique()) == [first, second], "parallel regions start at the pragma lines %d, %d" % (first, second))
    check((par["function"] == "regions").all() and par["file"].str.endswith("/campaign_prog.c").all(), "function (the source function, regions(), inlined into main) and file decoded")
    check((df.loc[df["kind"] == "root", "parent_id"].isna()).all() and (df.loc[df["kind"] != "root", "parent_id"] == 0).all(), "parent_id: <NA> for the root, 0 below")
    check(df.loc[df["kind"] == "serial", "line_begin"].isna().all(), "no lines: <NA>")
    # sensor metrics: the whole program row carries the whole-run value
    utime = {int(v["run"]): v["value"] for v in t["sensor_values"] if s[v["metric"]] == "rusage.utime" and v["thread"] == -1 and v["region"] == -1}
    root = df[df["region_id"] == 0].set_index("run")["rusage.utime [s]"]
    check(len(utime) == 8 and all(root[r] == utime[r] for r in utime), "rusage.utime [s] of each run on its whole-program row")
    # the C rule: labels, metric headers and metric values as scal show prints them
    header, rows = check_labels_match_show(args, path, df, True)
    check(header[11:11 + len(metrics)] == metrics, "metric columns named as scal show names them: %s" % header[11:])
    for r in rows:
        mine = by_key.loc[(int(r["run"]), int(r["region_id"]))]
        for m in metrics:
            if (r[m] == "") != pd.isna(mine[m]) or (r[m] != "" and float(r[m]) != mine[m]):
                fail("run %s region %s %s: scal show %s, scal.load %r" % (r["run"], r["region_id"], m, r[m], mine[m]))
    check(True, "metric values equal to scal show's")
    # the tree
    tree = scal.tree(path)
    check(list(tree.index) == list(range(8)) and tree.index.name == "region_id", "tree indexed by region_id 0..7")
    check(list(tree["region"]) == list(df[df["run"] == 0]["region"]), "tree labels = load labels")
    check(list(tree["depth"]) == [int(r["depth"]) for r in t["regions"]], "tree depth from /regions")
    gaps = tree[tree["kind"] == "serial"]
    check(list(gaps["gap_prev"].isna()) == [r["gap_prev"] < 0 for r in t["regions"] if r["kind"] == 2], "gap neighbours: <NA> at the ends")
    # matrices recomputed from the raw tables
    rid = [i for i, r in enumerate(t["regions"]) if r["line_first"] == first][0]
    label = df[df["region_id"] == rid]["region"].iloc[0]
    times = {}
    for st in t["region_stats"]:
        if st["region"] == rid:
            c = t["configs"][t["runs"][st["run"]]["config"]]
            rep = int(t["runs"][st["run"]]["repetition"])
            times.setdefault((int(c["threads"]), s[c["input_label"]]), {})[rep] = float(st["time_wall_s"])
    T = {k: statistics.median(v.values()) for k, v in times.items()}
    check(all(len(v) == 2 for v in times.values()) and len(T) == 4, "2 repetitions per (threads, input)")
    for metric in ("time", "speedup", "efficiency"):
        m = scal.matrix(df, label, metric)
        check(m.shape == (2, 2) and list(m.index) == [1, 2] and list(m.columns) == INPUTS, "%s matrix: threads [1, 2] x inputs %s" % (metric, INPUTS))
        for p in (1, 2):
            for i in INPUTS:
                want = {"time": T[(p, i)], "speedup": T[(1, i)] / T[(p, i)], "efficiency": T[(1, i)] / (p * T[(p, i)])}[metric]
                if abs(m.loc[p, i] - want) > 1e-12 * max(1.0, abs(want)):
                    fail("%s[%d, %s] = %r, recomputed %r" % (metric, p, i, m.loc[p, i], want))
        check(True, "%s matrix values recomputed from /region_stats" % metric)
    check(scal.matrix(df, rid).equals(scal.matrix(df, label)), "a region_id selects the same region as its label")
    bad = df["region_id"].eq(rid) & df["threads"].eq(2) & df["input"].eq("big") & df["repetition"].eq(0)
    m = scal.matrix(df.assign(wall_s=df["wall_s"].mask(bad, -1.0), total_s=df["total_s"].mask(bad, -1.0)), label, "time")
    check(m.loc[2, "big"] == times[(2, "big")][1], "a negative time is left out of the median")
    # a third repetition, 10 times slower: the median (not the mean) of three
    # files from before wall_s: the summed time
    old = scal.matrix(df.assign(wall_s=np.nan, total_s=df["total_s"] * 3), label, "time")
    check(all(abs(old.loc[p, i] - 3 * statistics.median(
        float(st["time_total_s"]) for st in t["region_stats"] if st["region"] == rid
        and int(t["configs"][t["runs"][st["run"]]["config"]]["threads"]) == p
        and s[t["configs"][t["runs"][st["run"]]["config"]]["input_label"]] == i)) < 1e-12 for p in (1, 2) for i in INPUTS),
        "without wall_s the matrix uses total_s")
    slow = df[df["repetition"] == 0].assign(repetition=2, run=df["run"] + 100, wall_s=df["wall_s"] * 10)
    m3 = scal.matrix(pd.concat([df, slow]), label, "time")
    for (p, i), v in times.items():
        want = statistics.median(list(v.values()) + [10 * v[0]])
        check(abs(m3.loc[p, i] - want) < 1e-15, "3 repetitions: T(%d, %s) is their median" % (p, i))
    # baseline: the smallest thread count present (2 once the 1-thread runs are left out)
    two = scal.matrix(df[df["threads"] == 2], label, "efficiency")
    check(list(two.index) == [2] and (two.loc[2] == 1.0).all(), "without 1-thread runs the baseline is 2 threads (E = 1)")
    # errors of matrix()
    for bad, what in ((lambda: scal.matrix(df, label, "energy"), "metric must be"), (lambda: scal.matrix(df, "nowhere.c:1"), "no region 'nowhere.c:1'"),
                      (lambda: scal.matrix(df.assign(region=df["region"].where(df["region_id"] != 0, label)), label), "pass a region_id"),
                      (lambda: scal.matrix(df.assign(frequency_khz=df["run"].astype("Int64")), label), "frequencies")):
        try:
            bad()
            fail("matrix accepted a bad call (%s)" % what)
        except ValueError as e:
            check(what in str(e), "matrix refuses: %s" % e)


def scenario_failed(args):
    """A failed run keeps its run columns, its status and its measurements (scal run keeps every
    run's data); matrix() ignores it."""
    out = os.path.join(args.work, "failing.h5")
    sh(args, [args.scal, "run", "-c", "1,2", "-i", "5", "-i", "fail", "--label", "broken", "-s", "rusage", "-o", out, "--", args.prog, "{input}"], expect=1)
    t = raw(out)
    df = scal.load(out)
    failed = [r for r in t["runs"] if r["status"] != 0]
    check(len(failed) == 2 and all(r["status"] == 1 for r in failed), "two runs failed (exit status)")
    check(len(df) == len(t["region_stats"]), "rows: every region row of every run, failed ones too (%d)" % len(df))
    bad = df[df["status"] != "ok"]
    check(set(bad["status"]) == {"failed"} and set(bad["input"]) == {"broken"} and sorted(set(bad["threads"])) == [1, 2], "failed runs: status, input and threads decoded")
    check(bad["region"].notna().all() and bad["total_s"].notna().all(), "failed runs keep their measurements")
    check((bad["exit_code"] != 0).all() and bad["exit_code"].notna().all() and (df.loc[df["status"] == "ok", "exit_code"] == 0).all(),
          "failed runs: their exit status in exit_code")
    check(df.loc[df["status"] == "ok", "rusage.utime [s]"].notna().sum() == 2, "the ok runs' whole programs carry rusage.utime")
    check(list(df["input"].cat.categories) == ["5", "broken"], "input categories in plan order")
    m = scal.matrix(df, "whole program", "time")
    check(list(m.columns) == ["5"] and list(m.index) == [1, 2], "matrix: only inputs with successful runs")


def scenario_theory(args):
    """matrix() on the PaScal Viewer's theoretical program (T = n^2/p + log2 p, n = 10 * 2^input,
    written by tests/report/gen_campaign): E = n^2 / (n^2 + p log2 p) with a 1-thread baseline,
    (n^2 + 2) / (n^2 + p log2 p) from 2 threads; a region absent from one configuration is a gap."""
    path = os.path.join(args.work, "theory.h5")
    sh(args, [args.gen, path, "--inputs", "5", "--threads", "6", "--reps", "3"])
    df = scal.load(path)
    e = scal.matrix(df, "whole program")
    check(list(e.index) == [1, 2, 4, 8, 16, 32] and len(e.columns) == 5, "6 thread counts x 5 inputs")
    worst = max(abs(e.iloc[y, x] - (lambda n, p: n * n / (n * n + p * math.log2(p)))(10.0 * 2 ** x, e.index[y])) for y in range(6) for x in range(5))
    check(worst < 1e-9, "efficiency = n^2 / (n^2 + p log2 p) (the median of 3 repetitions with symmetric noise; largest difference %.2g)" % worst)
    sp = scal.matrix(df, "whole program", "speedup")
    check(abs(sp.loc[32, sp.columns[4]] - 32 * e.loc[32, e.columns[4]]) < 1e-12, "speedup = p * efficiency from 1 thread")
    path = os.path.join(args.work, "gaps.h5")
    sh(args, [args.gen, path, "--inputs", "4", "--threads", "4", "--gap", "--no1", "--freqs", "2"])
    df = scal.load(path)
    try:
        scal.matrix(df, 1)
        fail("matrix mixed two frequencies")
    except ValueError as err:
        check("frequencies" in str(err), "two frequencies refused: %s" % err)
    one = df[df["frequency_khz"] == df["frequency_khz"].max()]
    e = scal.matrix(one, 1)
    check(list(e.index) == [2, 4, 8, 16], "no 1-thread runs: thread counts from 2")
    check(e.isna().sum().sum() == 1 and pd.isna(e.loc[4, e.columns[2]]), "the configuration without the region is a gap (NaN)")
    for y, p in enumerate(e.index):
        for x in range(4):
            n = 10.0 * 2 ** x
            if not (p == 4 and x == 2) and abs(e.iloc[y, x] - (n * n + 2) / (n * n + p * math.log2(p))) > 1e-9:
                fail("E[%d, %s] = %r" % (p, e.columns[x], e.iloc[y, x]))
    check(True, "efficiency relative to 2 threads: (n^2 + 2) / (n^2 + p log2 p)")
    absent = scal.matrix(one[(one["region_id"] != 1) | (one["threads"] != 16)], 1)
    check(absent.shape == (4, 4) and absent.loc[16].isna().all(), "a thread count the region never ran at stays as a row of gaps")


def scenario_run(args):
    path = make_run_file(args, "run.h5")
    t = raw(path)
    s = t["strings"]
    df = scal.load(path)
    n = len(t["regions"])
    metrics = []
    for v in t["sensors/values"]:
        name = "%s [%s]" % (s[v["metric"]], s[v["unit"]])
        if v["thread"] == -1 and name not in metrics:
            metrics.append(name)
    check(len(df) == n and list(df["region_id"]) == list(range(n)), "one row per region of /regions (%d)" % n)
    check_columns(df, metrics)
    check(list(df["input"].cat.categories) == ["run"] and (df["run"] == 0).all() and (df["repetition"] == 0).all(), "a run file: run 0, input 'run'")
    check((df["threads"] == 2).all() and (df["team"] == int(t["meta"]["max_team_observed"])).all(), "threads from OMP_NUM_THREADS, team from /meta")
    check((df["status"] == "ok").all() and df["frequency_khz"].isna().all(), "status ok, no frequency")
    with h5py.File(path, "r") as f:  # the file's own enum of region kinds, by value
        enum = h5py.check_enum_dtype(f["regions"].dtype["kind"]) or {}
    from scal._file import KIND_NAMES
    check(sorted(enum.items(), key=lambda kv: kv[1]) == [(k, i) for i, k in enumerate(KIND_NAMES)],
          "the package's kind names are the file's enum: %s" % enum)
    unset = os.path.join(args.work, "unset.h5")
    shutil.copy(path, unset)
    with h5py.File(unset, "r+") as f:
        f["meta"].attrs["requested_threads"] = -1  # OMP_NUM_THREADS unset
    u = scal.load(unset)
    # scal's one rule (as export and report): the largest team observed when none was requested
    check((u["threads"] == 2).all() and (u["team"] == 2).all(), "threads 2 (the team observed) when OMP_NUM_THREADS was unset")
    check(list(df["wall_s"]) == list(t["regions"]["time_wall_s"]) and list(df["total_s"]) == list(t["regions"]["time_total_s"]) and list(df["count"]) == list(t["regions"]["count"]), "times and counts of /regions")
    check(list(df["kind"]) == [["root", "parallel", "serial", "user", "task"][k] for k in t["regions"]["kind"]], "kinds decoded")
    check("setup" in set(df.loc[df["kind"] == "user", "region"]), "user region 'setup' by name")
    nested = df[df["parent_id"] == int(df.loc[df["region"] == "setup", "region_id"].iloc[0])]
    check(len(nested) == 1 and nested["kind"].iloc[0] == "parallel", "the region nested in 'setup' has it as parent")
    utime = [v["value"] for v in t["sensors/values"] if s[v["metric"]] == "rusage.utime" and v["region"] == -1 and v["thread"] == -1]
    check(df.loc[0, "rusage.utime [s]"] == utime[0] and df["rusage.utime [s]"].iloc[1:].isna().all(), "whole-run rusage value on the whole program only")
    check_labels_match_show(args, path, df, False)
    tree = scal.tree(path)
    check(len(tree) == n and list(tree["region"]) == list(df["region"]), "tree of the run file")
    m = scal.matrix(df, "whole program", "efficiency")
    check(m.shape == (1, 1) and m.loc[2, "run"] == 1.0, "a run file's matrix is one cell (2 threads, 'run')")


def stored_labels(args, path):
    """`scal show --table labels`: per region whether the file stores its label, the label shown and
    the one scal's rule derives."""
    return json.loads(sh(args, [args.scal, "show", path, "--table", "labels", "--json"]).stdout)


def check_stored_labels(args, path):
    """Every region of path stores its label, and it is the rule's."""
    rows = stored_labels(args, path)
    bad = [r for r in rows if r["stored"] != 1 or r["label"] != r["rule"]]
    check(rows and not bad, "%d stored labels are the rule's (%s)%s" % (len(rows), os.path.basename(path), "; not: %s" % bad[:3] if bad else ""))
    t = raw(path)
    check([t["strings"][i] for i in t["regions"]["label"]] == [r["label"] for r in rows], "/regions.label indexes the labels in /strings (%s)" % os.path.basename(path))


def scenario_labels(args):
    """Labels are stored by the writers (campaign, run files with and without source lines: SCAL_RESOLVE=0
    gives module+offset labels) and read by Python as scal show reads them; files from before they
    were stored (no /regions member label) are read through scal's rule, by scal show, scal report and
    Python alike, with the same labels."""
    path = make_campaign(args, "labels.h5")
    check_stored_labels(args, path)
    check_labels_match_show(args, path, scal.load(path), True)
    old = edit_regions(args, path, "labels_old.h5", {}, drop_label=True)
    check("label" not in raw(old)["regions"].dtype.names, "an older campaign: /regions without label")
    check(list(scal.load(old)["region"]) == list(scal.load(path)["region"]), "an older campaign: the same labels in Python")
    check_labels_match_show(args, old, scal.load(old), True)
    tables = []
    for name in (path, old):
        out = name[:-3] + "-report"
        sh(args, [args.scal, "report", name, "-q", "--no-write", "--only", "scaling,csv", "-o", out])
        with open(os.path.join(out, "csv", "all", "time.csv")) as f:
            tables.append(f.read())
    check(tables[0] == tables[1] and "whole program" in tables[0], "an older campaign: scal report labels its regions the same")
    path = make_run_file(args, "lines.h5")
    check_stored_labels(args, path)
    df = scal.load(path)
    check(df["region"].str.match(r"^scal_demo\.c:\d+-\d+ \(main\)$").sum() >= 3, "labels 'file:first-last (function)'")
    check_labels_match_show(args, path, df, False)
    old = edit_regions(args, path, "lines_old.h5", {}, drop_label=True)
    check(list(scal.load(old)["region"]) == list(df["region"]), "an older run file: the same labels in Python")
    check_labels_match_show(args, old, scal.load(old), False)
    path = make_run_file(args, "nolines.h5", SCAL_RESOLVE="0")
    check_stored_labels(args, path)
    df = scal.load(path)
    check(df["region"].str.match(r"^scal_demo\+0x[0-9a-f]+$").sum() >= 3, "labels 'module+0xoffset' without source lines")
    check_labels_match_show(args, path, df, False)
    # the rule's rarer branches, on edited copies of a run file's /regions without stored labels
    # (as files from before them): scal show derives them, and Python asks it
    src = make_run_file(args, "edit.h5")
    with h5py.File(src, "r") as f:
        rows = f["regions"][()]
    par = [i for i in range(len(rows)) if rows[i]["kind"] == 1]
    check(len(par) >= 3, "3 parallel regions to edit")
    first = int(rows[par[0]]["line_first"])
    one = edit_regions(args, src, "edited1.h5", {par[0]: {"line_last": first}, par[1]: {"function": 0}, par[2]: {"line_first": -1}}, drop_label=True)
    labels = list(scal.load(one)["region"])
    check(labels[par[0]] == "scal_demo.c:%d (main)" % first, "one line: 'file:first (function)': " + labels[par[0]])
    check(re_full(r"scal_demo\.c:\d+-\d+", labels[par[1]]), "no function: 'file:first-last': " + labels[par[1]])
    check(labels[par[2]] == raw(one)["strings"][rows[par[2]]["name"]], "no line: the stored name: " + labels[par[2]])
    check_labels_match_show(args, one, scal.load(one), False)
    two = edit_regions(args, src, "edited2.h5", {par[2]: {"line_first": -1, "name": 0}, par[1]: {"file": 0}}, drop_label=True)
    labels = list(scal.load(two)["region"])
    check(re_full(r"scal_demo\+0x[0-9a-f]+", labels[par[2]]), "no line, no name: 'module+0xoffset': " + labels[par[2]])
    check_labels_match_show(args, two, scal.load(two), False)
    # a stored label is what every reader shows, whatever the rule would say
    three = edit_regions(args, src, "edited3.h5", {par[0]: {"line_last": first}})
    shown = stored_labels(args, three)[par[0]]
    check(shown["label"] != shown["rule"] and scal.load(three)["region"][par[0]] == shown["label"], "the stored label is shown (%s), not the rule's (%s)" % (shown["label"], shown["rule"]))
    # no stored labels and a scal that validates but cannot derive them: an error naming the file
    wrapper = os.path.join(args.work, "scal-check-only")
    with open(wrapper, "w") as f:
        f.write('#!/bin/sh\n[ "$1" = check ] && exec "%s" "$@"\necho "no show here" >&2; exit 3\n' % args.scal)
    os.chmod(wrapper, 0o755)
    env = dict(os.environ, SCAL_EXECUTABLE=wrapper)
    for name, fails in (("lines_old.h5", True), ("lines.h5", False)):
        p = subprocess.run([sys.executable, "-c", "import scal, sys; scal.load(sys.argv[1])", os.path.join(args.work, name)], capture_output=True, text=True, env=env, cwd=args.work)
        if fails:
            check(p.returncode != 0 and "ScalFileError" in p.stderr and name + ": its region labels are not stored" in p.stderr and "no show here" in p.stderr,
                  "no stored labels, scal cannot derive them: ScalFileError naming the file (%s)" % p.stderr.strip()[-300:])
        else:
            check(p.returncode == 0, "stored labels: scal show is not needed (%s)" % p.stderr.strip()[-300:])


def re_full(pattern, text):
    return re.fullmatch(pattern, text) is not None


def edit_regions(args, src, name, changes, drop_label=False):
    """A copy of file src with some /regions members changed: {row: {member: value}}; drop_label:
    without the member label, as files written before labels were stored."""
    out = os.path.join(args.work, name)
    with h5py.File(src, "r") as s, h5py.File(out, "w") as d:
        for k in s.attrs:
            d.attrs[k] = s.attrs[k]
        for k in s:
            s.copy(k, d)
        rows = d["regions"][()]
        for i, members in changes.items():
            for member, value in members.items():
                rows[i][member] = value
        if drop_label:
            attrs, at = dict(d["regions"].attrs), rows.dtype.names.index("label")
            for k in ("column_units", "column_descriptions"):  # one entry per member
                attrs[k] = np.delete(attrs[k], at)
            keep = [n for n in rows.dtype.names if n != "label"]
            rows = np.array(rows[keep].tolist(), dtype=[(n, rows.dtype[n]) for n in keep])
            del d["regions"]
            d.create_dataset("regions", data=rows, maxshape=(None,), chunks=True)
            for k, v in attrs.items():
                d["regions"].attrs[k] = v
        else:
            d["regions"][...] = rows
    return out


def scenario_errors(args):
    missing = os.path.join(args.work, "missing.h5")
    try:
        scal.load(missing)
        fail("a missing file was loaded")
    except FileNotFoundError as e:
        check(missing in str(e) and e.filename == missing, "missing file: FileNotFoundError naming it (%s)" % e)
    other = os.path.join(args.work, "other.h5")
    with h5py.File(other, "w") as f:
        f["regions"] = [1, 2, 3]
    text = os.path.join(args.work, "notes.txt")
    with open(text, "w") as f:
        f.write("not HDF5\n")
    future = os.path.join(args.work, "future.h5")
    with h5py.File(future, "w") as f:
        f.attrs["scal_format"] = "scal-run"
        f.attrs["scal_schema_version"] = 2
    for path, what in ((other, "not a scal file"), (text, "not an HDF5 file"), (future, "schema version 2")):
        for fn in (scal.load, scal.tree):
            try:
                fn(path)
                fail("%s accepted %s" % (fn.__name__, path))
            except scal.ScalFileError as e:
                check(path in str(e) and what in str(e) and e.path == path, "%s: %s" % (fn.__name__, e))
    check(issubclass(scal.ScalFileError, ValueError), "ScalFileError is a ValueError")


def scenario_package(args):
    """pip installs the package from the source tree (offline); scal.__version__ is scal's version;
    scal.analysis reads what scal report computed; input sizes reach load()."""
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python")
    copy, target = os.path.join(args.work, "src"), os.path.join(args.work, "site")
    shutil.copytree(src, copy, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    p = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index",
                        "--target", target, copy], capture_output=True, text=True, cwd=args.work)
    check(p.returncode == 0, "pip install --target from the source tree: %s" % p.stderr.strip()[-400:])
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = target
    p = subprocess.run([sys.executable, "-c", "import scal; print(scal.__file__); print(scal.__version__)"],
                       capture_output=True, text=True, env=env, cwd=args.work)
    lines = p.stdout.split("\n")
    version = sh(args, [args.scal, "--version"]).stdout.split()[1]
    check(p.returncode == 0 and lines[0].startswith(target) and lines[1] == version == scal.__version__,
          "the pip-installed package imports, version %r = scal --version %r" % (lines[1:2], version))
    # input sizes (scal run --size) reach load()
    out = os.path.join(args.work, "sized.h5")
    sh(args, [args.scal, "run", "-c", "1,2", "-i", "5", "--label", "small", "--size", "5", "-i", "10", "--label", "big",
              "--size", "10", "-o", out, "--", args.prog, "{input}"])
    df = scal.load(out)
    check(dict(zip(df["input"].astype(str), df["input_size"])) == {"small": 5.0, "big": 10.0}, "input_size from scal run --size")
    # a campaign without -i: one input, named i1 by scal report and load() alike (no empty row)
    plain = os.path.join(args.work, "plain.h5")
    sh(args, [args.scal, "run", "-c", "1,2", "-o", plain, "--", args.prog, "5"])
    sh(args, [args.scal, "report", plain, "-o", os.path.join(args.work, "plain-rep")])
    with open(os.path.join(args.work, "plain-rep", "index.html")) as f:
        page_inputs = json.loads(re.search(r'id="scal-data">(.*?)</script>', f.read(), re.S).group(1))["inputs"]
    with open(os.path.join(args.work, "plain-rep", "summary.txt")) as f:
        summary = f.read()
    check(page_inputs == ["i1"] and "inputs: 1;" in summary and list(scal.load(plain)["input"].cat.categories) == ["i1"],
          "a campaign without -i has one input, i1 (page %r)" % page_inputs)
    # scal.analysis: the matrices of scal report, a row per cell
    camp = os.path.join(args.work, "theory.h5")
    sh(args, [args.gen, camp, "--inputs", "3", "--threads", "3", "--reps", "2", "--regions", "3"])
    sh(args, [args.scal, "report", camp, "-o", os.path.join(args.work, "rep")])
    a = scal.analysis(camp)
    with h5py.File(camp[:-3] + ".analysis.h5", "r") as f:
        g = f["analysis/regions/r000-whole_program"]
        eff, strong = g["efficiency"][()], g["diff_strong"][()]
        threads = list(f["analysis/threads"][()])
    e = a[(a["region"] == "whole program") & (a["metric"] == "efficiency")]
    rows = list(e["input"].cat.categories)
    check(len(e) == eff.size and all(abs(r.value - eff[rows.index(r.input), threads.index(r.threads)]) < 1e-12
                                     for r in e.itertuples()),
          "analysis: the efficiency cells of the whole program (%d)" % len(e))
    d = a[(a["region"] == "whole program") & (a["metric"] == "diff_strong")]
    check(len(d) == strong.size and (d["threads_to"] > d["threads"]).all() and d["input_to"].isna().all(),
          "analysis: a strong-scaling cell goes from threads to threads_to")
    check(a.attrs["statistic"] == "median" and a.attrs["baseline_threads"] == 1 and a.attrs["findings"]["whole program"],
          "analysis: attributes and findings")
    check(str(a["threads"].dtype) == "Int64" and a[a["metric"] == "rank"]["threads"].isna().all(),
          "analysis: a scalar has no cell")
    try:
        scal.analysis(out)
        fail("a campaign without a report is refused")
    except scal.ScalFileError as err:
        check("run scal report on it first" in str(err), "a campaign without analysis: %s" % err)


def scenario_install(args):
    """cmake --install puts the package where the README says; it imports from there alone."""
    prefix = os.path.join(args.work, "prefix")
    sh(args, ["cmake", "--install", args.build, "--prefix", prefix])
    site = os.path.join(prefix, "lib", "python3", "dist-packages")
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "README.md")) as f:
        check("lib/python3/dist-packages" in f.read(), "the README names lib/python3/dist-packages")
    for name in ("__init__.py", "_file.py", "_frame.py", "_matrix.py", "_analysis.py", "_thicket.py",
                 "_version.py"):
        check(os.path.exists(os.path.join(site, "scal", name)), "installed scal/" + name)
    # the source python/ folder leaves PYTHONPATH; the rest stays (h5py, pandas of a Spack view)
    source = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
    kept = [d for d in os.environ.get("PYTHONPATH", "").split(os.pathsep) if d and os.path.realpath(d) != source]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([site] + kept))
    p = subprocess.run([sys.executable, "-c", "import scal; print(scal.__file__); print(scal.load.__doc__ is not None)"],
                       capture_output=True, text=True, env=env, cwd=args.work)
    check(p.returncode == 0, "PYTHONPATH=%s python3 -c 'import scal' (%s)" % (site, p.stderr.strip()[-300:]))
    check(p.stdout.split("\n")[0].startswith(os.path.join(site, "scal")), "imported from the install tree: " + p.stdout.split("\n")[0])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario")
    for opt in ("--scal", "--prog", "--demo", "--tool", "--source", "--build", "--gen"):
        ap.add_argument(opt)
    args = ap.parse_args()
    fn = globals().get("scenario_" + args.scenario)
    if not fn:
        fail("unknown scenario " + args.scenario)
    with tempfile.TemporaryDirectory(prefix="scal-python-") as work:
        args.work = work
        fn(args)
    print("PASS: python." + args.scenario)


if __name__ == "__main__":
    main()
