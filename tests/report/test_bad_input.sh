#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Bad input for `scal report`: each case gives a clear message (or a marked gap), never a crash.
scal=$1 gen=$2 work=$3
py=${SCAL_PYTHON:-/usr/bin/python3}
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail=0
# expect NAME EXIT PATTERN -- command...: exit status and a message on stderr or in summary.txt
expect() {
    name=$1 want=$2 pat=$3
    shift 4
    "$@" >out.txt 2>err.txt
    rc=$?
    if [ "$rc" -ne "$want" ]; then
        echo "FAIL $name: exit $rc, wanted $want"; cat err.txt; fail=1; return
    fi
    if ! grep -q -- "$pat" err.txt; then
        echo "FAIL $name: no '$pat' in:"; cat err.txt; fail=1; return
    fi
    echo "ok   $name: $(grep -m1 -- "$pat" err.txt)"
}
echo "not hdf5" >text.h5
expect not-hdf5 1 "not an HDF5 file" -- "$scal" report text.h5 -o o1
expect missing 1 "cannot open" -- "$scal" report nothere.h5 -o o1
"$gen" good.h5 --inputs 4 --threads 4
size=$(wc -c <good.h5)
head -c $((size / 2)) good.h5 >trunc.h5
expect truncated 1 "trunc.h5" -- "$scal" report trunc.h5 -o o1
head -c 100 good.h5 >trunc2.h5
expect truncated-head 1 "trunc2.h5" -- "$scal" report trunc2.h5 -o o1
"$gen" schema.h5 --inputs 2 --threads 2 --schema 99
expect schema 1 "schema version 99" -- "$scal" report schema.h5 -o o1
"$py" -c "import h5py; h5py.File('plain.h5','w').create_dataset('x', data=[1])" &&
    expect not-scal 1 "not a scal file" -- "$scal" report plain.h5 -o o1
"$py" -c "
import h5py
f = h5py.File('other.h5','w'); f.attrs['scal_format'] = 'something'; f.attrs['scal_schema_version'] = 1" &&
    expect not-campaign 1 "not a scal campaign or run file" -- "$scal" report other.h5 -o o1
"$gen" empty.h5 --inputs 2 --threads 2 --empty
expect empty 1 "empty campaign" -- "$scal" report empty.h5 -o o1
"$gen" one.h5 --inputs 3 --threads 1
expect one-thread-count 0 "only one thread count" -- "$scal" report one.h5 -o o2 --no-write
"$gen" bad.h5 --inputs 3 --threads 3 --reps 2 --badtime
expect bad-times 0 "zero, negative or NaN" -- "$scal" report bad.h5 -o o3 --no-write
# every repetition of region 1 / i1 / 1 thread was bad: the cell is empty, never 0
line=$(sed -n 2p o3/csv/r001-theory.c_10-18__kernel_/time.csv)
case "$line" in "i1,,"*) echo "ok   bad-times cell is a gap: $line" ;;
*) echo "FAIL bad-times cell: $line"; fail=1 ;; esac
"$gen" gap.h5 --inputs 4 --threads 4 --gap
expect gap 0 "absent from 1 run" -- "$scal" report gap.h5 -o o4 --no-write
line=$(sed -n 4p o4/csv/r001-theory.c_10-18__kernel_/efficiency.csv)
case "$line" in "i3,"*",,"*) echo "ok   gap cell is empty: $line" ;;
*) echo "FAIL gap cell: $line"; fail=1 ;; esac
"$gen" dup.h5 --inputs 2 --threads 2 --dup
expect duplicate 0 "duplicate configurations" -- "$scal" report dup.h5 -o o5 --no-write
"$gen" noisy.h5 --inputs 2 --threads 3 --reps 3 --noisy
"$scal" report noisy.h5 -o o8 --no-write 2>/dev/null
grep -q "1 noisy cell" o8/summary.txt && echo "ok   noisy cell flagged" ||
    { echo "FAIL noisy cell not flagged"; fail=1; }
mkdir -p badplug && echo "not an ELF file" >badplug/libscal_bogus.so
expect bad-plugin 0 "was not loaded: cannot load '.*libscal_bogus.so'" -- "$scal" report good.h5 -o o9 --no-write --plugin-dir badplug
expect only-unknown 1 "no post-processing plugin named .nosuch." -- "$scal" report good.h5 -o o9 --no-write --only nosuch --plugin-dir badplug
expect bad-mode 2 "discrete, smooth or both" -- "$scal" report good.h5 -o o6 --mode fancy
# two campaigns merged on the fly: repetitions pool, output works
expect merge 0 "ranked" -- "$scal" report good.h5 gap.h5 -o o7 --no-write
grep -q "^i1," o7/csv/r000-whole_program/samples.csv &&
    grep -q "^i1,2,2,2,2" o7/csv/r000-whole_program/samples.csv &&
    echo "ok   merge pools repetitions" || { echo "FAIL merge samples"; fail=1; }
exit $fail
