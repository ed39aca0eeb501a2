# SPDX-License-Identifier: BSD-3-Clause
# The tool's fixed cost per process: whole-process wall time (start to exit, as a shell sees it) and
# CPU time of a one-region OpenMP program without and with libscal_ompt.so, in pairs (the order
# alternates), and the median of the differences. The CPU time of a run under scal includes its
# writer process's (the benchmark is a subreaper: the writer, which the program does not have as a
# child, is reaped here and its rusage counted), since work moved to another process still costs.
# By default (SCAL_WRITER=wait) the run file is complete when the program has ended: that is
# checked right after each run. --detached measures SCAL_WRITER=detached, where the file is written
# after the program ended: the benchmark then waits for it between pairs (not timed).
#
#   fixed_cost.py --prog PROG --tool libscal_ompt.so [--pairs 41] [--detached] [--csv out.csv]
import argparse
import ctypes
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from bench_csv import write_rows  # noqa: E402  (bench/bench_csv.py)

PR_SET_CHILD_SUBREAPER = 36


def drain_orphans():
    """Waits for every process that was re-parented to us (the run files' writers): their CPU ms."""
    cpu = 0.0
    while True:
        try:
            _, _, ru = os.wait4(-1, 0)
            cpu += (ru.ru_utime + ru.ru_stime) * 1e3
        except ChildProcessError:
            return cpu


def one(prog, env, out_dir=None):
    """Wall and CPU milliseconds of one whole process, its writer's CPU included. out_dir: check
    that a new run file is there, complete, the moment the process has ended."""
    before = set(os.listdir(out_dir)) if out_dir else set()
    t0 = time.monotonic()
    p = subprocess.Popen([prog], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    dt = (time.monotonic() - t0) * 1e3
    if out_dir:
        new = [f for f in set(os.listdir(out_dir)) - before if f.endswith(".h5")]
        if len(new) != 1:
            raise SystemExit("no complete run file right after the process ended: %s" % new)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise SystemExit("%s exited %d" % (prog, p.returncode))
    return dt, (ru.ru_utime + ru.ru_stime) * 1e3 + drain_orphans()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prog", required=True)
    ap.add_argument("--tool", required=True)
    ap.add_argument("--pairs", type=int, default=41)
    ap.add_argument("--detached", action="store_true", help="SCAL_WRITER=detached (the file comes after the end)")
    ap.add_argument("--csv")
    a = ap.parse_args()
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise SystemExit("prctl(PR_SET_CHILD_SUBREAPER) failed")
    base = dict(os.environ, OMP_NUM_THREADS="2")
    base.pop("OMP_TOOL_LIBRARIES", None)
    rows = []
    with tempfile.TemporaryDirectory() as work:
        tool = dict(base, OMP_TOOL_LIBRARIES=os.path.abspath(a.tool), SCAL_OUTPUT=work + "/")
        check = None
        if a.detached:
            tool["SCAL_WRITER"] = "detached"
        else:
            check = work
        for _ in range(3):  # warm the page cache
            one(a.prog, base), one(a.prog, tool, check)
            drain_orphans()
        for k in range(a.pairs):
            if k % 2:
                bare = one(a.prog, base)
                with_tool = one(a.prog, tool, check)
            else:
                with_tool = one(a.prog, tool, check)
                bare = one(a.prog, base)
            drain_orphans()  # detached: the writer of this pair's run file, before the next pair
            rows.append({"pair": k, "bare_ms": bare[0], "tool_ms": with_tool[0], "extra_ms": with_tool[0] - bare[0],
                         "bare_cpu_ms": bare[1], "tool_cpu_ms": with_tool[1], "extra_cpu_ms": with_tool[1] - bare[1]})
        files = [f for f in os.listdir(work) if f.endswith(".h5")]
        left = [f for f in os.listdir(work) if not f.endswith(".h5")]
    expected = a.pairs + 3
    bare = statistics.median(r["bare_ms"] for r in rows)
    tool_ms = statistics.median(r["tool_ms"] for r in rows)
    extra = statistics.median(r["extra_ms"] for r in rows)
    extra_cpu = statistics.median(r["extra_cpu_ms"] for r in rows)
    print("%d pairs%s: program alone %.2f ms, under scal %.2f ms (medians); fixed cost per process "
          "(median of the paired differences) %.2f ms, CPU time (the writer's included) %.2f ms; goal <= 3 ms; load average %.1f" %
          (a.pairs, " (SCAL_WRITER=detached)" if a.detached else "", bare, tool_ms, extra, extra_cpu,
           os.getloadavg()[0]))
    for key in ("extra_ms", "extra_cpu_ms"):
        q = statistics.quantiles([r[key] for r in rows], n=4)
        print("  %s: quartiles %.2f / %.2f / %.2f" % (key, q[0], q[1], q[2]))
    print("run files written: %d of %d%s" % (len(files), expected, "; left over: %s" % left if left else ""))
    if len(files) != expected:
        raise SystemExit("some run files are missing")
    write_rows(a.csv, rows)


if __name__ == "__main__":
    main()
