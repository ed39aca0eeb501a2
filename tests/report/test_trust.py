# SPDX-License-Identifier: BSD-3-Clause
# Issue 13 "trust": findings only from data with a stated baseline, serial gaps not pooled, observed
# team size marked, ranking over the whole matrix with --at/--min-share/--region errors, the
# default output directory, no "nan" in any text output.
import csv, glob, os, re, shutil, subprocess, sys

scal, gen, work = sys.argv[1:4]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from scal_check import expect as check, failures, finish  # noqa: E402  (tests/scal_check.py)


def make(name, *flags):
    path = os.path.join(work, name + ".h5")
    subprocess.run([gen, path, "--inputs", "4", "--threads", "4", "--reps", "2"] + list(flags),
                   check=True)
    return path


def report(camp, *args, out=None, ok=True):
    cmd = [scal, "report", camp] + (["-o", out] if out else []) + list(args)
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=work)
    if ok and r.returncode != 0:
        print(r.stdout, r.stderr)
    return r


def section(summary, label):
    """The findings of one region in summary.txt."""
    m = re.search(r"\n" + re.escape(label) + r" \[[^\]]*\]\n((?:  - .*\n)*)", summary)
    return m.group(1) if m else ""


def no_nan(out):
    for f in glob.glob(os.path.join(out, "**", "*.txt"), recursive=True) + \
            glob.glob(os.path.join(out, "**", "*.csv"), recursive=True):
        text = open(f).read()
        if re.search(r"\bnan\b", text, re.I):
            return f
    return None


# 1. a region that runs only above 1 thread: its own baseline, said so, and verdicts with cells
camp = make("partial", "--regions", "4", "--partial")
out = os.path.join(work, "partial-out")
r = report(camp, out=out)
check(r.returncode == 0, "report of a campaign with a region only above 1 thread")
s = open(os.path.join(out, "summary.txt")).read()
sec = section(s, "theory.c:30-38 (kernel)")
check("baseline: 2 threads (no 1-thread runs)" in sec, "the region says its baseline: %r" % sec)
check("strongly" in sec and "rests on" in sec or "largest drop" in sec,
      "its verdicts name the cells they rest on")
eff = list(csv.reader(open(glob.glob(os.path.join(out, "csv", "r003-*", "efficiency.csv"))[0])))
vals = [row[1:] for row in eff if row and not row[0].startswith(("#", "efficiency"))]
check(all(v[0] == "" for v in vals) and all(v[1] == "1" for v in vals),
      "efficiency relative to 2 threads, no 1-thread cell: %r" % vals)
check(no_nan(out) is None, "no 'nan' in any text output (%s)" % no_nan(out))

# 2. every run of one input failed: no verdict on that input
camp = make("failinput", "--failinput", "1")
out = os.path.join(work, "failinput-out")
r = report(camp, out=out)
check(r.returncode == 0, "report of a campaign whose input i2 failed entirely")
s = open(os.path.join(out, "summary.txt")).read()
sec = section(s, "whole program")
check("i2: no baseline" in sec and "i2: below" not in sec, "no verdict on input i2: %r" % sec)
check(no_nan(out) is None, "no 'nan' in any text output (%s)" % no_nan(out))
check(re.search(r"8 of 32 runs left out \(only successful runs are used\): 8 failed", s) is not None,
      "the report says which runs it left out")

# 3. serial gaps 1 -> 2 and 1 -> end are two regions with the repetitions of each cell, not pooled
camp = make("gaps", "--gaps")
out = os.path.join(work, "gaps-out")
r = report(camp, out=out)
s = open(os.path.join(out, "summary.txt")).read()
gap_dirs = [d for d in glob.glob(os.path.join(out, "csv", "*")) if "serial" in d]
check(len(gap_dirs) == 2, "two serial-gap regions: %r" % gap_dirs)
for d in gap_dirs:
    rows = list(csv.reader(open(os.path.join(d, "samples.csv"))))
    counts = {c for row in rows[1:] if not row[0].startswith("#") for c in row[1:] if c}
    check(counts == {"2"}, "%s: 2 samples per cell (2 repetitions), got %r" % (d, counts))
t = [list(csv.reader(open(os.path.join(d, "time.csv")))) for d in sorted(gap_dirs)]
check(t[0][-1][1] != t[1][-1][1], "the two gaps keep their own times")

# 4. a program that forces its team size: observed team, marked, said in the findings
camp = make("team", "--maxteam", "2")
out = os.path.join(work, "team-out")
r = report(camp, out=out)
s = open(os.path.join(out, "summary.txt")).read()
check("team size differs from the requested thread count in 8 cell(s)" in section(s, "whole program"),
      "the mismatched team size is a finding")
geom = open(os.path.join(out, "diagrams", "r000-whole_program.geom")).read()
check(len(re.findall(r"^team \d+ \d+", geom, re.M)) == 8, "the 8 mismatched cells are marked in the diagram")
# honest colour scales: efficiency above 1 keeps its range; difference panels share one scale
vmax = {m.group(1): float(m.group(2)) for m in re.finditer(r"^panel 0 (\S+) .* (\S+)$", geom, re.M)}
rng = re.search(r"^range 0 efficiency (\S+) (\S+)$", geom, re.M)
check(rng and float(rng.group(2)) > 3.9, "the efficiency colour bar reaches the superlinear values")
diffs = [vmax[k] for k in ("diff_input", "diff_strong", "diff_weak")]
check(len(set(diffs)) == 1, "the three difference panels share one scale by default: %r" % diffs)
for mode, expect in (("fixed", lambda d: d == [1, 1, 1]), ("own", lambda d: len(set(d)) > 1)):
    o2 = os.path.join(work, "scale-" + mode)
    report(camp, "--diff-scale", mode, out=o2)
    g2 = open(os.path.join(o2, "diagrams", "r000-whole_program.geom")).read()
    v2 = {m.group(1): float(m.group(2)) for m in re.finditer(r"^panel 0 (\S+) .* (\S+)$", g2, re.M)}
    d2 = [v2[k] for k in ("diff_input", "diff_strong", "diff_weak")]
    check(expect(d2), "--diff-scale %s: %r" % (mode, d2))
# differences smaller than the cells' noise are drawn as "within noise"
camp = make("noisy", "--noisy", "--reps", "3")
out = os.path.join(work, "noisy-out")
report(camp, out=out)
geom = open(os.path.join(out, "diagrams", "r000-whole_program.geom")).read()
check(re.search(r"^noise 0 diff_strong 0 0$", geom, re.M) is not None and
      re.search(r"^noise 0 diff_strong 0 1$", geom, re.M) is not None and
      re.search(r"^noise 0 diff_strong 0 2$", geom, re.M) is None,
      "a difference within the noisy cell's CV is drawn as within noise")
# every within-noise cell carries the "~" mark, with its number or without (small cells)
quiet = set(re.findall(r"^noise (\d+ \S+ \d+ \d+)$", geom, re.M))
marked = set(re.findall(r"^text (\d+ \S+ \d+ \d+) ~", geom, re.M))
check(quiet and quiet == marked, "every within-noise cell is marked '~' (%d cells, %d marked)"
      % (len(quiet), len(marked)))

# 5. ranking over the whole matrix, --at, --min-share, --region
camp = make("rank", "--regions", "5")
out = os.path.join(work, "rank-out")
r = report(camp, out=out)
s = open(os.path.join(out, "summary.txt")).read()
check("summed over the whole matrix (16 cells" in s, "ranked over the whole matrix")
r = report(camp, "--at", "4,i2", out=os.path.join(work, "at-out"))
check(r.returncode == 0 and "at 4 threads, input i2" in open(os.path.join(work, "at-out", "summary.txt")).read(),
      "--at 4,i2 ranks by that cell")
r = report(camp, "--at", "3,i2", out=os.path.join(work, "at-bad"), ok=False)
check(r.returncode != 0 and "--at 3,i2" in r.stderr, "--at with no such cell is an error: %r" % r.stderr)
r = report(camp, "--region", "nothing*", out=os.path.join(work, "region-bad"), ok=False)
check(r.returncode != 0 and "matches no region" in r.stderr, "--region matching nothing is an error")
out = os.path.join(work, "share-out")
r = report(camp, "--min-share", "5", out=out)
drawn = sorted(os.path.basename(p)[:4] for p in glob.glob(os.path.join(out, "diagrams", "*.png")))
check(drawn == ["r000", "r001", "r002"],
      "--min-share 5 drops the regions below 5 %% of the program's time: %r" % drawn)

# 7. where the lost time goes: imbalance, barrier, lock, serial share and the rest, per cell
camp = make("waits", "--waits", "--gaps")
out = os.path.join(work, "waits-out")
r = report(camp, out=out)
s = open(os.path.join(out, "summary.txt")).read()
sec = section(s, "theory.c:10-18 (kernel)")
check(re.search(r"lost core-seconds over 12 cells: \S+ = imbalance \S+ \+ barrier/taskwait wait "
                r"\S+ \+ lock wait \S+ \+ serial share 0 \+ the rest \S+", sec) is not None,
      "the summary splits the region's lost core-seconds: %r" % sec)
d = glob.glob(os.path.join(out, "csv", "r001-*"))[0]


def mat(name, d=d):
    rows = list(csv.reader(open(os.path.join(d, name + ".csv"))))
    return [[float(v) if v else None for v in row[1:]] for row in rows[1:] if not row[0].startswith("#")]


L, I, B, K, S, R = (mat(n) for n in ("lost_cells", "lost_imbalance", "lost_barrier", "lost_lock",
                                      "lost_serial", "lost_rest"))
T = mat("time")
# input i1 (n = 10), 4 threads: T4 = 0.7 (100/4 + 2); imbalance 0.01 * T * 4 with T = 100/4 + 2
T4 = 100 / 4 + 2
check(abs(I[0][2] - 0.04 * T4) < 1e-6 and abs(B[0][2] - 0.06 * T4) < 1e-6 and
      abs(K[0][2] - 0.015 * T4) < 1e-6, "the CSV holds each part per cell: %r %r %r" % (I[0][2], B[0][2], K[0][2]))
check(all(abs(L[y][x] - I[y][x] - B[y][x] - K[y][x] - S[y][x] - R[y][x]) < 1e-9
          for y in range(4) for x in range(1, 4)), "the parts add up to the lost core-seconds")
sec0 = section(s, "whole program")
gl = re.search(r"serial share (\S+)", sec0)
check(gl is not None and float(gl.group(1)) > 0, "the whole program's serial share is its gaps' loss")
# the whole program's waits are its (one) parallel region's, and its parts add up too
d0 = glob.glob(os.path.join(out, "csv", "r000-*"))[0]
L0, I0, B0, K0, S0, R0 = (mat(n, d0) for n in ("lost_cells", "lost_imbalance", "lost_barrier", "lost_lock",
                                            "lost_serial", "lost_rest"))
check(all(abs(I0[y][x] - I[y][x]) < 1e-9 and abs(B0[y][x] - B[y][x]) < 1e-9 and abs(K0[y][x] - K[y][x]) < 1e-9
          for y in range(4) for x in range(1, 4)),
      "the whole program's imbalance, barrier and lock parts are its region's: %r %r" % (I0[0], I[0]))
check(all(abs(L0[y][x] - I0[y][x] - B0[y][x] - K0[y][x] - S0[y][x] - R0[y][x]) < 1e-9
          for y in range(4) for x in range(1, 4)), "the whole program's parts add up")

# 6. `scal report C.h5` with no -o writes C-report/
r = report(os.path.join(work, "rank.h5"))
check(r.returncode == 0 and os.path.exists(os.path.join(work, "rank-report", "summary.txt")),
      "scal report C.h5 writes C-report/")

# 8. the report never grows or copies the campaign: /analysis is written into C.analysis.h5
# (replaced on each report) and the campaign holds only an external link to it, made once
camp = os.path.join(work, "rank.h5")
analysis = os.path.join(work, "rank.analysis.h5")
report(camp, out=os.path.join(work, "again"))
first = os.stat(camp)
inodes, held = set(), []
for i in range(3):
    held.append(open(analysis, "rb"))  # keeps the old inode alive: a new one cannot reuse it
    report(camp, out=os.path.join(work, "again"))
    st = os.stat(camp)
    check((st.st_ino, st.st_size, st.st_mtime_ns) == (first.st_ino, first.st_size, first.st_mtime_ns),
          "report %d leaves the campaign file untouched (same inode, size, mtime)" % (i + 2))
    inodes.add(os.stat(analysis).st_ino)
    inodes.add(os.fstat(held[-1].fileno()).st_ino)
check(len(inodes) == 4, "each report replaces %s (renamed into place): %r" % (analysis, inodes))
for h in held:
    h.close()
import h5py
with h5py.File(camp, "r") as f:
    link = f.get("analysis", getlink=True)
    check(isinstance(link, h5py.ExternalLink) and link.filename == "rank.analysis.h5" and
          link.path == "/analysis", "the campaign's /analysis is an external link to rank.analysis.h5")
    check("regions" in f["analysis"] and "runs" in f and f.attrs.get("scal_schema_version") is not None,
          "h5py reads /analysis through the link; the campaign keeps its tables and attributes")
r = subprocess.run([scal, "check", camp], capture_output=True, text=True)
check(r.returncode == 0, "scal check accepts the campaign with its analysis link: %s" % r.stdout)
# a campaign whose /analysis is a group inside it (older scal): replaced by the link
older = make("older", "--regions", "2")
with h5py.File(older, "r+") as f:
    f.create_group("analysis").create_dataset("x", data=[1.0] * 1000)
r = report(older, out=os.path.join(work, "older-out"))
with h5py.File(older, "r") as f:
    check(r.returncode == 0 and isinstance(f.get("analysis", getlink=True), h5py.ExternalLink),
          "an older in-file /analysis group is replaced by the link")

# 9. --compare BEFORE AFTER: efficiency after - before per region matched by identity, ranked
before, after = make("before", "--regions", "4"), make("after", "--regions", "4", "--improve")
out = os.path.join(work, "cmp-out")
r = subprocess.run([scal, "report", "--compare", before, after, "-o", out], capture_output=True,
                   text=True)
check(r.returncode == 0, "scal report --compare runs: %s" % r.stderr[-300:])
txt = open(os.path.join(out, "compare.txt")).read() if r.returncode == 0 else ""
ranked = re.findall(r"^\s+([+-]\d\.\d+)\s+\[[^]]*\]\s+\(\s*(\d+) cells\)\s+(.*?)\s+"
                    r"(improved|regressed|no significant change)$",
                    txt, re.M)
check(ranked and ranked[0][2] == "theory.c:20-28 (kernel)" and ranked[0][3] == "improved",
      "the parallelised region ranks first as improved: %r" % ranked[:2])
check(any(x[2] == "theory.c:10-18 (kernel)" and x[3] == "no significant change" for x in ranked),
      "the untouched region is unchanged")
rows = list(csv.DictReader(open(os.path.join(out, "compare.csv")))) if r.returncode == 0 else []
cell = [x for x in rows if x["region"] == "theory.c:20-28 (kernel)" and x["input"] == "i1"
        and x["threads"] == "4"]
check(cell and abs(float(cell[0]["efficiency_after"]) - 1) < 1e-9 and
      abs(float(cell[0]["efficiency_before"]) - 0.25) < 1e-9, "compare.csv holds both efficiencies")
check(not os.path.exists(os.path.join(out, "compare.html")) and
      '"compare_diff":' in open(os.path.join(out, "index.html")).read(),
      "the comparison is inside index.html (no separate compare.html)")

# 10. --format png,svg,pdf: the diagrams as vector files too (cairo's surfaces); PNG stays the default
out = os.path.join(work, "fmt-out")
r = report(os.path.join(work, "rank.h5"), "--format", "png,svg,pdf", "--top", "1", out=out)
base = os.path.join(out, "diagrams", "r000-whole_program")
check(r.returncode == 0 and open(base + ".png", "rb").read(4) == b"\x89PNG" and
      open(base + ".pdf", "rb").read(5) == b"%PDF-" and b"<svg" in open(base + ".svg", "rb").read(400),
      "PNG, PDF and SVG diagrams written")
check(not glob.glob(os.path.join(work, "rank-out", "diagrams", "*.svg")), "PNG only by default")
r = report(os.path.join(work, "rank.h5"), "--format", "gif", out=os.path.join(work, "fmt-bad"), ok=False)
check(r.returncode != 0 and "use png, svg or pdf" in r.stderr, "an unknown format is an error")

# 12. the efficiency chart beside the speedup chart (both with min-max bars over repetitions)
charts = sorted(os.path.basename(p) for p in glob.glob(os.path.join(work, "rank-out", "charts", "r000-*")))
check(charts == ["r000-whole_program-efficiency.png", "r000-whole_program-speedup.png"],
      "speedup and efficiency charts: %r" % charts)

# 13. --transpose: inputs across, thread counts up (the 2022 paper's layout)
out = os.path.join(work, "tr-out")
report(os.path.join(work, "rank.h5"), "--transpose", "--top", "1", out=out)
g = open(os.path.join(out, "diagrams", "r000-whole_program.geom")).read()
m = re.search(r"^panel 0 diff_strong \S+ \S+ (\S+) (\S+) 4 3 \S+ transposed$", g, re.M)
check(m is not None and abs(float(m.group(1)) - 470 / 4) < 1e-3 and abs(float(m.group(2)) - 340 / 3) < 1e-3,
      "the strong-scaling panel has the 4 inputs across and the 3 thread steps up")

# 14. C++ names are demangled in every output
camp = make("mangled", "--mangled")
out = os.path.join(work, "mangled-out")
report(camp, out=out)
s = open(os.path.join(out, "summary.txt")).read()
idx = open(os.path.join(out, "index.txt")).read()
check("theory.c:10-18 (solver::step(int))" in s and "_ZN6solver" not in s + idx and
      "solver::step(int)" in idx, "the C++ region's label is demangled")

# 11. speed: PNGs for the whole program and the 10 first regions by default, every region with --all;
# the page holds every region either way
camp = make("many", "--regions", "14")
for opt, n in (([], 11), (["--all"], 14)):
    out = os.path.join(work, "many-out" + "".join(opt))
    report(camp, *opt, out=out)
    pngs = glob.glob(os.path.join(out, "diagrams", "*.png"))
    check(len(pngs) == n, "%s: %d diagram PNGs (want %d)" % (opt or "default", len(pngs), n))
    page = open(os.path.join(out, "index.html")).read()
    check(page.count('"slug":') == 14, "the page holds all 14 regions")
    # CSV: a directory per drawn region only; csv/all/<metric>.csv holds every region
    rdirs = [d for d in os.listdir(os.path.join(out, "csv")) if d != "all"]
    check(len(rdirs) == n, "%s: %d per-region CSV directories (want %d)" % (opt or "default", len(rdirs), n))
    rows = list(csv.reader(open(os.path.join(out, "csv", "all", "efficiency.csv"))))
    body = [row for row in rows if row and not row[0].startswith("#")]
    check(body[0][:3] == ["region", "slug", "efficiency input\\threads"] and
          len({row[1] for row in body[1:]}) == 14 and len(body) == 1 + 14 * 4,
          "csv/all/efficiency.csv: every region, a row per input (%d rows)" % (len(body) - 1))
    allrows = {row[1]: row for row in body[1:] if row[2] == "i1"}
    one = list(csv.reader(open(os.path.join(out, "csv", "r000-whole_program", "efficiency.csv"))))
    check(allrows["r000-whole_program"][3:] == [r for r in one if r[0] == "i1"][0][1:],
          "csv/all holds the same values as the region's own file")

finish()
