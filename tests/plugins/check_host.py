# SPDX-License-Identifier: BSD-3-Clause
# The plugin host end to end: the tool loads the `counting` test sensor (and plugins that fail in
# every way the loader reports), and the run file must hold the program's exact per-region,
# per-thread counts, run values, samples and each failure's reason; `scal plugins` lists the same.
import argparse
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from scal_check import check, fail  # noqa: E402  (tests/scal_check.py)


def lines_of(source):
    marks = {}
    with open(source) as f:
        for n, line in enumerate(f, 1):
            for m in ("REGION_A", "REGION_B", "REGION_C", "REGION_D"):
                if m in line:
                    marks[m[-1]] = n
    return marks


def run(args, workdir, plugins, threads, reps, extra_env=None):
    out = os.path.join(workdir, "run-%d.h5" % threads)
    env = dict(os.environ)
    env.update({"OMP_TOOL_LIBRARIES": args.tool, "SCAL_OUTPUT": out, "SCAL_PLUGINS": plugins,
                "SCAL_PLUGIN_PATH": args.fixtures, "OMP_NUM_THREADS": str(threads),
                "OMP_WAIT_POLICY": "passive", "SCAL_SAMPLE_MS": "5"})
    env.update(extra_env or {})
    p = subprocess.run([args.prog, str(reps)], env=env, capture_output=True, text=True, timeout=300)
    check(p.returncode == 0, "program ran with %d threads (stderr: %s)" % (threads, p.stderr.strip()[-6000:]))
    return out


def main():
    ap = argparse.ArgumentParser()
    for a in ("--tool", "--scal", "--prog", "--fixtures", "--source"):
        ap.add_argument(a, required=True)
    args = ap.parse_args()
    marks = lines_of(args.source)
    work = tempfile.mkdtemp(prefix="scal-plugins-")
    bad = "abi_future,initfail,unavail,wrongkind,noentry,notso,nonexistent,manymetrics," + \
          os.path.join(args.fixtures, "missing-file.so")
    reps = 40
    for T in (1, 2, 4):
        path = run(args, work, "counting," + bad, T, reps)
        with h5py.File(path, "r") as f:
            strings = [s.decode() if isinstance(s, bytes) else s for s in f["strings"][()]]
            regions = f["regions"][()]
            by_line = {}
            for r in regions:
                if r["line_first"] > 0:
                    by_line.setdefault(int(r["line_first"]), []).append(int(r["id"]))
            rid = {}
            for k, line in marks.items():
                check(len(by_line.get(line, [])) == 1, "T=%d: one region for REGION_%s (line %d)" % (T, k, line))
                rid[k] = by_line[line][0]
            plugins = {strings[p["name"]]: p for p in f["sensors/plugins"][()]}
            check(plugins["counting"]["available"] == 1, "counting sensor available")
            expect_reason = {
                "abi_future": "plugin ABI 2.0",
                "initfail": "simulated initialisation failure",
                "unavail": "no such hardware here",
                "wrongkind": "is a actuator plugin, not a sensor plugin",
                "noentry": "has no entry symbol 'scal_plugin_entry'",
                "notso": "not a loadable shared object",
                "nonexistent": "no plugin 'nonexistent'",
                "manymetrics": "65 metrics: more than the 64",
                os.path.join(args.fixtures, "missing-file.so"): "sensors are named, never paths",
            }
            for name, phrase in expect_reason.items():
                check(name in plugins, "plugin %s recorded" % name)
                reason = strings[plugins[name]["reason"]]
                check(plugins[name]["available"] == 0 and phrase in reason,
                      "%s unavailable with reason containing %r: %r" % (name, phrase, reason))
            vals = f["sensors/values"][()]

            def value(region, thread, metric):
                sel = [v for v in vals if v["region"] == region and v["thread"] == thread
                       and strings[v["metric"]] == metric]
                check(len(sel) == 1, "T=%d: one value for region %d thread %d %s" % (T, region, thread, metric))
                return sel[0]

            # Region A: thread t adds 100*(t+1) per repetition; one thread adds 1000 process-wide.
            for t in range(T):
                v = value(rid["A"], t, "counting.thread_ops")
                check(v["value"] == reps * 100 * (t + 1) and v["instances"] == reps,
                      "T=%d A thread %d: %g == %d over %d instances" % (T, t, v["value"], reps * 100 * (t + 1), v["instances"]))
            check(value(rid["A"], -1, "counting.thread_ops")["value"] == reps * 100 * T * (T + 1) // 2, "A total over threads")
            v = value(rid["A"], -1, "counting.process_ops")
            check(v["value"] == reps * 1000 and v["instances"] == reps, "A process counter exact (%g)" % v["value"])
            check(not any(x["region"] == rid["A"] and x["thread"] >= 0 and strings[x["metric"]] == "counting.process_ops" for x in vals),
                  "process-scope metric has no per-thread rows")
            check(value(rid["A"], -1, "counting.level")["value"] == reps, "gauge keeps the last value")
            check(value(rid["B"], -1, "counting.process_ops")["value"] == reps * 5 * T, "B process counter exact")
            check(value(rid["B"], -1, "counting.thread_ops")["value"] == reps * T, "B thread total")
            # C is inclusive of the nested D on the same thread, not of D's other threads.
            for t in range(T):
                v = value(rid["C"], t, "counting.thread_ops")
                check(v["value"] == reps * 11, "C thread %d inclusive of its D share: %g over %d instances" % (t, v["value"], v["instances"]))
            check(value(rid["C"], -1, "counting.process_ops")["value"] == 0, "C changes no process counter")
            check(value(rid["D"], -1, "counting.thread_ops")["value"] == reps * T * 2, "D total: two members per nested team")
            # Run values: the main thread's counter and the process counter between start and end.
            check(value(-1, -1, "counting.process_ops")["value"] == reps * (1000 + 5 * T), "run process counter")
            check(value(-1, -1, "counting.thread_ops")["value"] == reps * 112, "run value of the main thread's counter")
            samples = f["sensors/samples"][()]
            lvl = np.array([s["time_s"] for s in samples if strings[s["metric"]] == "counting.level"])
            check(len(lvl) >= 10, "sampler recorded %d samples of counting.level" % len(lvl))
            check(np.all(np.diff(lvl) > 0), "sample times increase")
            # counts, not durations: a loaded machine only delays ticks; more samples than 5 ms
            # periods fit in the sampled span would mean the period is not kept
            periods = (lvl[-1] - lvl[0]) / 0.005
            check(len(lvl) - 1 <= periods * 1.2 + 2, "%d samples fit the 5 ms period over %.0f periods" % (len(lvl), periods))
            check(abs(f["sensors"].attrs["sample_period_s"] - 0.005) < 1e-9, "period recorded")

    # A full sample buffer drops every second tick: every sampled metric keeps an even series.
    thin = run(args, work, "counting", 2, 20, {"SCAL_MAX_SAMPLES": "64", "SCAL_SAMPLE_MS": "1"})
    with h5py.File(thin, "r") as f:
        strings = [x.decode() if isinstance(x, bytes) else x for x in f["strings"][()]]
        samples = f["sensors/samples"][()]
        check(f["sensors"].attrs["samples_decimated"] >= 1 and len(samples) <= 64,
              "the buffer was thinned %d times and holds %d <= 64 samples" % (f["sensors"].attrs["samples_decimated"], len(samples)))
        series = {m: np.array([x["time_s"] for x in samples if strings[x["metric"]] == m])
                  for m in ("counting.thread_ops", "counting.process_ops", "counting.level")}
        counts = {m: len(v) for m, v in series.items()}
        check(len(set(counts.values())) == 1 and min(counts.values()) >= 10, "every metric keeps the same ticks: %s" % counts)
        check(all(np.all(np.diff(v) > 0) for v in series.values()), "each series' times increase")

    # scal show: per-region metric columns, whole-run values and unavailable sensors
    p = subprocess.run([args.scal, "show", path], capture_output=True, text=True, timeout=60)
    check(p.returncode == 0 and "counting.thread_ops [count]" in p.stdout, "scal show has a column per metric")
    check("whole run: counting.thread_ops %d count" % (reps * 112) in p.stdout, "scal show prints whole-run values")
    check("sensor initfail unavailable: simulated initialisation failure" in p.stdout, "scal show lists unavailable sensors")
    # A plugin whose per-thread initialisation fails is never read on those threads; the others
    # keep their exact values.
    path = run(args, work, "counting,threadfail", 2, 3)
    with h5py.File(path, "r") as f:
        strings = [x.decode() if isinstance(x, bytes) else x for x in f["strings"][()]]
        vals = f["sensors/values"][()]
        tf = [v for v in vals if strings[v["metric"]] == "x.y" and v["region"] >= 0]
        check(all(np.isnan(v["value"]) for v in tf), "threadfail's region values are NaN (not measured): %d rows" % len(tf))
        runs = [v for v in vals if strings[v["metric"]] == "counting.process_ops" and v["region"] == -1]
        check(len(runs) == 1 and runs[0]["value"] == 3 * (1000 + 5 * 2), "counting still exact beside it")
        check(f["sensors"].attrs["read_errors"] >= 1, "the per-thread failure is counted in read_errors")

    # A bad option value makes the plugin unavailable with the reason, the run goes on.
    path = run(args, work, "counting", 2, 3, {"SCAL_COUNTING_UNUSED": "abc"})
    with h5py.File(path, "r") as f:
        strings = [s.decode() if isinstance(s, bytes) else s for s in f["strings"][()]]
        p = f["sensors/plugins"][()][0]
        check(p["available"] == 0 and "must be an integer, not 'abc' (from SCAL_COUNTING_UNUSED)" in strings[p["reason"]],
              "bad option value reported: %s" % strings[p["reason"]])
        check(len(f["regions"][()]) > 4, "regions still recorded")

    # scal plugins: lists the fixtures with states and reasons.
    env = dict(os.environ, SCAL_PLUGIN_PATH=args.fixtures)
    p = subprocess.run([args.scal, "plugins"], env=env, capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, "scal plugins runs")
    out = p.stdout
    check("counting     sensor" in out and "exports no scal_test_* counters" in out, "counting listed, unavailable in scal itself, with reason")
    check("abi_future   BROKEN" in out and "plugin ABI 2.0" in out, "ABI mismatch listed")
    check("noentry      BROKEN" in out and "no entry symbol" in out, "missing entry symbol listed")
    check("notso        BROKEN" in out, "non-ELF file listed as broken")
    check("unavail" in out and "no such hardware here" in out, "unavailable plugin with reason")
    check("option unused (int, default 3)" in out, "options listed with type and default")
    p = subprocess.run([args.scal, "plugins", "nonexistent"], env=env, capture_output=True, text=True)
    check(p.returncode == 1 and "no plugin 'nonexistent'" in p.stderr, "unknown plugin name: exit 1 and message")
    print("all plugin host checks passed")


main()
