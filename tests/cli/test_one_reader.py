# SPDX-License-Identifier: BSD-3-Clause
# scal show, scal export and scal report read a file through one reader (common/campaign_reader.c):
# what each prints of the same campaign agrees (show's and export's (run, region) rows, the
# report's median times from export's rows), and a run file's thread count is the same in all
# three whether /meta says requested_threads or only max_team_observed.
#   test_one_reader.py SCAL TOOL DEMO GEN_CAMPAIGN WORKDIR
import csv
import io
import os
import shutil
import statistics
import subprocess
import sys

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from scal_check import expect as check, finish  # noqa: E402  (tests/scal_check.py)

SCAL, TOOL, DEMO, GEN, WORK = sys.argv[1:6]


def scal(*cmd):
    p = subprocess.run([SCAL] + list(cmd), capture_output=True, text=True)
    if p.returncode != 0:
        print("scal %s: exit %d: %s" % (" ".join(cmd), p.returncode, p.stderr))
    return p.returncode, p.stdout


def rows(text):
    return list(csv.DictReader(io.StringIO(text)))


def close(a, b):
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1e-300)


def same(a, b):
    """Two CSV cells: the same text, or numbers equal to 1e-9 (empty: missing)."""
    return a == b or (a != "" and b != "" and close(float(a), float(b)))


def report_times(path, out):
    """csv/all/time.csv of scal report: {(label, input, threads): median time}."""
    shutil.rmtree(out, ignore_errors=True)
    rc, _ = scal("report", path, "-o", out, "--no-write", "-q", "--only", "csv")
    check(rc == 0, "report of %s" % os.path.basename(path))
    times = {}
    with open(os.path.join(out, "csv", "all", "time.csv")) as f:
        r = csv.reader(f)
        header = next(r)
        while header[0].startswith("#"):  # notes, e.g. no 1-thread run
            header = next(r)
        threads = header[3:]
        for line in r:
            for t, v in zip(threads, line[3:]):
                if v:
                    times[(line[0], line[2], int(t))] = float(v)
    return times


def campaign():
    c = os.path.join(WORK, "c.h5")
    subprocess.run([GEN, c, "--inputs", "2", "--threads", "3", "--reps", "3", "--regions", "3",
                    "--jitter", "0.2", "--energy"], check=True)
    rc, shown = scal("show", c, "--csv")
    rc2, exported = scal("export", c, "--format", "csv")
    shown, exported = rows(shown), rows(exported)
    check(rc == 0 and rc2 == 0 and shown and len(shown) == len(exported),
          "show and export: one row per (run, region) each (%d, %d)" % (len(shown), len(exported)))
    by_key = {(r["run"], r["region_id"]): r for r in exported}
    agree = all(
        (s["run"], s["region_id"]) in by_key
        and by_key[(s["run"], s["region_id"])]["region"] == s["region"]
        and by_key[(s["run"], s["region_id"])]["input"] == s["input"]
        and by_key[(s["run"], s["region_id"])]["threads"] == s["threads"]
        and by_key[(s["run"], s["region_id"])]["count"] == s["count"]
        and same(by_key[(s["run"], s["region_id"])]["total_s"], s["total_s"])
        for s in shown)
    check(agree, "show and export read the same runs, regions, labels, counts and times")
    sensors = [k for k in shown[0] if k.endswith("]")]  # "<plugin>.<metric> [unit]"
    check(sensors and all(k in exported[0] for k in sensors) and all(
        same(s[k], by_key[(s["run"], s["region_id"])][k]) for s in shown for k in sensors),
        "show and export read the same sensor values %s" % sensors)
    # the report's medians of the same rows (its region time: wall-clock, else the summed time)
    cells = {}
    for r in exported:
        if r["status"] != "ok":
            continue
        t = float(r["wall_s"]) if r["wall_s"] and float(r["wall_s"]) > 0 else float(r["total_s"])
        cells.setdefault((r["region"], r["input"], int(r["threads"])), []).append(t)
    times = report_times(c, os.path.join(WORK, "c-report"))
    check(len(times) == len(cells) and len(cells) == 3 * 2 * 3,
          "report: a time for every (region, input, threads) cell (%d, %d)" % (len(times), len(cells)))
    check(all(k in times and close(times[k], statistics.median(v)) for k, v in cells.items()),
          "report's medians are those of the rows show and export read")


def run_file():
    run = os.path.join(WORK, "run.h5")
    env = dict(os.environ, OMP_TOOL_LIBRARIES=TOOL, SCAL_OUTPUT=run, OMP_NUM_THREADS="2")
    subprocess.run([DEMO], env=env, check=True, capture_output=True)
    # /meta@requested_threads when positive, else @max_team_observed (the one rule)
    variants = {"requested": (None, 2), "none requested": (0, 2), "requested 3": (3, 3)}
    for name, (requested, want) in variants.items():
        path = os.path.join(WORK, "run-%s.h5" % name.replace(" ", "-"))
        shutil.copy(run, path)
        with h5py.File(path, "r+") as f:
            if requested is not None:
                f["meta"].attrs["requested_threads"] = requested
        rc, exported = scal("export", path, "--format", "csv")
        exported = rows(exported)
        check(rc == 0 and exported and all(int(r["threads"]) == want for r in exported),
              "run file, %s: export's thread count is %d" % (name, want))
        times = report_times(path, os.path.join(WORK, "run-report"))
        check(times and all(k[2] == want for k in times),
              "run file, %s: the report's thread count is %d (%s)" % (name, want,
                                                                     sorted({k[2] for k in times})))


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    campaign()
    run_file()
    finish()


if __name__ == "__main__":
    main()
