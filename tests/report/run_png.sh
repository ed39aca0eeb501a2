#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Draws the diagrams of a small theoretical campaign (with a gap) and checks the PNGs with cairo.
set -e
work=$1 scal=$2 gen=$3 check=$4
rm -rf "$work" && mkdir -p "$work"
"$gen" "$work/c.h5" --inputs 5 --threads 6 --gap
"$scal" report "$work/c.h5" -o "$work/out" --mode both --no-write
d=$work/out/diagrams
"$check" "$d/r000-whole_program.png" "$d/r000-whole_program.geom" \
         "$d/r001-theory.c_10-18__kernel_.png" "$d/r001-theory.c_10-18__kernel_.geom"
