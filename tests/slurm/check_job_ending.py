# SPDX-License-Identifier: BSD-3-Clause
# A Slurm job's end (scancel, its time limit) signals the job's processes one by one, the program
# before the runner: scal run may see the program killed before its own SIGTERM comes. That run is
# the job's end, not the program's failure: interrupted, not recorded, its kept runs left for
# --resume. Played here without a cluster, deterministically: the run's program kills itself with
# SIGTERM and the runner gets no signal at all; a squeue on PATH tells the job's state.
#
#   check_job_ending.py --scal SCAL --prog CAMPAIGN_PROG
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scal_check import check  # noqa: E402  (tests/scal_check.py)
from check_slurm_run import runs_of  # noqa: E402

PLAN = ["-c", "1", "-r", "3", "-i", "20"]


def campaign(args, work, name, state, slurm=True):
    """The third run's program dies of SIGTERM; squeue says the job is in state (logging how it was
    asked). Returns scal's process, the campaign's path and squeue's log."""
    fake = os.path.join(work, "bin-" + name)
    os.mkdir(fake)
    log = os.path.join(work, name + ".squeue")
    with open(os.path.join(fake, "squeue"), "w") as f:
        f.write('#!/bin/sh\necho "$*" >> %s\necho %s\n' % (log, state))
    os.chmod(os.path.join(fake, "squeue"), 0o755)
    wrap = os.path.join(work, name + ".sh")
    starts = os.path.join(work, name + ".started")
    with open(wrap, "w") as f:
        f.write('n=0; while ! mkdir %s-$n 2>/dev/null; do n=$((n+1)); done\n'
                '[ $n -eq 2 ] && kill -TERM $$\nexec %s "$@"\n' % (starts, args.prog))
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
    env.update(OMP_WAIT_POLICY="passive", PATH=fake + ":" + env.get("PATH", "/usr/bin:/bin"))
    if slurm:  # array task 2 of array 77, its own job id 79
        env.update(SLURM_JOB_ID="79", SLURM_ARRAY_JOB_ID="77", SLURM_ARRAY_TASK_ID="2")
    c = os.path.join(work, name + ".h5")
    p = subprocess.run([args.scal, "run", *PLAN, "-o", c, "--", "/bin/sh", wrap, "{input}"],
                       capture_output=True, text=True, env=env, cwd=work, timeout=300)
    return p, c, log


def statuses(c):
    return sorted((k[3], k[4] != 0) for k in runs_of(c)[0])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scal", required=True)
    ap.add_argument("--prog", required=True)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="scal-job-ending-")
    try:
        # the job is ending (squeue: COMPLETING, as right after scancel)
        p, c, log = campaign(args, work, "ending", "COMPLETING")
        check(p.returncode == 130 and "interrupted (not recorded)" in p.stderr,
              "a run killed while the job ends is interrupted, not recorded (exit %d):\n%s" % (p.returncode, p.stderr[-2000:]))
        with open(log) as f:
            asked = f.read().split()
        check("-j" in asked and asked[asked.index("-j") + 1] == "77_2",
              "squeue is asked about this array task (ARRAY_TASK, not the task's own id): %s" % asked)
        journal = os.path.join(c + ".runs", "runs.journal")
        check(os.path.exists(journal) and os.path.getsize(journal) > 0, "the kept runs stay for --resume")
        check(statuses(c) == [(0, False), (1, False)], "the campaign holds the 2 finished runs: %s" % statuses(c))
        env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
        r = subprocess.run([args.scal, "run", "--resume", c], capture_output=True, text=True, env=env, cwd=work, timeout=300)
        check(r.returncode == 0 and statuses(c) == [(0, False), (1, False), (2, False)],
              "--resume runs the interrupted run: %s\n%s" % (statuses(c), r.stderr[-1500:]))
        check(not os.path.exists(c + ".runs"), "the complete campaign drops its kept runs")
        # the job goes on: a program killed by a signal of its own is a killed run
        p, c, log = campaign(args, work, "going", "RUNNING")
        check(p.returncode == 1 and statuses(c) == [(0, False), (1, False), (2, True)],
              "while the job runs, the run is recorded as killed (exit %d): %s\n%s" % (p.returncode, statuses(c), p.stderr[-1500:]))
        # outside Slurm: no squeue asked
        p, c, log = campaign(args, work, "local", "COMPLETING", slurm=False)
        check(p.returncode == 1 and statuses(c) == [(0, False), (1, False), (2, True)] and not os.path.exists(log),
              "outside a Slurm job the run is recorded as killed, squeue never asked (exit %d): %s" % (p.returncode, statuses(c)))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("PASS: slurm.run_job_ending")


if __name__ == "__main__":
    main()
