# SPDX-License-Identifier: BSD-3-Clause
# The command line as started (programs/rewrites_argv.c overwrites its options in main): with the
# tool preloaded (scal exec, scal run) the run file keeps "-n 30 -c" and says it was read at
# start; loaded by the runtime (OMP_TOOL_LIBRARIES alone) it says the line was read at the first
# OpenMP call, after the program changed it.
import argparse
import glob
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from scal_check import check  # noqa: E402

import h5py  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--scal", required=True)
ap.add_argument("--tool", required=True)
ap.add_argument("--prog", required=True)
ap.add_argument("--libomp", help="libomp to preload for a gcc-built (libgomp) program")
a = ap.parse_args()
tmp = tempfile.mkdtemp(prefix="scal-argv-")
ARGS = ["-n", "30", "-c"]


def meta(path):
    with h5py.File(path, "r") as f:
        m = f["meta"].attrs
        return str(m["command_line"]), str(m["command_line_read"])


def run(cmd, env=None):
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    check(p.returncode == 0, "%s exits 0 (%d: %s)" % (os.path.basename(cmd[0]), p.returncode,
                                                        p.stderr.strip()))


exec_file = os.path.join(tmp, "exec.h5")
run([a.scal, "exec", "-q", "--tool", a.tool, "-o", exec_file, a.prog] + ARGS)
line, read = meta(exec_file)
check(line.endswith(" -n 30 -c"), "scal exec: the command line as started (%r)" % line)
check(read.startswith("at start"), "scal exec: read at start (%r)" % read)

campaign = os.path.join(tmp, "campaign.h5")
run([a.scal, "run", "-q", "--keep-runs", "--tool", a.tool, "-c", "2", "-o", campaign, "--", a.prog]
    + ARGS)
kept = glob.glob(os.path.join(tmp, "campaign.h5.runs", "*.h5"))
check(len(kept) == 1, "scal run: one run file kept (%s)" % kept)
line, read = meta(kept[0])
check(line.endswith(" -n 30 -c") and read.startswith("at start"),
      "scal run: the command line as started, read at start (%r, %r)" % (line, read))

raw_file = os.path.join(tmp, "raw.h5")
env = dict(os.environ, OMP_TOOL_LIBRARIES=a.tool, SCAL_OUTPUT=raw_file, SCAL_WAIT_WRITER="1")
env.pop("LD_PRELOAD", None)
if a.libomp:  # the runtime, standing in for libgomp: the tool itself is not preloaded
    env["LD_PRELOAD"] = a.libomp
run([a.prog] + ARGS, env)
line, read = meta(raw_file)
check(read.startswith("at the first OpenMP call"), "raw load: read at the first OpenMP call (%r)"
      % read)
check(line.endswith(" -* 30 -*"), "raw load: the line as the program left it (%r)" % line)
