# SPDX-License-Identifier: BSD-3-Clause
# index.html explains itself, checked in headless Chromium (DOM after the script ran, screenshots at
# 800 and 1,400 px): axis titles, a legend naming every input and the ideal line, y ticks, the tree's
# column headers, the lost-time colour key, within-noise cells marked "~" exactly where the PNG
# diagrams mark them, notes folded behind one line, no efficiency for a region with only 1-thread
# runs, both default panels inside the window with no text cut, and the model's predictions in the
# charts (dashed, with their interval band) for a clear law but not for pure noise. Skips (77) without
# chromium.
import html, json, os, re, shutil, subprocess, sys

scal, gen, work = sys.argv[1:4]
here = os.path.dirname(os.path.abspath(__file__))
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
sys.path.insert(0, os.path.join(here, ".."))
from scal_check import expect as check, failures, finish  # noqa: E402  (tests/scal_check.py)

camp = os.path.join(work, "c.h5")
subprocess.run([gen, camp, "--inputs", "4", "--threads", "5", "--reps", "3", "--regions", "7",
                "--gaps", "--waits", "--partial", "--only1", "--noisy"], check=True)
out = os.path.join(work, "out")
r = subprocess.run([scal, "report", camp, "-o", out], capture_output=True, text=True)
assert r.returncode == 0, r.stderr
page_path = os.path.join(out, "index.html")
page = open(page_path).read()
data = json.loads(re.search(r'<script type="application/json" id="scal-data">(.*?)</script>', page,
                            re.S).group(1))

chromium = shutil.which("chromium") or shutil.which("chromium-browser")
if not chromium:
    print("SKIP: chromium is not installed (scripts/install-deps.sh installs it)")
    sys.exit(77)


def browse(path, width, *extra):
    flags = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--hide-scrollbars", "--user-data-dir=" + os.path.join(work, "profile-%d" % width),
             "--window-size=%d,1000" % width]
    r = subprocess.run(flags + list(extra) + ["file://" + os.path.abspath(path)], capture_output=True,
                       text=True, timeout=180)
    return r.stdout


dom = browse(page_path, 1400, "--dump-dom")
details = re.findall(r'<div class="detail" data-region="(\d+)">(.*?)(?=<div class="detail"|$)', dom, re.S)
check(len(details) == 2, "two panels open by default (%d)" % len(details))
charts = re.findall(r'<svg[^>]*data-chart="(speedup|efficiency)".*?</svg>', dom, re.S)
charts = re.findall(r'(<svg[^>]*data-chart="(?:speedup|efficiency)".*?</svg>)', dom, re.S)
check(len(charts) == 4, "two charts per panel (%d)" % len(charts))
for svg in charts:
    what = re.search(r'data-chart="(\w+)"', svg).group(1)
    titles = re.findall(r'class="axis-title"[^>]*>([^<]*)<', svg)
    legend = re.findall(r'class="legend"[^>]*>([^<]*)<', svg)
    ticks = re.findall(r'class="ytick"[^>]*>([^<]*)<', svg)
    check(any(t.startswith("threads") for t in titles) and any(t.startswith(what) for t in titles),
          "%s chart: axis titles %r" % (what, titles))
    check(legend[:len(data["inputs"]) + 1] == ["ideal"] + data["inputs"]
          and legend[len(data["inputs"]) + 1:] in ([], ["model (90 % interval)"], ["no reliable model"]),
          "%s chart: the legend names the ideal, every input and the model %r" % (what, legend))
    check(len(ticks) >= 4 and len(set(ticks)) == len(ticks), "%s chart: %d distinct y ticks" % (what, len(ticks)))
    check('class="ideal"' in svg or "ideal" not in legend, "%s chart: the ideal line is drawn" % what)
for svg in re.findall(r'(<svg[^>]*class="diagram".*?</svg>)', dom, re.S):
    titles = re.findall(r'class="axis-title"[^>]*>([^<]*)<', svg)
    check(len(titles) == 2 and titles[1] == "input" and titles[0].startswith("threads"),
          "diagram %s: axis titles %r" % (re.search(r'data-metric="(\w+)"', svg).group(1), titles))
head = re.search(r'<div class="row head">(.*?)</div>', dom, re.S)
cols = re.findall(r">([^<>]+)</span>", head.group(1)) if head else []
check(cols == ["region", "time", "eff", "trend"], "the region tree has column headers %r" % cols)
keys = re.findall(r'<span class="keyitem"><span class="sw" style="background:([^"]+)"></span>([a-z/ ]+) ',
                  details[0][1])
check([k[1] for k in keys] == ["imbalance", "barrier/taskwait wait", "lock wait", "serial share", "the rest"]
      and len({k[0] for k in keys}) == 5, "the lost-time bar has a colour key %r" % keys)
bar_colours = set(re.findall(r'background:(#[0-9a-f]+)', re.search(r'<div class="bar">(.*?)</div></div>',
                                                                   details[0][1], re.S).group(1)))
check(bar_colours <= {k[0] for k in keys}, "every colour of the bar is in the key")
# notes folded behind one line: the campaign's notes inside one <details>, closed
side = dom.split('<div id="main">')[0]
fold = re.search(r'<details class="fold"><summary>(\d+) note\(s\)', side)
check(fold and int(fold.group(1)) == len(data["notes"]) and len(data["notes"]) >= 3
      and "open" not in re.search(r"<details[^>]*>", side).group(0),
      "the %d campaign notes are folded behind one line" % len(data["notes"]))
check(not re.search(r'<div class="notes">[^<]*(absent from|had nothing to do)', side),
      "no note is spelled out at the top of the sidebar")
# a region with only 1-thread runs: no efficiency in the tree (the summary says "no verdict")
serial_only = [R for R in data["regions"] if R["m"].get("time") and
               all(v is None for row in R["m"]["time"] for v in row[1:])
               and any(v is not None for row in R["m"]["time"] for v in row[:1])]
check(len(serial_only) == 1, "the campaign has one region with only 1-thread runs")
for R in serial_only:
    row = re.search(r'data-slug="%s"[^>]*>.*?<span class="num eff"[^>]*>([^<]*)<' % re.escape(R["slug"]), dom, re.S)
    check(row and row.group(1) == "-", "%s: efficiency '-' in the tree, not 1.00 (%r)"
          % (R["label"], row.group(1) if row else None))
# within noise: the page marks the same cells as the PNG's geometry file
geom = open(os.path.join(out, "diagrams", data["regions"][0]["slug"] + ".geom")).read()
png_quiet = set(re.findall(r"^noise 0 (\S+ \d+ \d+)$", geom, re.M))
prog = next(d for rid, d in details if rid == "0")
page_quiet = set()
for metric, svg in re.findall(r'<svg[^>]*data-metric="(\w+)"(.*?)</svg>', prog, re.S):
    for ty, tx in re.findall(r'<rect[^>]*class="cell noise" data-y="(\d+)" data-x="(\d+)"', svg):
        y = int(ty) - (metric in ("diff_input", "diff_weak"))
        x = int(tx) - (metric in ("diff_strong", "diff_weak"))
        page_quiet.add("%s %d %d" % (metric, y, x))
    check(len(re.findall(r'class="noise-mark"', svg)) ==
          len(re.findall(r'class="cell noise"', svg)), "%s: every within-noise cell has its '~'" % metric)
check(png_quiet and page_quiet == png_quiet,
      "within-noise cells: page %d, PNG %d, the same cells" % (len(page_quiet), len(png_quiet)))

# rows that are MPI rank counts (scal report --axes ranks,threads labels them "R ranks") are called
# ranks, not inputs
import h5py  # noqa: E402
ranked = os.path.join(work, "ranked.h5")
shutil.copy(camp, ranked)
with h5py.File(ranked, "r+") as f:
    names = {"i%d" % k: "%d ranks" % (2 ** k) for k in range(1, 5)}
    st = [x.decode() if isinstance(x, bytes) else x for x in f["strings"][()]]
    f["strings"][...] = [names.get(x, x) for x in st]
    ci = [x.decode() if isinstance(x, bytes) else x for x in f["campaign/inputs"][()]]
    f["campaign/inputs"][...] = [names.get(x, x) for x in ci]
r = subprocess.run([scal, "report", ranked, "-o", os.path.join(work, "ranked-out")], capture_output=True, text=True)
rdom = browse(os.path.join(work, "ranked-out", "index.html"), 1400, "--dump-dom") if r.returncode == 0 else ""
rtitles = set(re.findall(r'<svg[^>]*class="diagram".*?class="axis-title"[^>]*>[^<]*<.*?class="axis-title"[^>]*>([^<]*)<',
                         rdom, re.S))
check(rtitles == {"ranks"} and "rows: MPI ranks" in rdom, "rows of rank counts are titled ranks: %r" % rtitles)
# ... and so does summary.txt: its header, the baseline, and the findings' words
rsum = open(os.path.join(work, "ranked-out", "summary.txt")).read() if r.returncode == 0 else ""
rhead = rsum.split("\nnotes:")[0]
check("rank counts (MPI, --axes ranks,threads): 4;" in rhead and "inputs:" not in rhead
      and "each rank count" in rhead, "summary.txt: the rows are rank counts %r" % rhead[-200:])
rfind = [l for l in rsum.splitlines() if l.startswith("  - ") and "ranks" in l]
check(rfind and not [l for l in rfind if re.search(r"\binputs? \d+ ranks|input size|fixed input|per input", l)]
      and any("at a fixed rank count" in l for l in rfind) and any("per rank count: 2 ranks" in l for l in rfind),
      "summary.txt: findings speak of rank counts, not inputs %r"
      % [l for l in rfind if re.search(r"\binputs? \d+ ranks|input size|fixed input|per input", l)][:3])

# the model's predictions (tests/model/synth.py: campaigns of known laws made with scal import): the
# charts go on to 2, 4 and 8 x the largest thread count, dashed, with the 90 % interval as a band, for
# a clear law; nothing is drawn for pure noise, and the legend says why
sys.path.insert(0, os.path.join(here, "..", "model"))
from synth import campaign_json, make_campaign  # noqa: E402


def chart_svgs(dom):
    return re.findall(r'(<svg[^>]*data-chart="(?:speedup|efficiency)".*?</svg>)', dom, re.S)


law_pages = {}
for name, regions in (("law", campaign_json(["amdahl"], noise=0.02)),
                      ("noise", campaign_json([], pure_noise=("noise",)))):
    h5 = os.path.join(work, name + ".h5")
    make_campaign(scal, os.path.join(work, name + ".json"), h5, regions)
    o = os.path.join(work, name + "-out")
    r = subprocess.run([scal, "report", h5, "-o", o], capture_output=True, text=True)
    check(r.returncode == 0, "scal report of the %s campaign: %s" % (name, r.stderr[-300:]))
    law_pages[name] = os.path.join(o, "index.html")
    svgs = chart_svgs(browse(law_pages[name], 1400, "--dump-dom"))
    check(len(svgs) == 4, "%s: two charts in each of the two panels (%d)" % (name, len(svgs)))
    for svg in svgs:
        what = re.search(r'data-chart="(\w+)"', svg).group(1)
        lines = re.findall(r'<polyline[^>]*class="model"', svg)
        bands = re.findall(r'<polygon[^>]*class="model-band"', svg)
        legend = re.findall(r'class="legend[^"]*"[^>]*>([^<]*)<', svg)
        predicted = re.findall(r'class="xtick predicted"[^>]*>([^<]*)<', svg)
        if name == "law":
            check(len(lines) == 4 and len(bands) == 4 and all('stroke-dasharray' in l for l in lines),
                  "law, %s chart: one dashed prediction and one band per input (%d, %d)"
                  % (what, len(lines), len(bands)))
            check(predicted == ["16", "32", "64"], "law, %s chart: predicted thread counts %r" % (what, predicted))
            check(legend[-1] == "model (90 % interval)", "law, %s chart: the model in the legend %r" % (what, legend))
        else:
            why = re.search(r'class="legend model-key"[^>]*>no reliable model<title>([^<]*)<', svg)
            check(not lines and not bands and not predicted,
                  "noise, %s chart: no prediction drawn (%d, %d, %r)" % (what, len(lines), len(bands), predicted))
            check(why and "noisy" in why.group(1), "noise, %s chart: the legend says why there is no model: %r"
                  % (what, why.group(1) if why else legend))
for width in (800, 1400):
    shot = os.path.join(work, "law-%d.png" % width)
    browse(law_pages["law"], width, "--screenshot=" + shot)
    check(os.path.exists(shot) and os.path.getsize(shot) > 10000, "screenshot saved: " + shot)

# layout at two widths: no panel beyond the window, no text cut, the two panels side by side at 1,400
probe = open(os.path.join(here, "layout_probe.js")).read()
probe_path = os.path.join(out, "probe.html")
with open(probe_path, "w") as f:
    f.write(page.replace("</body>", "<script>\n" + probe + "</script>\n</body>"))
for width in (800, 1400):
    m = re.search(r'<pre id="layout-probe">(.*?)</pre>', browse(probe_path, width, "--dump-dom"), re.S)
    lay = json.loads(html.unescape(m.group(1))) if m else {"bad": ["no probe output"], "details": []}
    check(not lay["bad"], "%d px: nothing beyond the window or cut %r" % (width, lay["bad"][:5]))
    d = lay["details"]
    if width == 1400:
        check(len(d) == 2 and d[0][1] == d[1][1] and d[0][2] <= d[1][0],
              "1400 px: the two panels side by side %r" % d)
    shot = os.path.join(work, "page-%d.png" % width)
    browse(page_path, width, "--screenshot=" + shot)
    check(os.path.exists(shot) and os.path.getsize(shot) > 10000, "screenshot saved: " + shot)
finish()
