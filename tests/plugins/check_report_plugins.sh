#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# scal report loads its plugins through the one loader: broken report plugins (operation table of
# size 0 or too small) are noted by file and reason and the report goes on; sensors and actuators
# in the same directory are skipped; a report plugin's option comes from its default,
# SCAL_<PLUGIN>_<OPTION> and --plugin-opt (which wins), and unknown ones are refused.
scal=$1 gen=$2 fixtures=$3 work=$4
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail=0
# expect NAME EXIT PATTERN -- command...: exit status and a line of stderr matching PATTERN
expect() {
    name=$1 want=$2 pat=$3
    shift 4
    "$@" >out.txt 2>err.txt
    rc=$?
    if [ "$rc" -ne "$want" ]; then
        echo "FAIL $name: exit $rc, wanted $want"; cat err.txt; fail=1; return
    fi
    if ! grep -q -- "$pat" err.txt out.txt; then
        echo "FAIL $name: no '$pat' in:"; cat err.txt out.txt; fail=1; return
    fi
    echo "ok   $name: $(grep -h -m1 -- "$pat" err.txt out.txt | head -1)"
}
"$gen" c.h5 --inputs 2 --threads 2 || exit 1
run="$scal report c.h5 -o out --no-write --plugin-dir $fixtures --only pp_opt"
expect zero-table 0 "was not loaded: '.*libscal_pp_zeroops.so': scal_plugin_entry()->postproc operation table of plugin 'pp_zeroops' is 0 bytes" -- $run
expect small-table 0 "was not loaded: '.*libscal_pp_small.so': .*too small to hold run" -- $run
expect default 0 "note: pp_opt greeting=hello sysfs_root=/$" -- $run
if grep -q "libscal_counting.so\|libscal_minact.so\|libscal_smalldesc.so" err.txt; then
    echo "FAIL other kinds of plugin are not report plugins and are skipped silently"; fail=1
fi
SCAL_PP_OPT_GREETING=env expect env 0 "note: pp_opt greeting=env " -- $run
SCAL_PP_OPT_GREETING=env expect cli 0 "note: pp_opt greeting=cli " -- $run --plugin-opt pp_opt.greeting=cli
SCAL_SYSFS_ROOT=/x expect sysfs-root 0 "note: pp_opt greeting=hello sysfs_root=/x$" -- $run
expect unknown-option 1 "plugin 'pp_opt' has no option 'nosuch'" -- $run --plugin-opt pp_opt.nosuch=1
expect unknown-plugin 1 "'nosuch.x=1': no post-processing plugin of that name" -- $run --plugin-opt nosuch.x=1
expect bad-syntax 2 "use PLUGIN.OPTION=VALUE" -- $run --plugin-opt greeting
expect list 0 "option greeting (default hello)" -- "$scal" report --list --plugin-dir "$fixtures"
exit $fail
