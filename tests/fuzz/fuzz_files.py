# SPDX-License-Identifier: BSD-3-Clause
# Damaged campaign and run files through every reader: a corpus generated here from two small real
# campaigns (truncations, byte flips, dtype/shape/attribute edits, huge dimensions, region cycles,
# ids out of range, links), never committed. Each file goes through scal check, show, report,
# export, merge, run --resume (with and without the campaign's kept runs) and the Python package,
# each invocation under a time limit and a memory limit. A reader passes when it does not crash
# (signal, sanitizer report), does not hang, and never succeeds on a file scal check rejects; a
# --resume that succeeds must leave a file scal check accepts.
#
#   fuzz_files.py --scal SCAL --prog CAMPAIGN_PROG --python PYTHON --pythonpath DIR [--seed N]
#                 [--sanitize address|thread] [--only TEXT]
import argparse
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from scal_check import expect, finish  # noqa: E402  (tests/scal_check.py)

TIMEOUT_S = 60
MEMORY_MB = 1536  # address space of a reader (RLIMIT_AS); sanitizer builds use ASan's own limits
ASAN = False  # set in main(): scal is built with a sanitizer (no RLIMIT_AS then)


# ---- the corpus ------------------------------------------------------------------------------


def rewrite(f, name, arr, **kw):
    """Replaces dataset name by arr (chunked, unlimited 1-D as scal writes tables)."""
    del f[name]
    if arr.ndim == 1:
        f.create_dataset(name, data=arr, maxshape=(None,), chunks=True, **kw)
    else:
        f.create_dataset(name, data=arr, **kw)


def edit_rows(name, member, value, row=0):
    def edit(f):
        a = f[name][()]
        a[member][row] = value
        f[name][...] = a

    return edit


def retype(name, member, dtype):
    def edit(f):
        a = f[name][()]
        new = np.dtype([(n, dtype if n == member else a.dtype.fields[n][0]) for n in a.dtype.names])
        b = np.zeros(a.shape, dtype=new)
        for n in a.dtype.names:
            b[n] = a[n] if n != member else a[n].astype(dtype)
        rewrite(f, name, b)

    return edit


def delete(name):
    def edit(f):
        del f[name]

    return edit


def empty(name):
    def edit(f):
        a = f[name][()]
        rewrite(f, name, a[:0])

    return edit


def huge(name, rows):
    def edit(f):
        if f[name].chunks is None:  # a run file's small tables are compact: made resizable first
            rewrite(f, name, f[name][()])
        f[name].resize((rows,))

    return edit


def reshape2d(name):
    def edit(f):
        a = f[name][()]
        rewrite(f, name, np.stack([a, a]))

    return edit


def plain(name):
    def edit(f):
        rewrite(f, name, np.arange(len(f[name]), dtype=np.int64))

    return edit


def attr(path, key, value):
    def edit(f):
        f[path].attrs[key] = value

    return edit


def soft_link(name, target):
    def edit(f):
        del f[name]
        f[name] = h5py.SoftLink(target)

    return edit


def duplicate_run(f):
    a = f["runs"][()]
    b = np.concatenate([a, a[-1:]])
    b["id"][-1] = len(a)
    rewrite(f, "runs", b)


def region_cycle(f):
    a = f["regions"][()]
    a["parent"][1] = len(a) - 1
    f["regions"][...] = a


def region_self(f):
    a = f["regions"][()]
    a["parent"][len(a) - 1] = len(a) - 1
    f["regions"][...] = a


def many_strings(f):
    if f["strings"].chunks is None:  # a run file's small string lists are compact: made resizable
        data = f["strings"][()]
        del f["strings"]
        f.create_dataset("strings", data=data, dtype=h5py.string_dtype(), maxshape=(None,),
                         chunks=True)
    f["strings"].resize((10**8,))


CAMPAIGN_EDITS = {
    "no-configs": delete("configs"),
    "no-runs": delete("runs"),
    "no-region-stats": delete("region_stats"),
    "no-regions": delete("regions"),
    "no-strings": delete("strings"),
    "no-campaign-group": delete("campaign"),
    "empty-configs": empty("configs"),
    "zero-threads": edit_rows("configs", "threads", 0),
    "config-id": edit_rows("configs", "id", 7),
    "run-id-minus1": edit_rows("runs", "id", 2**32 - 1),
    "run-id-huge": edit_rows("runs", "id", 2**31 - 1),
    "run-config-range": edit_rows("runs", "config", 99),
    "run-status": edit_rows("runs", "status", 200),
    "run-message-range": edit_rows("runs", "message", 10**6),
    "run-duplicate-slot": duplicate_run,
    "stats-run-range": edit_rows("region_stats", "run", 2**31 - 1),
    "stats-region-range": edit_rows("region_stats", "region", 10**6),
    "region-cycle": region_cycle,
    "region-self-parent": region_self,
    "region-parent-range": edit_rows("regions", "parent", 10**6, row=1),
    "region-kind": edit_rows("regions", "kind", 77, row=1),
    "dtype-run-id-f64": retype("runs", "id", np.float64),
    "dtype-threads-i8": retype("configs", "threads", np.int8),
    "dtype-stats-plain": plain("region_stats"),
    "shape-runs-2d": reshape2d("runs"),
    "huge-region-stats": huge("region_stats", 10**9),
    "huge-runs": huge("runs", 10**7),
    "huge-strings": many_strings,
    "attr-format-int": attr("/", "scal_format", 5),
    "attr-format-bogus": attr("/", "scal_format", "bogus"),
    "attr-version": attr("/", "scal_schema_version", 99),
    "attr-repetitions-str": attr("campaign", "repetitions", "two"),
    "link-runs-soft": soft_link("runs", "/configs"),
    "link-strings-dangling": soft_link("strings", "/nowhere"),
}

RUN_EDITS = {
    "no-regions": delete("regions"),
    "no-strings": delete("strings"),
    "empty-regions": empty("regions"),
    "region-cycle": region_cycle,
    "region-parent-range": edit_rows("regions", "parent", 10**6, row=1),
    "region-name-range": edit_rows("regions", "name", 10**6),
    "threads-region-range": edit_rows("threads", "region", 10**6),
    "dtype-regions-id-f64": retype("regions", "id", np.float64),
    "shape-regions-2d": reshape2d("regions"),
    "huge-regions": huge("regions", 10**8),
    "huge-strings": many_strings,
    "attr-format-campaign": attr("/", "scal_format", "scal-campaign"),
    "attr-version": attr("/", "scal_schema_version", 0),
}


def byte_damage(src, dst, rng, kind):
    data = bytearray(open(src, "rb").read())
    if kind.startswith("trunc"):
        data = data[: int(len(data) * float(kind[5:]) / 100)]
    else:  # flip: bytes at random offsets past the superblock's signature
        for _ in range(int(kind[4:])):
            at = rng.randrange(8, len(data))
            data[at] ^= 1 << rng.randrange(8)
    open(dst, "wb").write(data)


def corpus(base, kind, edits, work, rng):
    """(name, path) of damaged copies of base."""
    out = []
    for t in ("trunc10", "trunc50", "trunc90", "trunc99"):
        out.append(("%s-%s" % (kind, t), t))
    for i in range(8):
        out.append(("%s-flip%d-%d" % (kind, 1 + i % 3, i), "flip%d" % (1 + i % 3)))
    files = []
    for name, how in out:
        dst = os.path.join(work, name + ".h5")
        byte_damage(base, dst, rng, how)
        files.append((name, dst))
    for name, edit in edits.items():
        dst = os.path.join(work, "%s-%s.h5" % (kind, name))
        shutil.copy(base, dst)
        with h5py.File(dst, "r+") as f:
            edit(f)
        files.append(("%s-%s" % (kind, name), dst))
    return files


# ---- the readers -----------------------------------------------------------------------------


def limits():
    if not ASAN:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_MB << 20, MEMORY_MB << 20))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def invoke(cmd, cwd, env):
    """(verdict, exit status, text): verdict 'ok', 'refused', 'crash' or 'hang'."""
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, errors="replace",
                           timeout=TIMEOUT_S, preexec_fn=limits, start_new_session=True)
    except subprocess.TimeoutExpired as e:
        return "hang", None, str(e)
    text = (p.stdout[-800:] + p.stderr[-1500:]).strip()
    if p.returncode < 0 or "Sanitizer" in p.stderr or "runtime error:" in p.stderr or p.returncode >= 64:
        return "crash", p.returncode, "exit %d: %s" % (p.returncode, text)
    return ("ok" if p.returncode == 0 else "refused"), p.returncode, text


PY_LOAD = """
import sys, scal
try:
    scal.load(sys.argv[1])
except scal.ScalFileError as e:
    print(e)
    sys.exit(1)
except FileNotFoundError as e:
    print(e)
    sys.exit(1)
except BaseException as e:
    print("not a ScalFileError: %r" % (e,))
    sys.exit(3)
"""


def readers(args, path, campaign, other, work):
    """(reader, argv, cwd) of every reader for one file."""
    out = os.path.join(work, "out")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    r = [("show", [args.scal, "show", path], work),
         ("report", [args.scal, "report", path, "-o", os.path.join(out, "report")], work),
         ("export", [args.scal, "export", path, "--format", "csv", "-o", os.path.join(out, "x.csv")], work),
         ("python", [args.python, "-c", PY_LOAD, path], work)]
    if campaign:
        r.append(("merge", [args.scal, "merge", path, other, "-o", os.path.join(out, "m.h5")], work))
    return r


def resume_case(args, damaged, incomplete, work, env):
    """--resume on a damaged campaign: once alone (no kept runs), once beside its intact kept runs.
    Its exit status 0 or 1 (runs done, some failed) must leave a file scal check accepts; 2 must
    say why."""
    verdicts = []
    for kept in (False, True):
        d = os.path.join(work, "resume")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        target = os.path.join(d, "c.h5")
        shutil.copy(damaged, target)
        if kept:
            shutil.copytree(incomplete + ".runs", target + ".runs")
        v, rc, text = invoke([args.scal, "run", "-q", "--resume", target], d, env)
        if rc in (0, 1):
            cv, _, ctext = invoke([args.scal, "check", target], d, env)
            if cv != "ok":
                v, text = "invalid-after", "resume said: %s\ncheck says: %s" % (text[-600:], ctext[-600:])
        elif rc == 2 and "scal run:" not in text:
            v, text = "silent", "exit 2 without a message"
        verdicts.append(("resume" + ("+kept" if kept else ""), v, text))
    return verdicts


def make_bases(args, work, env):
    """A complete campaign with run files, another for merging, and an incomplete one with its kept
    runs (plan + journal)."""
    prog = args.prog
    subprocess.run([args.scal, "run", "-q", "-c", "1,2", "-i", "5", "-r", "2", "--keep-runs", "-o", "a.h5", "--", prog,
                    "{input}"], cwd=work, env=env, check=True, capture_output=True)
    subprocess.run([args.scal, "run", "-q", "-c", "1,3", "-i", "6", "-o", "b.h5", "--", prog, "{input}"], cwd=work,
                   env=env, check=True, capture_output=True)
    p = subprocess.run([args.scal, "run", "-q", "-c", "1,2", "-i", "5", "-i", "fail", "--fail-fast", "-o", "inc.h5",
                        "--", prog, "{input}"], cwd=work, env=env, capture_output=True, text=True)
    assert p.returncode == 1 and os.path.isdir(os.path.join(work, "inc.h5.runs")), p.stderr
    runs = sorted(os.path.join(work, "a.h5.runs", n) for n in os.listdir(os.path.join(work, "a.h5.runs")))
    return os.path.join(work, "a.h5"), os.path.join(work, "b.h5"), os.path.join(work, "inc.h5"), runs[0]


def main():
    global ASAN
    ap = argparse.ArgumentParser()
    ap.add_argument("--scal", required=True)
    ap.add_argument("--prog", required=True)
    ap.add_argument("--python", required=True)
    ap.add_argument("--pythonpath", required=True)
    ap.add_argument("--seed", type=int, default=23)
    ap.add_argument("--only", help="only files whose name contains this")
    ap.add_argument("--sanitize", default="", help="SCAL_SANITIZE of the build ('address', 'thread' or empty)")
    args = ap.parse_args()
    ASAN = bool(args.sanitize)
    env = dict(os.environ, OMP_WAIT_POLICY="passive", PYTHONPATH=args.pythonpath, SCAL_EXECUTABLE=args.scal,
               PYTHONDONTWRITEBYTECODE="1")
    if ASAN:  # ASan reserves terabytes of address space: its own allocation limits instead
        env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") + ":malloc_limit_mb=%d:hard_rss_limit_mb=%d:"
                               "allocator_may_return_null=1" % (MEMORY_MB, MEMORY_MB)).lstrip(":")
    rng = random.Random(args.seed)
    work = tempfile.mkdtemp(prefix="scal-fuzz-")
    try:
        camp, other, inc, runfile = make_bases(args, work, env)
        files = [(n, p, True) for n, p in corpus(camp, "campaign", CAMPAIGN_EDITS, work, rng)]
        files += [(n, p, False) for n, p in corpus(runfile, "run", RUN_EDITS, work, rng)]
        incs = corpus(inc, "incomplete", CAMPAIGN_EDITS, work, rng)
        counts = {}
        for name, path, campaign in files:
            if args.only and args.only not in name:
                continue
            cv, _, ctext = invoke([args.scal, "check", path], work, env)
            expect(cv in ("ok", "refused"), "%s: scal check neither crashes nor hangs (%s)" % (name, ctext[:300]))
            if cv == "ok":
                expect(name.split("-", 1)[1].startswith(("flip", "trunc99")),
                       "%s: an edited file is rejected by scal check (%s)" % (name, ctext[:200]))
            for reader, cmd, cwd in readers(args, path, campaign, other, work):
                v, _, text = invoke(cmd, cwd, env)
                counts[v] = counts.get(v, 0) + 1
                good = v in ("ok", "refused") and not (v == "ok" and cv != "ok")
                if reader == "python" and v == "refused":
                    good = "not a ScalFileError" not in text
                expect(good, "%s: %s %s (check: %s)%s" % (name, reader, v, cv, "" if good else "\n  " + text[:700]))
        for name, path in incs:
            if args.only and args.only not in name:
                continue
            for reader, v, text in resume_case(args, path, inc, work, env):
                counts[v] = counts.get(v, 0) + 1
                good = v in ("ok", "refused")
                expect(good, "%s: %s %s%s" % (name, reader, v, "" if good else "\n  " + text[:900]))
        print("verdicts: %s" % counts)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    finish()


if __name__ == "__main__":
    main()
