# SPDX-License-Identifier: BSD-3-Clause
# scal run --slurm through the one-node Slurm of scripts/local-slurm.sh (started and stopped here):
# the same runs as without Slurm, a cancelled array task resubmitted by --resume, --no-wait with
# --collect, and clear errors. Campaign files are read with h5py.
#
#   check_slurm_run.py SCENARIO --scal SCAL --prog CAMPAIGN_PROG --local-slurm SCRIPT
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from scal_check import check, fail  # noqa: E402  (tests/scal_check.py)

PLAN = ["-c", "1,2", "-i", "20", "-i", "40", "-r", "2"]


def scal(args, *cmd, expect=0, env=None, timeout=600):
    e = dict(os.environ, OMP_WAIT_POLICY="passive")
    e.update(env or {})
    p = subprocess.run([args.scal] + list(cmd), capture_output=True, text=True, env=e, timeout=timeout, cwd=args.work)
    if expect is not None:
        check(p.returncode == expect, "scal %s -> exit %d (expected %d)\nstderr: %s" % (" ".join(cmd[:4]), p.returncode, expect, p.stderr[-2500:]))
    return p


def runs_of(path):
    """(ranks, threads, input, repetition, status) -> {region name: count} and the ranks that left
    data, for every run, and the list of (config, repetition) pairs (duplicates visible)."""
    with h5py.File(path, "r") as f:
        strings = [s.decode() if isinstance(s, bytes) else s for s in f["strings"][()]]
        configs, runs = f["configs"][()], f["runs"][()]
        regions, stats = f["regions"][()], f["region_stats"][()]
        config_ranks = {int(r["config"]): int(r["ranks"]) for r in f["config_ranks"][()]} if "config_ranks" in f else {}
        run_ranks = f["run_ranks"][()] if "run_ranks" in f else []
        name = {int(r["id"]): strings[r["name"]] for r in regions}
        out, pairs = {}, []
        for r in runs:
            c = configs[r["config"]]
            key = (config_ranks.get(int(r["config"]), 0), int(c["threads"]), strings[c["input_label"]],
                   int(r["repetition"]), int(r["status"]))
            counts = {}
            for s in stats[stats["run"] == r["id"]]:
                counts[name[int(s["region"])]] = int(s["count"])
            counts["(ranks with data)"] = sorted((int(x["rank"]), int(x["recorded"])) for x in run_ranks if x["run"] == r["id"])
            out[key] = counts
            pairs.append((int(r["config"]), int(r["repetition"])))
        return out, pairs


def squeue(*opts):
    return subprocess.run(["squeue", "-h", "-r"] + list(opts), capture_output=True, text=True).stdout.split()


def wait_until(what, predicate, limit_s=300):
    """Polls Slurm's own view (squeue) until predicate holds: the state is the synchronisation."""
    t0 = time.monotonic()
    while not predicate():
        check(time.monotonic() - t0 < limit_s, "Slurm did not reach: " + what)
        time.sleep(0.2)


def reference(args):
    """The campaign without Slurm."""
    ref = os.path.join(args.work, "local.h5")
    scal(args, "run", *PLAN, "-o", ref, "--", args.prog, "{input}")
    return runs_of(ref)[0]


def same_runs(args, path, ref, what):
    got, pairs = runs_of(path)
    n = len(ref)
    check(len(pairs) == n and len(set(pairs)) == n, "%s: %d runs, each (configuration, repetition) once: %s" % (what, n, sorted(pairs)))
    check(sorted(got) == sorted(ref), "%s: the same runs as without Slurm (threads, input, repetition, status)" % what)
    for k in ref:
        check(got[k] == ref[k], "%s: run %s has the same regions and counts (%s vs %s)" % (what, k, got[k], ref[k]))
    p = scal(args, "check", path)
    check("ok" in p.stdout, what + ": scal check passes")
    check(not os.path.exists(path + ".pieces") and not os.path.exists(path + ".runs"), what + ": no pieces or kept runs left behind")


def scenario_same(args):
    ref = reference(args)
    c = os.path.join(args.work, "slurm.h5")
    p = scal(args, "run", "--slurm", *PLAN, "-o", c, "--", args.prog, "{input}")
    check("8 array tasks" in p.stderr and "pending" in p.stderr and "running" in p.stderr and "done" in p.stderr,
          "progress shows array tasks pending/running/done:\n" + p.stderr)
    check("8 of 8 runs done" in p.stderr, "all runs collected")
    same_runs(args, c, ref, "--slurm")


def scenario_cancel(args):
    ref = reference(args)
    # the first run to start blocks after saying so on a fifo: its array task is cancelled mid-run
    fifo, lock = os.path.join(args.work, "fifo"), os.path.join(args.work, "blocked")
    os.mkfifo(fifo)
    wrap = os.path.join(args.work, "wrap.sh")
    with open(wrap, "w") as f:
        f.write('if mkdir %s 2>/dev/null; then echo "${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}" > %s; exec sleep 100000; fi\n'
                'exec %s "$@"\n' % (lock, fifo, args.prog))
    c = os.path.join(args.work, "cancel.h5")
    p = scal(args, "run", "--slurm", "--no-wait", *PLAN, "-o", c, "--", "/bin/sh", wrap, "{input}")
    job = p.stderr.split("submitted job ")[1].split(":")[0]
    check(len(job.split(",")) == 2, "one job array per thread count (shape): %s" % job)
    with open(fifo) as f:  # the blocked run is under way, in this array task
        blocked = f.read().strip()
    check(blocked.split("_")[0] in job.split(","), "a run blocks in an array task of the campaign: %s" % blocked)
    subprocess.run(["scancel", blocked], check=True)
    wait_until("job %s left the queue" % job, lambda: not squeue("-j", job, "-o", "%T"))
    p = scal(args, "run", "--resume", c, expect=2)
    check("not collected yet" in p.stderr, "a plain --resume of uncollected pieces is refused: " + p.stderr.strip())
    p = scal(args, "run", "--collect", c, expect=1)
    check("7 of 8 runs done" in p.stderr and "--resume" in p.stderr, "collect says a run is missing and how to run it:\n" + p.stderr)
    check("array task %s left runs missing: " % blocked in p.stderr and "CANCELLED" in p.stderr,
          "collect gives Slurm's reason for the cancelled task:\n" + p.stderr)
    out = os.path.join(c + ".pieces", "failed-%s.out" % blocked)
    check(os.path.exists(out), "the cancelled task's output is kept")
    with open(out) as f:
        text = f.read()
    check("scal run --resume %s --slurm" % c in text and "piece-" not in text.split("interrupted")[-1].split("\n")[0],
          "the cancelled task suggests the user's command, not the piece's path:\n" + text)
    _, pairs = runs_of(c)
    check(len(pairs) == 7 and len(set(pairs)) == 7, "the campaign holds the 7 completed runs once each")
    p = scal(args, "run", "--resume", c, "--slurm")
    check("1 runs in 1 array tasks" in p.stderr, "resume submits exactly the cancelled task's run:\n" + p.stderr)
    # the wrapper measures the program it runs: compare without the command line
    same_runs(args, c, ref, "cancelled task resumed")
    p = scal(args, "run", "--resume", c, "--slurm")
    check("nothing to submit" in p.stderr, "a complete campaign submits nothing")


def scenario_nowait(args):
    ref = reference(args)
    c = os.path.join(args.work, "later.h5")
    p = scal(args, "run", "--slurm", "--no-wait", "--slurm-runs-per-task", "3", *PLAN, "-o", c, "--", args.prog, "{input}")
    check("4 array tasks, 2 job arrays" in p.stderr and "scal run --collect" in p.stderr,
          "--no-wait submits per thread count 2 tasks of at most 3 runs and says how to collect:\n" + p.stderr)
    check(os.path.exists(c), "the campaign file exists, complete with its plan, before the job runs")
    p = scal(args, "run", "--collect", c)
    check("8 of 8 runs done" in p.stderr, "--collect waits for the job and merges its pieces")
    same_runs(args, c, ref, "--no-wait + --collect")
    p = scal(args, "run", "--collect", c, expect=2)
    check("no Slurm pieces" in p.stderr, "collecting twice: nothing to collect: " + p.stderr.strip())


def cancelled_in_third_run(args, name, third):
    """A campaign of one array task with 3 runs (repetitions), cancelled (scancel) while its third
    run does the shell commands `third`, which say "running" on the fifo FIFO: the campaign's
    path, once the job has left the queue."""
    fifo, work = os.path.join(args.work, "fifo"), args.work
    os.mkfifo(fifo)
    wrap = os.path.join(work, "wrap.sh")
    with open(wrap, "w") as f:
        f.write('n=0; while ! mkdir %s/started-$n 2>/dev/null; do n=$((n+1)); done\n'
                'if [ $n -eq 2 ]; then %s; fi\nexec %s "$@"\n' % (work, third.replace("FIFO", fifo), args.prog))
    c = os.path.join(work, name + ".h5")
    p = scal(args, "run", "--slurm", "--no-wait", "--slurm-runs-per-task", "3", "-c", "1", "-r", "3", "-i", "20",
             "-o", c, "--", "/bin/sh", wrap, "{input}")
    job = p.stderr.split("submitted job ")[1].split(":")[0]
    with open(fifo) as f:
        check(f.read().strip() == "running", "the task's third run is under way")
    subprocess.run(["scancel", job], check=True)
    wait_until("job %s left the queue" % job, lambda: not squeue("-j", job, "-o", "%T"))
    return c


def scenario_damaged(args):
    """A task cancelled in its third run, its piece then damaged: the collection rebuilds the piece
    from the runs it kept, and --resume --slurm runs the one missing run."""
    c = cancelled_in_third_run(args, "damaged", "echo running > FIFO; exec sleep 100000")
    piece = os.path.join(c + ".pieces", "piece-0000.h5")
    journal = os.path.join(piece + ".runs", "runs.journal")
    with open(os.path.join(c + ".pieces", "piece-0000.out")) as f:
        out = f.read()
    check(os.path.exists(journal) and os.path.getsize(journal) > 0, "the piece kept its finished runs (its task's output:\n%s)" % out)
    with open(piece, "wb") as f:
        f.write(b"damaged")
    p = scal(args, "run", "--collect", c, expect=1)
    check("2 of 3 runs done" in p.stderr, "the damaged piece was rebuilt from its kept runs and merged:\n" + p.stderr)
    p = scal(args, "run", "--resume", c, "--slurm")
    check("1 runs in 1 array tasks" in p.stderr and "3 of 3 runs done" in p.stderr, "resume runs the missing run:\n" + p.stderr)
    _, pairs = runs_of(c)
    check(sorted(pairs) == [(0, 0), (0, 1), (0, 2)], "three repetitions, once each: %s" % sorted(pairs))
    check("ok" in scal(args, "check", c).stdout, "scal check passes")


def scenario_jobend(args):
    """Slurm ends a job by signalling its processes one by one, the program before scal run: a
    program that dies at the job's end may be seen dead before the runner's own SIGTERM comes. Here
    the task's third run dies (SIGTERM) at the first signal of the job's end (SIGCONT, a pass of its
    own before the SIGTERMs): the run is interrupted, not recorded as killed, the task counts as
    cancelled and --resume --slurm runs it."""
    c = cancelled_in_third_run(args, "jobend", "trap 'kill $!; kill -TERM $$' CONT; sleep 100000 & "
                               "echo running > FIFO; wait; exit 0")
    out = os.path.join(c + ".pieces", "piece-0000.out")
    with open(out) as f:
        text = f.read()
    check("killed by signal" not in text and "interrupted (not recorded)" in text,
          "the run the job's end killed is interrupted, not recorded as killed:\n" + text)
    piece = os.path.join(c + ".pieces", "piece-0000.h5")
    check(os.path.getsize(os.path.join(piece + ".runs", "runs.journal")) > 0, "the piece kept its finished runs")
    p = scal(args, "run", "--collect", c, expect=1)
    check("2 of 3 runs done" in p.stderr and "CANCELLED" in p.stderr and "2 ok, 0 not ok" in p.stderr,
          "collect: 2 runs, both ok, the task cancelled:\n" + p.stderr)
    p = scal(args, "run", "--resume", c, "--slurm")
    check("1 runs in 1 array tasks" in p.stderr and "3 of 3 runs done" in p.stderr, "resume runs the missing run:\n" + p.stderr)
    got, pairs = runs_of(c)
    check(sorted(pairs) == [(0, 0), (0, 1), (0, 2)] and all(k[4] == 0 for k in got), "three ok runs, once each: %s" % sorted(got))


# Open MPI's mpirun (the local default launcher) as root; srun is the default inside Slurm
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1", "OMPI_MCA_rmaps_base_oversubscribe": "1"}
RANKS_PLAN = ["--ranks", "1,2", "-c", "1,2", "-i", "20"]


def scenario_ranks(args):
    """--slurm --ranks 1,2 -c 1,2: every array task is allocated its runs' ranks x threads and srun
    launches the ranks in it: the same runs, ranks and region counts as without Slurm (mpirun)."""
    if not shutil.which("mpirun"):
        print("skip: no mpirun for the campaign without Slurm")
        sys.exit(77)
    local = os.path.join(args.work, "local.h5")
    scal(args, "run", *RANKS_PLAN, "-o", local, "--", args.prog, "{input}", env=MPI_ENV)
    ref = runs_of(local)[0]
    check(sorted({k[:2] for k in ref}) == [(1, 1), (1, 2), (2, 1), (2, 2)], "the local campaign has the 4 shapes: %s" % sorted(ref))
    check(all(v["(ranks with data)"] == [(r, 1) for r in range(k[0])] for k, v in ref.items()),
          "every rank of every local run left its data: %s" % ref)
    c = os.path.join(args.work, "slurm.h5")
    p = scal(args, "run", "--slurm", "--dry-run", *RANKS_PLAN, "-o", c, "--", args.prog, "{input}")
    for n, t in ((1, 1), (1, 2), (2, 1), (2, 2)):
        check("--ntasks=%d --cpus-per-task=%d" % (n, t) in p.stdout, "a job array allocated %d ranks x %d threads:\n%s" % (n, t, p.stdout))
    # the runs' command lines are the ones their array tasks will run: srun in the allocation
    cmds = [line for line in p.stdout.splitlines() if line.strip().startswith("cmd:")]
    check(len(cmds) == 4 and all(" srun --ntasks=" in line and "mpirun" not in line for line in cmds),
          "--slurm --dry-run shows srun launching the ranks:\n%s" % p.stdout)
    p = scal(args, "run", "--slurm", *RANKS_PLAN, "-o", c, "--", args.prog, "{input}")
    check("4 job arrays" in p.stderr and "4 of 4 runs done" in p.stderr and "4 ok, 0 not ok" in p.stderr, "4 runs in 4 arrays:\n" + p.stderr)
    same_runs(args, c, ref, "--slurm --ranks 1,2 -c 1,2")


def scenario_failing(args):
    """A run that fails: --slurm and --collect exit as the local campaign does (1), with the same
    run statuses."""
    wrap = os.path.join(args.work, "fail.sh")
    with open(wrap, "w") as f:  # the 2-thread runs fail (every rank), the others run the program
        f.write('t=$1; shift; [ "$t" = 2 ] && { echo "failing on purpose" >&2; exit 3; }\nexec %s "$@"\n' % args.prog)
    plan = RANKS_PLAN if shutil.which("mpirun") else RANKS_PLAN[2:]
    local = os.path.join(args.work, "local.h5")
    p = scal(args, "run", *plan, "-o", local, "--", "/bin/sh", wrap, "{threads}", "{input}", expect=None, env=MPI_ENV)
    check(p.returncode == 1, "the local campaign exits 1 (%d):\n%s" % (p.returncode, p.stderr[-1500:]))
    ref = runs_of(local)[0]
    check(sorted(k[4] != 0 for k in ref) == [False] * (len(ref) // 2) + [True] * (len(ref) // 2), "half the runs fail: %s" % sorted(ref))
    c = os.path.join(args.work, "slurm.h5")
    p = scal(args, "run", "--slurm", *plan, "-o", c, "--", "/bin/sh", wrap, "{threads}", "{input}", expect=1)
    check("%d ok, %d not ok" % (len(ref) // 2, len(ref) // 2) in p.stderr, "--slurm counts the failed runs:\n" + p.stderr)
    got = runs_of(c)[0]
    check(sorted((k, v["(ranks with data)"]) for k, v in got.items()) == sorted((k, v["(ranks with data)"]) for k, v in ref.items()),
          "the same runs and statuses as without Slurm:\n%s\n%s" % (sorted(got), sorted(ref)))
    c2 = os.path.join(args.work, "later.h5")
    scal(args, "run", "--slurm", "--no-wait", *plan, "-o", c2, "--", "/bin/sh", wrap, "{threads}", "{input}")
    p = scal(args, "run", "--collect", c2, expect=1)
    check("not ok" in p.stderr, "--collect exits 1 for the failed runs too:\n" + p.stderr)


def scenario_thenreport(args):
    """--then-report: scal returns at once; a job that depends on the arrays collects the pieces and
    reports, with no process of ours waiting."""
    c = os.path.join(args.work, "auto.h5")
    p = scal(args, "run", "--slurm", "--then-report", *PLAN, "-o", c, "--", args.prog, "{input}")
    jobs = p.stderr.split("submitted job ")
    check(len(jobs) == 3 and "collects the pieces" in jobs[2], "the arrays and the collecting job are submitted:\n" + p.stderr)
    collector = jobs[2].split(":")[0]
    wait_until("the collecting job %s ended" % collector, lambda: not squeue("-j", collector, "-o", "%T"))
    with open(c + ".collect.out") as f:
        out = f.read()
    check("8 of 8 runs done" in out, "the collecting job merged every piece:\n" + out)
    check(not os.path.exists(c + ".pieces"), "no pieces left")
    _, pairs = runs_of(c)
    check(len(set(pairs)) == 8, "8 runs in the campaign")
    report = c[:-3] + "-report"
    check(os.path.isdir(report) and os.listdir(report), "the collecting job ran scal report (%s):\n%s" % (report, out[-1500:]))


def scenario_errors(args):
    # sbatch missing: refused before anything is created
    c = os.path.join(args.work, "nosbatch.h5")
    p = scal(args, "run", "--slurm", "-c", "1", "-o", c, "--", args.prog, "20", expect=2, env={"PATH": "/nonexistent"})
    check("sbatch" in p.stderr and "PATH" in p.stderr and not os.path.exists(c), "sbatch missing: clear error, no file: " + p.stderr.strip())
    # a bad sbatch option: sbatch's own words, nothing created
    c = os.path.join(args.work, "badopt.h5")
    p = scal(args, "run", "--slurm", "--sbatch-opt=--no-such-option", "-c", "1", "-o", c, "--", args.prog, "20", expect=2)
    check("--no-such-option" in p.stderr and not os.path.exists(c) and not os.path.exists(c + ".pieces"),
          "bad --sbatch-opt: sbatch's error, no file: " + p.stderr.strip())
    # a request the cluster cannot meet (more CPUs per task than the node has)
    c = os.path.join(args.work, "toobig.h5")
    p = scal(args, "run", "--slurm", "-c", str(os.cpu_count() * 4), "-o", c, "--", args.prog, "20", expect=2)
    check("sbatch refuses" in p.stderr and not os.path.exists(c), "an impossible request: refused: " + p.stderr.strip())
    # collect on a campaign without pieces
    plain = os.path.join(args.work, "plain.h5")
    scal(args, "run", "-c", "1", "-o", plain, "--", args.prog, "20")
    p = scal(args, "run", "--collect", plain, expect=2)
    check("no Slurm pieces" in p.stderr and "plain.h5" in p.stderr, "collect without pieces: " + p.stderr.strip())
    p = scal(args, "run", "--collect", os.path.join(args.work, "missing.h5"), expect=2)
    check("missing.h5" in p.stderr, "collect of a missing file names it: " + p.stderr.strip())
    # options that need --slurm, and --collect alone
    p = scal(args, "run", "--no-wait", "-c", "1", "--", args.prog, "20", expect=2)
    check("needs --slurm" in p.stderr, "--no-wait without --slurm: " + p.stderr.strip())
    p = scal(args, "run", "--then-report", "-c", "1", "--", args.prog, "20", expect=2)
    check("--then-report needs --slurm" in p.stderr, "--then-report without --slurm: " + p.stderr.strip())
    p = scal(args, "run", "--collect", plain, "-c", "2", expect=2)
    check("takes no other option" in p.stderr, "--collect with plan options: " + p.stderr.strip())
    p = scal(args, "run", "--slurm", "--slurm-runs-per-task", "0", "--", args.prog, "20", expect=2)
    check("--slurm-runs-per-task" in p.stderr, "bad runs per task: " + p.stderr.strip())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario")
    ap.add_argument("--scal", required=True)
    ap.add_argument("--prog", required=True)
    ap.add_argument("--local-slurm", required=True)
    args = ap.parse_args()
    if os.geteuid() != 0:
        print("skip: the local Slurm needs root")
        sys.exit(77)
    args.work = tempfile.mkdtemp(prefix="scal-slurm-run-")
    cluster = tempfile.mkdtemp(prefix="scal-slurm-")
    # a pair of ports of its own (slurmctld's and slurmd's: pairs never overlap) below Linux's
    # ephemeral range (32768 and up), where other programs' outgoing connections could hold it
    env = dict(os.environ, SCAL_SLURM_PORT=str(20000 + os.getpid() % 6000 * 2))
    if args.scenario in ("ranks", "failing"):  # 2 ranks x 2 threads time-share this machine's CPUs
        env["SCAL_SLURM_CPUS"] = str(max(4, os.cpu_count()))
    up = subprocess.run(["bash", args.local_slurm, "up", cluster], capture_output=True, text=True, env=env)
    if up.returncode == 77:
        print("skip: slurm-wlm/munge cannot be installed here: " + up.stderr.strip())
        sys.exit(77)
    try:
        check(up.returncode == 0 and "SLURM_CONF=" in up.stdout, "local Slurm up: " + up.stderr[-1500:])
        os.environ["SLURM_CONF"] = up.stdout.strip().split("SLURM_CONF=")[1]
        globals()["scenario_" + args.scenario](args)
    finally:
        subprocess.run(["bash", args.local_slurm, "down", cluster], env=env, capture_output=True)
        shutil.rmtree(args.work, ignore_errors=True)
    print("PASS: slurm." + args.scenario)


if __name__ == "__main__":
    main()
