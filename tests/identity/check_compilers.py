#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# One label per region for every compiler: the same source built by clang and gcc (C and C++, -O0
# and -O2) and measured at 1 and 2 threads gives the same regions and tasks, each with the same
# label (file, first and last line, function) under the same parent. The EXPECT lines of the source
# give the range each must have: the pragma's line to the end of its structured block.
#
#   check_compilers.py --scal SCAL --tool LIB --libomp LIB --source FILE --work DIR NAME=EXE[,gomp]...
import argparse
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from scal_check import check, fail, finish  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--scal", required=True)
ap.add_argument("--tool", required=True)
ap.add_argument("--libomp", required=True)
ap.add_argument("--source", required=True)
ap.add_argument("--work", required=True)
ap.add_argument("builds", nargs="+", help="NAME=EXECUTABLE, with ',gomp' for a gcc build")
args = ap.parse_args()
shutil.rmtree(args.work, ignore_errors=True)
os.makedirs(args.work)
base = os.path.basename(args.source)

expected = set()
for n, text in enumerate(open(args.source), 1):
    m = re.search(r"//\s*EXPECT (parallel|task): @LINE\+(\d+)\.\.@LINE\+(\d+)", text)
    if m:
        prefix = "task " if m.group(1) == "task" else ""
        expected.add("%s%s:%d-%d" % (prefix, base, n + int(m.group(2)), n + int(m.group(3))))
if not expected:
    fail("%s: no EXPECT lines" % args.source)


def labels(name, exe, gomp, threads):
    out = os.path.join(args.work, "%s-%d.h5" % (name, threads))
    env = dict(os.environ, OMP_TOOL_LIBRARIES=args.tool, SCAL_OUTPUT=out, SCAL_WAIT_WRITER="1",
               OMP_NUM_THREADS=str(threads), OMP_MAX_ACTIVE_LEVELS="2")
    if gomp:
        env["LD_PRELOAD"] = args.libomp
    p = subprocess.run([exe], env=env, cwd=args.work, capture_output=True, text=True)
    if p.returncode != 0:
        fail("%s at %d threads exited %d: %s" % (name, threads, p.returncode, p.stderr.strip()))
    p = subprocess.run([args.scal, "show", "--csv", out], capture_output=True, text=True)
    if p.returncode != 0:
        fail("scal show %s: %s" % (out, p.stderr.strip()))
    rows = [r.split(",") for r in p.stdout.splitlines() if r]
    head = rows[0]
    i_id, i_parent, i_region = head.index("id"), head.index("parent"), head.index("region")
    by_id = {r[i_id]: r[i_region] for r in rows[1:]}
    # (label, parent's label): serial gaps are named after their neighbours, the runtime's and the tool's start-up
    # is not a pragma
    return {(r[i_region], by_id.get(r[i_parent], "")) for r in rows[1:]
            if not r[i_region].startswith("serial") and r[i_region] not in ("OpenMP runtime start-up", "scal tool start-up")}


reference = None
for b in args.builds:
    name, spec = b.split("=", 1)
    exe, _, flag = spec.partition(",")
    for threads in (1, 2):
        got = labels(name, exe, flag == "gomp", threads)
        ranges = {re.sub(r" \([^)]*\)$", "", label) for label, _ in got}
        check(expected <= ranges, "%s at %d threads: every region and task spans its block (missing %s)"
              % (name, threads, sorted(expected - ranges)))
        check(all(re.search(r" \(test_\w+\)$", label) for label, _ in got if label != "whole program"),
              "%s at %d threads: every label names its test_ function: %s"
              % (name, threads, sorted(label for label, _ in got)))
        if reference is None:
            reference = (name, threads, got)
            continue
        check(got == reference[2], "%s at %d threads labels every region as %s at %d threads does "
              "(only here: %s; only there: %s)" % (name, threads, reference[0], reference[1],
                                                   sorted(got - reference[2]), sorted(reference[2] - got)))
finish()
