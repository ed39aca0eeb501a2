# SPDX-License-Identifier: BSD-3-Clause
# index.html: one self-contained page (no network), rendered by headless Chromium: every region of
# the campaign appears in the tree and the diagrams and charts are drawn in the DOM; a screenshot is
# saved under the test's output. Skips (77) when chromium is not installed.
import h5py, json, os, re, shutil, subprocess, sys

scal, gen, work = sys.argv[1:4]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
camp = os.path.join(work, "c.h5")
subprocess.run([gen, camp, "--inputs", "4", "--threads", "5", "--reps", "3", "--regions", "7",
                "--gaps", "--waits", "--partial"], check=True)
out = os.path.join(work, "out")
r = subprocess.run([scal, "report", camp, "-o", out, "--top", "2"], capture_output=True, text=True)
assert r.returncode == 0, r.stderr
page = open(os.path.join(out, "index.html")).read()
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from scal_check import expect as check, failures, finish  # noqa: E402  (tests/scal_check.py)


# self-contained: no external resource, the data embedded as JSON with every region (not only --top)
check(not re.search(r"<(link|img|iframe)\b|\bsrc=|url\(|https?://(?!www\.w3\.org/2000/svg)", page),
      "no external resource in index.html")
data = json.loads(re.search(r'<script type="application/json" id="scal-data">(.*?)</script>', page,
                            re.S).group(1))
with h5py.File(camp, "r") as f:
    nregions = len(f["regions"])
check(len(data["regions"]) == nregions, "the page holds all %d regions (--top 2 limits only the PNGs)"
      % nregions)
json_text = page.split('id="scal-data">')[1].split("</script>")[0]
check(not re.search(r"\bnan\b", json_text, re.I), "no NaN in the embedded data (null instead)")

chromium = shutil.which("chromium") or shutil.which("chromium-browser")
if not chromium:
    print("SKIP: chromium is not installed (scripts/install-deps.sh installs it)")
    sys.exit(77 if not failures() else 1)
url = "file://" + os.path.abspath(os.path.join(out, "index.html"))
flags = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         "--user-data-dir=" + os.path.join(work, "profile")]
dom = subprocess.run(flags + ["--dump-dom", url], capture_output=True, text=True, timeout=120).stdout
slugs = set(re.findall(r'class="row[^"]*" data-slug="([^"]*)"', dom))
check(slugs == {r["slug"] for r in data["regions"]},
      "every region appears in the page's tree (%d of %d)" % (len(slugs), len(data["regions"])))
for metric in ("efficiency", "diff_strong", "diff_input", "diff_weak"):
    svg = re.search(r'<svg[^>]*data-metric="%s".*?</svg>' % metric, dom, re.S)
    cells = len(re.findall(r'<rect[^>]*class="cell', svg.group(0))) if svg else 0
    check(cells > 0, "the %s diagram is drawn (%d cells)" % (metric, cells))
check(len(re.findall(r'class="series"', dom)) >= 4, "the speedup and efficiency charts are drawn")
check("where the lost time goes" in dom and 'class="bar"' in dom, "the lost-time breakdown is drawn")
check(len(re.findall(r'class="detail"', dom)) == 2, "two regions side by side (the program and rank 1)")
# scal report --compare BEFORE AFTER: the comparison inside index.html, ranked, with its diagram
before, after = os.path.join(work, "before.h5"), os.path.join(work, "after.h5")
for path, extra in ((before, []), (after, ["--improve"])):
    subprocess.run([gen, path, "--inputs", "4", "--threads", "4", "--reps", "2", "--regions", "4"] + extra,
                   check=True)
cmp_out = os.path.join(work, "cmp")
r = subprocess.run([scal, "report", "--compare", before, after, "-o", cmp_out], capture_output=True, text=True)
check(r.returncode == 0 and not os.path.exists(os.path.join(cmp_out, "compare.html")),
      "compare mode writes index.html, no compare.html: %s" % r.stderr[-200:])
cdom = subprocess.run(flags + ["--dump-dom", "file://" + os.path.abspath(os.path.join(cmp_out, "index.html"))],
                      capture_output=True, text=True, timeout=120).stdout
ranked = re.findall(r'class="row cmprow" data-slug="([^"]*)"', cdom)
check(len(ranked) == 4 and ranked[0] == "r002-theory.c_20-28__kernel_",
      "the page ranks the 4 matched regions, the improved one first: %r" % ranked)
svg = re.search(r'<svg[^>]*data-metric="compare_diff".*?</svg>', cdom, re.S)
cells = re.findall(r'<rect[^>]*fill="([^"]*)"[^>]*class="cell"', svg.group(0)) if svg else []
check(len(cells) == 16 and len(set(cells)) > 1,
      "the efficiency difference after - before is drawn for the shown region (%d cells)" % len(cells))
subprocess.run(flags + ["--window-size=1600,1000", "--screenshot=" + os.path.join(work, "compare.png"),
                        "file://" + os.path.abspath(os.path.join(cmp_out, "index.html"))],
               capture_output=True, timeout=120)
shot = os.path.join(work, "index.png")
subprocess.run(flags + ["--window-size=1600,1000", "--screenshot=" + shot, url],
               capture_output=True, timeout=120)
check(os.path.exists(shot) and os.path.getsize(shot) > 10000, "screenshot saved: " + shot)
finish()
