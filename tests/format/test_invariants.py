#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# One validator (common/validate.c) for scal check and every reader: a file that scal check rejects
# for its content (a region id of 4294967295, an unknown kind or status, a dangling reference or
# string index, a broken tree) is refused by scal show, scal report and scal export too, with the
# same problem named; the unmutated files pass all four.
import os
import shutil
import subprocess
import sys

import h5py

scal, gen, prog, work = sys.argv[1:5]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from scal_check import expect as check, failures, finish  # noqa: E402  (tests/scal_check.py)


def run(*args):
    return subprocess.run([scal] + list(args), capture_output=True, text=True, cwd=work)


camp = os.path.join(work, "c.h5")
subprocess.run([gen, camp, "--inputs", "2", "--threads", "2", "--reps", "2", "--regions", "3",
                "--gaps"], check=True)
r = subprocess.run([scal, "run", "-q", "-c", "1,2", "-i", "10", "--keep-runs", "-o", "real.h5", "--",
                    prog, "{input}"], cwd=work, capture_output=True, text=True,
                   env=dict(os.environ, OMP_WAIT_POLICY="passive"))
check(r.returncode == 0, "a real campaign with its run files: %s" % r.stderr[-300:])
runfile = os.path.join(work, "real.h5.runs", "run-000000.h5")

CAMPAIGN = [  # (name, table, member, row, value, what scal check says)
    ("region_id", "regions", "id", 1, 4294967295, "/regions row 1: id is 4294967295"),
    ("kind", "regions", "kind", 1, 9, "/regions row 1: unknown kind 9"),
    ("depth", "regions", "depth", 1, 7, "/regions row 1: depth 7 under a parent of depth 0"),
    ("parent", "regions", "parent", 1, 2, "/regions row 1: parent 2 is not an earlier row"),
    ("gap_prev", "regions", "gap_prev", 1, 99, "/regions row 1: gap_prev 99 does not exist"),
    # chained gaps would double their labels row by row (a gap names both neighbours)
    ("gap_chain", "regions", "gap_prev", 4, 3, "/regions row 4: the serial gap's gap_prev 3 is a serial gap too"),
    ("name", "regions", "name", 1, 99999, "/regions row 1: name refers to string 99999"),
    ("file", "regions", "file", 2, 99999, "/regions row 2: file refers to string 99999"),
    ("status", "runs", "status", 0, 9, "/runs row 0: unknown status 9"),
    ("config", "runs", "config", 0, 99, "/runs row 0: configuration 99 does not exist"),
    ("message", "runs", "message", 1, 99999, "/runs row 1: message refers to string 99999"),
    ("threads", "configs", "threads", 0, 0, "/configs row 0: 0 threads"),
    ("input", "configs", "input", 0, 7, "/configs row 0: input 7 is not one of the 2 planned inputs"),
    ("label", "configs", "input_label", 0, 99999, "/configs row 0: input_label refers to string"),
    ("stat_run", "region_stats", "run", 0, 999, "/region_stats row 0: run 999 does not exist"),
    ("stat_region", "region_stats", "region", 0, 999, "/region_stats row 0: region 999 does not exist"),
]
RUN = [
    ("run_region_id", "regions", "id", 1, 4294967295, "/regions row 1: id is 4294967295"),
    ("run_parent", "regions", "parent", 1, 8, "/regions row 1: parent 8 does not exist"),
    ("run_function", "regions", "function", 1, 99999, "/regions row 1: function refers to string"),
    ("run_thread", "threads", "region", 0, 999, "/threads row 0: region 999 does not exist"),
]


def readers(path, kind):
    out = os.path.join(work, "out-" + os.path.basename(path))
    cmds = [("show", ["show", path]), ("show --csv", ["show", path, "--csv"]),
            ("report", ["report", path, "-o", out, "--no-write"]),
            ("export csv", ["export", path, "--format", "csv", "-o", path + ".csv"])]
    if kind == "campaign":
        cmds.append(("show --table configs", ["show", path, "--table", "configs"]))
    return cmds


for kind, seed, cases in (("campaign", camp, CAMPAIGN), ("run", runfile, RUN)):
    for name, cmd in readers(seed, kind):
        r = run(*cmd)
        check(r.returncode == 0, "the unmutated %s file: %s accepts it %s" % (kind, name, r.stderr[-200:]))
        if os.path.exists(seed + ".csv"):
            os.remove(seed + ".csv")
    for name, table, member, row, value, said in cases:
        path = os.path.join(work, name + ".h5")
        shutil.copy(seed, path)
        with h5py.File(path, "r+") as f:
            rows = f[table][...]
            rows[member][row] = value
            f[table][...] = rows
        r = run("check", path)
        check(r.returncode == 1 and said in r.stdout, "%s: scal check says %r: %r" % (name, said, r.stdout[-200:]))
        for what, cmd in readers(path, kind):
            r = run(*cmd)
            check(r.returncode != 0 and said in r.stderr and path in r.stderr and not r.stdout,
                  "%s: %s refuses it naming the file and the problem: %r" % (name, what, r.stderr[-200:]))
finish()
