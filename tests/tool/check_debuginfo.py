# SPDX-License-Identifier: BSD-3-Clause
# Where region identities come from when a program's DWARF is not in its own file
# (ompt_tool/identify/debuginfo.c): a separate debug file named by .gnu_debuglink, beside the program
# or in its .debug/ directory, with or without a build ID, gives the same identities as DWARF in the
# program itself; a debug file of another build at the link's place is refused (no lines rather than
# another build's); and a program without any DWARF never loads libdebuginfod (which libdw's own
# search falls back on: libcurl and ~28 more libraries at the program's end, and a download while it
# ends when DEBUGINFOD_URLS is set).
#
#   check_debuginfo.py --scal SCAL --tool LIB --cc CC --objcopy OBJCOPY --src SOURCE.c --work DIR
import argparse
import json
import os
import shutil
import subprocess
import sys

import h5py

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from scal_check import check, finish, reap_orphans  # noqa: E402

ap = argparse.ArgumentParser()
for a in ("--scal", "--tool", "--cc", "--objcopy", "--src", "--work"):
    ap.add_argument(a, required=True)
args = ap.parse_args()
SCHEMA = os.path.join(HERE, "..", "..", "schemas", "scal-run-1.json")
KINDS = [m for t in json.load(open(SCHEMA))["tables"] if t["path"] == "regions" for m in t["members"]
         if m["name"] == "kind"][0]["enum"]
shutil.rmtree(args.work, ignore_errors=True)
os.makedirs(args.work)


def build(name, *flags, source=None):
    exe = os.path.join(args.work, name)
    subprocess.run([args.cc, "-O2", "-fopenmp", *flags, source or args.src, "-o", exe], check=True)
    return exe


def split(exe, debug_dir=None):
    """The program's DWARF moved to <exe>.debug (in debug_dir: beside it, or its .debug/), linked by
    .gnu_debuglink (name and CRC-32)."""
    debug = exe + ".debug"
    subprocess.run([args.objcopy, "--only-keep-debug", exe, debug], check=True)
    subprocess.run([args.objcopy, "--strip-debug", "--add-gnu-debuglink=" + debug, exe], check=True)
    if debug_dir:
        os.makedirs(debug_dir, exist_ok=True)
        shutil.move(debug, os.path.join(debug_dir, os.path.basename(debug)))
    return debug


def regions(exe, env=None):
    """(name, file, first line, last line, function) of every parallel region, and the loader's
    list of the libraries it loaded (LD_DEBUG=files) into the program and its writer."""
    out = exe + ".h5"
    if os.path.exists(out):
        os.unlink(out)
    e = dict(os.environ, SCAL_IDENTITY_CACHE="", LD_DEBUG="files", **(env or {}))
    p = subprocess.run([args.scal, "exec", "-q", "--tool", args.tool, "-o", out, "--", exe], env=e,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    reap_orphans()
    loaded = [line.split("file=", 1)[1].split()[0] for line in p.stdout.splitlines() if "file=" in line]
    check(p.returncode == 0 and os.path.isfile(out), "%s ran and wrote its run file" % os.path.basename(exe))
    if not os.path.isfile(out):
        return [], loaded
    with h5py.File(out, "r") as f:
        s = f["strings"].asstr()[:]
        rows = [(s[r["name"]], s[r["file"]], int(r["line_first"]), int(r["line_last"]), s[r["function"]])
                for r in f["regions"][:] if r["kind"] == KINDS["parallel"]]
    return sorted(rows), loaded


want, _ = regions(build("whole", "-g"))
check(len(want) >= 1 and all(r[1] and r[2] > 0 for r in want), "DWARF in the program: lines %s" % want)

exe = build("beside", "-g")
split(exe)
got, _ = regions(exe)
check(got == want, "debug file beside the program (.gnu_debuglink): %s" % got)

exe = build("subdir", "-g")
split(exe, os.path.join(args.work, ".debug"))
got, _ = regions(exe)
check(got == want, "debug file in the program's .debug/: %s" % got)

exe = build("no_build_id", "-g", "-Wl,--build-id=none")
split(exe)
got, _ = regions(exe)
check(got == want, "without a build ID, the debug file taken by its CRC: %s" % got)

# a debug file of another build (its lines shifted by two) where the link points: refused
shifted = os.path.join(args.work, "shifted.c")
with open(args.src) as src, open(shifted, "w") as dst:
    dst.write("\n\n" + src.read())
for name, flags in (("other_build", ("-g",)), ("other_build_no_id", ("-g", "-Wl,--build-id=none"))):
    exe = build(name, *flags)
    debug = split(exe)
    other = build(name + "_other", *flags, source=shifted)
    subprocess.run([args.objcopy, "--only-keep-debug", other, debug], check=True)
    got, _ = regions(exe)
    check(len(got) == len(want) and all(r[2] < 0 and not r[1] for r in got),
          "%s: another build's debug file at the link is refused (no lines): %s" % (name, got))

# no DWARF anywhere: libdw's search would fall back on debuginfod (and download, with URLs set)
exe = build("nodebug")
got, loaded = regions(exe, {"DEBUGINFOD_URLS": "http://127.0.0.1:9/", "DEBUGINFOD_TIMEOUT": "1"})
check(len(got) == len(want), "a program without DWARF: its regions are recorded (%d)" % len(got))
check(not [f for f in loaded if "debuginfod" in f],
      "libdebuginfod is not loaded: %s" % [f for f in loaded if "debuginfod" in f])
sys.exit(finish())
