# SPDX-License-Identifier: BSD-3-Clause
# Runs scal's overhead benchmarks with interleaved rounds (A B C A B C ...) and prints medians.
#
#   run_bench.py --bin DIR --tool LIBSCAL_OMPT [--baseline-tool OLD_LIBSCAL_OMPT] [--rounds 7]
#                [--regions 200000] [--only empty,fib,constructs,listing1,memory,callgrind]
#                [--memory-instances 10000000] [--sched-fifo]
#                [--csv out.csv]
# --baseline-tool adds another build of the tool (e.g. from an earlier commit) as a variant.
# DIR holds empty_regions, constructs, listing1, fib_tasks, libscal_floor_tool.so and many_regions
# (from the build).
#
# Every figure is paired: in each round every variant runs once, what a tool adds is taken against
# the no-tool run of the same round, and the median over rounds is reported with its interquartile
# range (q1..q3), so a burst of load on a shared machine moves one round, not one variant. The
# callgrind section counts the instructions executed inside the tools' callbacks per region and
# per task: independent of load, a second, repeatable figure for scal against the floor.
import argparse
import csv
import os
import shutil
import statistics
import subprocess
import sys
import tempfile


PREFIX = []  # --sched-fifo: ["chrt", "-f", "1"]


def run(cmd, env):
    p = subprocess.run(PREFIX + cmd, env=env, capture_output=True, text=True, check=True)
    return float(p.stdout.strip().splitlines()[-1])


def env_for(tool, extra=None, tmp=None):
    e = dict(os.environ, OMP_NUM_THREADS="2", OMP_PROC_BIND="false")
    e.pop("OMP_TOOL_LIBRARIES", None)
    if tool:
        e["OMP_TOOL_LIBRARIES"] = tool
        e["SCAL_OUTPUT"] = os.path.join(tmp, "bench.h5")
    e.update(extra or {})
    return e


def peak_rss_kib(cmd, env):
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    return usage.ru_maxrss


def quartiles(v):
    if len(v) < 2:
        return (v[0], v[0]) if v else (float("nan"), float("nan"))
    q = statistics.quantiles(v, n=4)
    return q[0], q[2]


def interleaved(cmd_of, variants, rounds, label):
    """{variant: [value per round]}, every variant once per round, in turn."""
    samples = {name: [] for name, _ in variants}
    for r in range(rounds):
        for name, env in variants:
            samples[name].append(run(cmd_of(name), env))
        print("%s round %d/%d: %s" % (label, r + 1, rounds, ", ".join("%s %.0f" % (n, samples[n][-1]) for n, _ in variants)),
              file=sys.stderr)
    return samples


def paired(samples, name, base="no tool"):
    """Per-round added cost of a variant against the base: median and quartiles."""
    d = [a - b for a, b in zip(samples[name], samples[base])]
    return statistics.median(d), quartiles(d)


def ratio(samples, name, floor_name, base="no tool"):
    """Median over rounds of (name added) / (floor added), and the ratio of the median added costs."""
    rs = [(a - n) / (f - n) for a, f, n in zip(samples[name], samples[floor_name], samples[base]) if f - n > 0]
    med = paired(samples, name, base)[0] / paired(samples, floor_name, base)[0] if paired(samples, floor_name, base)[0] > 0 else float("inf")
    return med, (statistics.median(rs) if rs else float("nan")), quartiles(rs) if rs else (float("nan"), float("nan"))


def report_table(title, samples, variants, unit, rows):
    print("\n" + title)
    print("%-36s %12s %12s %22s" % ("variant", unit, "added", "added q1..q3"))
    for n, _ in variants:
        med = statistics.median(samples[n])
        if n == "no tool":
            print("%-36s %12.1f %12s %22s" % (n, med, "", ""))
            continue
        add, (q1, q3) = paired(samples, n)
        print("%-36s %12.1f %12.1f %10.1f..%-10.1f" % (n, med, add, q1, q3))
        rows.append([title.split(",")[0], n, "%.1f" % med, "%.1f" % add, "%.1f" % q1, "%.1f" % q3, unit])


def callgrind_instructions(tooldir, tool, prog, args_n, args_2n, n, env):
    """Instructions executed inside the tool's callbacks (functions on_*, with what they call) per
    unit: the difference between a run of 2n and one of n units, divided by n."""
    counts = []
    for a in (args_n, args_2n):
        out = os.path.join(tooldir, "cg.out")
        e = dict(env, OMP_TOOL_LIBRARIES=tool)
        p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out, "--toggle-collect=on_*", prog] + a,
                           env=e, capture_output=True, text=True)
        line = [ln for ln in p.stderr.splitlines() if "Collected :" in ln]
        if p.returncode != 0 or not line:
            raise RuntimeError("callgrind failed: " + p.stderr[-2000:])
        counts.append(int(line[-1].split(":")[-1].strip()))
    return (counts[1] - counts[0]) / n


def fib_tasks(n):
    """Tasks fib_tasks.c creates for fib(n): one per call but the first."""
    a, b = 1, 1  # calls of fib(0), fib(1)
    for _ in range(2, n + 1):
        a, b = b, 1 + a + b
    return (b if n >= 1 else a) - 1


def stripped_copy(lib, tmp, name):
    """valgrind 3.19 cannot read clang 14's DWARF 5: a copy without debug information (its symbol
    table keeps the callbacks' names), next to a stripped copy of the writer it loads."""
    d = os.path.join(tmp, name)
    os.makedirs(d, exist_ok=True)
    src = os.path.dirname(lib)
    for f in os.listdir(src):
        if f.startswith("libscal_ompt") or f == os.path.basename(lib):
            subprocess.run(["objcopy", "--strip-debug", os.path.join(src, f), os.path.join(d, f)], check=True)
    return os.path.join(d, os.path.basename(lib))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--tool", required=True)
    ap.add_argument("--baseline-tool", help="another build of libscal_ompt.so to compare with")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--regions", type=int, default=200000)
    ap.add_argument("--constructs-count", type=int, default=0, help="repetitions per construct (0: each one's default)")
    ap.add_argument("--listing1-iterations", type=int, default=400)
    ap.add_argument("--fib", type=int, default=22, help="fib_tasks argument (28 655 tasks at 22)")
    ap.add_argument("--memory-instances", type=int, default=10_000_000, help="region instances of the large memory run")
    ap.add_argument("--only", default="empty,fib,constructs,listing1,memory,callgrind")
    ap.add_argument("--sched-fifo", action="store_true",
                    help="run the timed programs under SCHED_FIFO (chrt -f 1; root): on a busy machine the "
                         "timings otherwise measure the scheduler (the kernel's RT throttling leaves others 5 %%)")
    ap.add_argument("--csv")
    a = ap.parse_args()
    if a.sched_fifo:
        PREFIX[:] = ["chrt", "-f", "1"]
        probe = subprocess.run(PREFIX + ["true"], capture_output=True, text=True)
        if probe.returncode != 0:
            sys.exit("run_bench.py: --sched-fifo: chrt -f 1 fails here (%s); it needs root or CAP_SYS_NICE" % probe.stderr.strip())
    only = set(a.only.split(","))
    tmp = tempfile.mkdtemp(prefix="scal-bench-")
    rows = []
    floor = os.path.join(a.bin, "libscal_floor_tool.so")
    empty = [os.path.join(a.bin, "empty_regions"), str(a.regions)]
    variants = [
        ("no tool", env_for(None)),
        ("floor (parallel + implicit task)", env_for(floor, {"FLOOR_SYNC": "0"}, tmp)),
        ("floor (scal's callback set)", env_for(floor, None, tmp)),
        ("scal", env_for(a.tool, None, tmp)),
    ]
    if a.baseline_tool:
        variants.append(("scal baseline (--baseline-tool)", env_for(a.baseline_tool, None, tmp)))
    FLOOR = "floor (scal's callback set)"

    if "empty" in only:
        empty_sde = [os.path.join(a.bin, "empty_regions_sde"), str(a.regions)]
        have_sde = os.path.exists(empty_sde[0])
        v = list(variants)
        if have_sde:  # the same program with an SDE counter registered: without and with the papi sensor
            papi = {"SCAL_PLUGINS": "papi", "SCAL_PAPI_EVENTS": "sde:::Bench::regions",
                    "SCAL_PLUGIN_PATH": os.path.join(os.path.dirname(a.tool), "scal", "plugins")}
            v += [("scal, SDE program, no sensor", env_for(a.tool, None, tmp)),
                  ("scal + papi (1 SDE event)", env_for(a.tool, papi, tmp))]
            if a.baseline_tool:  # the baseline with this build's papi plugin
                v += [("baseline, SDE program, no sensor", env_for(a.baseline_tool, None, tmp)),
                      ("baseline + papi (1 SDE event)", env_for(a.baseline_tool, papi, tmp))]
        s = interleaved(lambda n: empty_sde if "SDE" in n else empty, v, a.rounds, "empty")
        report_table("Empty parallel region, 2 threads, %d regions x %d interleaved rounds (ns per region, median; added: paired with the round's no-tool run)"
                     % (a.regions, a.rounds), s, v, "ns/region", rows)
        rm, rr, (q1, q3) = ratio(s, "scal", FLOOR)
        print("scal added / floor added (same callbacks): %.2f (median of per-round ratios %.2f, q1..q3 %.2f..%.2f; goal <= 1.25)" % (rm, rr, q1, q3))
        rows.append(["empty_region", "ratio scal/floor added", "%.3f" % rm, "%.3f" % rr, "%.3f" % q1, "%.3f" % q3, ""])
        if have_sde:
            d = [x - y for x, y in zip(s["scal + papi (1 SDE event)"], s["scal, SDE program, no sensor"])]
            q1, q3 = quartiles(d)
            print("papi sensor, one SDE event: +%.1f ns per region instance (q1..q3 %.1f..%.1f; 2 threads; goal <= 150)" % (statistics.median(d), q1, q3))
            rows.append(["papi_sde", "added per region", "%.1f" % statistics.median(d), "", "%.1f" % q1, "%.1f" % q3, "ns"])
            if a.baseline_tool:
                d = [x - y for x, y in zip(s["baseline + papi (1 SDE event)"], s["baseline, SDE program, no sensor"])]
                q1, q3 = quartiles(d)
                print("baseline: papi sensor, one SDE event: +%.1f ns per region instance (q1..q3 %.1f..%.1f)" % (statistics.median(d), q1, q3))

    if "fib" in only:
        # Task-heavy code: recursive fib with one task per call, against the floor with the same callbacks.
        fib = [os.path.join(a.bin, "fib_tasks"), str(a.fib)]
        fv = [v for v in variants if v[0] in ("no tool", FLOOR, "scal", "scal baseline (--baseline-tool)")]
        s = interleaved(lambda n: fib, fv, a.rounds, "fib")
        report_table("Recursive fib(%d), one task per call, 2 threads, %d interleaved rounds (ns per task)" % (a.fib, a.rounds), s, fv, "ns/task", rows)
        rm, rr, (q1, q3) = ratio(s, "scal", FLOOR)
        print("scal added / floor added per task: %.2f (median of per-round ratios %.2f, q1..q3 %.2f..%.2f; goal <= 1.25)" % (rm, rr, q1, q3))
        rows.append(["fib_tasks", "ratio scal/floor added", "%.3f" % rm, "%.3f" % rr, "%.3f" % q1, "%.3f" % q3, ""])

    if "constructs" in only:
        # Per construct, in the style of the EPCC micro-benchmarks: what each tool adds to each.
        cv = [v for v in variants if v[0] in ("no tool", FLOOR, "scal")]
        prog = os.path.join(a.bin, "constructs")
        print("\nPer construct, 2 threads, %d interleaved rounds (ns per construct; added: paired with the round's no-tool run)" % a.rounds)
        print("%-10s %10s %12s %12s %8s" % ("construct", "no tool", "floor added", "scal added", "ratio"))
        for c in ("parallel", "barrier", "for", "reduction", "critical", "task"):
            cmd = [prog, c] + ([str(a.constructs_count)] if a.constructs_count else [])
            s = interleaved(lambda n: cmd, cv, a.rounds, c)
            fa, sa = paired(s, FLOOR)[0], paired(s, "scal")[0]
            print("%-10s %10.1f %12.1f %12.1f %8.2f" % (c, statistics.median(s["no tool"]), fa, sa, sa / fa if fa > 0 else float("inf")))
            rows.append(["construct " + c, "no tool / floor added / scal added", "%.1f" % statistics.median(s["no tool"]), "%.1f" % fa, "%.1f" % sa, "", "ns"])

    if "listing1" in only:
        # Listing 1 of the PaScal Analyzer paper: overhead on a realistic loop of 10 ms operations.
        l1 = [os.path.join(a.bin, "listing1"), str(a.listing1_iterations)]
        lv = [("no tool", env_for(None)), ("scal", env_for(a.tool, None, tmp))]
        s = interleaved(lambda n: l1, lv, max(3, a.rounds // 2), "listing1")
        l1_none, l1_scal = statistics.median(s["no tool"]), statistics.median(s["scal"])
        d = [(x - y) / y * 100.0 for x, y in zip(s["scal"], s["no tool"])]
        q1, q3 = quartiles(d)
        print("\nListing 1 (%d x 10 ms operations, 2 threads): %.4f s without, %.4f s with scal: overhead %.3f %% (paired per round: median %.3f %%, q1..q3 %.3f..%.3f %%; paper's tool: 0.11-0.14 %%)"
              % (a.listing1_iterations, l1_none, l1_scal, (l1_scal - l1_none) / l1_none * 100.0, statistics.median(d), q1, q3))
        rows.append(["listing1", "overhead", "%.4f" % statistics.median(d), "", "%.4f" % q1, "%.4f" % q3, "%"])

    if "memory" in only:
        # Memory: peak RSS at 10 and at 10 million region instances.
        many = os.path.join(a.bin, "many_regions")
        big = a.memory_instances
        rss = {}
        for count in (10, big):
            rss[count] = peak_rss_kib([many, str(count)], env_for(a.tool, None, tmp))
        print("\nPeak RSS under scal: %d KiB at 10 instances, %d KiB at %d instances" % (rss[10], rss[big], big))
        rows.append(["memory", "10 / %d instances" % big, rss[10], rss[big], "", "", "KiB"])

    if "callgrind" in only and shutil.which("valgrind") and shutil.which("objcopy"):
        # Instructions inside the callbacks: repeatable under any load.
        tools = [("floor (scal's callback set)", floor), ("scal", stripped_copy(a.tool, tmp, "scal"))]
        if a.baseline_tool:
            tools.append(("scal baseline (--baseline-tool)", stripped_copy(a.baseline_tool, tmp, "baseline")))
        e = env_for(None, None, tmp)
        e["SCAL_OUTPUT"] = os.path.join(tmp, "cg.h5")
        er = os.path.join(a.bin, "empty_regions")
        fb = os.path.join(a.bin, "fib_tasks")
        print("\nInstructions executed in the tools' callbacks (callgrind, 2 threads; clock_gettime is a system call under valgrind, so the floor's vDSO clock reads are undercounted)")
        print("%-36s %14s %14s" % ("tool", "per region", "per task"))
        per = {}
        for name, lib in tools:
            r = callgrind_instructions(tmp, lib, er, ["1000"], ["2000"], 1000, e)
            t = callgrind_instructions(tmp, lib, fb, ["14"], ["15"], fib_tasks(15) - fib_tasks(14), e)
            per[name] = (r, t)
            print("%-36s %14.0f %14.0f" % (name, r, t))
            rows.append(["callgrind", name, "%.0f" % r, "%.0f" % t, "", "", "instructions per region / per task"])
        sde = os.path.join(a.bin, "empty_regions_sde")
        if os.path.exists(sde):
            # The papi sensor reading one SDE event at region boundaries: what it adds per region.
            plugins = os.path.join(tmp, "plugins")
            os.makedirs(plugins, exist_ok=True)
            papi = os.path.join(os.path.dirname(a.tool), "scal", "plugins", "libscal_papi.so")
            subprocess.run(["objcopy", "--strip-debug", papi, os.path.join(plugins, "libscal_papi.so")], check=True)
            es = dict(e, SCAL_PLUGIN_PATH=plugins)
            ep = dict(es, SCAL_PLUGINS="papi", SCAL_PAPI_EVENTS="sde:::Bench::regions")
            for name, lib in tools[1:]:
                without = callgrind_instructions(tmp, lib, sde, ["1000"], ["2000"], 1000, es)
                with_papi = callgrind_instructions(tmp, lib, sde, ["1000"], ["2000"], 1000, ep)
                print("%-36s papi sensor, one SDE event: +%.0f instructions per region" % (name, with_papi - without))
                rows.append(["callgrind papi_sde", name, "%.0f" % (with_papi - without), "", "", "", "instructions per region"])

    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["benchmark", "variant", "median", "added", "q1", "q3", "unit"])
            w.writerows(rows)


if __name__ == "__main__":
    main()
