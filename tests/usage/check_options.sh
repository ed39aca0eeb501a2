#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scal run's options checked by the planner (the same for --dry-run and a run, before anything is
# created), sensors and plugins named never as paths, --inputs-file's bounds, scal import's and
# scal exec's exit statuses.
#   check_options.sh SCAL PROGRAM CC
set -u
scal=$1 prog=$2 cc=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
ok() { echo "ok: $*"; }

# refused with exit 2, the text on stderr, and nothing created (for --dry-run and a run alike)
refused() { # text option...
  local want=$1; shift
  for mode in --dry-run ""; do
    local err rc
    err=$("$scal" run $mode -q "$@" -o out.h5 -- "$prog" 5 2>&1 >/dev/null); rc=$?
    [ "$rc" -eq 2 ] || fail "scal run $mode $* exited $rc, not 2: $err"
    case "$err" in *"$want"*) ;; *) fail "scal run $mode $*: '$err' does not say '$want'" ;; esac
    [ ! -e out.h5 ] && [ ! -e out.h5.runs ] || fail "scal run $mode $* left files: $(ls -a)"
  done
  ok "scal run $* -> $err"
}

refused "bad thread list '1,,2'" -c 1,,2
refused "bad thread list '1,'" -c 1,
refused "bad --ok-exit '0,,1'" --ok-exit 0,,1
refused "bad --size '-5'" -i 5 --size -5
refused "bad --size '0'" -i 5 --size 0
refused "bad --seed '99999999999999999999999'" --order shuffled --seed 99999999999999999999999
refused "bad --seed '-1'" --seed -1
refused "bad --cores '-3'" --cores -3
refused "bad frequency list '1GHz,,2GHz'" -f 1GHz,,2GHz
refused "no plugin 'bogus'" -s bogus
refused "--plugin-opt 'nope.x=1': no plugin 'nope'" --plugin-opt nope.x=1
refused "plugin 'rusage' has no option 'nope'" -s rusage --plugin-opt rusage.nope=1

# a sensor given as a path never loads (its constructor would run inside scal and the program)
cat > ctor.c <<'EOF'
#include <stdio.h>
__attribute__((constructor)) static void planted(void) { fclose(fopen("RAN", "w")); }
EOF
"$cc" -shared -fPIC -o libscal_x.so ctor.c || fail "cannot build the planted library"
mkdir -p sub/dir
for s in ./libscal_x.so "$work/libscal_x.so" ../../libscal_x.so; do
  (cd sub/dir && err=$("$scal" run --dry-run -q -s "$s" -o out.h5 -- "$prog" 5 2>&1 >/dev/null); rc=$?
   [ "$rc" -eq 2 ] && case "$err" in *"never paths"*) ;; *) exit 1 ;; esac) ||
    fail "-s $s was not refused as a path"
done
[ ! -e RAN ] && [ ! -e sub/dir/RAN ] || fail "a library named by path ran its constructor"
ok "-s PATH is refused, the library never loaded"
# SCAL_PLUGIN_PATH: relative entries are not searched; a directory others can write is left out
cp libscal_x.so libscal_cwd.so
err=$(SCAL_PLUGIN_PATH=. "$scal" run --dry-run -q -s cwd -- "$prog" 5 2>&1 >/dev/null); rc=$?
[ "$rc" -eq 2 ] && [ ! -e RAN ] || fail "SCAL_PLUGIN_PATH=. was searched: $rc $err"
case "$err" in *"no plugin 'cwd'"*) ;; *) fail "SCAL_PLUGIN_PATH=.: $err" ;; esac
ok "SCAL_PLUGIN_PATH=. is not searched"
mkdir -m 0777 shared && chmod 0777 shared && cp libscal_x.so shared/libscal_loose.so
chmod 0644 shared/libscal_loose.so
err=$(SCAL_PLUGIN_PATH="$work/shared" "$scal" run --dry-run -q -s loose -- "$prog" 5 2>&1 >/dev/null); rc=$?
[ "$rc" -eq 2 ] && [ ! -e RAN ] || fail "a plugin in a world-writable directory was loaded: $rc $err"
ok "a plugin in a world-writable directory is not loaded"

# --inputs-file: NUL bytes and long lines refused with their line number; 10^6 lines planned
printf 'a\nb\n\0c\n' > nul.txt
refused "inputs file 'nul.txt', line 3: a NUL byte" --inputs-file nul.txt
{ echo a; head -c 9001 /dev/zero | tr '\0' x; echo; } > long.txt
refused "inputs file 'long.txt', line 2: 9001 characters" --inputs-file long.txt
seq 1 1000000 > many.txt
n=$("$scal" run --dry-run -q -c 1 --inputs-file many.txt -- "$prog" {input} 2>/dev/null | grep -c "cmd: ")
[ "$n" -eq 1000000 ] || fail "10^6 inputs planned as $n runs"
ok "--inputs-file with 10^6 lines: 10^6 runs planned"

# an existing campaign file names --resume, never an option scal run does not have
"$scal" run -q -c 1 -o done.h5 -- "$prog" 5 2>/dev/null || fail "a campaign"
err=$("$scal" run -q -c 1 -o done.h5 -- "$prog" 5 2>&1 >/dev/null); rc=$?
[ "$rc" -eq 2 ] && case "$err" in *"--resume"*) ! grep -q -- --force <<<"$err" ;; *) false ;; esac ||
  fail "an existing output: $rc $err"
ok "an existing output names --resume"

# scal import: a bad JSON file is a usage error (2)
echo '[{' > bad.json
"$scal" import bad.json -o imp.h5 2>/dev/null; rc=$?
[ "$rc" -eq 2 ] && [ ! -e imp.h5 ] || fail "scal import of bad JSON exited $rc"
ok "scal import: bad JSON exits 2"

# scal exec: the program's status, also without a run file
"$scal" exec -q /bin/true 2>err.txt; rc=$?
[ "$rc" -eq 0 ] || fail "scal exec /bin/true exited $rc: $(cat err.txt)"
grep -q "no run file" err.txt || fail "scal exec /bin/true does not say there is no run file: $(cat err.txt)"
"$scal" exec -q sh -c 'exit 7' 2>/dev/null; rc=$?
[ "$rc" -eq 7 ] || fail "scal exec sh -c 'exit 7' exited $rc"
ok "scal exec keeps the program's status"
echo "PASS: options"
