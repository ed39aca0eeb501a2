#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Times `scal report` on synthetic campaigns (wall, user CPU, peak RSS from /usr/bin/time), with the
# default options (diagram and chart PNGs for the whole program and the 10 first regions by rank,
# index.html with every region), and once with --all (every region's PNGs).
scal=$1 gen=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
measure() { # runs regions [extra option]
    runs=$1 regions=$2 extra=${3:-}
    reps=$((runs / 100))
    f="$work/c-$runs-$regions.h5"
    "$gen" "$f" --inputs 10 --threads 10 --reps "$reps" --regions "$regions" --energy || exit 1
    /usr/bin/time -f "%e %U %M" -o "$work/time.txt" "$scal" report "$f" -o "$work/out-$runs-$regions" $extra \
        2>"$work/err.txt" || { cat "$work/err.txt"; exit 1; }
    read wall user rss <"$work/time.txt"
    printf 'runs=%5d regions=%4d %-6s wall=%6.2f s  user=%6.2f s  peak_rss=%6.1f MB\n' "$runs" \
        "$regions" "$extra" "$wall" "$user" "$(awk "BEGIN { print $rss / 1024 }")"
}
echo "scal report benchmark (10 inputs x 10 thread counts, all plugins, discrete mode)"
for runs in 500 1000 2000; do measure $runs 300; done
for regions in 75 150; do measure 2000 $regions; done
measure 2000 300 --all
