# SPDX-License-Identifier: BSD-3-Clause
# rusage.maxrss is the measured program's own peak: a starter that touched 256 MB and then exec()s
# the program must not lend it its peak (Linux carries getrusage's ru_maxrss across exec: under
# scal run a program reported the runner's peak, the runner's memory being the vfork()ed child's
# until its exec).
import argparse
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from scal_check import check  # noqa: E402

import h5py  # noqa: E402

STARTER_MB = 256
STARTER = """
import os, sys
block = bytearray(b"\\x01") * (%d << 20)
os.execv(sys.argv[1], sys.argv[1:])
""" % STARTER_MB

ap = argparse.ArgumentParser()
ap.add_argument("--scal")  # unused: the program is started without scal exec
ap.add_argument("--tool", required=True)
ap.add_argument("--prog", required=True)
a = ap.parse_args()
tmp = tempfile.mkdtemp(prefix="scal-peak-rss-")
run_file = os.path.join(tmp, "run.h5")
env = dict(os.environ, SCAL_PLUGINS="rusage", OMP_TOOL_LIBRARIES=a.tool,
           SCAL_OUTPUT=run_file, SCAL_WAIT_WRITER="1")
p = subprocess.run([sys.executable, "-c", STARTER, a.prog], env=env, capture_output=True,
                   text=True)
check(p.returncode == 0, "the program exec()ed by the starter exits 0 (%d: %s)"
      % (p.returncode, p.stderr.strip()))
with h5py.File(run_file, "r") as f:
    strings = f["strings"][()]
    peak = [float(r["value"]) for r in f["sensors/values"][()]
            if strings[r["metric"]] == b"rusage.maxrss" and r["region"] == -1]
check(len(peak) == 1, "one rusage.maxrss of the run (%s)" % peak)
check(0 < peak[0] < STARTER_MB / 4 * (1 << 20),
      "rusage.maxrss is the program's (%.1f MB), not its starter's %d MB" % (peak[0] / (1 << 20),
                                                                            STARTER_MB))
