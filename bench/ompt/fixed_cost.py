# SPDX-License-Identifier: BSD-3-Clause
# The tool's fixed cost per process: whole-process wall time (start to exit, as a shell sees it) and
# CPU time of a one-region OpenMP program without and with libscal_ompt.so, in rounds (the order of
# the variants reverses every round), and the medians of the per-round differences. The CPU time of
# a run under scal includes its writer process's (the benchmark is a subreaper: the writer, which
# the program does not have as a child, is reaped here and its rusage counted), since work moved to
# another process still costs. By default (SCAL_WRITER=wait) the run file is complete when the
# program has ended: that is checked right after each run. Two variants under the tool:
#   first run  SCAL_IDENTITY_CACHE="": every run resolves its regions from DWARF, as the first run
#              of a binary does;
#   default    the tool's default, the user's identity cache (kept in a temporary XDG_CACHE_HOME,
#              filled by the warm-up runs): what every later run of the same binary costs.
# --detached measures SCAL_WRITER=detached, where the file is written after the program ended: the
# benchmark then waits for it between rounds (not timed).
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


def become_subreaper():
    """Processes re-parented from below end up here (the writers), for drain_orphans."""
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise SystemExit("prctl(PR_SET_CHILD_SUBREAPER) failed")


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


def rounds(prog, variants, count, checks=None, clean=None):
    """After 3 warm-up rounds (the page cache, a default identity cache), `count` rounds in which
    every (name, env) of variants runs once, in an order reversed every other round: one dict per
    round, name -> (wall ms, CPU ms). checks: name -> directory whose new run file is checked after
    each run of that variant; clean: a directory emptied after each round."""
    checks = checks or {}

    def round_(order):
        got = {name: one(prog, env, checks.get(name)) for name, env in order}
        drain_orphans()  # detached writers of this round's files, before the next round
        if clean:
            for f in os.listdir(clean):
                os.unlink(os.path.join(clean, f))
        return got

    for _ in range(3):
        round_(variants)
    return [round_(variants if k % 2 == 0 else variants[::-1]) for k in range(count)]


def median_of(rows, f):
    return statistics.median(f(r) for r in rows)


def print_bare(rows):
    """The first line of a report of rounds(): how many, the load, the bare program's medians."""
    print("%d rounds, load average %.1f; bare: wall %.2f ms, CPU %.2f ms" %
          (len(rows), os.getloadavg()[0], median_of(rows, lambda r: r["bare"][0]),
           median_of(rows, lambda r: r["bare"][1])))


def extra(rows, name, over="bare"):
    """Medians of the per-round differences of variant `name` to variant `over`: (wall, CPU) ms."""
    return (median_of(rows, lambda r: r[name][0] - r[over][0]),
            median_of(rows, lambda r: r[name][1] - r[over][1]))


def quartiles(values):
    q = statistics.quantiles(values, n=4)
    return "%.2f / %.2f / %.2f" % (q[0], q[1], q[2])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prog", required=True)
    ap.add_argument("--tool", required=True)
    ap.add_argument("--pairs", type=int, default=41, help="rounds (each: bare and both variants)")
    ap.add_argument("--detached", action="store_true", help="SCAL_WRITER=detached (the file comes after the end)")
    ap.add_argument("--csv")
    a = ap.parse_args()
    become_subreaper()
    base = dict(os.environ, OMP_NUM_THREADS="2")
    base.pop("OMP_TOOL_LIBRARIES", None)
    base.pop("SCAL_IDENTITY_CACHE", None)
    rows = []
    with tempfile.TemporaryDirectory() as work:
        out = os.path.join(work, "out")
        os.mkdir(out)
        tool = dict(base, OMP_TOOL_LIBRARIES=os.path.abspath(a.tool), SCAL_OUTPUT=out + "/",
                    XDG_CACHE_HOME=os.path.join(work, "cache"))
        if a.detached:
            tool["SCAL_WRITER"] = "detached"
        variants = [("bare", base), ("first run", dict(tool, SCAL_IDENTITY_CACHE="")), ("default", tool)]
        checks = {} if a.detached else {"first run": out, "default": out}
        for k, got in enumerate(rounds(a.prog, variants, a.pairs, checks)):
            rows.append({"round": k, "bare_ms": got["bare"][0], "bare_cpu_ms": got["bare"][1],
                         "first_ms": got["first run"][0], "first_cpu_ms": got["first run"][1],
                         "default_ms": got["default"][0], "default_cpu_ms": got["default"][1]})
        files = [f for f in os.listdir(out) if f.endswith(".h5")]
        left = [f for f in os.listdir(out) if not f.endswith(".h5")]
    expected = 2 * (a.pairs + 3)
    print("%d rounds%s, load average %.1f: program alone %.2f ms wall, %.2f ms CPU (medians); goal <= 3 ms" %
          (a.pairs, " (SCAL_WRITER=detached)" if a.detached else "", os.getloadavg()[0],
           statistics.median(r["bare_ms"] for r in rows), statistics.median(r["bare_cpu_ms"] for r in rows)))
    for key, what in (("first", "first run of a binary (no identity cache)"), ("default", "later runs (default identity cache)")):
        wall = [r[key + "_ms"] - r["bare_ms"] for r in rows]
        cpu = [r[key + "_cpu_ms"] - r["bare_cpu_ms"] for r in rows]
        print("  %-42s +%.2f ms wall (quartiles %s), +%.2f ms CPU incl. the writer (quartiles %s)" %
              (what, statistics.median(wall), quartiles(wall), statistics.median(cpu), quartiles(cpu)))
    print("run files written: %d of %d%s" % (len(files), expected, "; left over: %s" % left if left else ""))
    if len(files) != expected:
        raise SystemExit("some run files are missing")
    write_rows(a.csv, rows)


if __name__ == "__main__":
    main()
