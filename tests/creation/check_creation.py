#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Every file scal writes is created exclusively and written through what created it, never
# re-opened by name: each writer runs under strace, and no open of a path in the work directory
# truncates (O_TRUNC), creates without O_EXCL, or opens for writing a name created earlier (the
# window in which the name could be replaced). The writers: the tool's run file (writer program;
# the snapshot file when detached), scal run (campaign, journal, run files, reserve), scal report
# (the analysis file and every output), merge, export, and the Slurm submission (job.sh, slices,
# pieces) with its array tasks, against a stand-in sbatch. Not covered: `scal run --collect`
# (runner/merge.c add_pieces copies the campaign exclusively, then HDF5 opens the copy by name to
# add the pieces' runs).
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL:", what)


CALL = re.compile(r'^(\d+) +(open|openat|creat)\((?:AT_FDCWD|-?\d+), "([^"]*)"(?:, ([A-Z_|0-9]+))?')
RESUMED = re.compile(r'^(\d+) +<\.\.\. (open|openat|creat) resumed>.*= (-?\d+)')
DONE = re.compile(r'= (-?\d+)(?: [A-Z]+)?(?: \(.*\))?$')


def opens(log, cwd):
    """(path, flags, ok) of every open in the trace, in order; relative paths against cwd."""
    out, pending = [], {}
    with open(log) as f:
        for line in f:
            line = line.rstrip("\n")
            m = CALL.match(line)
            if m:
                pid, call, path, flags = m.group(1), m.group(2), m.group(3), m.group(4) or ""
                if call == "creat":
                    flags = "O_WRONLY|O_CREAT|O_TRUNC"
                entry = [os.path.normpath(os.path.join(cwd, path)), flags, True]
                out.append(entry)
                if line.endswith("<unfinished ...>"):
                    pending[pid] = entry
                else:
                    d = DONE.search(line)
                    entry[2] = bool(d) and int(d.group(1)) >= 0
                continue
            m = RESUMED.match(line)
            if m and m.group(1) in pending:
                pending.pop(m.group(1))[2] = int(m.group(3)) >= 0
    return out


def traced(args, name, cmd, env=None, cwd=None, expect=0):
    """Runs cmd under strace; checks the rules on the opens of paths in the work directory."""
    log = os.path.join(args.logs, name + ".strace")
    full = ["strace", "-f", "-qq", "-o", log, "-e", "trace=open,openat,creat"] + cmd
    p = subprocess.run(full, env=dict(os.environ, **(env or {})), cwd=cwd or args.work,
                       capture_output=True, text=True, timeout=600)
    check(p.returncode == expect, "%s: exit %d (want %d): %s" % (name, p.returncode, expect,
                                                                 p.stderr.strip()[-600:]))
    seen = [o for o in opens(log, cwd or args.work) if o[0].startswith(args.work + "/")]
    created = set()
    nwrites = 0
    for path, flags, ok in seen:
        f = set(flags.split("|"))
        writes = bool(f & {"O_WRONLY", "O_RDWR"})
        nwrites += ok and writes
        check("O_TRUNC" not in f, "%s: %s opened with O_TRUNC (%s)" % (name, path, flags))
        check("O_CREAT" not in f or "O_EXCL" in f,
              "%s: %s created without O_EXCL (%s)" % (name, path, flags))
        if ok and "O_CREAT" in f:
            created.add(path)
        elif ok and writes:
            check(path not in created,
                  "%s: %s re-opened for writing by name after its creation (%s)" % (name, path, flags))
    return seen, created, nwrites


def main():
    ap = argparse.ArgumentParser()
    for a in ("--scal", "--tool", "--prog"):
        ap.add_argument(a, required=True)
    args = ap.parse_args()
    if not shutil.which("strace"):
        print("SKIP: strace is not installed (scripts/install-deps.sh installs it)")
        sys.exit(77)
    if subprocess.run(["strace", "-qq", "-o", "/dev/null", "true"]).returncode != 0:
        print("SKIP: strace cannot trace here (ptrace not permitted)")
        sys.exit(77)
    args.work = os.path.realpath(tempfile.mkdtemp(prefix="scal-creation-"))
    args.logs = tempfile.mkdtemp(prefix="scal-creation-logs-")
    w = args.work

    # the tool alone: the snapshot goes to the writer program in memory, which creates the run file;
    # the second run replaces the first's file, which is never opened (its in-memory image is built
    # under a name of its own); detached (a forked copy that becomes the writer), the snapshot is a
    # file beside the run file
    run = os.path.join(w, "run.h5")
    tool_env = {"OMP_TOOL_LIBRARIES": args.tool, "SCAL_OUTPUT": run, "OMP_NUM_THREADS": "2"}
    for i, extra in ((1, {}), (2, {}), (3, {"SCAL_WRITER": "detached"})):
        seen, created, nwrites = traced(args, "tool%d" % i, [args.prog, "20"], env=dict(tool_env, **extra))
        snaps = [c for c in created if ".snap." in c]
        check(len(created) == len(snaps) + 1 and nwrites >= len(created) and len(snaps) == (i == 3),
              "tool%d: the run file created%s (%s)" % (i, " and its snapshot" if i == 3 else "", created))
        check(not [o for o in seen if o[0] == run],
              "tool%d: the run file's final name is never opened: %s" % (i, [o for o in seen if o[0] == run]))
    check(subprocess.run([args.scal, "check", run], capture_output=True).returncode == 0, "the run file is valid")

    # scal run: the campaign, FILE.runs/ (journal, reserve, plan copy), each run's file
    camp = os.path.join(w, "c.h5")
    _, created, _ = traced(args, "run", [args.scal, "run", "-q", "-c", "1,2", "-i", "10", "-i", "20",
                                         "-r", "2", "-o", camp, "--", args.prog, "{input}"])
    check(len(created) >= 4, "run: files created: %s" % sorted(created))
    camp2 = os.path.join(w, "d.h5")
    traced(args, "run2", [args.scal, "run", "-q", "-c", "1,2", "-i", "30", "-o", camp2, "--",
                          args.prog, "{input}"])
    # scal report twice: the analysis file beside the campaign, replaced; every output
    rep = os.path.join(w, "rep")
    for i in (1, 2):
        _, created, _ = traced(args, "report%d" % i, [args.scal, "report", "-q", camp, "-o", rep])
        check(any(c.startswith(os.path.join(w, ".c.analysis.h5.")) for c in created),
              "report%d: the analysis file created under a temporary name: %s" % (i, sorted(created)))
    check(os.path.exists(os.path.join(w, "c.analysis.h5")), "the analysis file is in place")
    traced(args, "merge", [args.scal, "merge", camp, camp2, "-o", os.path.join(w, "m.h5")])
    traced(args, "export", [args.scal, "export", camp, "--format", "csv", "-o", os.path.join(w, "c.csv")])
    check(subprocess.run([args.scal, "check", camp, os.path.join(w, "m.h5")],
                         capture_output=True).returncode == 0, "the campaigns are valid")

    # scal run --slurm: the submission writes job.sh, the slices and the pieces; each array task
    # is a runner of its own (run through job.sh as sbatch would)
    bindir = os.path.join(args.logs, "bin")
    os.mkdir(bindir)
    with open(os.path.join(bindir, "sbatch"), "w") as f:
        f.write('#!/bin/sh\ncase " $* " in *" --test-only "*) '
                'echo "sbatch: Job 1 to start at 2026-01-01T00:00:00" >&2; exit 0;; esac\necho 4242\n')
    os.chmod(os.path.join(bindir, "sbatch"), 0o755)
    path_env = {"PATH": bindir + ":" + os.environ.get("PATH", "")}
    sl = os.path.join(w, "s.h5")
    _, created, _ = traced(args, "slurm", [args.scal, "run", "--slurm", "--no-wait", "-c", "1,2", "-i", "10",
                                           "-o", sl, "--", args.prog, "{input}"], env=path_env)
    pieces = sl + ".pieces"
    check(any(c.startswith(pieces + "/.job.sh.") for c in created) and os.path.exists(pieces + "/job.sh"),
          "slurm: job.sh created under a temporary name: %s" % sorted(created))
    check(any(".slots." in c for c in created), "slurm: the slices created under temporary names")
    for k in (0, 1):
        traced(args, "task%d" % k, ["sh", pieces + "/job.sh", args.scal, pieces, sl],
               env={"SLURM_ARRAY_TASK_ID": str(k)})

    leftovers = [os.path.join(d, n) for d, _, names in os.walk(w) for n in names
                 if n.startswith(".") and not n.endswith(".lock")]
    check(not leftovers, "no temporary file left behind: %s" % leftovers)
    if failures:
        print("%d failures; traces in %s" % (failures, args.logs))
        sys.exit(1)
    shutil.rmtree(w)
    shutil.rmtree(args.logs)
    print("every file created exclusively and written through its creation")


main()
