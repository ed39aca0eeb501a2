#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scal exec: one measured run with the tool by its absolute path, libomp for gcc-built programs,
# the run file's path said, the program's exit status passed on, bad input refused clearly.
set -u
scal=$1 demo=$2 prog=$3 source=$4 gcc=${5:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
ok() { echo "ok: $*"; }

help=$("$scal" --help)
tool=$(printf '%s\n' "$help" | sed -n 's/^ *OMP_TOOL_LIBRARIES=\([^ ]*\) .*/\1/p')
case "$tool" in /*) [ -f "$tool" ] || fail "scal --help names '$tool', which does not exist" ;;
  *) fail "scal --help does not give the tool's absolute path: $help" ;; esac
ok "scal --help gives the tool's absolute path ($tool)"

err=$(OMP_NUM_THREADS=2 "$scal" exec "$demo" 10 2>&1 >/dev/null); rc=$?
[ "$rc" -eq 0 ] || fail "scal exec demo exited $rc: $err"
file=$(printf '%s\n' "$err" | sed -n 's/^scal exec: run file: //p')
case "$file" in "$work"/scal-scal_demo-*.h5) ;; *) fail "run file path not said or not absolute: $err" ;; esac
[ -f "$file" ] || fail "the run file it names does not exist: $file"
"$scal" check "$file" > /dev/null || fail "scal check rejects $file"
ok "demo measured into $file"

mkdir out
err=$("$scal" exec -o out/ "$prog" fail 2>&1 >/dev/null); rc=$?
[ "$rc" -eq 3 ] || fail "the program's exit status 3 is not passed on: $rc"
ls out/scal-runner_campaign_prog-*.h5 > /dev/null 2>&1 || fail "no run file in out/ for a program exiting 3: $err"
ok "exit status 3 passed on, run file kept in out/"

before=$(ls -R)
err=$("$scal" exec -o missing/ "$prog" 10 2>&1 >/dev/null); rc=$?
[ "$rc" -eq 2 ] || fail "a missing output directory gives $rc, not 2"
case "$err" in *"'missing' does not exist"*) ;; *) fail "missing directory not named: $err" ;; esac
[ "$(ls -R)" = "$before" ] || fail "the refused run left files behind: $(ls -R)"
ok "missing output directory refused before running"

err=$("$scal" exec -q -o out "$prog" 10 2>&1 >/dev/null); rc=$?
[ "$rc" -eq 0 ] && [ "$(ls out | wc -l)" -eq 2 ] || fail "-o DIR (an existing directory, no slash): $rc, $(ls out)"
ok "-o DIR without its slash writes into DIR"

"$scal" exec -q -o stale.h5 "$prog" 10 > /dev/null 2>&1 || fail "first run into stale.h5"
err=$("$scal" exec -o stale.h5 sh -c 'kill -KILL $$' 2>&1 >/dev/null); rc=$?
[ "$rc" -eq 137 ] || fail "a killed run gives $rc, not 137"
case "$err" in *"wrote no run file"*"earlier run"*) ;; *) fail "an earlier run's file taken for this run's: $err" ;; esac
ok "an earlier run's file is never reported as this run's"

mkdir -p "co:lon"
cp "$tool" "co:lon/"
err=$("$scal" exec --tool "co:lon/libscal_ompt.so" "$prog" 10 2>&1 >/dev/null); rc=$?
[ "$rc" -ne 0 ] || fail "a tool path with ':' was accepted (OMP_TOOL_LIBRARIES would split it)"
case "$err" in *"holds a ':'"*) ;; *) fail "the ':' in the tool path is not named: $err" ;; esac
ok "a tool path with ':' is refused with the reason"

err=$("$scal" exec ./no-such-program 2>&1 >/dev/null); rc=$?
[ "$rc" -eq 127 ] || fail "a missing program gives $rc, not 127"
case "$err" in *no-such-program*"does not exist"*) ;; *) fail "missing program not named: $err" ;; esac
ok "missing program: 127 and its name"

"$scal" exec sh -c 'kill -TERM $$' > /dev/null 2>&1; rc=$?
[ "$rc" -eq 143 ] || fail "a program killed by SIGTERM gives $rc, not 143"
ok "killed by a signal: 128+N"

if [ -n "$gcc" ]; then
  "$gcc" -fopenmp -g -O2 "$source" -o gccprog || fail "gcc build of $source"
  err=$(OMP_NUM_THREADS=2 "$scal" exec -o gcc.h5 ./gccprog 2>&1 >/dev/null); rc=$?
  [ "$rc" -eq 0 ] || fail "gcc-built program exited $rc: $err"
  case "$err" in *"uses GCC's libgomp"*"libomp"*) ;; *) fail "libgomp not said: $err" ;; esac
  "$scal" show gcc.h5 --csv | grep -q ",parallel," || fail "no parallel region measured in the gcc build"
  ok "gcc-built program measured through libomp"
fi
echo "PASS: scal exec"
