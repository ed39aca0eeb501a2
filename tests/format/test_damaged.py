#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Damaged campaign files given to `scal merge` and `scal run --resume`: every one ends with a clear
# error naming the file and a non-zero exit, never a signal (HDF5 1.10 crashes or allocates
# gigabytes on some damaged files; scal reads them through one safe open).
import fcntl
import os
import random
import shutil
import subprocess
import sys

import h5py

scal, prog, work = sys.argv[1:4]
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from scal_check import expect as check, failures, finish  # noqa: E402  (tests/scal_check.py)


def run(*args):
    p = subprocess.run([scal, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       errors="replace", cwd=work, timeout=600)
    return p.returncode, p.stderr, p.stdout


shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
good = os.path.join(work, "good.h5")
rc, err, _ = run("run", "-q", "-c", "1,2", "-r", "2", "-i", "20", "-o", good, "--", prog, "{input}")
check(rc == 0, "a real campaign to damage (%s)" % err.strip())
data = open(good, "rb").read()


def damaged_ok(path, expect=None):
    """merge, resume and the readers of path: exit 1 or 2 with the file named, no signal."""
    name = os.path.basename(path)
    out = os.path.join(work, "merged.h5")
    for cmd in (["merge", path, good, "-o", out], ["run", "-q", "--resume", path],
                ["report", path, "-o", os.path.join(work, "report"), "--no-write"],
                ["show", path], ["check", path]):
        if os.path.exists(out):
            os.remove(out)
        shutil.copy(path, path + ".try")  # resume may write into a file it can open
        cmd = [a if a != path else path + ".try" for a in cmd]
        rc, err, stdout = run(*cmd)
        if cmd[0] == "check":
            err += stdout  # check reports on stdout
        named = name in err and (expect is None or expect in err)
        if rc < 0 or rc == 0 or not named:
            return "%s: exit %d%s: %s" % (" ".join(cmd[:2]), rc, " (signal)" if rc < 0 else "",
                                          err.strip()[-300:])
    return None


# 1. A table whose extent claims 5 GB in a file of a few kB (the readers used to allocate it all).
bomb = os.path.join(work, "bomb.h5")
shutil.copy(good, bomb)
with h5py.File(bomb, "a") as f:
    f["region_stats"].resize((25_000_000,))
problem = damaged_ok(bomb, "more than a file of")
check(problem is None, "a 5 GB table extent is refused, naming the file%s" % (": " + problem if problem else ""))

# 2. Truncated files.
for frac in (2, 3, 10):
    cut = os.path.join(work, "cut%d.h5" % frac)
    open(cut, "wb").write(data[: len(data) // frac])
    problem = damaged_ok(cut)
    check(problem is None, "truncated to 1/%d: a clear error%s" % (frac, ": " + problem if problem else ""))

# 3. A campaign whose damaged global heap makes HDF5 1.10 loop forever reading its root attribute
# (found by tests/report/fuzz_reader): the probe process runs out of CPU time, the reader says so.
loops = os.path.join(work, "loops.h5")
shutil.copy(os.path.join(here, "loops.h5"), loops)
for cmd in (["show", loops], ["merge", loops, good, "-o", os.path.join(work, "loops-merged.h5")]):
    rc, err, _ = run(*cmd)
    check(rc == 1 and "loops.h5" in err and "damaged" in err,
          "%s of a file HDF5 loops on: exit %d, %s" % (cmd[0], rc, err.strip()[-200:]))

# 4. Bytes flipped or overwritten (deterministic): some make HDF5 crash or abort when read in
# process; the probe process takes the crash. Mutants that stay readable may merge fine, or be
# refused for what their damaged content says (a conflict with good.h5).
rnd = random.Random(20261123)
crashes = 0
for k in range(60):
    mut = bytearray(data)
    if k % 2:
        for _ in range(1 + rnd.randrange(8)):
            mut[rnd.randrange(len(mut))] ^= 1 << rnd.randrange(8)
    else:
        at = rnd.randrange(len(mut))
        for i in range(at, min(len(mut), at + 64)):
            mut[i] = rnd.randrange(256)
    path = os.path.join(work, "mutant%d.h5" % k)
    open(path, "wb").write(mut)
    for cmd in (["merge", path, good, "-o", os.path.join(work, "m%d.h5" % k)],
                ["run", "-q", "--resume", path]):
        rc, err, _ = run(*cmd)
        if rc < 0 or rc > 2:
            crashes += 1
            check(False, "%s %s: exit %d%s" % (cmd[0], os.path.basename(path), rc,
                                                 " (signal %d)" % -rc if rc < 0 else ""))
check(crashes == 0, "60 mutants: merge and run --resume end with 0, 1 or 2, never a signal")

# 5. A campaign another process holds open for writing (HDF5's exclusive lock, as the committer of
# an interrupted campaign holds it while it closes the file): --resume waits for it, then says so.
busy = os.path.join(work, "busy.h5")
shutil.copy(good, busy)
with open(busy, "rb") as held:
    fcntl.flock(held, fcntl.LOCK_EX)
    rc, err, _ = run("run", "-q", "--resume", busy)
check(rc == 2 and "busy.h5" in err and "still open for writing" in err,
      "resume of a file locked for writing: exit %d, %s" % (rc, err.strip()[-200:]))

finish()
