#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Times `scal model` (load, matrices, every region's model) on a synthetic campaign of 2,000 runs x
# 300 regions, 10 inputs x 10 thread counts (wall, user CPU, peak RSS from /usr/bin/time); its input
# labels are no numbers, so every region has one model per input: 3,000 model searches.
scal=$1 gen=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
f="$work/c.h5"
"$gen" "$f" --inputs 10 --threads 10 --reps 20 --regions 300 || exit 1
for args in "" "--predict threads=64,128"; do
    /usr/bin/time -f "%e %U %M" -o "$work/time.txt" "$scal" model "$f" $args >"$work/out.txt" \
        2>"$work/err.txt" || { cat "$work/err.txt"; exit 1; }
    read wall user rss <"$work/time.txt"
    printf 'scal model %-26s 2000 runs x 300 regions: wall=%6.2f s  user=%6.2f s  peak_rss=%6.1f MB\n' \
        "$args" "$wall" "$user" "$(awk "BEGIN { print $rss / 1024 }")"
done
