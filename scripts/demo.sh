#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The main job on a fresh Debian machine: install dependencies, build scal, run a demo campaign on
# the bundled example program and draw its scalability diagrams.
#
#   bash scripts/demo.sh [OUTPUT_DIR]      (default: demo-out/)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-demo-out}"

bash scripts/install-deps.sh
CC=clang cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo > build.log 2>&1 || { cat build.log; exit 1; }
cmake --build build -j"$(nproc)" >> build.log 2>&1 || { tail -50 build.log; exit 1; }
echo "demo: built scal (log: build.log)"

mkdir -p "$out"
scal=build/bin/scal
demo=build/bin/scal_demo
tool=build/lib/libscal_ompt.so

if "$scal" run --help > /dev/null 2>&1; then
  # A campaign: 1, 2, 4 threads x 3 inputs x 2 repetitions, then the PaScal Viewer diagrams.
  rm -f "$out/campaign.h5"
  "$scal" run -c 1,2,4 -r 2 -i small=40 -i medium=80 -i large=160 -o "$out/campaign.h5" -- "$demo" '{input}'
  if "$scal" report --help > /dev/null 2>&1; then
    "$scal" report "$out/campaign.h5" -o "$out/report"
    echo "demo: diagrams in $out/report/ (summary: $out/report/summary.txt)"
  fi
  "$scal" show "$out/campaign.h5" | head -40
else
  # One measured run of the example program.
  OMP_NUM_THREADS=2 OMP_TOOL_LIBRARIES="$PWD/$tool" SCAL_OUTPUT="$out/run.h5" "$demo" 100
  if "$scal" show --help > /dev/null 2>&1; then "$scal" show "$out/run.h5"; fi
fi
