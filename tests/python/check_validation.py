# SPDX-License-Identifier: BSD-3-Clause
# The Python package reads only what scal's validator accepts: a damaged file raises ScalFileError
# naming the file and the problem (never a crash, never another exception), and without a scal to
# validate with it says so instead of reading unchecked.
#
#   check_validation.py --scal SCAL --prog CAMPAIGN_PROG
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from scal_check import check  # noqa: E402  (tests/scal_check.py)


def load_error(path, env):
    """What scal.load(path) raised in a fresh interpreter: (exception type name, message)."""
    code = "import sys, scal\ntry:\n    scal.load(sys.argv[1])\n    print('OK')\nexcept BaseException as e:\n    print(type(e).__name__)\n    print(e)\n"
    p = subprocess.run([sys.executable, "-c", code, path], env=env, capture_output=True, text=True, timeout=300)
    check(p.returncode == 0, "the interpreter did not crash (%d): %s" % (p.returncode, p.stderr[-300:]))
    lines = p.stdout.splitlines()
    return lines[0], "\n".join(lines[1:])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scal", required=True)
    ap.add_argument("--prog", required=True)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="scal-python-validation-")
    try:
        env = dict(os.environ, SCAL_EXECUTABLE=args.scal, OMP_WAIT_POLICY="passive")
        good = os.path.join(work, "c.h5")
        subprocess.run([args.scal, "run", "-q", "-c", "1,2", "-i", "5", "-o", good, "--", args.prog, "{input}"],
                       env=env, check=True, capture_output=True)
        check(load_error(good, env)[0] == "OK", "a valid campaign loads")
        cases = {}
        cut = os.path.join(work, "cut.h5")
        with open(good, "rb") as f, open(cut, "wb") as g:
            g.write(f.read()[: os.path.getsize(good) // 2])
        cases[cut] = "HDF5"
        for name, edit, phrase in (("cycle.h5", "regions", "parent"), ("twice.h5", "runs", "both repetition"),
                                   ("dtype.h5", "configs", "member 'threads' is")):
            path = os.path.join(work, name)
            shutil.copy(good, path)
            with h5py.File(path, "r+") as f:
                rows = f[edit][()]
                if edit == "regions":
                    rows["parent"][1] = len(rows) - 1
                    f[edit][...] = rows
                elif edit == "runs":
                    rows["config"][1], rows["repetition"][1] = rows["config"][0], rows["repetition"][0]
                    f[edit][...] = rows
                else:
                    import numpy as np
                    new = np.dtype([(n, "i1" if n == "threads" else rows.dtype.fields[n][0]) for n in rows.dtype.names])
                    del f[edit]
                    f.create_dataset(edit, data=rows.astype(new), maxshape=(None,), chunks=True)
            cases[path] = phrase
        for path, phrase in cases.items():
            kind, message = load_error(path, env)
            check(kind == "ScalFileError" and path in message and phrase in message,
                  "%s: ScalFileError naming the file and the problem: %s %s" % (os.path.basename(path), kind, message[:300]))
        # no scal to validate with: said, nothing read unchecked
        bare = {k: v for k, v in env.items() if k != "SCAL_EXECUTABLE"}
        bare["PATH"] = "/nonexistent"
        kind, message = load_error(good, bare)
        check(kind == "ScalFileError" and "scal is not found" in message, "without scal: %s %s" % (kind, message[:200]))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("python validation passed")


main()
