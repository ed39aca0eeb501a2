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

# A campaign: 1, 2, 4 threads x 3 inputs x 2 repetitions of the bundled example, with the
# resource-usage and sampling sensors, then the PaScal Viewer diagrams and the region table.
rm -rf "$out/campaign.h5" "$out/campaign.h5.runs" "$out/report"
"$scal" run -c 1,2,4 -r 2 -i 40 --label small -i 80 --label medium -i 160 --label large \
  -s rusage,proc -o "$out/campaign.h5" -- "$demo" '{input}'
"$scal" report "$out/campaign.h5" -o "$out/report"
# The page as a browser draws it: the README's docs/report-page.png is this screenshot.
if command -v chromium > /dev/null; then
  chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$out/.chromium" \
    --window-size=1600,1000 --screenshot="$out/report-page.png" \
    "file://$(cd "$out/report" && pwd)/index.html" > /dev/null 2>&1 &&
    echo "demo: screenshot of the report page: $out/report-page.png (docs/report-page.png)"
fi
# The whole table goes to a file (a pipe into head would end scal with SIGPIPE); its start is shown.
"$scal" show "$out/campaign.h5" > "$out/campaign-table.txt"
head -n 24 "$out/campaign-table.txt"
echo "..."
echo
echo "demo: campaign file $out/campaign.h5; summary in $out/report/summary.txt, the whole table" \
  "in $out/campaign-table.txt, diagrams in $out/report/diagrams/*.png"
echo "demo: the report page (open it in a browser): $(cd "$out/report" && pwd)/index.html"
