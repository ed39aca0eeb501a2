# SPDX-License-Identifier: BSD-3-Clause
# A campaign's cost per run beyond the program: the whole `scal run` of N runs of a one-region
# program (runner start, tool start, run file, commit, everything) against N bare runs of the same
# program started one after the other from here, (T_campaign - T_bare) / N. Rounds alternate the
# two; the figure is the median over rounds. CPU time (user + system of every process waited for:
# runner, committer, programs, the tool's writer copies) is given too: on a shared, overloaded
# machine the wall-clock difference mostly measures waiting for a CPU.
#
#   campaign_cost.py --scal SCAL --prog TRIVIAL [--runs 100] [--rounds 3] [--csv out.csv]
import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from bench_csv import write_rows  # noqa: E402  (bench/bench_csv.py)


def cpu_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def bare(prog, runs, env):
    t0, c0 = time.monotonic(), cpu_children()
    for _ in range(runs):
        subprocess.run([prog], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.monotonic() - t0, cpu_children() - c0


def campaign(scal, prog, runs, env, out):
    t0, c0 = time.monotonic(), cpu_children()
    subprocess.run([scal, "run", "-q", "-c", "2", "-r", str(runs), "-o", out, "--", prog], env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    total, cpu = time.monotonic() - t0, cpu_children() - c0
    with h5py.File(out, "r") as f:
        runs_table = f["runs"][()]
        ok = sum(1 for r in runs_table if int(r["status"]) == 0)
        nregions = len(f["regions"])
    if ok != runs or nregions < 2:
        raise SystemExit("campaign %s: %d of %d runs ok, %d regions" % (out, ok, runs, nregions))
    return total, cpu


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scal", required=True)
    ap.add_argument("--prog", required=True)
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--csv")
    a = ap.parse_args()
    env = dict(os.environ, OMP_NUM_THREADS="2")
    env.pop("OMP_TOOL_LIBRARIES", None)
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for k in range(a.rounds):
            out = os.path.join(work, "c%d.h5" % k)
            if k % 2:
                t_bare = bare(a.prog, a.runs, env)
                t_camp = campaign(a.scal, a.prog, a.runs, env, out)
            else:
                t_camp = campaign(a.scal, a.prog, a.runs, env, out)
                t_bare = bare(a.prog, a.runs, env)
            row = {"round": k, "runs": a.runs, "campaign_s": t_camp[0], "bare_s": t_bare[0],
                   "per_run_ms": (t_camp[0] - t_bare[0]) / a.runs * 1e3, "campaign_cpu_s": t_camp[1],
                   "bare_cpu_s": t_bare[1], "per_run_cpu_ms": (t_camp[1] - t_bare[1]) / a.runs * 1e3}
            rows.append(row)
            print("round %d: %d runs under scal run %.2f s (CPU %.2f s), bare %.2f s (CPU %.2f s): %.2f ms per run "
                  "beyond the program (CPU %.2f ms)" % (k, a.runs, t_camp[0], t_camp[1], t_bare[0], t_bare[1],
                                                        row["per_run_ms"], row["per_run_cpu_ms"]))
    print("median: %.2f ms per run beyond the program (CPU time: %.2f ms); goal <= 8 ms; load average %.1f" %
          (statistics.median(r["per_run_ms"] for r in rows), statistics.median(r["per_run_cpu_ms"] for r in rows),
           os.getloadavg()[0]))
    write_rows(a.csv, rows)


main()
