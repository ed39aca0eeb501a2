# SPDX-License-Identifier: BSD-3-Clause
# A committed run is never lost: scal run keeps every run durable on its own until its campaign
# file is verified, rebuilds a damaged campaign file from them on --resume, and takes the measured
# program with it when it dies.
#
#   check_durability.py SCENARIO --scal SCAL --prog CAMPAIGN_PROG
import argparse
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from scal_check import check, fail  # noqa: E402  (tests/scal_check.py)

ENV = dict(os.environ, OMP_WAIT_POLICY="passive")


def scal(args, *cmd, expect=0, cwd=None):
    p = subprocess.run([args.scal] + list(cmd), capture_output=True, text=True, env=ENV, cwd=cwd or args.work, timeout=600)
    if expect is not None:
        check(p.returncode == expect, "scal %s -> exit %d (expected %d)\nstderr: %s" % (" ".join(cmd[:3]), p.returncode, expect, p.stderr[-1500:]))
    return p


def run_keys(path):
    """(config, repetition) of every run in the campaign file."""
    with h5py.File(path, "r") as f:
        return sorted((int(r["config"]), int(r["repetition"])) for r in f["runs"][()])


def complete(args, path, nslots):
    keys = run_keys(path)
    check(len(keys) == nslots and len(set(keys)) == nslots, "exactly the plan's %d runs, no duplicates (%d, %d distinct)" % (nslots, len(keys), len(set(keys))))
    p = scal(args, "check", path)
    check("ok" in p.stdout, "scal check passes")
    left = os.listdir(path + ".runs") if os.path.exists(path + ".runs") else []
    check(not os.path.exists(path + ".runs"), "the kept runs are dropped once the campaign is complete (%s)" % left)


def scenario_rebuild(args):
    """A campaign file damaged after some runs (as a full disk or an I/O error leaves it) is rebuilt
    by --resume from the runs kept beside it, and the plan is completed."""
    out = os.path.join(args.work, "c.h5")
    scal(args, "run", "-c", "1,2", "-i", "10", "-i", "fail", "--fail-fast", "-o", out, "--", args.prog, "{input}", expect=1)
    check(len(run_keys(out)) == 2, "--fail-fast left 2 of 4 runs to do")
    check(os.path.exists(os.path.join(out + ".runs", "plan.h5")), "the plan and the runs are kept while the campaign is incomplete")
    size = os.path.getsize(out)
    with open(out, "r+b") as f:
        f.truncate(size * 2 // 3)
    p = scal(args, "show", out, expect=None)
    check(p.returncode != 0, "the damaged file is refused by show")
    p = scal(args, "run", "--resume", out, expect=1)
    check("rebuilt it from the plan and the 2 runs kept" in p.stderr, "resume rebuilds the damaged file: " + p.stderr.strip()[:400])
    complete(args, out, 4)
    with h5py.File(out, "r") as f:
        ok = [int(r["id"]) for r in f["runs"][()] if int(r["status"]) == 0]
        rows = [int(s["run"]) for s in f["region_stats"][()]]
    check(len(ok) == 2 and all(rows.count(i) >= 2 for i in ok), "the rebuilt runs have their measurements (from the kept snapshots)")
    # a new campaign of the same name never mixes with an earlier one's kept runs
    scal(args, "run", "-c", "1,2", "-i", "10", "-i", "fail", "--fail-fast", "-o", out + "2", "--", args.prog, "{input}", expect=1)
    os.rename(out + "2.runs", out + ".runs")
    os.unlink(out)
    p = scal(args, "run", "-c", "1", "-i", "10", "-o", out, "--", args.prog, "{input}", expect=2)
    check("kept runs of an earlier campaign" in p.stderr and not os.path.exists(out), "a new campaign beside an earlier one's kept runs is refused: " + p.stderr.strip())


def damage(path):
    with open(path, "r+b") as f:
        f.truncate(os.path.getsize(path) * 2 // 3)


def scenario_journal(args):
    """The runs are kept in one journal: a record torn at its end (a kill or a full disk while it
    was written) is no run, and is cut before new records are added, never left between them; a
    rebuild takes every whole record, and a run kept twice (done again) once."""
    plan = ["-c", "1,2,3", "-i", "10", "-i", "fail", "--fail-fast"]
    out = os.path.join(args.work, "j.h5")
    journal = os.path.join(out + ".runs", "runs.journal")
    scal(args, "run", *plan, "-o", out, "--", args.prog, "{input}", expect=1)
    check(len(run_keys(out)) == 2, "--fail-fast left 4 of 6 runs to do")
    with open(journal, "ab") as f:  # a record cut short
        f.write(b"SCLJ" + b"\x01" * 100000)
    damage(out)
    p = scal(args, "run", "--resume", out, expect=1)
    check("rebuilt it from the plan and the 2 runs kept" in p.stderr, "the torn record is no run: " + p.stderr.strip()[-400:])
    with open(journal, "rb") as f:
        check(b"\x01" * 11 not in f.read(), "the torn record was cut before the new ones")
    damage(out)
    p = scal(args, "run", "--resume", out, expect=1)
    check("rebuilt it from the plan and the 4 runs kept" in p.stderr, "every record after the cut is found: " + p.stderr.strip()[-400:])
    complete(args, out, 6)
    # a run kept twice (done again after a kill between keeping and committing it) is one run
    out = os.path.join(args.work, "twice.h5")
    journal = os.path.join(out + ".runs", "runs.journal")
    scal(args, "run", *plan, "-o", out, "--", args.prog, "{input}", expect=1)
    with open(journal, "rb") as f:
        first = f.read()
    with open(journal, "ab") as f:
        f.write(first)
    damage(out)
    p = scal(args, "run", "--resume", out, expect=1)
    check("rebuilt it from the plan and the 2 runs kept" in p.stderr, "a run kept twice is rebuilt once: " + p.stderr.strip()[-400:])
    scal(args, "run", "--resume", out, expect=1)
    complete(args, out, 6)


def scenario_orphan(args):
    """SIGKILL of scal run takes the measured program with it (PR_SET_PDEATHSIG)."""
    fifo = os.path.join(args.work, "running.fifo")
    os.mkfifo(fifo)
    out = os.path.join(args.work, "o.h5")
    proc = subprocess.Popen([args.scal, "run", "-c", "1", "-i", "wait " + fifo, "-o", out, "--", args.prog, "{input}"],
                            env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=args.work)
    try:
        with open(fifo) as f:
            check(f.readline() == "running\n", "the program runs")
        pids = subprocess.run(["pgrep", "-f", "--", "wait " + fifo], capture_output=True, text=True).stdout.split()
    except BaseException:
        proc.kill()
        raise
    prog = []
    for x in pids:
        try:
            with open("/proc/%s/cmdline" % x, "rb") as f:
                if f.read().split(b"\0")[0] == args.prog.encode():
                    prog.append(int(x))
        except OSError:
            pass
    if len(prog) != 1:
        proc.kill()
    check(len(prog) == 1, "the measured program found (%s)" % pids)
    fd = os.pidfd_open(prog[0])
    proc.kill()
    proc.wait()
    ended = select.select([fd], [], [], 60)[0] == [fd]
    if not ended:
        os.kill(prog[0], signal.SIGKILL)
    os.close(fd)
    check(ended, "the program ended with the runner")


def mount_tmpfs(path, size):
    return subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%s" % size, "tmpfs", path], capture_output=True).returncode == 0


def scenario_enospc(args):
    """The disk fills in the middle of a campaign: the file stays readable, the runner says which run
    could not be kept and why, and after space is freed --resume completes the plan."""
    if os.geteuid() != 0 or not shutil.which("mount"):
        print("skipped: needs root to mount a small tmpfs")
        sys.exit(77)
    disk = os.path.join(args.work, "disk")
    os.mkdir(disk)
    if not mount_tmpfs(disk, "16m"):
        print("skipped: cannot mount a tmpfs here")
        sys.exit(77)
    try:
        for left_kb in (150, 1300, 2000):  # the disk fills at once, or after some runs
            out = os.path.join(disk, "c%d.h5" % left_kb)
            filler = os.path.join(disk, "filler")
            st = os.statvfs(disk)
            with open(filler, "wb") as f:
                f.write(b"\0" * max(0, st.f_bavail * st.f_frsize - left_kb * 1024))
            p = scal(args, "run", "-c", "1,2", "-r", "60", "-i", "1", "-o", out, "--", args.prog, "{input}", expect=None, cwd=disk)
            check(p.returncode == 2 and "No space left on device" in p.stderr, "%d KB free: the runner stops and says why: %s" % (left_kb, p.stderr.strip()[-400:]))
            check(not os.path.exists(out) or "disk full (No space left on device): " in p.stderr and "free space and scal run --resume" in p.stderr,
                  "and says how many runs are kept and how to go on")
            check("NOT RECORDED" not in p.stderr or "NOT RECORDED (threads=" in p.stderr, "and names the run by its configuration, as the progress does")
            os.unlink(filler)
            if os.path.exists(out):
                # the space a commit needs is held until the commit: the disk fills while a run is
                # measured or kept, never in the campaign file, which passes scal check at once
                p = scal(args, "check", out, expect=None, cwd=disk)
                check(p.returncode == 0 and ": ok" in p.stdout,
                      "right after the disk filled the campaign file passes scal check: %s" % (p.stdout + p.stderr).strip()[-300:])
                p = scal(args, "run", "--resume", out, expect=None, cwd=disk)
                check(p.returncode == 0, "after space is freed --resume completes the plan: " + p.stderr.strip()[-400:])
                check("ok" in scal(args, "check", out, cwd=disk).stdout, "the campaign file passes scal check after --resume")
                complete(args, out, 120)
                os.unlink(out)
            shutil.rmtree(out + ".runs", ignore_errors=True)
    finally:
        subprocess.run(["umount", "-l", disk])


def scenario_kill(args):
    """SIGKILL of scal run at 50 moments spread over its whole life (the first at once): the
    campaign file opens or there is none, every run reported done is in it, and --resume completes
    exactly the plan."""
    cmd = ["run", "-c", "1,2", "-r", "4", "-i", "5"]
    nslots = 8
    t0 = time.monotonic()
    scal(args, *cmd, "-o", os.path.join(args.work, "whole.h5"), "--", args.prog, "{input}")
    life = time.monotonic() - t0
    for k in range(50):
        out = os.path.join(args.work, "k%02d.h5" % k)
        proc = subprocess.Popen([args.scal] + cmd + ["-o", out, "--", args.prog, "{input}"], env=ENV,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=args.work)
        # the moment to kill at, not a synchronisation: anything from "at once" to "at the end"
        time.sleep(life * k / 50.0)
        proc.kill()
        err = proc.communicate()[1]
        done = sum(1 for line in err.splitlines() if line.startswith("scal run: ") and "/%d " % nslots in line)
        if not os.path.exists(out):
            check(done == 0, "kill %d: no campaign file and no run reported done" % k)
            scal(args, *cmd, "-o", out, "--", args.prog, "{input}")
            complete(args, out, nslots)
            continue
        p = scal(args, "run", "--resume", out, expect=None)
        check(p.returncode == 0, "kill %d (%d runs done): --resume completes the plan: %s" % (k, done, p.stderr.strip()[-400:]))
        complete(args, out, nslots)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario")
    ap.add_argument("--scal", default="")
    ap.add_argument("--prog", default="")
    args = ap.parse_args()
    args.work = tempfile.mkdtemp(prefix="scal-durability-%s-" % args.scenario)
    try:
        globals()["scenario_" + args.scenario](args)
    finally:
        shutil.rmtree(args.work, ignore_errors=True)
    print("durability scenario %s passed" % args.scenario)


main()
