# SPDX-License-Identifier: BSD-3-Clause
# Every file scal report writes is created exclusively under a temporary name and renamed into
# place: a symbolic link planted at any output name (every file of a first report, the campaign's
# analysis file, the compare outputs) or at a directory's name is never followed; the report fails
# naming the link, and the link's target is never written.
import os, shutil, subprocess, sys

scal, gen, work = sys.argv[1:4]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from scal_check import expect as check, failures, finish  # noqa: E402  (tests/scal_check.py)


def run(*args):
    return subprocess.run([scal] + list(args), capture_output=True, text=True, cwd=work)


camp = os.path.join(work, "c.h5")
subprocess.run([gen, camp, "--inputs", "3", "--threads", "3", "--reps", "2", "--regions", "4",
                "--energy"], check=True)
victim = os.path.join(work, "victim.txt")
VICTIM = "the target of a planted link: never to be written\n"


def outputs(top):
    files, dirs = [], []
    for root, ds, fs in os.walk(top):
        dirs += [os.path.relpath(os.path.join(root, d), top) for d in ds]
        files += [os.path.relpath(os.path.join(root, f), top) for f in fs]
    return sorted(files), sorted(dirs)


# 1. the names of a first report (every plugin, PNG, SVG and PDF diagrams)
r = run("report", camp, "-o", "first", "--format", "png,svg,pdf")
check(r.returncode == 0, "a first report: %s" % r.stderr[-300:])
files, dirs = outputs(os.path.join(work, "first"))
check(len(files) > 50 and "index.html" in files and "csv/all/efficiency.csv" in files,
      "the first report wrote %d files" % len(files))

# 2. a link at every one of those names, and at the campaign's analysis file
out = os.path.join(work, "second")
for d in dirs:
    os.makedirs(os.path.join(out, d))
links = [os.path.join(out, f) for f in files] + [os.path.join(work, "c.analysis.h5")]
if os.path.lexists(links[-1]):
    os.remove(links[-1])
for l in links:
    os.symlink(victim, l)
with open(victim, "w") as f:
    f.write(VICTIM)
r = run("report", camp, "-o", "second", "--format", "png,svg,pdf")
check(r.returncode != 0 and "symbolic link" in r.stderr,
      "the report fails and names the planted link: %r" % r.stderr[-300:])
check(open(victim).read() == VICTIM, "the links' target was never written")
check(all(os.path.islink(l) and os.readlink(l) == victim for l in links),
      "every planted link is still the same link (%d links)" % len(links))
check(not [f for f in os.listdir(os.path.join(out, "csv", "all")) if f.startswith(".")],
      "no temporary file is left behind")

# 3. links at the directories' names: nothing is written through them
elsewhere = os.path.join(work, "elsewhere")
os.makedirs(elsewhere)
for d in ("diagrams", "charts", "csv"):
    out = os.path.join(work, "third-" + d)
    os.makedirs(out)
    os.symlink(elsewhere, os.path.join(out, d))
    r = run("report", camp, "-o", out)
    check(r.returncode != 0 and "symbolic link" in r.stderr and not os.listdir(elsewhere),
          "a link at %s/ is refused and nothing is written through it: %r" % (d, r.stderr[-200:]))
os.symlink(elsewhere, os.path.join(work, "linked-out"))
r = run("report", camp, "-o", "linked-out")
check(r.returncode != 0 and not os.listdir(elsewhere), "an output directory that is a link is refused")

# 4. compare mode's outputs
run("report", "--compare", camp, camp, "-o", "cmp-first")
cfiles, _ = outputs(os.path.join(work, "cmp-first"))
out = os.path.join(work, "cmp-second")
os.makedirs(out)
for f in cfiles:
    os.symlink(victim, os.path.join(out, f))
r = run("report", "--compare", camp, camp, "-o", "cmp-second")
check(cfiles and r.returncode != 0 and open(victim).read() == VICTIM,
      "compare mode refuses links at its %d outputs: %r" % (len(cfiles), r.stderr[-200:]))

# 5. with the links gone the same report succeeds, and a report over an earlier one replaces it
os.remove(os.path.join(work, "c.analysis.h5"))
r = run("report", camp, "-o", "first")
check(r.returncode == 0, "reporting again into the same directory replaces the earlier files")
# 6. a region whose name holds ".." (a user region "init..done") is a file name like any other
import h5py
dots = os.path.join(work, "dots.h5")
shutil.copy(camp, dots)
with h5py.File(dots, "r+") as f:
    reg = [r for r in f["regions"][()] if r["kind"] == 1][0]
    f["strings"][int(reg["function"])] = b"init..done"
    f["strings"][int(reg["label"])] = b"x.c:1 (init..done)"  # the label is stored
r = run("report", dots, "-o", "dots-out", "--all")
check(r.returncode == 0 and any("init..done" in p for p in os.listdir(os.path.join(work, "dots-out", "diagrams"))),
      "a label with '..' is written like any other: %r" % r.stderr[-200:])
finish()
