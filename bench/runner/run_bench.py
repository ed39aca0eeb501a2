# SPDX-License-Identifier: BSD-3-Clause
# The runner's own cost per run: the time between the end of one run and the start of the next
# (actuators, launch, merging the run into the campaign file, progress), from the campaign file's
# own timestamps, for a campaign of 10 runs and one of 2000 runs of a trivial program. --ranks 1,4
# also measures runs of MPI ranks (scal run --ranks): the trivial program started once per rank by a
# shell launcher with PMI_RANK/PMI_SIZE, so that the cost of committing N rank files shows, not MPI's.
#
#   run_bench.py --scal SCAL --prog TRIVIAL [--runs 10,2000] [--ranks 1,4] [--csv out.csv]
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from bench_csv import write_rows  # noqa: E402  (bench/bench_csv.py)


LAUNCHER = ("sh -c 'i=0; pids=; while [ $i -lt {ranks} ]; do PMI_RANK=$i PMI_SIZE={ranks} \"$0\" \"$@\" & "
            "pids=\"$pids $!\"; i=$((i+1)); done; s=0; for p in $pids; do wait $p || s=1; done; exit $s'")


def campaign(scal, prog, runs, work, ranks=0):
    out = os.path.join(work, "bench-%d-%d.h5" % (runs, ranks))
    env = dict(os.environ, OMP_NUM_THREADS="2")
    mpi = ["--ranks", str(ranks), "--launcher", LAUNCHER] if ranks else []
    t0 = time.monotonic()
    subprocess.run([scal, "run", "-q", "-c", "1", "-r", str(runs)] + mpi + ["-o", out, "--", prog], env=env, check=True,
                   stderr=subprocess.DEVNULL)
    total = time.monotonic() - t0
    with h5py.File(out, "r") as f:
        r = f["runs"][()]
    r = sorted(r, key=lambda x: x["started_unix"])
    gaps = [(r[k + 1]["started_unix"] - r[k]["started_unix"] - r[k]["wall_s"]) * 1e3 for k in range(len(r) - 1)]
    program = sum(x["wall_s"] for x in r)
    return gaps, total, program, os.path.getsize(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scal", required=True)
    ap.add_argument("--prog", required=True)
    ap.add_argument("--runs", default="10,2000")
    ap.add_argument("--ranks", default="", help="also MPI runs of these rank counts (e.g. 1,4)")
    ap.add_argument("--csv")
    a = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for n, ranks in [(int(x), 0) for x in a.runs.split(",")] + [
                (int(x), int(r)) for r in a.ranks.split(",") if r for x in a.runs.split(",")]:
            gaps, total, program, size = campaign(a.scal, a.prog, n, work, ranks)
            last = gaps[-10:]
            row = {"runs": n, "ranks": ranks, "median_ms": statistics.median(gaps), "p90_ms": sorted(gaps)[int(0.9 * (len(gaps) - 1))],
                   "median_last10_ms": statistics.median(last), "program_s": program, "total_s": total,
                   "file_mb": size / 1e6}
            rows.append(row)
            print("%5d runs%s: runner cost per run median %.2f ms (p90 %.2f ms), last 10 runs %.2f ms; "
                  "programs %.1f s of %.1f s; file %.1f MB" % (n, " of %d ranks" % ranks if ranks else "", row["median_ms"], row["p90_ms"], row["median_last10_ms"],
                                                              program, total, row["file_mb"]))
    print("goal: median <= 15 ms, not growing with the runs already in the file")
    write_rows(a.csv, rows)


main()
