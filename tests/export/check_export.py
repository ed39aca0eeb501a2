#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# scal export: csv (the same table as the Python package's scal.load), Extra-P JSON Lines, Hatchet's
# literal tree, Chrome trace events; checked against the raw HDF5 tables; bad input refused.
import argparse
import csv
import io
import json
import os
import shutil
import statistics
import subprocess
import sys

import h5py

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, ".."))
sys.path.insert(0, os.path.join(here, "..", "..", "python"))
from scal_check import check, fail  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--scal", required=True)
ap.add_argument("--prog", required=True)
ap.add_argument("--work", required=True)
args = ap.parse_args()
current_umask = os.umask(0o022)
os.umask(current_umask)
shutil.rmtree(args.work, ignore_errors=True)
os.makedirs(args.work)


def scal(*argv, rc=0, env=None):
    p = subprocess.run([args.scal, *argv], cwd=args.work, capture_output=True, text=True,
                       env=dict(os.environ, **(env or {})))
    if rc is not None and p.returncode != rc:
        fail("scal %s exited %d (expected %d): %s" % (" ".join(argv), p.returncode, rc, p.stderr.strip()))
    return p


scal("run", "-q", "-c", "1,2", "-r", "2", "-i", "5", "--label", "small", "-i", "10", "--label", "big",
     "-s", "rusage", "-o", "c.h5", "--", args.prog, "{input}")
camp = os.path.join(args.work, "c.h5")
with h5py.File(camp, "r") as f:
    stats = f["region_stats"][:]
    runs = {int(r["id"]): r for r in f["runs"][:]}
    configs = {int(c["id"]): c for c in f["configs"][:]}
    strings = [s.decode() if isinstance(s, bytes) else s for s in f["strings"][()]]
    nregions = len(f["regions"])
ok_rows = [s for s in stats if runs[int(s["run"])]["status"] == 0]

# ---- csv: the tidy table, the same as scal.load() --------------------------------------------
out = scal("export", "c.h5", "--format", "csv").stdout
rows = list(csv.DictReader(io.StringIO(out)))
check(len(rows) == len(stats), "csv: one row per (run, region) (%d)" % len(rows))
for r, s in zip(rows, stats):
    if float(r["total_s"]) != float(s["time_total_s"]):
        fail("csv: total_s %s is not the file's %r" % (r["total_s"], s["time_total_s"]))
check(True, "csv: every total_s at full precision")
root = [r for r in rows if r["kind"] == "root"]
check(all(r["parent_id"] == "" and r["file"] == "" for r in root), "csv: missing values are empty cells")
check(all(r["rusage.utime [s]"] != "" for r in root), "csv: sensor columns carry the unit and the value")
try:
    os.environ.setdefault("SCAL_EXECUTABLE", args.scal)  # the package validates through scal check
    import scal as scalpy  # the Python package: the two tidy tables must agree
    df = scalpy.load(camp)
    check(list(df.columns)[:27] == list(rows[0].keys())[:27], "csv: the columns of scal.load()")
    check(sorted(df["region"].astype(str)) == sorted(r["region"] for r in rows), "csv: scal.load()'s region labels")
except ImportError as e:
    print("note: python package not importable (%s): column agreement not checked" % e)

# ---- Extra-P ---------------------------------------------------------------------------------
p = scal("export", "c.h5", "--format", "extrap", rc=1)
check("input 'small' has no numeric size" in p.stderr and "--size small=N" in p.stderr,
      "extrap: an input without a numeric size is named, with the fix")
lines = scal("export", "c.h5", "--format", "extrap", "--size", "small=5", "--size", "big=10").stdout.splitlines()
meas = [json.loads(x) for x in lines]
times = [m for m in meas if m["metric"] == "time"]
check(len(times) == len([s for s in ok_rows if s["count"] > 0]),
      "extrap: one time line per measured (run, region) (%d)" % len(times))
metrics = {m["metric"] for m in meas}
check({"time", "work", "barrier wait", "lock wait"} <= metrics and any(x.startswith("rusage.") for x in metrics),
      "extrap: every metric, not only time: %r" % sorted(metrics))
per_path = {}
for m in meas:
    per_path.setdefault((m["callpath"], m["metric"]), set()).add((m["params"]["threads"], m["params"]["input"]))
check(len({frozenset(v) for v in per_path.values()}) == 1,
      "extrap: every (call path, metric) is measured at every coordinate")
check(not any(m["metric"] in ("work", "barrier wait", "lock wait") for m in meas if m["callpath"] == "whole program"),
      "extrap: the program root has no per-thread metrics (missing, not 0)")
p = scal("export", "c.h5", "--format", "extrap", "--size", "smal=5", "--size", "big=10", rc=2)
check("no input labelled 'smal'" in p.stderr and "did you mean 'small'" in p.stderr,
      "extrap: a --size typo is refused (exit 2) with a suggestion: %s" % p.stderr.strip())
again = [json.loads(x) for x in scal("export", "c.h5", "--format", "extrap", "--size", "small=1", "--size", "small=5",
                                      "--size", "big=10").stdout.splitlines()]
check({m["params"]["input"] for m in again} == {5.0, 10.0}, "extrap: a repeated --size: the last one counts")
check(all(set(m) == {"params", "callpath", "metric", "value"} and set(m["params"]) == {"threads", "input"} for m in meas),
      "extrap: params, callpath, metric, value")
check({m["params"]["input"] for m in meas} == {5.0, 10.0} and {m["params"]["threads"] for m in meas} == {1, 2},
      "extrap: numeric parameters")
check(all(m["callpath"].startswith("whole program") for m in meas) and
      any("->" in m["callpath"] for m in meas), "extrap: call paths from the root")

# ---- Hatchet ---------------------------------------------------------------------------------
trees = json.loads(scal("export", "c.h5", "--format", "hatchet").stdout)
check(len(trees) == 4, "hatchet: one tree per (threads, input) (%d)" % len(trees))
for t in trees:
    check(set(t) == {"frame", "metrics", "children"} and t["frame"]["name"] == "whole program", "hatchet: literal format root")
    want = statistics.median(float(s["time_total_s"]) for s in ok_rows
                             if s["region"] == 0 and configs[int(runs[int(s["run"])]["config"])]["threads"] == t["metrics"]["threads"]
                             and strings[configs[int(runs[int(s["run"])]["config"])]["input_label"]] == t["frame"]["input"])
    check(abs(t["metrics"]["time (inc)"] - want) < 1e-12, "hatchet: root time (inc) is the repetitions' median (%g)" % want)
    check(len(t["children"]) == nregions - 1, "hatchet: the root's children are the top-level regions")
    # time (inc) is the wall-clock time: children never above their parent; the sum is kept too
    def below_parent(node):
        return all(c["metrics"].get("time (inc)", 0) <= node["metrics"]["time (inc)"] * (1 + 1e-9) and below_parent(c)
                   for c in node["children"])
    check(below_parent(t) and "time summed over threads" in t["metrics"], "hatchet: time (inc) is the wall time")

# ---- Thicket: one profile per run, its configuration as metadata -----------------------------
th = json.loads(scal("export", "c.h5", "--format", "thicket", "--size", "small=5", "--size", "big=10").stdout)
ok_runs = sorted({int(s["run"]) for s in ok_rows})
prof = th["profiles"]
check(th["format"] == "scal-thicket-1" and sorted(p["metadata"]["run"] for p in prof) == ok_runs,
      "thicket: one profile per successful run (%d)" % len(prof))
for p in prof:
    md, g = p["metadata"], p["graph"]
    cfg = configs[int(runs[p["metadata"]["run"]]["config"])]
    check({"run", "threads", "team", "input", "input_size", "repetition", "status"} <= set(md) and
          md["threads"] == cfg["threads"] and md["input"] == strings[cfg["input_label"]] and
          md["input_size"] == {"small": 5.0, "big": 10.0}[md["input"]] and md["status"] == "ok",
          "thicket: metadata of run %d %r" % (md["run"], md))
    own = [float(s["time_total_s"]) for s in ok_rows if int(s["run"]) == md["run"] and s["region"] == 0]
    check(len(g) == 1 and set(g[0]) == {"frame", "metrics", "children"} and
          abs(g[0]["metrics"]["time (inc)"] - own[0]) < 1e-12 and "work" not in g[0]["metrics"],
          "thicket: run %d's graph is one literal root with its own time, no per-thread metric at the root"
          % md["run"])

# ---- Chrome ----------------------------------------------------------------------------------
scal("exec", "-q", "-o", "t.h5", args.prog, "5", env={"OMP_NUM_THREADS": "2", "SCAL_TRACE": "256"})
trace = json.loads(scal("export", "t.h5", "--format", "chrome").stdout)
with h5py.File(os.path.join(args.work, "t.h5"), "r") as f:
    ninst, nstates = len(f["trace/instances"]), len(f["trace/states"])
    nwork = int((f["trace/states"]["state"] == 0).sum())
ev = trace["traceEvents"]
# each instance on its thread's lane, and on the lane of each other member of its team (one work state each)
nspans = len([e for e in ev if e.get("cat") == "region"])
check(ninst < nspans <= ninst + nwork, "chrome: a span per region instance and member (%d, %d)" % (ninst, nspans))
check(len([e for e in ev if e.get("cat") == "state"]) == nstates, "chrome: an event per thread state (%d)" % nstates)
check({e["tid"] for e in ev if e["ph"] == "X"} == {0, 1}, "chrome: a lane per thread")
check({e["name"] for e in ev if e.get("cat") == "state"} <= {"work", "barrier wait", "lock wait", "task"}, "chrome: PEP's states")
scal("exec", "-q", "-o", "plain.h5", args.prog, "5", env={"OMP_NUM_THREADS": "2"})
check("SCAL_TRACE" in scal("export", "plain.h5", "--format", "chrome", rc=1).stderr, "chrome: a run without a trace says how to record one")
check("takes a run file" in scal("export", "c.h5", "--format", "chrome", rc=1).stderr, "chrome: a campaign is refused")

# ---- odd campaigns: failed runs, a region missing somewhere, one input, non-UTF-8 text --------
scal("run", "-q", "-c", "1,2", "-r", "1", "-i", "5", "-i", "fail", "-o", "f.h5", "--", args.prog, "{input}", rc=1)
rows = list(csv.DictReader(io.StringIO(scal("export", "f.h5", "--format", "csv").stdout)))
check({r["status"] for r in rows if r["input"] == "fail"} == {"failed"} and
      len({r["run"] for r in rows}) == 4, "csv: failed runs keep their rows (%d runs)" % len({r["run"] for r in rows}))
gap = shutil.copy(camp, os.path.join(args.work, "gap.h5"))
with h5py.File(gap, "a") as f:
    st = f["region_stats"][:]
    victim = int(st[st["region"] != 0]["region"][0])
    rr = f["runs"][:]
    config0 = rr[rr["id"] == st["run"][0]]["config"][0]
    of_config = set(int(x) for x in rr[rr["config"] == config0]["id"])  # every repetition of it
    keep = st[~((st["region"] == victim) & [int(x) in of_config for x in st["run"]])]
    f["region_stats"].resize((len(keep),))
    f["region_stats"][:] = keep
p = scal("export", "gap.h5", "--format", "extrap", "--size", "small=5", "--size", "big=10")
paths = {json.loads(x)["callpath"] for x in p.stdout.splitlines()}
check("left out of the Extra-P data" in p.stderr and len(paths) == nregions - 1,
      "extrap: a region missing at one configuration is left out, and said (%d call paths)" % len(paths))
check(all(c.count("->") == (0 if c == "whole program" else 1) for c in paths),
      "extrap: '->' inside labels does not make call-path levels")
scal("run", "-q", "-c", "1,2", "-r", "1", "-o", "one.h5", "--", args.prog, "5")
one = [json.loads(x) for x in scal("export", "one.h5", "--format", "extrap").stdout.splitlines()]
check(one and all(set(m["params"]) == {"threads"} for m in one), "extrap: one input is no parameter")
bad = shutil.copy(os.path.join(args.work, "t.h5"), os.path.join(args.work, "bad.h5"))
with h5py.File(bad, "a") as f:
    strs = f["strings"]
    r = [r for r in f["regions"][()] if r["kind"] == 1][0]  # a region's function, and its label
    strs[int(r["function"])] = b"ma\xefn"
    strs[int(r["label"])] = b"x.c:1 (ma\xefn)"  # the label is stored
for fmt in ("hatchet", "chrome"):
    text = scal("export", "bad.h5", "--format", fmt).stdout
    check("ma\ufffdn" in json.dumps(json.loads(text), ensure_ascii=False), "%s: text that is not UTF-8 is kept, repaired" % fmt)
with h5py.File(os.path.join(args.work, "t.h5"), "r") as f:
    check(len(json.loads(scal("export", "bad.h5", "--format", "chrome").stdout)["traceEvents"]) ==
          nspans + len(f["trace/states"]) + 2, "chrome: no event dropped")

# ---- input sizes given at scal run (--size), kept by merge and --resume, used by extrap --------
scal("run", "-q", "-c", "1,2", "-i", "5", "--label", "small", "--size", "1000", "-i", "10", "--label",
     "big", "--size", "4000", "-o", "sized.h5", "--", args.prog, "{input}")
with h5py.File(os.path.join(args.work, "sized.h5"), "r") as f:
    check(list(f["campaign"].attrs.get("input_sizes", [])) == [1000.0, 4000.0],
          "scal run --size is stored as /campaign@input_sizes")
    argv = [a.decode() if isinstance(a, bytes) else a for a in f["campaign/runner_argv"][()]]
    check("--size" in argv and "4000" in argv, "the stored plan keeps the sizes for --resume: %r" % argv)
scal("run", "--resume", "sized.h5")  # the stored plan, --size included, parses back
with h5py.File(os.path.join(args.work, "sized.h5"), "r") as f:
    check(list(f["campaign"].attrs.get("input_sizes", [])) == [1000.0, 4000.0], "--resume keeps the sizes")
meas = [json.loads(x) for x in scal("export", "sized.h5", "--format", "extrap").stdout.splitlines()]
check(meas and {m["params"]["input"] for m in meas} == {1000.0, 4000.0},
      "extrap: the sizes given at scal run are the input parameter (no --size needed)")
over = [json.loads(x) for x in
        scal("export", "sized.h5", "--format", "extrap", "--size", "big=9").stdout.splitlines()]
check({m["params"]["input"] for m in over} == {1000.0, 9.0}, "extrap: --size at export overrides it")
scal("run", "-q", "-c", "4", "-i", "10", "--label", "big", "--size", "4000", "-o", "sized2.h5", "--",
     args.prog, "{input}")
scal("merge", "sized.h5", "sized2.h5", "-o", "sized-merged.h5")
with h5py.File(os.path.join(args.work, "sized-merged.h5"), "r") as f:
    labels = [a.decode() if isinstance(a, bytes) else a for a in f["campaign/inputs"][()]]
    sizes = dict(zip(labels, f["campaign"].attrs.get("input_sizes", [])))
check(sizes == {"small": 1000.0, "big": 4000.0}, "scal merge carries the input sizes: %r" % sizes)
scal("run", "-q", "-c", "4", "-i", "10", "--label", "big", "--size", "5", "-o", "sized3.h5", "--",
     args.prog, "{input}")
p = scal("merge", "sized.h5", "sized3.h5", "-o", "sized-bad.h5", rc=1)
check("input 'big' has size" in p.stderr, "scal merge refuses one input with two sizes: %r" % p.stderr.strip())
p = scal("run", "--size", "3", "-i", "1", "-o", "x.h5", "--", args.prog, rc=2)
check("must follow the -i" in p.stderr, "--size before any -i is a usage error")

# ---- output files and usage ------------------------------------------------------------------
scal("export", "c.h5", "--format", "csv", "-o", "out.csv")
check(open(os.path.join(args.work, "out.csv")).read() == out, "-o writes the same table")
check(oct(os.stat(os.path.join(args.work, "out.csv")).st_mode & 0o777) == oct(0o666 & ~current_umask),
      "the output's mode follows the umask")
check(scal("export", "c.h5", "--format", "csv", "-o", "-").stdout == out, "-o - is standard output")
check("needs a file name" in scal("export", "c.h5", "--format", "csv", "-o", "", rc=2).stderr, "-o '' is a usage error")
check("'nodir/x.csv'" in scal("export", "c.h5", "--format", "csv", "-o", "nodir/x.csv", rc=1).stderr,
      "a missing directory names the output")
check("exists" in scal("export", "c.h5", "--format", "csv", "-o", "out.csv", rc=1).stderr, "an existing output is refused")
scal("export", "c.h5", "--format", "csv", "-o", "out.csv", "--force")
victim = os.path.join(args.work, "victim")
open(victim, "w").write("keep")
os.symlink(victim, os.path.join(args.work, "link.csv"))
scal("export", "c.h5", "--format", "csv", "-o", "link.csv", "--force", rc=1)
check(open(victim).read() == "keep", "a link planted at the output's name is never followed")
check(not [n for n in os.listdir(args.work) if ".csv." in n], "no temporary file left behind")
p = scal("export", "c.h5", "--format", "chrom", rc=2)
check("did you mean 'chrome'" in p.stderr and len(p.stderr.strip().splitlines()) == 1, "a mistyped format: exit 2, one line")
check("not-there.h5" in scal("export", "not-there.h5", "--format", "csv", rc=1).stderr, "a missing file is named")
