#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scal run's progress: each run's line says how long is left; thread counts above the CPUs the
# runner may use are warned about once.
set -u
scal=$1 prog=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
cpus=$(nproc)
over=$((cpus * 2))
err=$("$scal" run -c "1,$over" -r 1 -o p.h5 -- "$prog" 2 2>&1 > /dev/null) || fail "scal run failed: $err"
[ "$(printf '%s\n' "$err" | grep -c "left)$")" -eq 2 ] || fail "not every run line says how long is left: $err"
[ "$(printf '%s\n' "$err" | grep -c "warning: up to $over threads on the $cpus CPUs")" -eq 1 ] ||
  fail "no single oversubscription warning: $err"
echo "ok: time left on every run line, one oversubscription warning"
err=$("$scal" run -c 1 -r 1 -o q.h5 -- "$prog" 2 2>&1 > /dev/null) || fail "scal run failed: $err"
case "$err" in *"warning: up to"*) fail "warned without oversubscription: $err" ;; esac
echo "PASS: progress"
