#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs the build tree into a fresh prefix and checks the layout and both consumer interfaces:
# find_package(scal) from CMake and pkg-config.
set -euo pipefail
build=$1 prefix=$2
rm -rf "$prefix"
cmake --install "$build" --prefix "$prefix" > /dev/null
fail() { echo "FAIL: $*"; exit 1; }
for f in bin/scal lib/libscal_ompt.so lib/libscal_ompt_writer.so lib/scal/scal-run-writer lib/libscal.so include/scal/scal.h include/scal/plugin.h include/scal/status.h \
  include/scal/version.h lib/cmake/scal/scalConfig.cmake lib/cmake/scal/scalTargets.cmake lib/pkgconfig/scal.pc \
  share/scal/schemas share/scal/examples/scal_demo.c share/man/man1/scal.1 share/bash-completion/completions/scal; do
  [ -e "$prefix/$f" ] || fail "$f not installed"
done
"$prefix/bin/scal" --version | grep -q "^scal " || fail "installed scal does not run"
consumer=$(mktemp -d)
trap 'rm -rf "$consumer"' EXIT
# The installed example runs, under the installed tool, and the installed scal checks its run file
# with the installed schemas (no build or source tree involved). The demo waits for its run file's
# writer (the installed scal-run-writer, found beside the installed tool).
out="$consumer/demo.h5"
(cd "$consumer" && env -u SCAL_SCHEMA_DIR OMP_NUM_THREADS=2 OMP_TOOL_LIBRARIES="$prefix/lib/libscal_ompt.so" \
  SCAL_WAIT_WRITER=1 SCAL_OUTPUT="$out" "$prefix/share/scal/examples/bin/scal_demo" 10 > "$consumer/demo.log" 2>&1) ||
  { cat "$consumer/demo.log"; fail "installed scal_demo does not run"; }
[ -f "$out" ] || fail "the installed tool wrote no run file for the installed demo"
(cd / && env -u SCAL_SCHEMA_DIR "$prefix/bin/scal" check "$out" > "$consumer/check.log" 2>&1) ||
  { cat "$consumer/check.log"; fail "installed scal check rejects the installed demo's run file"; }
cat > "$consumer/main.c" <<'C'
#include <scal/scal.h>
int main(void) { return scal_region_begin("x") == 0 && scal_region_end("x") == 0 ? 0 : 1; }
C
cat > "$consumer/CMakeLists.txt" <<'C'
cmake_minimum_required(VERSION 3.18)
project(consumer C)
find_package(scal REQUIRED)
add_executable(consumer main.c)
target_link_libraries(consumer PRIVATE scal::scal)
if(NOT TARGET scal::scal_cli OR NOT TARGET scal::scal_ompt)
  message(FATAL_ERROR "scal::scal_cli and scal::scal_ompt are imported too")
endif()
C
cmake -S "$consumer" -B "$consumer/build" -DCMAKE_PREFIX_PATH="$prefix" > "$consumer/log" 2>&1 || { cat "$consumer/log"; fail "find_package(scal) failed"; }
cmake --build "$consumer/build" >> "$consumer/log" 2>&1 || { cat "$consumer/log"; fail "consumer build failed"; }
"$consumer/build/consumer" || fail "consumer (find_package) did not run"
# the installed example builds on its own (its CMakeLists.txt has project() and links scal::scal)
cmake -S "$prefix/share/scal/examples" -B "$consumer/ex" -DCMAKE_PREFIX_PATH="$prefix" > "$consumer/exlog" 2>&1 &&
  cmake --build "$consumer/ex" >> "$consumer/exlog" 2>&1 || { cat "$consumer/exlog"; fail "the installed example does not build"; }
[ -x "$consumer/ex/scal_demo" ] || fail "the installed example built no scal_demo"
flags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs scal) || fail "pkg-config scal failed"
cc "$consumer/main.c" $flags -Wl,-rpath,"$prefix/lib" -o "$consumer/pc" || fail "consumer (pkg-config) build failed"
"$consumer/pc" || fail "consumer (pkg-config) did not run"
echo "PASS: install tree, find_package(scal) and pkg-config scal"
