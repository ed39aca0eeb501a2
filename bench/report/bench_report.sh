#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Times `scal report` on synthetic campaigns; peak RSS from getrusage of the child (python).
scal=$1 gen=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
measure() { # runs regions label
    runs=$1 regions=$2
    reps=$((runs / 100))
    f="$work/c-$runs-$regions.h5"
    "$gen" "$f" --inputs 10 --threads 10 --reps "$reps" --regions "$regions" --energy || exit 1
    /usr/bin/python3 - "$scal" "$f" "$work/out-$runs-$regions" "$runs" "$regions" <<'PY'
import resource, subprocess, sys, time
scal, f, out, runs, regions = sys.argv[1:]
t = time.monotonic()
r = subprocess.run([scal, "report", f, "-o", out], capture_output=True, text=True)
dt = time.monotonic() - t
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(f"runs={runs:>5} regions={regions:>4}  time={dt:6.2f} s  peak_rss={rss:6.1f} MB  exit={r.returncode}")
if r.returncode: print(r.stderr)
PY
}
echo "scal report benchmark (10 inputs x 10 thread counts, all plugins, discrete mode)"
for runs in 500 1000 2000; do measure $runs 300; done
for regions in 75 150; do measure 2000 $regions; done
