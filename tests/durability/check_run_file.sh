#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The tool's own run file is created like every file scal creates: an output that exists and is
# not a regular file (a fifo here; /dev/null as root was replaced before) is refused with a message
# and the data kept in the current directory; a link planted at the output's name is not followed.
set -u
tool=$1 prog=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
run() { OMP_NUM_THREADS=2 OMP_TOOL_LIBRARIES="$tool" SCAL_OUTPUT="$1" "$prog" 5 2>&1 > /dev/null; }

mkfifo out.fifo
err=$(run out.fifo)
[ -p out.fifo ] || fail "the fifo at SCAL_OUTPUT was replaced"
case "$err" in *"not a regular file (a fifo)"*"writing scal-"*) ;; *) fail "no clear refusal: $err" ;; esac
ls scal-*.h5 > /dev/null 2>&1 || fail "the measurements were not kept in the current directory"
echo "ok: a fifo at SCAL_OUTPUT is refused, the data kept: $err"
rm -f scal-*.h5

echo keep > victim
ln -s "$work/victim" link.h5
err=$(run link.h5)
[ "$(cat victim)" = keep ] || fail "the link's target was overwritten"
[ -L link.h5 ] || fail "the planted link was replaced: $err"
echo "ok: a link planted at SCAL_OUTPUT is never followed"
[ -z "$(ls | grep -v -e '^out.fifo$' -e '^victim$' -e '^link.h5$' -e '^scal-.*\.h5$')" ] ||
  fail "temporary files left behind: $(ls)"
echo "PASS: the tool creates its run file safely"
