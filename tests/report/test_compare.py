# SPDX-License-Identifier: BSD-3-Clause
# scal report --compare is noise-aware: each region's mean efficiency difference comes with a 95 %
# confidence interval from the repetitions, and only an interval that excludes zero is called
# improved or regressed; unmatched regions are listed by name; a region whose pragma moved (same
# function, same order) is still matched, with its serial gaps. Synthetic campaigns whose noise is
# known (tests/report/gen_campaign.c --jitter, --noisy, --shift).
import csv, os, re, shutil, subprocess, sys

scal, gen, work = sys.argv[1:4]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from scal_check import expect as check, finish  # noqa: E402  (tests/scal_check.py)


def make(name, *extra, reps=3):
    path = os.path.join(work, name + ".h5")
    subprocess.run([gen, path, "--inputs", "4", "--threads", "4", "--reps", str(reps), "--regions", "4",
                    "--gaps"] + list(extra), check=True)
    return path


def compare(before, after):
    out = os.path.join(work, "cmp-%s-%s" % (os.path.basename(before)[:-3], os.path.basename(after)[:-3]))
    r = subprocess.run([scal, "report", "--compare", before, after, "-o", out], capture_output=True, text=True)
    check(r.returncode == 0, "scal report --compare %s %s: %s" % (before, after, r.stderr[-300:]))
    txt = open(os.path.join(out, "compare.txt")).read() if r.returncode == 0 else ""
    rows = {}
    for m in re.finditer(r"^\s+([+-]\d\.\d+|-)\s+(?:\[([+-]\d\.\d+), ([+-]\d\.\d+)\])?\s+\(\s*(\d+) cells\)\s+(.*?)"
                         r"\s+(improved|regressed|no significant change|no interval \(single repetitions\))$",
                         txt, re.M):
        num = lambda g: float(g) if g and g != "-" else float("nan")  # noqa: E731
        rows[m.group(5)] = (num(m.group(1)), num(m.group(2)), num(m.group(3)), m.group(6))
    return out, txt, rows


K1, K2 = "theory.c:10-18 (kernel)", "theory.c:20-28 (kernel)"
# 1. a real improvement in moderate noise: the interval excludes zero
out, txt, rows = compare(make("j4", "--jitter", "0.4"), make("j4-better", "--jitter", "0.4", "--improve"))
m, lo, hi, v = rows.get(K2, (0, 0, 0, ""))
check(v == "improved" and 0 < lo < m < hi, "improvement beyond the noise: %s %r" % (K2, rows.get(K2)))
m, lo, hi, v = rows.get(K1, (0, 0, 0, ""))
check(v == "no significant change" and lo < 0 < hi and hi - lo > 0.1,
      "an untouched region in noise: its interval spans zero %r" % (rows.get(K1),))
# 2. the same improvement in heavy noise: the interval spans zero, no verdict of improvement
out, txt, rows = compare(make("j9", "--jitter", "0.9"), make("j9-better", "--jitter", "0.9", "--improve"))
m, lo, hi, v = rows.get(K2, (0, 0, 0, ""))
check(v == "no significant change" and lo < 0 < hi and m > 0.3,
      "a mean change inside heavy noise is no significant change: %r" % (rows.get(K2),))
# 3. one noisy cell moves the mean (the "+0.169 improved on one noisy cell"): no verdict
out, txt, rows = compare(make("quiet"), make("onecell", "--noisy"))
m, lo, hi, v = rows.get(K1, (0, 0, 0, ""))
check(m < -0.01 and lo < 0 < hi and v == "no significant change",
      "one noisy cell does not make a regression: %r" % (rows.get(K1),))
csvrows = list(csv.DictReader(open(os.path.join(out, "compare.csv"))))
noisy = [r for r in csvrows if r["region"] == K1 and r["input"] == "i1" and r["threads"] == "2"]
check(noisy and float(noisy[0]["difference_sd"]) > 0.1, "compare.csv holds each cell's standard deviation")
page = open(os.path.join(out, "index.html")).read()
check('"compare_lo":' in page and '"compare_hi":' in page, "the page gets the interval of each region")
# 4. single repetitions: no interval, no verdict
out, txt, rows = compare(make("one", reps=1), make("one-better", "--improve", reps=1))
check(rows.get(K2, (0, 0, 0, ""))[3] == "no interval (single repetitions)",
      "without repetitions there is no interval: %r" % (rows.get(K2),))
# 5. a pragma moved by one line: matched by function and order, its serial gaps too
out, txt, rows = compare(make("quiet2"), make("moved", "--shift", "1"))
check("regions only before: 0\n" in txt and "regions only after: 0\n" in txt and len(rows) == 6,
      "every region matched after the pragmas moved (%d rows)" % len(rows))
check("  theory.c:10-18 (kernel)  (now theory.c:11-19 (kernel))" in txt and
      "  serial: theory.c:10-18 (kernel) -> end  (now serial: theory.c:11-19 (kernel) -> end)" in txt,
      "the moved regions and their gaps are named")
# 6. unmatched regions by name
five = os.path.join(work, "five.h5")
subprocess.run([gen, five, "--inputs", "4", "--threads", "4", "--reps", "3", "--regions", "5", "--gaps"],
               check=True)
out, txt, rows = compare(five, os.path.join(work, "quiet.h5"))
check(re.search(r"^regions only before: 1\n  theory\.c:40-48 \(kernel\)\nregions only after: 0$", txt, re.M),
      "the region only before is named: %r" % txt[txt.find("regions only"):])
finish()
