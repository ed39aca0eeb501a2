# SPDX-License-Identifier: BSD-3-Clause
# SCAL_TRACE on a program with a contended critical section (programs/critical_trace.c): the run
# file is written (lock waits of worker threads once crashed its writer), every trace row names a
# region of the file, and the Chrome export shows the region on every member's lane with the
# work, barrier and lock waits inside it. Under scal run the same program is a successful run.
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from scal_check import check  # noqa: E402

import h5py  # noqa: E402

THREADS, INSTANCES = 4, 20
WORK, BARRIER, LOCK = 0, 1, 2

ap = argparse.ArgumentParser()
ap.add_argument("--scal", required=True)
ap.add_argument("--tool", required=True)
ap.add_argument("--prog", required=True)
a = ap.parse_args()

tmp = tempfile.mkdtemp(prefix="scal-trace-locks-")
env = dict(os.environ, SCAL_TRACE="100000")
run_file = os.path.join(tmp, "run.h5")
p = subprocess.run([a.scal, "exec", "-q", "--tool", a.tool, "-o", run_file, a.prog], env=env,
                   capture_output=True, text=True)
check(p.returncode == 0, "scal exec exits 0 (%d: %s)" % (p.returncode, p.stderr.strip()))
check(os.path.exists(run_file), "the traced run's file is written")

with h5py.File(run_file, "r") as f:
    nregions = len(f["regions"])
    states = f["trace/states"][()]
    inst = f["trace/instances"][()]
check(len(inst) == INSTANCES, "%d region instances traced (%d)" % (INSTANCES, len(inst)))
check(all(r < nregions for r in states["region"]) and all(r < nregions for r in inst["region"]),
      "every trace row names a region of the file")
lock_threads = {int(s["thread"]) for s in states if s["state"] == LOCK}
check(len(lock_threads) == THREADS, "lock waits on all %d threads (%s)" % (THREADS, lock_threads))

chrome = os.path.join(tmp, "trace.json")
p = subprocess.run([a.scal, "export", run_file, "--format", "chrome", "-o", chrome],
                   capture_output=True, text=True)
check(p.returncode == 0, "scal export --format chrome exits 0 (%s)" % p.stderr.strip())
with open(chrome) as fh:
    events = [e for e in json.load(fh)["traceEvents"] if e["ph"] == "X"]
lanes = {}
for e in events:
    lanes.setdefault(e["tid"], {}).setdefault(e["name"] if e["cat"] == "state" else "region",
                                              []).append(e)
check(len(lanes) == THREADS, "%d lanes (%s)" % (THREADS, sorted(lanes)))
for tid, kinds in sorted(lanes.items()):
    regions = kinds.get("region", [])
    check(len(regions) == INSTANCES, "lane %d: %d region spans (%d)" % (tid, INSTANCES,
                                                                        len(regions)))
    for name in ("work", "barrier wait", "lock wait"):
        check(len(kinds.get(name, [])) > 0, "lane %d: %s spans" % (tid, name))
    inside = all(any(r["ts"] <= s["ts"] and s["ts"] + s["dur"] <= r["ts"] + r["dur"] + 1e-3
                     for r in regions)
                 for name in ("work", "barrier wait", "lock wait") for s in kinds.get(name, []))
    check(inside, "lane %d: every state span lies inside a region span" % tid)

campaign = os.path.join(tmp, "campaign.h5")
p = subprocess.run([a.scal, "run", "-q", "--tool", a.tool, "-c", str(THREADS), "-o", campaign,
                    "--", a.prog], env=env, capture_output=True, text=True)
check(p.returncode == 0, "scal run exits 0 (%d: %s)" % (p.returncode, p.stderr.strip()))
with h5py.File(campaign, "r") as f:
    runs = f["runs"][()]
check(len(runs) == 1 and runs[0]["status"] == 0,
      "scal run records a successful traced run (%s)" % [str(r) for r in runs])
