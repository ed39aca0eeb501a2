#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The whole test suite on a fresh Debian machine: installs dependencies, builds, runs ctest, then
# an ASan/UBSan build and its ctest run, a gcc build with the unit tests, the clang-format check,
# and the aarch64 stage (cross build, identity tests under qemu-user).
#
#   bash scripts/test.sh           everything (what CI runs)
#   bash scripts/test.sh --quick   the plain build and ctest only
#   bash scripts/test.sh --tsan    adds a ThreadSanitizer pass
#   bash scripts/test.sh --loaded  the plain build, then its ctest three times in a row with two
#                                  CPU-burning processes beside it (timing-dependent tests fail here)
#   bash scripts/test.sh --aarch64 only the aarch64 stage (also part of everything): scal and the tool's test programs
#                                  cross-built against a Debian arm64 sysroot, the identity tests
#                                  run under qemu-aarch64-static with one OpenMP thread
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0 tsan=0 loaded=0 aarch64=0
for a in "$@"; do
  case "$a" in
  --quick) quick=1 ;;
  --tsan) tsan=1 ;;
  --loaded) loaded=1 quick=1 ;;
  --aarch64) aarch64=1 ;;
  *) echo "test.sh: unknown option '$a' (use --quick, --tsan, --loaded or --aarch64)" >&2; exit 2 ;;
  esac
done
jobs=$(nproc)
results=()

stage() { # name build-dir cmake-args... -- ctest-args...
  local name=$1 dir=$2; shift 2
  local cargs=() targs=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do cargs+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  targs=("$@")
  echo "=== $name: configure and build in $dir"
  CC=${STAGE_CC:-clang} cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${cargs[@]}" > "$dir.log" 2>&1 || { cat "$dir.log"; return 1; }
  cmake --build "$dir" -j"$jobs" >> "$dir.log" 2>&1 || { tail -60 "$dir.log"; return 1; }
  echo "=== $name: ctest"
  (cd "$dir" && ctest --output-on-failure -j"$jobs" "${targs[@]}")
}

# The aarch64 stage: the tool tests that check identity (pragma lines, functions, tail calls, gcc,
# g++ and clang bodies), with their expectations on identity only (tests/tool/check_tool.py
# --emulator; %scal-exec becomes the preloading scal exec does). Left out: the tests of scal exec
# itself and those whose driver runs scal (qemu-user cannot exec a foreign program: label runs_host),
# those without REGION lines (nothing of identity to check), those that need several threads or
# signals (the 2-thread task-accounting runs, a constructor's team of 2, the idle threads parked at
# the end and the program's threads beside them), and the writer's and plugins' own tests.
aarch64_stage() {
  local start
  start=$(date +%s)
  bash scripts/install-deps.sh --aarch64 "$PWD/build-aarch64-sysroot" || return 1
  if stage "aarch64 (qemu-user)" build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake \
    -DSCAL_AARCH64_SYSROOT="$PWD/build-aarch64-sysroot" -DSCAL_ENABLE_PAPI=OFF -DSCAL_ENABLE_CAIRO=OFF \
    -DSCAL_ENABLE_BENCH=OFF -DSCAL_ENABLE_PYTHON=OFF -- -L '^tool$' -LE runs_host \
    -E 'untied_tasks(_cxx_clang|_cxx_gcc)?$|ctor_taskloop|idle_threads|blocked_beside_flush|scal_exec|wrapped|disabled|bad_environment|without_tool|process_facts|driver|sigterm|signal|exit_in|memory_bounded|region_overflow|^writer|^build|^plugins'; then
    echo "=== aarch64: passed in $(($(date +%s) - start)) s"
    return 0
  fi
  echo "=== aarch64: FAILED after $(($(date +%s) - start)) s"
  return 1
}
if [ "$aarch64" -eq 1 ]; then
  aarch64_stage
  exit $?
fi

burners=()
stop_load() {
  for p in "${burners[@]}"; do kill "$p" 2> /dev/null || true; done
  burners=()
}
trap stop_load EXIT

bash scripts/install-deps.sh
if [ "$loaded" -eq 1 ]; then
  for i in 1 2; do
    (while :; do :; done) &
    burners+=($!)
  done
  echo "=== loaded: two CPU-burning processes (${burners[*]}) run beside every ctest round"
fi
if stage "tests" build; then results+=("tests: passed"); else results+=("tests: FAILED"); fi
if [ "$loaded" -eq 1 ]; then
  for round in 2 3; do
    echo "=== loaded: ctest round $round of 3"
    if (cd build && ctest --output-on-failure -j"$jobs"); then
      results+=("tests under load, round $round: passed")
    else
      results+=("tests under load, round $round: FAILED")
      break
    fi
  done
  stop_load
fi
if [ "$quick" -eq 0 ]; then
  # Sanitized tool libraries cannot load into programs without the sanitizer runtime (label no_asan);
  # the slow memory test is timing-insensitive but 10x slower under ASan.
  # fontconfig's process-wide cache (scal report draws with cairo) looks leaked to LeakSanitizer:
  # one suppression for every test of this stage (run by hand: export the same LSAN_OPTIONS).
  if LSAN_OPTIONS=suppressions=$PWD/tests/report/lsan.supp:print_suppressions=0 stage "asan+ubsan" build-asan -DSCAL_SANITIZE=address -DSCAL_ENABLE_BENCH=OFF -- -LE "no_asan|slow"; then
    results+=("asan+ubsan: passed"); else results+=("asan+ubsan: FAILED"); fi
  # The project builds with gcc too (Spack %gcc); the OpenMP test programs need clang's OMPT runtime,
  # so only the compiler-independent unit tests run here.
  if STAGE_CC=gcc stage "gcc" build-gcc -DSCAL_ENABLE_BENCH=OFF -- -L unit; then
    results+=("gcc: passed"); else results+=("gcc: FAILED"); fi
  if bash scripts/check-format.sh; then results+=("format: passed"); else results+=("format: FAILED"); fi
  if aarch64_stage; then results+=("aarch64: passed"); else results+=("aarch64: FAILED"); fi
fi
if [ "$tsan" -eq 1 ]; then
  if TSAN_OPTIONS=ignore_noninstrumented_modules=1 stage "tsan" build-tsan -DSCAL_SANITIZE=thread -DSCAL_ENABLE_BENCH=OFF -- -LE "no_tsan|slow"; then
    results+=("tsan: passed"); else results+=("tsan: FAILED"); fi
fi
printf '%s\n' "${results[@]}"
for r in "${results[@]}"; do case "$r" in *FAILED) exit 1 ;; esac; done
