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
    """(threads, input, repetition, status) -> {region name: count} for every run, and the list of
    (config, repetition) pairs (duplicates visible)."""
    with h5py.File(path, "r") as f:
        strings = [s.decode() if isinstance(s, bytes) else s for s in f["strings"][()]]
        configs, runs = f["configs"][()], f["runs"][()]
        regions, stats = f["regions"][()], f["region_stats"][()]
        name = {int(r["id"]): strings[r["name"]] for r in regions}
        out, pairs = {}, []
        for r in runs:
            c = configs[r["config"]]
            key = (int(c["threads"]), strings[c["input_label"]], int(r["repetition"]), int(r["status"]))
            counts = {}
            for s in stats[stats["run"] == r["id"]]:
                counts[name[int(s["region"])]] = int(s["count"])
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
    check(len(pairs) == 8 and len(set(pairs)) == 8, "%s: 8 runs, each (configuration, repetition) once: %s" % (what, sorted(pairs)))
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
        f.write('if mkdir %s 2>/dev/null; then echo running > %s; exec sleep 100000; fi\nexec %s "$@"\n' % (lock, fifo, args.prog))
    c = os.path.join(args.work, "cancel.h5")
    p = scal(args, "run", "--slurm", "--no-wait", *PLAN, "-o", c, "--", "/bin/sh", wrap, "{input}")
    job = p.stderr.split("submitted job ")[1].split(":")[0]
    with open(fifo) as f:  # the blocked run is under way
        check(f.read().strip() == "running", "a run blocks in its array task")
    running = squeue("-j", job, "-t", "RUNNING", "-o", "%i")
    check(len(running) == 1, "one array task runs: %s" % running)
    subprocess.run(["scancel", running[0]], check=True)
    wait_until("job %s left the queue" % job, lambda: not squeue("-j", job, "-o", "%T"))
    p = scal(args, "run", "--resume", c, expect=2)
    check("not collected yet" in p.stderr, "a plain --resume of uncollected pieces is refused: " + p.stderr.strip())
    p = scal(args, "run", "--collect", c, expect=1)
    check("7 of 8 runs done" in p.stderr and "--resume" in p.stderr, "collect says a run is missing and how to run it:\n" + p.stderr)
    task = running[0].split("_")[1]
    check(os.path.exists(os.path.join(c + ".pieces", "failed-%s_%s.out" % (job, task))), "the cancelled task's output is kept")
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
    check("3 array tasks" in p.stderr and "scal run --collect" in p.stderr, "--no-wait submits 3 tasks of at most 3 runs and says how to collect:\n" + p.stderr)
    check(os.path.exists(c), "the campaign file exists, complete with its plan, before the job runs")
    p = scal(args, "run", "--collect", c)
    check("8 of 8 runs done" in p.stderr, "--collect waits for the job and merges its pieces")
    same_runs(args, c, ref, "--no-wait + --collect")
    p = scal(args, "run", "--collect", c, expect=2)
    check("no Slurm pieces" in p.stderr, "collecting twice: nothing to collect: " + p.stderr.strip())


def scenario_damaged(args):
    """A task cancelled in its third run, its piece then damaged: the collection rebuilds the piece
    from the runs it kept, and --resume --slurm runs the one missing run."""
    fifo, work = os.path.join(args.work, "fifo"), args.work
    os.mkfifo(fifo)
    wrap = os.path.join(work, "wrap.sh")
    with open(wrap, "w") as f:
        f.write('n=0; while ! mkdir %s/started-$n 2>/dev/null; do n=$((n+1)); done\n'
                'if [ $n -eq 2 ]; then echo running > %s; exec sleep 100000; fi\nexec %s "$@"\n' % (work, fifo, args.prog))
    c = os.path.join(work, "damaged.h5")
    p = scal(args, "run", "--slurm", "--no-wait", "--slurm-runs-per-task", "3", "-c", "1", "-r", "3", "-i", "20",
             "-o", c, "--", "/bin/sh", wrap, "{input}")
    job = p.stderr.split("submitted job ")[1].split(":")[0]
    with open(fifo) as f:
        check(f.read().strip() == "running", "the task's third run is under way")
    subprocess.run(["scancel", job], check=True)
    wait_until("job %s left the queue" % job, lambda: not squeue("-j", job, "-o", "%T"))
    piece = os.path.join(c + ".pieces", "piece-0000.h5")
    check(os.path.getsize(os.path.join(piece + ".runs", "runs.journal")) > 0, "the piece kept its finished runs")
    with open(piece, "wb") as f:
        f.write(b"damaged")
    p = scal(args, "run", "--collect", c, expect=1)
    check("2 of 3 runs done" in p.stderr, "the damaged piece was rebuilt from its kept runs and merged:\n" + p.stderr)
    p = scal(args, "run", "--resume", c, "--slurm")
    check("1 runs in 1 array tasks" in p.stderr and "3 of 3 runs done" in p.stderr, "resume runs the missing run:\n" + p.stderr)
    _, pairs = runs_of(c)
    check(sorted(pairs) == [(0, 0), (0, 1), (0, 2)], "three repetitions, once each: %s" % sorted(pairs))
    check("ok" in scal(args, "check", c).stdout, "scal check passes")


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
    env = dict(os.environ, SCAL_SLURM_PORT=str(20000 + os.getpid() % 20000))
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
