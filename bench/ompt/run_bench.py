# SPDX-License-Identifier: BSD-3-Clause
# Runs scal's overhead benchmarks with interleaved rounds (A B C A B C ...) and prints medians.
#
#   run_bench.py --bin DIR --tool LIBSCAL_OMPT [--baseline-tool OLD_LIBSCAL_OMPT] [--rounds 7]
#                [--regions 200000] [--csv out.csv]
# --baseline-tool adds another build of the tool (e.g. from an earlier commit) as a variant.
# DIR holds empty_regions, listing1, fib_tasks, libscal_floor_tool.so and many_regions (from the build).
import argparse
import csv
import os
import statistics
import subprocess
import sys
import tempfile


def run(cmd, env):
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--tool", required=True)
    ap.add_argument("--baseline-tool", help="another build of libscal_ompt.so to compare with")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--regions", type=int, default=200000)
    ap.add_argument("--listing1-iterations", type=int, default=400)
    ap.add_argument("--fib", type=int, default=22, help="fib_tasks argument (28 655 tasks at 22)")
    ap.add_argument("--csv")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="scal-bench-")
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
    empty_sde = [os.path.join(a.bin, "empty_regions_sde"), str(a.regions)]
    have_sde = os.path.exists(empty_sde[0])
    if have_sde:  # the same program with an SDE counter registered: without and with the papi sensor
        variants += [("scal, SDE program, no sensor", env_for(a.tool, None, tmp)),
                     ("scal + papi (1 SDE event)", env_for(a.tool, {"SCAL_PLUGINS": "papi", "SCAL_PAPI_EVENTS": "sde:::Bench::regions"}, tmp))]
    samples = {name: [] for name, _ in variants}
    for r in range(a.rounds):
        for name, env in variants:
            samples[name].append(run(empty_sde if "SDE" in name else empty, env))
        print("round %d/%d: %s" % (r + 1, a.rounds, ", ".join("%s %.0f" % (n, samples[n][-1]) for n, _ in variants)), file=sys.stderr)
    med = {n: statistics.median(v) for n, v in samples.items()}
    base = med["no tool"]
    print("\nEmpty parallel region, 2 threads, %d regions x %d interleaved rounds (ns per region, median)" % (a.regions, a.rounds))
    print("%-36s %10s %12s" % ("variant", "ns/region", "added ns"))
    for n, _ in variants:
        print("%-36s %10.1f %12.1f" % (n, med[n], med[n] - base))
    floor_added = med["floor (scal's callback set)"] - base
    scal_added = med["scal"] - base
    ratio = scal_added / floor_added if floor_added > 0 else float("inf")
    print("scal added / floor added (same callbacks): %.2f   (goal <= 1.25)" % ratio)
    if have_sde:
        print("papi sensor, one SDE event: +%.1f ns per region instance (2 threads)"
              % (med["scal + papi (1 SDE event)"] - med["scal, SDE program, no sensor"]))
    minimal_added = med["floor (parallel + implicit task)"] - base
    if minimal_added > 0:
        print("scal added / minimal floor added:          %.2f" % (scal_added / minimal_added))

    # Task-heavy code: recursive fib with one task per call, against the floor with the same callbacks.
    fib = [os.path.join(a.bin, "fib_tasks"), str(a.fib)]
    fib_variants = [v for v in variants if v[0] in ("no tool", "floor (scal's callback set)", "scal")]
    fib_samples = {n: [] for n, _ in fib_variants}
    for r in range(a.rounds):
        for name, env in fib_variants:
            fib_samples[name].append(run(fib, env))
    fmed = {n: statistics.median(v) for n, v in fib_samples.items()}
    print("\nRecursive fib(%d), one task per call, 2 threads, %d interleaved rounds (ns per task, median)"
          % (a.fib, a.rounds))
    for n, _ in fib_variants:
        print("%-36s %10.1f %12.1f" % (n, fmed[n], fmed[n] - fmed["no tool"]))
    f_floor, f_scal = fmed["floor (scal's callback set)"] - fmed["no tool"], fmed["scal"] - fmed["no tool"]
    print("scal added / floor added per task: %.2f" % (f_scal / f_floor if f_floor > 0 else float("inf")))

    # Listing 1 of the PaScal Analyzer paper: overhead on a realistic loop of 10 ms operations.
    l1 = [os.path.join(a.bin, "listing1"), str(a.listing1_iterations)]
    l1_samples = {"no tool": [], "scal": []}
    for r in range(max(3, a.rounds // 2)):
        l1_samples["no tool"].append(run(l1, env_for(None)))
        l1_samples["scal"].append(run(l1, env_for(a.tool, None, tmp)))
    l1_none, l1_scal = statistics.median(l1_samples["no tool"]), statistics.median(l1_samples["scal"])
    overhead = (l1_scal - l1_none) / l1_none * 100.0
    print("\nListing 1 (%d x 10 ms operations, 2 threads): %.4f s without, %.4f s with scal: overhead %.3f %% (paper's tool: 0.11-0.14 %%)"
          % (a.listing1_iterations, l1_none, l1_scal, overhead))

    # Memory: peak RSS at 10 and at 10 million region instances.
    many = os.path.join(a.bin, "many_regions")
    rss = {}
    for count in (10, 10_000_000):
        rss[count] = peak_rss_kib([many, str(count)], env_for(a.tool, None, tmp))
    print("\nPeak RSS under scal: %d KiB at 10 instances, %d KiB at 10,000,000 instances" % (rss[10], rss[10_000_000]))

    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["benchmark", "variant", "median", "unit"])
            for n, _ in variants:
                w.writerow(["empty_region", n, "%.1f" % med[n], "ns"])
            w.writerow(["empty_region", "ratio scal/floor added", "%.3f" % ratio, ""])
            for n, _ in fib_variants:
                w.writerow(["fib_tasks", n, "%.1f" % fmed[n], "ns/task"])
            w.writerow(["listing1", "no tool", "%.6f" % l1_none, "s"])
            w.writerow(["listing1", "scal", "%.6f" % l1_scal, "s"])
            w.writerow(["listing1", "overhead", "%.4f" % overhead, "%"])
            w.writerow(["memory", "10 instances", rss[10], "KiB"])
            w.writerow(["memory", "10000000 instances", rss[10_000_000], "KiB"])


if __name__ == "__main__":
    main()
