# SPDX-License-Identifier: BSD-3-Clause
# Integration tests of libscal_ompt.so: run real OpenMP programs under the tool, read the run file
# with h5py and assert on regions, nesting, source lines, counts, team sizes and waits.
#
#   check_tool.py SCENARIO --tool LIB --prog PROGRAM [--source FILE] [--workdir DIR]
import argparse
import os
import signal
import subprocess
import sys
import tempfile

import h5py
import numpy as np


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from scal_check import check, fail  # noqa: E402  (tests/scal_check.py)


def marker_line(source, marker):
    with open(source) as f:
        for n, line in enumerate(f, 1):
            if marker in line:
                return n
    fail("marker %s not in %s" % (marker, source))


class Run:
    """One program run under the tool and its run file."""

    def __init__(self, args, prog_args=(), env=None, expect_rc=0, out=None):
        self.path = out or os.path.join(args.workdir, "run-%s.h5" % args.scenario)
        if os.path.exists(self.path):
            os.unlink(self.path)
        e = dict(os.environ)
        e.update({"OMP_TOOL_LIBRARIES": args.tool, "SCAL_OUTPUT": self.path})
        e.update(env or {})
        p = subprocess.run([args.prog] + list(prog_args), env=e, capture_output=True, text=True, cwd=args.workdir, timeout=600)
        self.rc, self.stdout, self.stderr = p.returncode, p.stdout, p.stderr
        if expect_rc is not None:
            check(self.rc == expect_rc, "exit status %d (expected %d); stderr: %s" % (self.rc, expect_rc, self.stderr.strip()))

    def open(self):
        check(os.path.exists(self.path), "run file %s written" % self.path)
        self.f = h5py.File(self.path, "r")
        self.strings = self.f["strings"].asstr()[:]
        self.regions = self.f["regions"][:]
        return self

    def s(self, idx):
        return self.strings[idx]

    def by_line(self, line):
        return [r for r in self.regions if r["line_first"] == line and r["kind"] == 1]

    def users(self, name):
        return [r for r in self.regions if r["kind"] == 3 and self.s(r["name"]) == name]


def scenario_nested(args):
    run = Run(args, env={"OMP_MAX_ACTIVE_LEVELS": "2", "SCAL_TRACE": "4096"}).open()
    f = run.f
    check(f.attrs["scal_format"] == "scal-run" and int(f.attrs["scal_schema_version"]) == 1, "format and schema version")
    root = run.regions[0]
    check(root["kind"] == 0 and root["parent"] == -1 and root["count"] == 1, "row 0 is the root")
    outer_line, inner_line, flat_line = (marker_line(args.source, m) for m in ("/* OUTER */", "/* INNER */", "/* FLAT */"))
    outer, inner, flat = run.by_line(outer_line), run.by_line(inner_line), run.by_line(flat_line)
    check(len(outer) == 1 and len(inner) == 1 and len(flat) == 1, "one region per pragma (lines %d, %d, %d)" % (outer_line, inner_line, flat_line))
    outer, inner, flat = outer[0], inner[0], flat[0]
    check(outer["parent"] == 0 and flat["parent"] == 0, "outer and flat regions are children of the root")
    check(inner["parent"] == outer["id"] and inner["depth"] == 2, "inner region nested in the outer region")
    check(outer["count"] == 3 and flat["count"] == 1, "outer ran 3 times, flat once")
    check(inner["count"] == 6, "inner ran 6 times (3 outer instances x 2 threads): %d" % inner["count"])
    for r in (outer, inner, flat):
        check(r["team_requested_max"] == 2 and r["team_actual_min"] == 2 and r["team_actual_max"] == 2, "team size 2 for %s" % run.s(r["name"]))
        check(run.s(r["file"]).endswith("nested.c"), "file resolved for %s" % run.s(r["name"]))
        check(r["time_total_s"] > 0 and r["time_min_s"] <= r["time_median_s"] <= r["time_max_s"], "time stats ordered for %s" % run.s(r["name"]))
        check(r["median_exact"] == 1, "median exact at few instances")
        check(r["threads"] == 2, "two team members measured")
    check(flat["line_last"] >= flat_line + 2, "flat region's last line covers its braces (%d)" % flat["line_last"])
    check(run.s(inner["function"]).startswith(".omp_outlined") or run.s(inner["function"]) == "inner_work", "inner region's function: %s" % run.s(inner["function"]))
    serial = [r for r in run.regions if r["kind"] == 2]
    check(any(r["gap_prev"] == -1 and r["gap_next"] == outer["id"] for r in serial), "serial gap from program start to the outer region")
    check(any(r["gap_prev"] == outer["id"] and r["gap_next"] == outer["id"] and r["count"] == 2 for r in serial), "serial gap between outer instances, twice")
    check(any(r["gap_prev"] == flat["id"] and r["gap_next"] == -1 for r in serial), "serial gap from the last region to the end")
    top = [r for r in run.regions if r["parent"] == 0]
    check(sum(r["time_total_s"] for r in top) <= root["time_total_s"] * 1.01, "top-level regions fit in the program's time")
    th = f["threads"][:]
    check(set(th["thread"][th["region"] == outer["id"]]) == {0, 1}, "per-thread rows for both members of the outer region")
    check(np.all(th["work_s"] >= 0) and np.all(th["barrier_s"] >= 0), "per-thread times are non-negative")
    meta = f["meta"].attrs
    for key in ("command_line", "executable", "host", "cpu_model", "kernel", "date_utc", "omp_runtime", "clock_source", "exit_reason"):
        check(isinstance(meta[key], str) and len(meta[key]) > 0, "meta %s = %r" % (key, meta[key]))
    check(meta["cpu_count"] >= 1 and meta["max_team_observed"] == 2, "cpu count and observed team")
    check("LLVM OMP" in meta["omp_runtime"], "OpenMP runtime version recorded")
    env = [e.decode() if isinstance(e, bytes) else e for e in f["meta/environment"][:]]
    check(any(e.startswith("OMP_MAX_ACTIVE_LEVELS=") for e in env), "OMP_* environment recorded")
    check(f["diagnostics"].attrs["errors_total"] == 0, "no measurement problems")
    ti = f["trace/instances"][:]
    check(len(ti) == 3 + 6 + 1, "trace holds every instance (%d)" % len(ti))
    check(np.all(ti["end_s"] >= ti["begin_s"]), "trace intervals are ordered")
    check(len(f["trace/states"]) > 0 and f["trace"].attrs["dropped"] == 0, "trace states recorded, none dropped")
    # The aggregated statistics equal what the trace's individual instances give.
    for r in (outer, inner):
        d = ti["end_s"][ti["region"] == r["id"]] - ti["begin_s"][ti["region"] == r["id"]]
        tol = 1e-8
        check(len(d) == r["count"], "trace has every instance of %s" % run.s(r["name"]))
        check(abs(d.sum() - r["time_total_s"]) < tol * len(d) and abs(d.min() - r["time_min_s"]) < tol and abs(d.max() - r["time_max_s"]) < tol,
              "total/min/max of %s equal the trace's" % run.s(r["name"]))
        check(abs(np.median(d) - r["time_median_s"]) < tol, "exact median of %s equals the trace's" % run.s(r["name"]))
        check(abs(np.var(d, ddof=1) - r["time_var_s2"]) <= 1e-6 * max(np.var(d, ddof=1), 1e-12) + 1e-15,
              "sample variance of %s equals the trace's (%.3e vs %.3e)" % (run.s(r["name"]), r["time_var_s2"], np.var(d, ddof=1)))


def scenario_nested_serialized(args):
    run = Run(args, env={"OMP_MAX_ACTIVE_LEVELS": "1"}).open()
    inner = run.by_line(marker_line(args.source, "/* INNER */"))
    outer = run.by_line(marker_line(args.source, "/* OUTER */"))
    check(len(inner) == 1 and inner[0]["parent"] == outer[0]["id"], "serialized inner region still nested in the outer one")
    inner = inner[0]
    check(inner["count"] == 6, "serialized inner region ran 6 times")
    check(inner["team_requested_max"] == 2 and inner["team_actual_min"] == 1 and inner["team_actual_max"] == 1,
          "requested team 2, actual team 1 when nesting is off")


def scenario_nested_team_reuse(args):
    # Sibling inner teams end and fork concurrently, so the runtime hands a team one thread just
    # returned to another (libomp 14 then reports the first thread's parallel_end with the second
    # one's parallel_data). Every instance must still close under its own parent.
    iters, team = 1000, 4
    run = Run(args, prog_args=[str(iters), str(team)], env={"OMP_MAX_ACTIVE_LEVELS": "2", "OMP_WAIT_POLICY": "passive"}).open()
    outer = run.by_line(marker_line(args.source, "/* OUTER */"))
    inner = run.by_line(marker_line(args.source, "/* INNER */"))
    check(len(outer) == 1 and len(inner) == 1, "one outer and one inner region")
    check(inner[0]["parent"] == outer[0]["id"], "inner region nested in the outer one")
    check(outer[0]["count"] == iters and inner[0]["count"] == team * iters,
          "outer ran %d times (%d), inner %d times (%d)" % (iters, outer[0]["count"], team * iters, inner[0]["count"]))
    d = run.f["diagnostics"].attrs
    check(d["unmatched_end"] == 0 and d["open_at_exit"] == 0 and d["errors_total"] == 0,
          "no unmatched ends, nothing open at exit (%d, %d)" % (d["unmatched_end"], d["open_at_exit"]))


def scenario_listing4(args):
    run = Run(args, prog_args=["20000"], env={"OMP_NUM_THREADS": "4"}).open()
    red = run.by_line(marker_line(args.source, "/* REDUCTION */"))
    crit = run.by_line(marker_line(args.source, "/* CRITICAL */"))
    check(len(red) == 1 and len(crit) == 1, "both loops found")
    red, crit = red[0], crit[0]
    check(red["loops"] == 1 and red["loop_iterations"] == 20000, "reduction loop: 1 loop, 20000 iterations")
    check(crit["loops"] == 1 and crit["loop_iterations"] == 20000, "critical loop: 1 loop, 20000 iterations")
    check(crit["lock_total_s"] > 0, "critical region shows lock wait (%.4f s)" % crit["lock_total_s"])
    check(red["lock_total_s"] < 0.1 * crit["lock_total_s"], "reduction region has (almost) no lock wait (%.6f s)" % red["lock_total_s"])
    check(crit["team_actual_max"] == 4, "team of 4")
    diag = run.f["diagnostics"]
    described = [x.decode() if isinstance(x, bytes) else x for x in diag["descriptions"][()]]
    counters = sorted(k for k in diag.attrs if k != "errors_total")
    check(sorted(d.split(": ")[0] for d in described) == counters and all(len(d.split(": ")[1]) > 10 for d in described),
          "every diagnostics counter is described (%d)" % len(described))


def scenario_user_regions(args):
    run = Run(args, env={"OMP_NUM_THREADS": "3"}).open()
    check("tool active" in run.stdout, "scal_tool_active() is 1 under the tool")
    check("bad end -1" in run.stdout and "empty -1" in run.stdout, "mismatched end and empty name return SCAL_EINVAL")
    outer, inner = run.users("outer"), run.users("inner")
    check(len(outer) == 1 and len(inner) == 1, "one node per user region")
    outer, inner = outer[0], inner[0]
    par = run.regions[inner["parent"]]
    check(outer["parent"] == 0 and par["kind"] == 1 and par["parent"] == outer["id"], "root > outer > parallel > inner")
    check(outer["count"] == 5 and par["count"] == 5, "outer and the parallel region ran 5 times")
    check(inner["count"] == 15, "inner ran 15 times (5 x 3 threads): %d" % inner["count"])
    check(run.f["diagnostics"].attrs["user_region_mismatch"] == 1, "the bad end is counted")


def scenario_user_region_left_open(args):
    # A user region begun inside a parallel region and never ended: the program runs to its end,
    # the file is written, and the broken nesting is reported in the diagnostics.
    run = Run(args, prog_args=["leave-open"], env={"OMP_NUM_THREADS": "3"}).open()
    check(any(run.s(r["name"]) == "unclosed" for r in run.regions if r["kind"] == 3), "the unclosed user region is a node")
    check(run.users("outer")[0]["count"] == 5, "the regions before it are intact")
    d = run.f["diagnostics"].attrs
    check(d["unmatched_end"] >= 1 and d["errors_total"] > 0, "the parallel end that found a user region open is counted (%d)" % d["unmatched_end"])


def scenario_without_tool(args):
    e = dict(os.environ)
    e.pop("OMP_TOOL_LIBRARIES", None)
    p = subprocess.run([args.prog], env=e, capture_output=True, text=True, cwd=args.workdir)
    check(p.returncode == 0 and "tool absent" in p.stdout, "user region API runs unchanged without the tool")


def scenario_disabled(args):
    out = os.path.join(args.workdir, "disabled.h5")
    run = Run(args, env={"SCAL_ENABLE": "0"}, out=out)
    check(not os.path.exists(out), "SCAL_ENABLE=0 writes nothing")


def scenario_preload(args):
    out = os.path.join(args.workdir, "preload.h5")
    e = {"LD_PRELOAD": args.tool, "OMP_TOOL_LIBRARIES": ""}
    run = Run(args, env=e, out=out).open()
    check(any(r["kind"] == 1 for r in run.regions), "loaded through LD_PRELOAD, regions measured")


def scenario_no_debug_info(args):
    run = Run(args, env={"OMP_NUM_THREADS": "2"}).open()
    par = [r for r in run.regions if r["kind"] == 1]
    check(len(par) == 2, "both regions found without debug info")
    for r in par:
        check(r["line_first"] == -1 and run.s(r["file"]) == "", "no source line without debug info")
        check(run.s(r["module"]).endswith(os.path.basename(args.prog)) and r["offset"] > 0, "module and offset identify the region")
        check(len(run.s(r["name"])) > 0 and "+0x" in run.s(r["name"]), "label is symbol+offset: %s" % run.s(r["name"]))


def scenario_gcc(args):
    libomp = args.libomp
    run = Run(args, prog_args=["5000"], env={"LD_PRELOAD": libomp, "OMP_NUM_THREADS": "2"}).open()
    red = run.by_line(marker_line(args.source, "/* REDUCTION */"))
    crit = run.by_line(marker_line(args.source, "/* CRITICAL */"))
    check(len(red) == 1 and len(crit) == 1, "gcc-built program: both regions found with source lines")
    check(crit[0]["lock_total_s"] > 0 and crit[0]["team_actual_max"] == 2, "gcc-built program: lock wait and team size measured")


def scenario_exit_in_parallel(args):
    run = Run(args, expect_rc=3).open()
    meta = run.f["meta"].attrs
    check("exit()" in meta["exit_reason"], "exit reason says exit(): %s" % meta["exit_reason"])
    done = run.by_line(marker_line(args.source, "/* COMPLETED */"))
    exits = run.by_line(marker_line(args.source, "/* EXITS */"))
    check(len(done) == 1 and done[0]["count"] == 1, "the completed region is recorded")
    check(len(exits) == 1 and exits[0]["count"] == 1, "the interrupted region is recorded, closed at exit")
    check(run.f["diagnostics"].attrs["open_at_exit"] >= 1, "open regions at exit are counted")


def scenario_sigterm(args):
    path = os.path.join(args.workdir, "sigterm.h5")
    if os.path.exists(path):
        os.unlink(path)
    e = dict(os.environ, OMP_TOOL_LIBRARIES=args.tool, SCAL_OUTPUT=path)
    p = subprocess.Popen([args.prog], env=e, stdout=subprocess.PIPE, text=True, cwd=args.workdir)
    check(p.stdout.readline().strip() == "ready", "program reached the spinning region")
    p.send_signal(signal.SIGTERM)
    rc = p.wait(timeout=60)
    check(rc == -signal.SIGTERM, "program still dies of SIGTERM (status %d)" % rc)
    run = Run.__new__(Run)
    run.path = path
    run.open()
    check(run.f["meta"].attrs["exit_reason"] == "signal SIGTERM", "exit reason is the signal")
    check(len(run.by_line(marker_line(args.source, "/* COMPLETED */"))) == 1, "the completed region is recorded")
    check(len(run.by_line(marker_line(args.source, "/* SPINS */"))) == 1, "the interrupted region is recorded")


def scenario_uses_hdf5(args):
    own = os.path.join(args.workdir, "own.h5")
    run = Run(args, prog_args=[own]).open()
    check(len([r for r in run.regions if r["kind"] == 1]) == 1, "the program's region is measured")
    with h5py.File(own, "r") as f:
        check(int(f["total"][0]) == 499500, "the program's own HDF5 file, finished at exit, is intact next to the run file")


def scenario_two_parents(args):
    run = Run(args).open()
    par = [r for r in run.regions if r["kind"] == 1]
    check(len(par) == 40, "one parallel node per enclosing user region (%d)" % len(par))
    check(len(set(int(r["line_first"]) for r in par)) == 1, "all of them the same pragma")
    parents = [run.regions[r["parent"]] for r in par]
    check(all(p["kind"] == 3 for p in parents) and len(set(int(p["id"]) for p in parents)) == 40,
          "each under a different user region: the same code under two parents is two nodes")
    check(all(r["count"] == 1 for r in par), "each node ran once")


def scenario_overflow(args):
    run = Run(args, env={"SCAL_MAX_REGIONS": "16"}).open()
    check("beyond SCAL_MAX_REGIONS" in run.stderr or "measurement problem" in run.stderr, "the overflow is reported on stderr")
    check(len(run.regions) == 16, "exactly SCAL_MAX_REGIONS regions kept (%d)" % len(run.regions))
    over = [r for r in run.regions if "beyond SCAL_MAX_REGIONS" in run.s(r["name"])]
    check(len(over) == 1 and over[0]["count"] > 0, "the overflow region holds the rest (%d instances)" % (over[0]["count"] if over else 0))
    # 40 user regions + 40 parallel regions + 41 serial gaps (before each top-level region, and the last)
    kept = sum(int(r["count"]) for r in run.regions[1:])
    check(kept == 121, "every instance is counted somewhere (%d of 121)" % kept)
    check(run.f["diagnostics"].attrs["regions_overflow"] > 0, "the overflow is counted in the diagnostics")


def peak_rss_kib(args, count):
    e = dict(os.environ, OMP_TOOL_LIBRARIES=args.tool, SCAL_OUTPUT=os.path.join(args.workdir, "mem-%d.h5" % count), OMP_NUM_THREADS="2")
    p = subprocess.Popen([args.prog, str(count)], env=e, stdout=subprocess.DEVNULL, cwd=args.workdir)
    _, status, usage = os.wait4(p.pid, 0)
    check(os.waitstatus_to_exitcode(status) == 0, "%d-instance run succeeded" % count)
    return usage.ru_maxrss


def scenario_memory(args):
    small = peak_rss_kib(args, 10)
    big = peak_rss_kib(args, args.instances)
    print("peak RSS: %d KiB at 10 instances, %d KiB at %d instances" % (small, big, args.instances))
    check(big <= small + 1024, "memory does not grow with instances (%d KiB vs %d KiB, bound +1 MiB)" % (big, small))
    f = h5py.File(os.path.join(args.workdir, "mem-%d.h5" % args.instances), "r")
    par = [r for r in f["regions"][:] if r["kind"] == 1]
    check(len(par) == 1 and par[0]["count"] == args.instances, "all %d instances counted" % args.instances)
    check(par[0]["median_exact"] == 0 and par[0]["time_median_s"] > 0, "median approximated beyond the exact sample count")


def scenario_bad_env(args):
    cases = [
        ({"SCAL_OUTPUT": "/nonexistent-scal-dir/"}, "does not exist"),
        ({"SCAL_OUTPUT": "/proc/scal-cannot-write.h5"}, "cannot create"),
        ({"SCAL_TRACE": "lots"}, "SCAL_TRACE"),
        ({"SCAL_MAX_REGIONS": "-5"}, "SCAL_MAX_REGIONS"),
        ({"SCAL_ENABLE": "maybe"}, "SCAL_ENABLE"),
    ]
    for env, expected in cases:
        for f in os.listdir(args.workdir):
            if f.startswith("scal-") and f.endswith(".h5"):
                os.unlink(os.path.join(args.workdir, f))
        e = dict(os.environ, OMP_TOOL_LIBRARIES=args.tool, OMP_NUM_THREADS="2")
        e.update(env)
        p = subprocess.run([args.prog, "2000"], env=e, capture_output=True, text=True, cwd=args.workdir)
        check(p.returncode == 0 and "listing4: sum" in p.stdout, "%s: program output and exit status unchanged" % env)
        check(expected in p.stderr and "scal:" in p.stderr, "%s: clear message (%s)" % (env, p.stderr.strip().replace("\n", " | ")))
        written = [f for f in os.listdir(args.workdir) if f.startswith("scal-") and f.endswith(".h5")]
        if "SCAL_OUTPUT" in env:
            check(len(written) == 1, "%s: data kept in the current directory instead" % env)
        h5 = [f for f in os.listdir(args.workdir) if f.endswith(".h5")]
        check(len(h5) >= 1, "%s: a run file exists" % env)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario")
    ap.add_argument("--tool", required=True)
    ap.add_argument("--prog", required=True)
    ap.add_argument("--source")
    ap.add_argument("--libomp", default="/usr/lib/llvm-14/lib/libomp.so.5")
    ap.add_argument("--instances", type=int, default=10_000_000)
    ap.add_argument("--workdir")
    args = ap.parse_args()
    tmp = None
    if not args.workdir:
        tmp = tempfile.TemporaryDirectory(prefix="scal-tool-test-")
        args.workdir = tmp.name
    globals()["scenario_" + args.scenario.replace("-", "_")](args)
    print("PASS: %s" % args.scenario)


if __name__ == "__main__":
    main()
