#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Self-describing files: every table of a run file and of a campaign carries column_units and
# column_descriptions, one string per member, descriptions non-empty; regions.kind and runs.status
# are HDF5 enums; /analysis matrices name their axes and regions; a file without them (earlier
# versions) stays readable (schemas/README*.md).
import glob
import os
import shutil
import subprocess
import sys

import h5py

scal, prog, work = sys.argv[1:4]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from scal_check import expect as check, failures, finish  # noqa: E402  (tests/scal_check.py)


def tables(f):
    found = []
    f.visititems(lambda name, obj: found.append(name) if isinstance(obj, h5py.Dataset)
                 and obj.dtype.names else None)
    return found


KIND = {"root": 0, "parallel": 1, "serial": 2, "user": 3, "task": 4}
STATUS = {"ok": 0, "failed": 1, "signaled": 2, "timeout": 3, "launch-error": 4, "no-data": 5}
PLUGIN_KIND = {"none": 0, "sensor": 1, "actuator": 2, "postproc": 3}


def check_enum(f, path, table, member, names):
    if table not in f:
        return
    mapping = h5py.check_enum_dtype(f[table].dtype[member])
    check(mapping == names, "%s /%s.%s is an enum %s" % (path, table, member, mapping))
    values = f[table][member]
    check(values.dtype.kind == "u", "%s /%s.%s reads as integers" % (path, table, member))


def check_file(path):
    with h5py.File(path, "r") as f:
        check_enum(f, os.path.basename(path), "regions", "kind", KIND)
        check_enum(f, os.path.basename(path), "runs", "status", STATUS)
        for plugins in ("plugins", "sensors/plugins"):
            check_enum(f, os.path.basename(path), plugins, "kind", PLUGIN_KIND)
        names = tables(f)
        check(len(names) > 0, "%s has tables" % os.path.basename(path))
        for name in names:
            d = f[name]
            units = d.attrs.get("column_units")
            descs = d.attrs.get("column_descriptions")
            n = len(d.dtype.names)
            check(units is not None and len(units) == n,
                  "%s /%s: column_units has one string per member" % (os.path.basename(path), name))
            check(descs is not None and len(descs) == n and all(len(x) > 0 for x in descs),
                  "%s /%s: column_descriptions non-empty for every member"
                  % (os.path.basename(path), name))


shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
out = os.path.join(work, "c.h5")
p = subprocess.run([scal, "run", "-q", "--keep-runs", "-c", "1,2", "-r", "1", "-i", "20", "-s", "rusage", "-o", out,
                    "--", prog, "{input}"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                   text=True, cwd=work, timeout=600)
check(p.returncode == 0, "a campaign with its run files (%s)" % p.stderr.strip())
check_file(out)
runs = sorted(glob.glob(os.path.join(out + ".runs", "*.h5")))
check(len(runs) > 0, "run files kept")
for r in runs:
    check_file(r)
p = subprocess.run([scal, "check", out] + runs, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                   text=True, timeout=600)
check(p.returncode == 0, "scal check accepts them (%s)" % (p.stdout + p.stderr).strip()[-300:])
p = subprocess.run([scal, "report", out, "-o", os.path.join(work, "report")],
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=600)
check(p.returncode == 0, "scal report writes /analysis (%s)" % p.stderr.strip()[-300:])
with h5py.File(out, "r") as f:
    matrices = []
    f["analysis/regions"].visititems(
        lambda name, obj: matrices.append(obj) if isinstance(obj, h5py.Dataset)
        and obj.ndim == 2 else None)
    check(len(matrices) > 0, "/analysis has matrices")
    axes = {"input", "input_step", "threads", "threads_step", ""}
    bad = [m.name for m in matrices if m.attrs.get("axis0") not in axes
           or m.attrs.get("axis1") not in axes]
    check(not bad, "every /analysis matrix names its axes (%s)" % bad[:3])
    regions = f["regions"][:]
    groups = list(f["analysis/regions"].values())
    joined = [g for g in groups if "region_id" in g.attrs]
    check(len(joined) == len(groups) == len(regions), "every /analysis region has a region_id")
    bad = [g.name for g in joined if regions[g.attrs["region_id"]]["kind"] != g.attrs["kind"]
           or (g.attrs["parent"] >= 0) != (regions[g.attrs["region_id"]]["parent"] >= 0)]
    check(not bad, "region_id joins /regions (same kind and root) (%s)" % bad[:3])
# A file as earlier versions wrote it (plain u8 kind/status, no column attributes, no members
# added later such as time_wall_s) stays readable.
ADDED_LATER = {"time_wall_s", "loops_unknown"}


def make_old(path, names):
    with h5py.File(path, "r+") as f:
        for name in names:
            data = f[name][:]
            plain = [(n, "u1" if h5py.check_enum_dtype(data.dtype[n]) else data.dtype[n])
                     for n in data.dtype.names if n not in ADDED_LATER]
            del f[name]
            f.create_dataset(name, data=data[[n for n, _ in plain]].astype(plain),
                             maxshape=(None,), chunks=True)


old_file = os.path.join(work, "old.h5")
shutil.copy(out, old_file)
make_old(old_file, ("runs", "regions", "configs", "region_stats"))
old_run = os.path.join(work, "old-run.h5")
shutil.copy(runs[0], old_run)
make_old(old_run, ("regions",))
with h5py.File(old_file, "r") as f:
    check(h5py.check_enum_dtype(f["runs"].dtype["status"]) is None
          and "column_units" not in f["runs"].attrs
          and "time_wall_s" not in f["region_stats"].dtype.names, "an old-style campaign made")
for cmd in (["check", old_file], ["show", old_file], ["check", old_run],
            ["report", old_file, "-o", os.path.join(work, "old-report"), "--no-write"],
            ["merge", old_file, "-o", os.path.join(work, "old-merged.h5")]):
    p = subprocess.run([scal, *cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=600)
    check(p.returncode == 0, "scal %s reads an old-style file (%s)"
          % (cmd[0], (p.stdout + p.stderr).strip()[-300:]))
# Without time_wall_s a run file shows no wall time, and program_% is the summed time's share.
p = subprocess.run([scal, "show", "--csv", old_run], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                   text=True, timeout=600)
rows = [line.split(",") for line in p.stdout.strip().split("\n")]
head = rows[0]
wall, total, share = head.index("wall_s"), head.index("total_s"), head.index("program_%")
check(p.returncode == 0 and all(r[wall] == "" for r in rows[1:]), "old run file: wall_s empty")
check(all(abs(float(r[share]) - 100 * float(r[total]) / float(rows[1][total])) < 0.051
          for r in rows[1:]), "old run file: program_% is the summed time's share")
finish()
