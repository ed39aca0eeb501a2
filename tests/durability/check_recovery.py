# SPDX-License-Identifier: BSD-3-Clause
# Recovery from damaged or unusual state beside a campaign: a damaged journal record mid-journal, a
# record copied under another slot, a deleted campaign file, a fifo planted as the journal, runs
# kept but never committed (a committer killed in between), a --resume that cannot begin.
#
#   check_recovery.py SCENARIO --scal SCAL --prog CAMPAIGN_PROG
import argparse
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from scal_check import check  # noqa: E402  (tests/scal_check.py)

ENV = dict(os.environ, OMP_WAIT_POLICY="passive")
# 10 slots: (threads 1, 2) x (inputs 5, 6, 7, 8, fail); --fail-fast stops at the first 'fail' after
# 4 ok runs and that failed one: 5 runs kept, 5 to do
PLAN = ["-c", "1,2", "-i", "5", "-i", "6", "-i", "7", "-i", "8", "-i", "fail", "--fail-fast"]
KEPT = 5
HEAD = struct.Struct("<IIQII")  # struct journal_head: magic, slot, len, crc, head_crc
MAGIC = 0x4A4C4353


def scal(args, *cmd, expect=0, timeout=120):
    p = subprocess.run([args.scal] + list(cmd), capture_output=True, text=True, env=ENV, cwd=args.work, timeout=timeout)
    if expect is not None:
        check(p.returncode == expect, "scal %s -> exit %d (expected %d)\nstderr: %s" % (" ".join(cmd[:3]), p.returncode, expect, p.stderr[-1500:]))
    return p


def runs(path):
    """{(config, repetition): started_unix} of the campaign's runs; fails on a duplicate."""
    with h5py.File(path, "r") as f:
        rows = f["runs"][()]
    keys = [(int(r["config"]), int(r["repetition"])) for r in rows]
    check(len(keys) == len(set(keys)), "no (config, repetition) twice in %s (%s)" % (os.path.basename(path), sorted(keys)))
    return {(int(r["config"]), int(r["repetition"])): float(r["started_unix"]) for r in rows}


def checked(args, path):
    p = scal(args, "check", path, expect=None)
    check(p.returncode == 0 and ": ok" in p.stdout, "scal check passes on %s: %s" % (os.path.basename(path), p.stdout.strip()[-300:]))


def records(journal):
    """(offset, head) of every record, read as the writer lays them out."""
    data = open(journal, "rb").read()
    out, off = [], 0
    while off + HEAD.size <= len(data):
        h = HEAD.unpack_from(data, off)
        out.append((off, h))
        off += HEAD.size + h[2]
    return out


def incomplete(args, name):
    out = os.path.join(args.work, name)
    scal(args, "run", "-q", *PLAN, "-o", out, "--", args.prog, "{input}", expect=1)
    journal = os.path.join(out + ".runs", "runs.journal")
    check(len(records(journal)) == KEPT, "%d runs kept in the journal" % KEPT)
    return out, journal, runs(out)


def truncate(path):
    with open(path, "r+b") as f:
        f.truncate(os.path.getsize(path) // 2)


def scenario_damaged_record(args):
    """A flipped byte in the second of five records: the rebuild skips that record only, keeps the
    three intact records after it, says so, and the journal keeps them too."""
    out, journal, before = incomplete(args, "d.h5")
    off, h = records(journal)[1]
    with open(journal, "r+b") as f:
        f.seek(off + HEAD.size + h[2] // 2)
        b = f.read(1)
        f.seek(off + HEAD.size + h[2] // 2)
        f.write(bytes([b[0] ^ 0x10]))
    truncate(out)
    p = scal(args, "show", out, expect=None)
    check(p.returncode != 0 and "scal run --resume" in p.stderr, "a reader names the recovery command: " + p.stderr.strip()[-300:])
    p = scal(args, "run", "-q", "--resume", out, expect=1)
    check("rebuilt it from the plan and the %d runs kept" % (KEPT - 1) in p.stderr, "every intact record is rebuilt: " + p.stderr.strip()[-500:])
    check("1 damaged record" in p.stderr, "the damaged record is reported")
    after = runs(out)
    lost = [k for k in before if after.get(k) != before[k]]
    check(len(lost) == 1, "only the damaged record's run was measured again (%s)" % lost)
    checked(args, out)


def scenario_duplicate_slot(args):
    """A CRC-valid copy of a record whose head names another slot: the run is keyed by its own
    (config, repetition), the copy is ignored with a note, scal check passes."""
    out, journal, before = incomplete(args, "dup.h5")
    data = open(journal, "rb").read()
    off, h = records(journal)[0]
    body = data[off + HEAD.size:off + HEAD.size + h[2]]
    head = struct.pack("<IIQI", MAGIC, 11, h[2], h[3])
    with open(journal, "ab") as f:
        f.write(head + struct.pack("<I", zlib.crc32(head)) + body)
    truncate(out)
    p = scal(args, "run", "-q", "--resume", out, expect=1)
    check("rebuilt it from the plan and the %d runs kept" % KEPT in p.stderr and "kept more than once" in p.stderr,
          "the copy is ignored, with a note: " + p.stderr.strip()[-500:])
    after = runs(out)
    check(all(after.get(k) == v for k, v in before.items()), "the kept runs are rebuilt, not measured again")
    checked(args, out)
    # scal check itself finds a (config, repetition) recorded twice
    twice = os.path.join(args.work, "twice.h5")
    shutil.copy(out, twice)
    with h5py.File(twice, "r+") as f:
        rows = f["runs"][()]
        rows["repetition"][1] = rows["repetition"][0]
        rows["config"][1] = rows["config"][0]
        f["runs"][...] = rows
    p = scal(args, "check", twice, expect=1)
    check("both repetition" in p.stdout, "scal check names a run recorded twice: " + p.stdout.strip()[-300:])


def scenario_deleted(args):
    """The campaign file deleted: --resume rebuilds it from the plan and the kept runs; a new
    campaign of that name is refused and names --resume."""
    out, journal, before = incomplete(args, "gone.h5")
    os.unlink(out)
    p = scal(args, "run", "-q", *PLAN[:-1], "-o", out, "--", args.prog, "{input}", expect=2)
    check("scal run --resume" in p.stderr and not os.path.exists(out), "a new campaign beside the kept runs names --resume: " + p.stderr.strip()[-300:])
    p = scal(args, "run", "-q", "--resume", out, expect=1)
    check("is gone; rebuilt it from the plan and the %d runs kept" % KEPT in p.stderr, "the deleted file is rebuilt: " + p.stderr.strip()[-400:])
    after = runs(out)
    check(all(after.get(k) == v for k, v in before.items()), "with its runs as they were kept")
    checked(args, out)


def scenario_fifo(args):
    """A fifo at FILE.runs/runs.journal: --resume and a new run stop at once and say why."""
    out, journal, _ = incomplete(args, "fifo.h5")
    os.unlink(journal)
    os.mkfifo(journal)
    p = scal(args, "run", "-q", "--resume", out, expect=2, timeout=60)
    check("runs.journal' is not a regular file" in p.stderr, "--resume refuses the fifo: " + p.stderr.strip()[-300:])
    os.unlink(out)
    p = scal(args, "run", "-q", *PLAN, "-o", out, "--", args.prog, "{input}", expect=2, timeout=60)
    check("runs.journal' is not a regular file" in p.stderr and not os.path.exists(out),
          "a new run refuses it before creating anything: " + p.stderr.strip()[-300:])


def scenario_kept_not_committed(args):
    """Runs kept but missing from the campaign file (the committer killed between keeping and
    committing them; here the file is put back to its plan alone): --resume adds them from the
    journal instead of measuring them again."""
    out, journal, before = incomplete(args, "k.h5")
    shutil.copy(os.path.join(out + ".runs", "plan.h5"), out)
    check(runs(out) == {}, "the campaign file holds none of the kept runs")
    p = scal(args, "run", "-q", "--resume", out, expect=1)
    check("%d runs were kept but not in the campaign file" % KEPT in p.stderr, "the kept runs are found: " + p.stderr.strip()[-400:])
    after = runs(out)
    check(all(after.get(k) == v for k, v in before.items()), "they are rebuilt, not measured again")
    checked(args, out)


def scenario_resume_refused(args):
    """--resume of a missing file, or of a damaged one with nothing kept beside it, fails with exit
    2, says why, and leaves no FILE.runs/ behind."""
    missing = os.path.join(args.work, "missing.h5")
    p = scal(args, "run", "-q", "--resume", missing, expect=2)
    check("missing.h5" in p.stderr and not os.path.exists(missing + ".runs"), "a missing file: " + p.stderr.strip()[-300:])
    out = os.path.join(args.work, "whole.h5")
    scal(args, "run", "-q", "-c", "1", "-i", "5", "-o", out, "--", args.prog, "{input}")
    check(not os.path.exists(out + ".runs"), "a complete campaign keeps nothing beside it")
    with h5py.File(out, "r+") as f:
        del f["configs"]
    p = scal(args, "run", "-q", "--resume", out, expect=2)
    check("nothing to rebuild it from" in p.stderr and not os.path.exists(out + ".runs"),
          "a damaged file without kept runs is refused, nothing left: " + p.stderr.strip()[-300:])
    with h5py.File(out, "r+") as f:
        del f["strings"]
    p = scal(args, "run", "-q", "--resume", out, expect=2)
    check(p.returncode == 2, "and never exits 0 on it")


def scenario_tool_enospc(args):
    """The tool could not write a run's measurements for want of space (its message on stderr, no
    data): scal's failure, not the program's. The run is not recorded, the runner stops saying the
    disk is full, and --resume runs it again."""
    prog = os.path.join(args.work, "prog.sh")
    flag = os.path.join(args.work, "disk-full")
    with open(prog, "w") as f:
        f.write("#!/bin/sh\nif [ -e %s ]; then echo \"scal: measurements lost: cannot write 'x.snap': "
                "No space left on device\" >&2; fi\nexit 0\n" % flag)
    os.chmod(prog, 0o755)
    open(flag, "w").close()
    out = os.path.join(args.work, "t.h5")
    p = scal(args, "run", "-q", "-c", "1", "-r", "2", "-o", out, "--", "/bin/sh", prog, expect=2)
    check("disk full (No space left on device): 0 runs kept, free space and scal run --resume" in p.stderr,
          "the runner stops on the tool's full disk: " + p.stderr.strip()[-300:])
    check(runs(out) == {}, "the run is not recorded as the program's failure")
    os.unlink(flag)
    scal(args, "run", "-q", "--resume", out, expect=1)  # no OpenMP: both runs 'no data', recorded
    check(len(runs(out)) == 2, "--resume runs it again")
    checked(args, out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario")
    ap.add_argument("--scal", required=True)
    ap.add_argument("--prog", required=True)
    args = ap.parse_args()
    args.work = tempfile.mkdtemp(prefix="scal-recovery-%s-" % args.scenario)
    try:
        globals()["scenario_" + args.scenario](args)
    finally:
        shutil.rmtree(args.work, ignore_errors=True)
    print("recovery scenario %s passed" % args.scenario)


main()
