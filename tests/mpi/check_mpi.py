# SPDX-License-Identifier: BSD-3-Clause
# MPI + OpenMP under Debian's Open MPI: the tool's per-rank run files, scal run --ranks campaigns
# (exact region counts per rank, the critical path and the rank summary), a killed rank, resume,
# merge and the launcher template. Files are read with h5py.
#
#   check_mpi.py SCENARIO --scal SCAL --tool LIBSCAL_OMPT --demo SCAL_DEMO [--prog HYBRID --mpirun MPIRUN]
import argparse
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from scal_check import check, fail  # noqa: E402  (tests/scal_check.py)

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hybrid_prog.c")
# Open MPI refuses root unless told; this machine's tests run as root
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1", "OMP_WAIT_POLICY": "passive",
           "OMPI_MCA_rmaps_base_oversubscribe": "1"}
N = "20000"


def line_of(marker):
    with open(SOURCE) as f:
        for n, line in enumerate(f, 1):
            if marker in line:
                return n
    fail("no marker " + marker)


WORK_LINE = line_of("#pragma omp parallel for reduction")
ONCE_LINE = line_of("#pragma omp parallel /* once per rank */")


def run(args, cmd, expect=0, env=None, timeout=600):
    e = dict(os.environ, **MPI_ENV)
    e.update(env or {})
    p = subprocess.run(cmd, capture_output=True, text=True, env=e, timeout=timeout, cwd=args.work)
    if expect is not None:
        check(p.returncode == expect, "%s -> exit %d (expected %d)\nstderr: %s" % (" ".join(cmd[:4]), p.returncode, expect, p.stderr[-2000:]))
    return p


def scal(args, *cmd, **kw):
    return run(args, [args.scal] + list(cmd), **kw)


def strings(f):
    return [s.decode() if isinstance(s, bytes) else s for s in f["strings"][()]]


def run_file_counts(path):
    """{line_first: count} of a run file's parallel regions, and its /meta."""
    with h5py.File(path, "r") as f:
        regs = f["regions"][()]
        meta = dict(f["meta"].attrs)
    return {int(r["line_first"]): int(r["count"]) for r in regs if r["kind"] == 1}, meta


def attr(meta, name):
    v = meta[name]
    return v.decode() if isinstance(v, bytes) else v


# ---- scenarios -----------------------------------------------------------------------------------

def scenario_detect(args):
    """Rank detection from each launcher's variables, with a program that has no MPI at all."""
    cases = [({"OMPI_COMM_WORLD_RANK": "1", "OMPI_COMM_WORLD_SIZE": "4"}, 1, 4, "OMPI_COMM_WORLD_RANK"),
             ({"PMI_RANK": "2", "PMI_SIZE": "3"}, 2, 3, "PMI_RANK"),
             ({"PMIX_RANK": "3", "SLURM_NTASKS": "8"}, 3, 8, "PMIX_RANK"),
             ({"SLURM_PROCID": "1", "SLURM_STEP_NUM_TASKS": "2"}, 1, 2, "SLURM_PROCID"),
             # a batch script (no job step) is not a rank; neither are bad values
             ({"SLURM_PROCID": "0", "SLURM_NTASKS": "1"}, -1, -1, ""),
             ({"OMPI_COMM_WORLD_RANK": "x1"}, -1, -1, ""),
             ({"PMI_RANK": "-1"}, -1, -1, "")]
    for env, rank, size, source in cases:
        d = tempfile.mkdtemp(dir=args.work)
        e = {"OMP_TOOL_LIBRARIES": args.tool, "SCAL_OUTPUT": d + "/", "OMP_NUM_THREADS": "2"}
        e.update(env)
        run(args, [args.demo, "5"], env=e)
        files = os.listdir(d)
        check(len(files) == 1, "%s: one run file (%s)" % (env, files))
        name = files[0]
        want = "scal-scal_demo-r%d-" % rank if rank >= 0 else "scal-scal_demo-"
        check(name.startswith(want) and (rank >= 0 or "-r" not in name[len(want):]), "%s: file name %s starts with %s" % (env, name, want))
        _, meta = run_file_counts(os.path.join(d, name))
        check((int(meta["mpi_rank"]), int(meta["mpi_size"]), attr(meta, "mpi_rank_source")) == (rank, size, source),
              "%s: /meta mpi_rank %d, mpi_size %d, source '%s'" % (env, rank, size, source))
    # a file name in SCAL_OUTPUT: one per rank beside it
    e = {"OMP_TOOL_LIBRARIES": args.tool, "SCAL_OUTPUT": os.path.join(args.work, "named.h5"), "PMI_RANK": "5"}
    run(args, [args.demo, "5"], env=e)
    check(os.path.exists(os.path.join(args.work, "named.rank5.h5")) and not os.path.exists(os.path.join(args.work, "named.h5")),
          "SCAL_OUTPUT=named.h5 under rank 5 writes named.rank5.h5")
    run(args, [args.scal, "check", "named.rank5.h5"])


def scenario_sh_launcher(args):
    """scal run --ranks with a launcher that is no MPI at all: a shell starting the (plain OpenMP)
    program once per rank with PMI_RANK/PMI_SIZE, as a PMI launcher would. Runs everywhere (also
    under the sanitizers): the ranked commit, critical path and per-rank rows without Open MPI."""
    launcher = ("sh -c 'i=0; pids=; while [ $i -lt {ranks} ]; do PMI_RANK=$i PMI_SIZE={ranks} \"$0\" \"$@\" & "
                "pids=\"$pids $!\"; i=$((i+1)); done; s=0; for p in $pids; do wait $p || s=1; done; exit $s'")
    scal(args, "run", "--ranks", "1,3", "-c", "1,2", "--launcher", launcher, "-o", "sh.h5", "--", args.demo, "5")
    with h5py.File(os.path.join(args.work, "sh.h5"), "r") as f:
        st = strings(f)
        config_ranks = {int(r["config"]): int(r["ranks"]) for r in f["config_ranks"][()]}
        runs = f["runs"][()]
        run_ranks = f["run_ranks"][()]
        rank_stats = f["rank_region_stats"][()]
        stats = f["region_stats"][()]
        summary = f["region_rank_summary"][()]
    check(sorted(config_ranks[int(r["config"])] for r in runs) == [1, 1, 3, 3] and all(int(r["status"]) == 0 for r in runs),
          "4 runs ok: 1 and 3 ranks x 1 and 2 threads")
    for r in runs:
        n = config_ranks[int(r["config"])]
        rows = sorted((int(x["rank"]), int(x["ranks"]), int(x["recorded"]), st[x["source"]]) for x in run_ranks if x["run"] == r["id"])
        check(rows == [(k, n, 1, "PMI_RANK") for k in range(n)], "run %d: ranks 0..%d recorded from PMI_RANK" % (r["id"], n - 1))
        per = [x for x in rank_stats if x["run"] == r["id"]]
        crit = [x for x in stats if x["run"] == r["id"]]
        check(len(per) == n * len(crit) and len(summary[summary["run"] == r["id"]]) == len(crit),
              "run %d: every rank's rows (%d) and one summary row per critical-path row (%d)" % (r["id"], len(per), len(crit)))
    run(args, [args.scal, "check", "sh.h5"])
    scal(args, "merge", "sh.h5", "-o", "sh-merged.h5")
    run(args, [args.scal, "check", "sh-merged.h5"])
    with h5py.File(os.path.join(args.work, "sh-merged.h5"), "r") as f:
        check(len(f["rank_region_stats"]) == len(rank_stats) and len(f["run_ranks"]) == len(run_ranks),
              "scal merge carries every rank's rows")
    p = scal(args, "show", "sh.h5", "--per-rank", "--csv")
    check(len(p.stdout.splitlines()) == 1 + len(rank_stats), "scal show --per-rank: a row per rank row")


def need_mpi(args):
    if not args.prog or not args.mpirun:
        print("skipped: no MPI found at configure time (scripts/install-deps.sh installs openmpi-bin libopenmpi-dev)")
        sys.exit(77)


def scenario_tool(args):
    """Direct use: mpirun -np 2 with the tool; one file per rank, exact counts per rank."""
    need_mpi(args)
    for threads in ("1", "2"):
        d = tempfile.mkdtemp(dir=args.work)
        run(args, [args.mpirun, "-np", "2", args.prog, N],
            env={"OMP_TOOL_LIBRARIES": args.tool, "SCAL_OUTPUT": d + "/", "OMP_NUM_THREADS": threads})
        files = sorted(os.listdir(d))
        check(len(files) == 2 and files[0].startswith("scal-mpi_hybrid_prog-r0-") and files[1].startswith("scal-mpi_hybrid_prog-r1-"),
              "%s threads: one file per rank (%s)" % (threads, files))
        for rank, name in enumerate(files):
            counts, meta = run_file_counts(os.path.join(d, name))
            check(counts.get(WORK_LINE) == 3 + rank and counts.get(ONCE_LINE) == 1,
                  "%s threads, rank %d: the work region ran %d times, the other once (%s)" % (threads, rank, 3 + rank, counts))
            check((int(meta["mpi_rank"]), int(meta["mpi_size"]), attr(meta, "mpi_rank_source")) == (rank, 2, "OMPI_COMM_WORLD_RANK"),
                  "%s threads, rank %d: /meta says rank %d of 2 from OMPI_COMM_WORLD_RANK" % (threads, rank, rank))
            check(int(meta["max_team_observed"]) == int(threads), "rank %d: team of %s" % (rank, threads))
        run(args, [args.scal, "check"] + [os.path.join(d, x) for x in files])


class Campaign:
    def __init__(self, path):
        self.f = h5py.File(path, "r")
        self.strings = strings(self.f)
        self.configs = self.f["configs"][()]
        self.runs = self.f["runs"][()]
        self.regions = self.f["regions"][()]
        self.stats = self.f["region_stats"][()]
        self.config_ranks = {int(r["config"]): int(r["ranks"]) for r in self.f["config_ranks"][()]}
        self.run_ranks = self.f["run_ranks"][()] if "run_ranks" in self.f else []
        self.rank_stats = self.f["rank_region_stats"][()] if "rank_region_stats" in self.f else []
        self.summary = self.f["region_rank_summary"][()] if "region_rank_summary" in self.f else []
        self.f.close()  # scal run --resume must be able to open it for writing

    def region(self, line):
        ids = [int(r["id"]) for r in self.regions if r["kind"] == 1 and r["line_first"] == line]
        check(len(ids) == 1, "one campaign region at line %d" % line)
        return ids[0]

    def ranks_of(self, run):
        return self.config_ranks[int(run["config"])]


def check_ranked_run(c, run, ranks, threads, recorded):
    rid = int(run["id"])
    work, once = c.region(WORK_LINE), c.region(ONCE_LINE)
    rows = [r for r in c.run_ranks if r["run"] == rid]
    check(sorted((int(r["rank"]), int(r["recorded"])) for r in rows) == [(k, int(k in recorded)) for k in range(ranks)],
          "run %d: /run_ranks lists ranks 0..%d, recorded %s" % (rid, ranks - 1, recorded))
    for r in rows:
        if r["recorded"]:
            check(int(r["ranks"]) == ranks and c.strings[r["source"]] == "OMPI_COMM_WORLD_RANK" and r["duration_s"] > 0,
                  "run %d rank %d: job of %d ranks, from OMPI_COMM_WORLD_RANK, its duration" % (rid, r["rank"], ranks))
        else:
            check(math.isnan(r["duration_s"]), "run %d rank %d: not recorded, no duration" % (rid, r["rank"]))
    per_rank = {}
    for s in c.rank_stats:
        if s["run"] == rid:
            per_rank[(int(s["rank"]), int(s["region"]))] = s
    for k in recorded:
        check(int(per_rank[(k, work)]["count"]) == 3 + k and int(per_rank[(k, once)]["count"]) == 1,
              "run %d (%d ranks x %d threads) rank %d: work region %d instances, the other 1" % (rid, ranks, threads, k, 3 + k))
        check(int(per_rank[(k, work)]["team_actual_max"]) == threads, "run %d rank %d: team of %d" % (rid, k, threads))
    check({k for k, _ in per_rank} == set(recorded), "run %d: per-rank rows of exactly the recorded ranks" % rid)
    # the critical path: /region_stats is the row of the slowest rank, the summary agrees
    for reg in (work, once):
        summ = [s for s in c.summary if s["run"] == rid and s["region"] == reg]
        check(len(summ) == 1, "run %d region %d: one summary row" % (rid, reg))
        s = summ[0]
        times = [float(per_rank[(k, reg)]["time_total_s"]) for k in recorded]
        crit = int(s["critical_rank"])
        check(int(s["ranks"]) == len(recorded) and float(s["rank_time_max_s"]) == max(times) and float(s["rank_time_min_s"]) == min(times)
              and abs(float(s["rank_time_mean_s"]) - sum(times) / len(times)) < 1e-12
              and float(per_rank[(crit, reg)]["time_total_s"]) == max(times),
              "run %d region %d: summary max/min/mean over %d ranks, critical rank %d is the slowest" % (rid, reg, len(recorded), crit))
        check(abs(float(s["rank_imbalance"]) - (1 - float(s["rank_time_mean_s"]) / float(s["rank_time_max_s"]))) < 1e-12,
              "run %d region %d: rank imbalance = 1 - mean/max" % (rid, reg))
        st = [x for x in c.stats if x["run"] == rid and x["region"] == reg]
        check(len(st) == 1 and int(st[0]["count"]) == int(per_rank[(crit, reg)]["count"]) and float(st[0]["time_total_s"]) == max(times),
              "run %d region %d: /region_stats holds the critical rank's row" % (rid, reg))


def scenario_campaign(args):
    """1 and 2 ranks x 1 and 2 threads through scal run --ranks (default launcher)."""
    need_mpi(args)
    p = scal(args, "run", "--ranks", "1,2", "-c", "1,2", "-o", "c.h5", "--", args.prog, N)
    check("ranks=2 threads=2" in p.stderr, "progress names ranks and threads")
    c = Campaign(os.path.join(args.work, "c.h5"))
    keys = sorted((c.config_ranks[int(r["config"])], int(c.configs[r["config"]]["threads"]), int(r["status"])) for r in c.runs)
    check(keys == [(1, 1, 0), (1, 2, 0), (2, 1, 0), (2, 2, 0)], "4 runs ok: ranks x threads = %s" % keys)
    for cfg in c.configs:
        argv = c.strings[cfg["argv"]]
        check(argv.startswith("mpirun -np %d " % c.config_ranks[int(cfg["id"])]), "config %d runs '%s'" % (cfg["id"], argv))
    for r in c.runs:
        ranks = c.ranks_of(r)
        threads = int(c.configs[r["config"]]["threads"])
        check(int(r["team_observed"]) == threads and not r["team_mismatch"], "run %d: team %d observed" % (r["id"], threads))
        check_ranked_run(c, r, ranks, threads, list(range(ranks)))
    run(args, [args.scal, "check", "c.h5"])
    # scal check validates the rank tables: a summary naming a rank without rows, a run that is not
    shutil.copy(os.path.join(args.work, "c.h5"), os.path.join(args.work, "bad.h5"))
    with h5py.File(os.path.join(args.work, "bad.h5"), "r+") as f:
        s = f["region_rank_summary"][()]
        s[0]["critical_rank"] = 7
        f["region_rank_summary"][0] = s[0]
        r = f["run_ranks"][()]
        r[0]["run"] = 99
        f["run_ranks"][0] = r[0]
    p = run(args, [args.scal, "check", "bad.h5"], expect=1)
    check("critical rank 7 has no row" in p.stdout and "/run_ranks row 0: run 99 does not exist" in p.stdout,
          "scal check names the bad rank rows:\n" + p.stdout)
    check(not os.path.exists(os.path.join(args.work, "c.h5.runs")), "the kept runs (rank files included) are gone once complete")
    # scal show: a ranks column, and --per-rank
    p = scal(args, "show", "c.h5", "--csv")
    head = p.stdout.splitlines()[0].split(",")
    check("ranks" in head, "scal show --csv has a ranks column")
    p = scal(args, "show", "c.h5", "--csv", "--per-rank")
    lines = p.stdout.splitlines()
    head = lines[0].split(",")
    check("rank" in head, "scal show --per-rank has a rank column")
    rows = [dict(zip(head, l.split(","))) for l in lines[1:]]
    work_rows = [r for r in rows if r.get("line_begin") == str(WORK_LINE)]
    check(sorted((r["ranks"], r["rank"], r["count"]) for r in work_rows) ==
          sorted([("1", "0", "3")] * 2 + [("2", "0", "3"), ("2", "1", "4")] * 2),
          "scal show --per-rank: the work region's count per rank of every run")
    # exports
    scal(args, "export", "c.h5", "--format", "csv", "-o", "c.csv")
    with open(os.path.join(args.work, "c.csv")) as f:
        head = f.readline().strip().split(",")
    check("ranks" in head and "rank_imbalance" in head, "export csv has ranks and rank_imbalance")
    scal(args, "export", "c.h5", "--format", "extrap", "-o", "c.jsonl")
    with open(os.path.join(args.work, "c.jsonl")) as f:
        params = {(l["params"]["ranks"], l["params"]["threads"]) for l in map(json.loads, f)}
    check(params == {(1, 1), (1, 2), (2, 1), (2, 2)}, "export extrap: ranks and threads as parameters")
    scal(args, "export", "c.h5", "--format", "hatchet", "-o", "c.json")
    with open(os.path.join(args.work, "c.json")) as f:
        trees = json.load(f)
    check(sorted((t["metrics"]["ranks"], t["metrics"]["threads"]) for t in trees) == [(1, 1), (1, 2), (2, 1), (2, 2)]
          and all("rank imbalance" in t["metrics"] for t in trees), "export hatchet: a tree per (ranks, threads) with the rank imbalance")
    # scal report: the diagrams' axis is cores = ranks x threads
    scal(args, "report", "c.h5", "-o", "c-report")
    with open(os.path.join(args.work, "c-report", "summary.txt")) as f:
        summary = f.read()
    check("cores = ranks x threads" in summary, "the report says its axis is cores = ranks x threads")
    with h5py.File(os.path.join(args.work, "c.h5"), "r") as f:
        cores = sorted(int(x) for x in f["analysis/threads"][()])
    check(cores == [1, 2, 4], "/analysis over cores 1, 2, 4 (ranks 1,2 x threads 1,2): %s" % cores)
    # --axes ranks,threads: threads across, the rank counts in place of the inputs
    scal(args, "report", "c.h5", "--axes", "ranks,threads", "--no-write", "-o", "c-axes")
    with open(os.path.join(args.work, "c-axes", "csv", "r000-whole_program", "efficiency.csv")) as f:
        rows = [l.strip().split(",") for l in f]
    check(rows[0][1:] == ["1", "2"] and [r[0] for r in rows[1:]] == ["1 ranks", "2 ranks"],
          "--axes ranks,threads: threads 1, 2 across, 1 and 2 ranks up: %s" % rows)
    with open(os.path.join(args.work, "c-axes", "summary.txt")) as f:
        summary = f.read()
    check("rank counts (MPI, --axes ranks,threads): 2;" in summary and "inputs:" not in summary,
          "--axes ranks,threads: summary.txt counts rank counts, not inputs")
    empty = [l for l in summary.splitlines() if re.search(r"input\s*$|input ''|\binput \d+ ranks", l)]
    check(not empty, "--axes ranks,threads: no note ends in an empty input label or calls ranks an input: %s"
          % empty[:3])
    p = scal(args, "report", "c.h5", "--axes", "threads", "--no-write", "-o", "c-bad", expect=2)
    check("bad --axes 'threads'" in p.stderr, "a bad --axes is a usage error")
    # the Python package
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
    os.environ.setdefault("SCAL_EXECUTABLE", args.scal)  # the package validates through scal check
    import scal as scalpy
    df = scalpy.load(os.path.join(args.work, "c.h5"))
    check(sorted(df.groupby("run")["ranks"].first().tolist()) == [1, 1, 2, 2], "scal.load: a ranks column per run")
    work = df[df.line_begin == WORK_LINE]
    # one rank: its count; two: the slowest rank's (which one is slower is the machine's business)
    check(work[work.ranks == 1]["count"].tolist() == [3, 3] and set(work[work.ranks == 2]["count"].tolist()) <= {3, 4},
          "scal.load: the work region's count per run (the critical path's)")
    check(work[work.ranks == 1].rank_imbalance.tolist() == [0.0, 0.0] and (work[work.ranks == 2].rank_imbalance >= 0).all(),
          "scal.load: rank_imbalance 0 with one rank, >= 0 with two")
    pr = scalpy.load(os.path.join(args.work, "c.h5"), per_rank=True)
    pw = pr[pr.line_begin == WORK_LINE]
    check(sorted(zip(pw.ranks.tolist(), pw["rank"].tolist(), pw["count"].tolist())) ==
          sorted([(1, 0, 3)] * 2 + [(2, 0, 3), (2, 1, 4)] * 2), "scal.load(per_rank=True): every rank's count")


def scenario_killed(args):
    """A rank killed (SIGKILL) after its regions: the run is recorded failed with the other rank's
    data. The ranks synchronise on MPI messages; the survivor, stopped by Open MPI with SIGTERM, writes
    its run file in the grace period before SIGKILL (odls_base_sigkill_timeout, 1 s by default, raised
    here for a loaded machine: Open MPI waits all of it)."""
    need_mpi(args)
    launcher = "mpirun --mca odls_base_sigkill_timeout '10' -np {ranks}"
    p = scal(args, "run", "--ranks", "2", "-c", "2", "--launcher", launcher, "-o", "k.h5", "--", args.prog, N,
             expect=1, env={"HYBRID_KILL_RANK": "1"})
    c = Campaign(os.path.join(args.work, "k.h5"))
    check(len(c.runs) == 1 and all(int(r["status"]) != 0 for r in c.runs), "both runs recorded as not ok (%s)" % [int(r["status"]) for r in c.runs])
    for r in c.runs:
        check_ranked_run(c, r, 2, int(c.configs[r["config"]]["threads"]), [0])
        check("1 of 2 ranks left no run file (rank 1); the others' data is kept" in c.strings[r["message"]],
              "run %d: the message names the missing rank: %s" % (r["id"], c.strings[r["message"]]))
        check("signal 9" in c.strings[r["stderr_tail"]] or "Killed" in c.strings[r["stderr_tail"]],
              "run %d: the launcher's output about the killed rank is kept" % r["id"])
    run(args, [args.scal, "check", "k.h5"])


def scenario_killed_default(args):
    """A 4-rank run under Open MPI's DEFAULT kill sequence (no odls_base_sigkill_timeout: SIGTERM to
    the survivors, SIGKILL shortly after) with rank 1 killed: the 3 other ranks' data is kept. Each
    survivor must have its run file written (by the tool's pre-started writer) before the SIGKILL."""
    need_mpi(args)
    env = {"HYBRID_KILL_RANK": "1"}
    for k in [k for k in os.environ if k.startswith("OMPI_MCA_odls")]:
        env[k] = ""  # nothing of the environment lengthens the grace period either
    p = scal(args, "run", "--ranks", "4", "-c", "1", "-o", "kd.h5", "--", args.prog, N, expect=1, env=env)
    c = Campaign(os.path.join(args.work, "kd.h5"))
    check(len(c.runs) == 1 and int(c.runs[0]["status"]) != 0, "the run is recorded as not ok")
    check_ranked_run(c, c.runs[0], 4, 1, [0, 2, 3])
    check("1 of 4 ranks left no run file (rank 1); the others' data is kept" in c.strings[c.runs[0]["message"]],
          "the message names the one missing rank: %s" % c.strings[c.runs[0]["message"]])
    run(args, [args.scal, "check", "kd.h5"])


def scenario_all_terminated(args):
    """Every rank of a 3-rank run ends by SIGTERM at once (a cancelled job): each rank, its own data
    kept, waits for the others' files before it dies (ompt_tool/record/rank_wait.h). The wait's bound is
    set far beyond the test's time limit: the run ends only because the wait saw the 2 other files."""
    need_mpi(args)
    env = {"HYBRID_TERM_ALL": "1", "SCAL_RANK_WAIT_MS": "180000"}
    scal(args, "run", "--ranks", "3", "-c", "1", "-o", "t.h5", "--", args.prog, N, expect=1, env=env, timeout=120)
    c = Campaign(os.path.join(args.work, "t.h5"))
    check(len(c.runs) == 1 and int(c.runs[0]["status"]) != 0, "the run is recorded as not ok")
    check_ranked_run(c, c.runs[0], 3, 1, [0, 1, 2])
    run(args, [args.scal, "check", "t.h5"])


def runner_progress(proc, n):
    while True:
        line = proc.stderr.readline()
        check(line != "", "the runner reports %d finished runs before it ends" % n)
        if line.startswith("scal run: %d/" % n):
            return


def scenario_resume(args):
    """Interrupted after its first run, --resume runs exactly the missing ranks configuration."""
    need_mpi(args)
    e = dict(os.environ, **MPI_ENV)
    proc = subprocess.Popen([args.scal, "run", "--ranks", "1,2", "-c", "1", "--idle", "600", "-o", "r.h5", "--", args.prog, N],
                            cwd=args.work, env=e, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    runner_progress(proc, 1)  # the first run is committed; the runner now idles
    proc.send_signal(signal.SIGINT)
    check(proc.wait(timeout=300) == 130, "interrupted: exit 130")
    c = Campaign(os.path.join(args.work, "r.h5"))
    check(len(c.runs) == 1 and c.ranks_of(c.runs[0]) == 1, "one run (1 rank) before the resume")
    scal(args, "run", "--resume", "r.h5")
    c = Campaign(os.path.join(args.work, "r.h5"))
    check(sorted(c.ranks_of(r) for r in c.runs) == [1, 2], "after --resume: runs of 1 and 2 ranks")
    for r in c.runs:
        check_ranked_run(c, r, c.ranks_of(r), 1, list(range(c.ranks_of(r))))
    run(args, [args.scal, "check", "r.h5"])


def scenario_merge(args):
    """Two campaigns (1 rank, 2 ranks) merged: configurations kept apart by ranks, rank rows carried."""
    need_mpi(args)
    scal(args, "run", "--ranks", "1", "-c", "2", "-o", "a.h5", "--", args.prog, N)
    scal(args, "run", "--ranks", "2", "-c", "2", "-o", "b.h5", "--", args.prog, N)
    scal(args, "merge", "a.h5", "b.h5", "-o", "m.h5")
    c = Campaign(os.path.join(args.work, "m.h5"))
    check(sorted(c.config_ranks.values()) == [1, 2], "merged: configurations of 1 and 2 ranks")
    for r in c.runs:
        check_ranked_run(c, r, c.ranks_of(r), 2, list(range(c.ranks_of(r))))
    run(args, [args.scal, "check", "m.h5"])


def scenario_launcher(args):
    """The template: shell-like quoting, placeholders, refusals."""
    need_mpi(args)
    p = scal(args, "run", "--dry-run", "--ranks", "2", "-c", "3", "--launcher",
             "mpirun -x 'SCAL_TAG=a b' --map-by \"ppr:{ranks}:node:pe={threads}\" -np {ranks}", "--", args.prog, N)
    check("cmd: mpirun -x 'SCAL_TAG=a b' --map-by ppr:2:node:pe=3 -np 2 %s %s" % (args.prog, N) in p.stdout,
          "dry run: quoted words kept whole, {ranks} and {threads} filled in:\n" + p.stdout)
    for bad, why in (("mpirun $(id) -np {ranks}", "command substitution"), ("mpirun `id`", "command substitution"),
                     ("mpirun 'unbalanced", "syntax"), ("mpirun -np {ranks}; rm x", "quote it"),
                     ("mpirun $SCAL_SURELY_UNDEFINED_VAR", "undefined")):
        p = scal(args, "run", "--ranks", "2", "--launcher", bad, "-o", "bad.h5", "--", args.prog, expect=2)
        check(why in p.stderr and "bad --launcher" in p.stderr, "'%s' refused: %s" % (bad, p.stderr.strip()))
    check(not os.path.exists(os.path.join(args.work, "bad.h5")), "nothing created for a bad template")
    p = scal(args, "run", "--launcher", "srun -n {ranks}", "-o", "bad.h5", "--", args.prog, expect=2)
    check("--launcher needs --ranks" in p.stderr, "--launcher without --ranks refused")
    p = scal(args, "run", "--ranks", "0", "-o", "bad.h5", "--", args.prog, expect=2)
    check("bad rank list" in p.stderr, "--ranks 0 refused")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario")
    ap.add_argument("--scal", required=True)
    ap.add_argument("--tool", required=True)
    ap.add_argument("--demo", required=True)
    ap.add_argument("--prog")
    ap.add_argument("--mpirun")
    args = ap.parse_args()
    args.work = tempfile.mkdtemp(prefix="scal-mpi-")
    try:
        globals()["scenario_" + args.scenario](args)
    finally:
        shutil.rmtree(args.work, ignore_errors=True)
    print("all checks passed")


if __name__ == "__main__":
    main()
