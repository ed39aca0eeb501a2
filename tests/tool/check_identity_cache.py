# SPDX-License-Identifier: BSD-3-Clause
# The identity cache (SCAL_IDENTITY_CACHE, ompt_tool/identify/identity_cache.c): region identities are
# resolved from DWARF once per binary, and a cache hit gives exactly what resolution gives.
#
#   check_identity_cache.py --scal SCAL --tool LIB --cc CC --work DIR PROGRAM...
#
# For each PROGRAM: a run without cache, then two runs with one cache directory; the three give the
# same /regions identities (names, files, lines, functions, modules, offsets, kinds, parents); the
# first cached run opens DWARF once and misses, the second hits every node and opens no DWARF.
# Then, on the first program: a damaged cache file (bit flip, truncation, a planted symbolic link,
# a fifo) is ignored, counted and rewritten, never followed, never blocked on; a rebuilt binary
# (same code, another build id; without build id: another modification time) misses; and a
# campaign of 6 runs under `scal run --keep-runs` opens DWARF in its first run only.
import argparse
import json
import os
import shutil
import stat
import subprocess
import sys

import h5py

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from scal_check import check, reap_orphans  # noqa: E402

SCHEMA = os.path.join(HERE, "..", "..", "schemas", "scal-run-1.json")
COUNTERS = ("identity_cache_hits", "identity_cache_misses", "identity_cache_damaged", "dwarf_opens")

ap = argparse.ArgumentParser()
ap.add_argument("--scal", required=True)
ap.add_argument("--tool", required=True)
ap.add_argument("--cc", required=True)
ap.add_argument("--work", required=True)
ap.add_argument("--writer-resolves", default="1", help="1: scal-run-writer has libdw linked in")
ap.add_argument("programs", nargs="+")
args = ap.parse_args()

shutil.rmtree(args.work, ignore_errors=True)
os.makedirs(args.work)
members = [t for t in json.load(open(SCHEMA))["tables"] if t["path"] == "regions"][0]["members"]
STRING_FIELDS = [m["name"] for m in members if m.get("string_index")]
OTHER_FIELDS = [f for f in ("line_first", "line_last", "offset", "kind", "parent") if f in {m["name"] for m in members}]


def run(prog, out, cache, argv=(), libraries=None, env=None):
    """The run's identities and counters; with libraries=[] the libraries that the dynamic
    loader loaded into the processes are appended to it (LD_DEBUG). cache: the identity cache's
    directory, None for none (SCAL_IDENTITY_CACHE empty), DEFAULT for the user's own (unset: env
    then says where the user's home and cache home are)."""
    env = dict(env if env is not None else os.environ)
    if libraries is not None:
        env["LD_DEBUG"] = "files"
    env.pop("SCAL_IDENTITY_CACHE", None)
    if cache is not DEFAULT:
        env["SCAL_IDENTITY_CACHE"] = cache or ""
    p = subprocess.run([args.scal, "exec", "-q", "--tool", args.tool, "-o", out, "--", prog, *argv],
                       env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    reap_orphans()
    if libraries is not None:
        libraries.extend(line.split("file=", 1)[1].split()[0] for line in p.stdout.splitlines() if "file=" in line)
        p.stdout = ""
    check(p.returncode == 0 and os.path.isfile(out), "%s ran and wrote %s (%s)" % (os.path.basename(prog), out, p.stdout.strip()[-300:]))
    with h5py.File(out, "r") as f:
        strings = f["strings"].asstr()[:]
        table = f["regions"][:]
        own = [tuple([strings[r[s]] for s in STRING_FIELDS] + [r[o].item() for o in OTHER_FIELDS if o != "parent"]) for r in table]
        # each region with its ancestors' identities (the order of the rows follows the schedule)
        paths = []
        for i in range(len(table)):
            path, at = [], i
            while at >= 0:
                path.append(own[at])
                at = int(table[at]["parent"])
            paths.append(tuple(path))
        rows = sorted(paths)
        diag = {c: int(f["diagnostics"].attrs[c]) for c in COUNTERS}
        diag["errors_total"] = int(f["diagnostics"].attrs["errors_total"])
        entry = f["meta"].attrs.get("omp_entry_points", "")
    return rows, diag, entry


DEFAULT = object()


def same_identities(a, b, what):
    check(a[0] == b[0] and a[2] == b[2], "%s: the same region identities (%d regions)" % (what, len(a[0])))


def cache_files(cache):
    return sorted(os.path.join(cache, n) for n in os.listdir(cache) if n.startswith("idcache-") and n.endswith(".bin"))


# ---- every program: a hit gives what resolution gives --------------------------------------------
for i, prog in enumerate(args.programs):
    name = os.path.basename(prog)
    cache = os.path.join(args.work, "cache-%d" % i)
    plain = run(prog, os.path.join(args.work, "%s-plain.h5" % name), None)
    first = run(prog, os.path.join(args.work, "%s-first.h5" % name), cache)
    second = run(prog, os.path.join(args.work, "%s-second.h5" % name), cache)
    # SCAL_WRITER=detached: no writer process runs at the end, the measured process (its forked
    # copy) resolves with libscal_ompt_resolve.so; by default the writer process does (libdw linked
    # into it): the two read the same request (resolve_request.h) and give the same identities
    here = run(prog, os.path.join(args.work, "%s-here.h5" % name), None,
               env=dict(os.environ, SCAL_WRITER="detached"))
    check(plain[1]["identity_cache_hits"] + plain[1]["identity_cache_misses"] == 0 and plain[1]["dwarf_opens"] == 1,
          "%s without cache: no lookups, DWARF opened once (%s)" % (name, plain[1]))
    check(first[1]["identity_cache_misses"] > 0 and first[1]["identity_cache_hits"] == 0 and first[1]["dwarf_opens"] == 1,
          "%s first cached run: every node missed, DWARF opened once (%s)" % (name, first[1]))
    check(second[1]["identity_cache_hits"] == first[1]["identity_cache_misses"] and second[1]["identity_cache_misses"] == 0
          and second[1]["dwarf_opens"] == 0, "%s second cached run: every node hit, no DWARF opened (%s)" % (name, second[1]))
    check(all(d[1]["errors_total"] == plain[1]["errors_total"] for d in (first, second)), "%s: errors_total unchanged" % name)
    same_identities(plain, first, "%s: no cache and first cached run" % name)
    same_identities(plain, second, "%s: no cache and cache hits" % name)
    same_identities(plain, here, "%s: resolved by the writer process and in the measured process" % name)

# ---- DWARF's libraries loaded on a miss only -------------------------------------------------------
prog = args.programs[0]
cache = os.path.join(args.work, "cache-libraries")
loaded_miss, loaded_hit = [], []
miss = run(prog, os.path.join(args.work, "libraries-miss.h5"), cache, libraries=loaded_miss)
hit = run(prog, os.path.join(args.work, "libraries-hit.h5"), cache, libraries=loaded_hit)
resolver = [n for n in loaded_miss if "libscal_ompt_resolve" in n or "libdw" in n]
check(miss[1]["identity_cache_misses"] > 0 and miss[1]["dwarf_opens"] == 1 and
      (not resolver if args.writer_resolves == "1" else bool(resolver)),
      "a miss is resolved by the writer process (%s): the resolver and libdw loaded only without "
      "it (%s)" % ("with libdw" if args.writer_resolves == "1" else "without libdw", resolver))
loaded_here = []
run(prog, os.path.join(args.work, "libraries-here.h5"), None, libraries=loaded_here,
    env=dict(os.environ, SCAL_WRITER="detached"))
check(any("libscal_ompt_resolve" in n for n in loaded_here) and any("libdw" in n for n in loaded_here),
      "without a writer process (SCAL_WRITER=detached) the measured process loads the resolver and libdw")
check(hit[1]["identity_cache_misses"] == 0 and not any("libscal_ompt_resolve" in n or "libdw" in n for n in loaded_hit),
      "every identity cached: neither the resolver nor libdw loaded (%s)" % hit[1])

# ---- damaged cache files: ignored, counted, rewritten, never followed ----------------------------
prog = args.programs[0]
name = os.path.basename(prog)
cache = os.path.join(args.work, "cache-0")
reference = run(prog, os.path.join(args.work, "reference.h5"), cache)
files = sorted(cache_files(cache), key=os.path.getsize, reverse=True)  # the program's, then its libraries'
check(len(files) >= 1 and all(os.path.getsize(f) > 8 for f in files), "cache files for the program's modules: %s" % files)
good = open(files[0], "rb").read()


def damaged_run(label, damage):
    damage(files[0])
    r = run(prog, os.path.join(args.work, "damaged-%s.h5" % label), cache)
    check(r[1]["identity_cache_damaged"] >= 1 and r[1]["identity_cache_misses"] >= 1,
          "%s: counted as damaged, its lost records resolved again (%s)" % (label, r[1]))
    same_identities(reference, r, "%s: identities" % label)
    st = os.lstat(files[0])
    check(stat.S_ISREG(st.st_mode), "%s: the cache file rewritten as a regular file" % label)
    again = run(prog, os.path.join(args.work, "after-%s.h5" % label), cache)
    check(again[1]["identity_cache_damaged"] == 0 and again[1]["identity_cache_misses"] == 0 and again[1]["dwarf_opens"] == 0,
          "%s: the rewritten file serves every node (%s)" % (label, again[1]))
    return r


def flip(path):
    data = bytearray(good)
    data[len(data) // 2] ^= 0x10
    open(path, "wb").write(bytes(data))


def truncate(path):
    open(path, "wb").write(good[: len(good) - 7])


target = os.path.join(args.work, "not-a-cache")


def symlink(path):
    open(target, "wb").write(b"planted\n")
    os.unlink(path)
    os.symlink(target, path)


def fifo(path):
    os.unlink(path)
    os.mkfifo(path)


damaged_run("bit flip", flip)
damaged_run("truncated", truncate)
damaged_run("symbolic link", symlink)
check(open(target, "rb").read() == b"planted\n", "symbolic link: its target neither read as a cache nor written")
damaged_run("fifo", fifo)  # a blocking open would hang the run (timeout)

# ---- a rebuilt binary misses ---------------------------------------------------------------------
SOURCE = r"""
#include <stdio.h>
int main(void)
{
    double s = 0;
#pragma omp parallel for reduction(+ : s)
    for (int i = 0; i < 1000; i++) s += i;
    printf("%g\n", s);
    return 0;
}
"""
src = os.path.join(args.work, "rebuilt.c")
open(src, "w").write(SOURCE)
exe = os.path.join(args.work, "rebuilt")
cache = os.path.join(args.work, "cache-rebuilt")


def build(build_id):
    subprocess.run([args.cc, "-g", "-O1", "-fopenmp", "-Wl,--build-id=" + build_id, src, "-o", exe], check=True)


build("0x1111111111111111")
a = run(exe, os.path.join(args.work, "rebuilt-a.h5"), cache)
a2 = run(exe, os.path.join(args.work, "rebuilt-a2.h5"), cache)
check(a2[1]["identity_cache_hits"] == a[1]["identity_cache_misses"] > 0, "rebuilt: the first build hits its own entries (%s)" % a2[1])
build("0x2222222222222222")  # the same code: only the build id differs
b = run(exe, os.path.join(args.work, "rebuilt-b.h5"), cache)
check(b[1]["identity_cache_hits"] == 0 and b[1]["identity_cache_misses"] > 0 and b[1]["dwarf_opens"] == 1,
      "rebuilt: another build id misses (%s)" % b[1])
check(len(cache_files(cache)) == 2, "rebuilt: one cache file per build id")
build("none")  # no build id: the module's path, size and modification time key it
# the writer process cannot tell its file is the loaded one: the measured process resolves
loaded_none = []
c = run(exe, os.path.join(args.work, "rebuilt-c.h5"), cache, libraries=loaded_none)
check(any("libscal_ompt_resolve" in n for n in loaded_none),
      "no build id: the measured process resolves its regions itself (%s)" % c[1])
same_identities(c, run(exe, os.path.join(args.work, "rebuilt-c-here.h5"), None,
                       env=dict(os.environ, SCAL_WRITER="detached")),
                "no build id: the same identities as without a writer process")
c2 = run(exe, os.path.join(args.work, "rebuilt-c2.h5"), cache)
check(c[1]["identity_cache_misses"] > 0 and c2[1]["identity_cache_hits"] == c[1]["identity_cache_misses"] and c2[1]["dwarf_opens"] == 0,
      "no build id: cached by path, size and modification time (%s, %s)" % (c[1], c2[1]))
st = os.stat(exe)
os.utime(exe, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
d = run(exe, os.path.join(args.work, "rebuilt-d.h5"), cache)
check(d[1]["identity_cache_hits"] == 0 and d[1]["dwarf_opens"] == 1, "no build id: a newer modification time misses (%s)" % d[1])
same_identities(c, d, "no build id: identities")

# ---- a campaign opens DWARF in its first run only ------------------------------------------------
campaign = os.path.join(args.work, "campaign.h5")
env = dict(os.environ)
env.pop("SCAL_IDENTITY_CACHE", None)
p = subprocess.run([args.scal, "run", "-q", "--tool", args.tool, "-c", "1", "-r", "6", "--keep-runs", "-o", campaign, "--", prog],
                   env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
reap_orphans()
check(p.returncode == 0, "scal run of 6 runs (%s)" % p.stdout.strip()[-300:])
runs = sorted(n for n in os.listdir(campaign + ".runs") if n.startswith("run-") and n.endswith(".h5"))
check(len(runs) == 6, "6 kept run files: %s" % runs)
opens, hits, misses = [], [], []
for r in runs:
    with h5py.File(os.path.join(campaign + ".runs", r), "r") as f:
        opens.append(int(f["diagnostics"].attrs["dwarf_opens"]))
        hits.append(int(f["diagnostics"].attrs["identity_cache_hits"]))
        misses.append(int(f["diagnostics"].attrs["identity_cache_misses"]))
check(sum(opens) == 1 and sum(1 for m in misses if m) == 1, "campaign: DWARF opened in one run only (opens %s, misses %s)" % (opens, misses))
check(sum(1 for h in hits if h == max(misses)) == 5, "campaign: the 5 other runs hit every node (hits %s)" % hits)
check(not cache_files(campaign + ".runs"), "campaign: the cache went with the campaign's private files")
# ---- the user's own cache, by default -------------------------------------------------------------
# SCAL_IDENTITY_CACHE unset: $XDG_CACHE_HOME/scal/identities-VERSION (an absolute XDG_CACHE_HOME),
# else ~/.cache/scal/identities-VERSION, made with its parents; a second run of the binary opens no
# DWARF.
version = subprocess.run([args.scal, "--version"], stdout=subprocess.PIPE, text=True).stdout.split()[1]
prog = args.programs[0]
for label, extra, where in (
        ("XDG_CACHE_HOME", {"XDG_CACHE_HOME": os.path.join(args.work, "xdg"), "HOME": os.path.join(args.work, "nohome")},
         os.path.join(args.work, "xdg", "scal", "identities-" + version)),
        ("HOME", {"XDG_CACHE_HOME": "relative/ignored", "HOME": os.path.join(args.work, "home")},
         os.path.join(args.work, "home", ".cache", "scal", "identities-" + version))):
    env = dict(os.environ, **extra)
    os.makedirs(env["HOME"], exist_ok=True)  # a home exists; what is below it may not
    one = run(prog, os.path.join(args.work, "default-%s-1.h5" % label), DEFAULT, env=env)
    two = run(prog, os.path.join(args.work, "default-%s-2.h5" % label), DEFAULT, env=env)
    check(os.path.isdir(where) and cache_files(where), "default cache by %s: files in %s" % (label, where))
    check(one[1]["dwarf_opens"] == 1 and one[1]["identity_cache_misses"] > 0,
          "default cache by %s: the first run resolves and stores (%s)" % (label, one[1]))
    check(two[1]["dwarf_opens"] == 0 and two[1]["identity_cache_hits"] == one[1]["identity_cache_misses"],
          "default cache by %s: the second run hits every node (%s)" % (label, two[1]))
    same_identities(one, two, "default cache by %s" % label)
    check(stat.S_IMODE(os.stat(os.path.dirname(where)).st_mode) == 0o700,
          "default cache by %s: the directory made for it is the user's only" % label)
# a home that is not this user's (root with a user's HOME kept, sudo -E): nothing made in it
if os.geteuid() == 0:
    theirs = os.path.join(args.work, "home-theirs")
    os.makedirs(theirs)
    os.chown(theirs, 65534, 65534)
    env = dict(os.environ, HOME=theirs)
    env.pop("XDG_CACHE_HOME", None)
    other = run(prog, os.path.join(args.work, "default-theirs.h5"), DEFAULT, env=env)
    check(os.listdir(theirs) == [] and other[1]["identity_cache_misses"] == 0 and other[1]["dwarf_opens"] == 1,
          "a home of another user's: no cache, nothing made in it (%s, %s)" % (os.listdir(theirs), other[1]))
env = dict(os.environ, HOME=os.path.join(args.work, "home-empty"))
env.pop("XDG_CACHE_HOME", None)
none = run(prog, os.path.join(args.work, "default-none.h5"), None, env=env)
check(none[1]["identity_cache_misses"] == 0 and not os.path.exists(env["HOME"]),
      "SCAL_IDENTITY_CACHE empty: no cache at all, nothing made in the home (%s)" % none[1])
print("identity cache checks passed")
