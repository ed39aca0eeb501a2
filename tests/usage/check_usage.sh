#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Usage errors: exit status 2, the problem named in one line on stderr, "did you mean" for a
# mistyped command.
set -u
scal=$1
fail() { echo "FAIL: $*"; exit 1; }
expect_usage_error() { # expected-text command...
  local want=$1; shift
  local err rc
  err=$("$scal" "$@" 2>&1 >/dev/null); rc=$?
  [ "$rc" -eq 2 ] || fail "scal $* exited $rc, not 2"
  [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "scal $*: not one line: $err"
  case "$err" in *"$want"*) ;; *) fail "scal $*: '$err' does not say '$want'" ;; esac
  echo "ok: scal $* -> $err"
}
expect_usage_error "did you mean 'scal report'?" reprot
expect_usage_error "did you mean 'scal show'?" shwo
expect_usage_error "did you mean 'scal run'?" rn
expect_usage_error "'frobnicate' is not a scal command; see 'scal --help'" frobnicate
# every command: an unknown option and a missing argument are one line and exit 2
for c in run merge report model import show plugins check exec export; do
  expect_usage_error "unknown" "$c" --bogus
done
for c in run merge report model import show check exec export; do
  expect_usage_error "scal $c:" "$c"
done
expect_usage_error "did you mean '--threads'?" run --thread 2 -- true
expect_usage_error "did you mean '--diff-scale'?" report --diff-scael own x.h5
expect_usage_error "did you mean '--output'?" import --outptu x.h5 in.json
expect_usage_error "needs a value" report x.h5 -o
expect_usage_error "did you mean '--predict'?" model --predcit threads=4 x.h5
expect_usage_error "did you mean 'chrome'?" export x.h5 --format chrom
echo "PASS: usage errors"
