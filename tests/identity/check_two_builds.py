#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# One region identity everywhere: the same program built twice (other flags, other addresses) is
# measured into two campaigns; scal merge, scal report over both campaigns and scal report over the
# merged campaign must show the same regions, each pragma once, at its own line.
import argparse
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from scal_check import check, fail  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--scal", required=True)
ap.add_argument("--work", required=True)
ap.add_argument("builds", nargs=2)
args = ap.parse_args()
shutil.rmtree(args.work, ignore_errors=True)
os.makedirs(args.work)
source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs", "rebuilt.c")
pragmas = [i + 1 for i, l in enumerate(open(source)) if l.strip().startswith("#pragma omp parallel")]


def scal(*argv):
    p = subprocess.run([args.scal, *argv], cwd=args.work, capture_output=True, text=True)
    if p.returncode != 0:
        fail("scal %s exited %d: %s" % (" ".join(argv), p.returncode, p.stderr.strip()))
    return p.stdout


# The same program path for both builds, as when a user rebuilds in place.
app = os.path.join(args.work, "app")
for build, out in zip(args.builds, ("a.h5", "b.h5")):
    shutil.copy(build, app)
    scal("run", "-q", "-c", "1,2", "-r", "1", "-o", out, "--", app)
scal("merge", "a.h5", "b.h5", "-o", "merged.h5")
scal("report", "a.h5", "b.h5", "-o", "report-ab")
scal("report", "merged.h5", "-o", "report-merged")


def show_regions(path):
    rows = scal("show", path, "--csv").splitlines()
    head = rows[0].split(",")
    col = head.index("region")
    return {r.split(",")[col] for r in rows[1:] if r}


def index_regions(report):
    """Region labels of a report's index.txt (label, then time, efficiency, rank and [slug])."""
    labels = set()
    for line in open(os.path.join(args.work, report, "index.txt")).read().splitlines()[2:]:
        m = re.match(r"^\s*(.*\S)\s+\S+\s+\S+\s+(?:-|\d+ \([^)]*\))\s+\[r\d+-[^\]]*\]$", line)
        if not m:
            fail("%s/index.txt: unexpected line %r" % (report, line))
        labels.add(m.group(1))
    return labels


a, b, merged = show_regions("a.h5"), show_regions("b.h5"), show_regions("merged.h5")
ab, rm = index_regions("report-ab"), index_regions("report-merged")
print("merged campaign regions:", sorted(merged))
check(len(merged) >= 1 + len(pragmas), "the merged campaign has the root and every pragma")
check(len(a) == len(merged) and len(b) == len(merged),
      "scal merge unifies every region of the two builds (%d, %d -> %d)" % (len(a), len(b), len(merged)))
check(ab == merged, "scal report A B shows the merged campaign's regions: %s" % sorted(ab ^ merged))
check(rm == merged, "scal report MERGED shows the same regions: %s" % sorted(rm ^ merged))
parallel = sorted(l for l in merged if re.match(r"^rebuilt\.c:\d+", l))
lines = sorted(int(re.match(r"^rebuilt\.c:(\d+)", l).group(1)) for l in parallel)
check(lines == pragmas, "each pragma is one region at its own line: %s vs %s" % (lines, pragmas))
