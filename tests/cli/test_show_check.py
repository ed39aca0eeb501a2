# SPDX-License-Identifier: BSD-3-Clause
# Tests of `scal show` and `scal check` on real run files (a program measured by libscal_ompt.so),
# on a campaign file built from the schema JSON with h5py, and on broken files of every kind.
#   test_show_check.py --scal SCAL --tool LIB --demo PROGRAM --schemas DIR
import argparse
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from scal_check import expect as check, failures, finish  # noqa: E402  (tests/scal_check.py)


def scal(args, *cmd):
    p = subprocess.run([args.scal] + list(cmd), capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def dtype_of(members):
    np_types = {"u8": "u1", "i32": "<i4", "u32": "<u4", "i64": "<i8", "u64": "<u8", "f64": "<f8"}
    return np.dtype([(m["name"], np_types[m["type"]]) for m in members])


def make_campaign(path, schema):
    """A small valid campaign: 2 configs x 2 repetitions, regions root > parallel, written from the
    schema's member lists (so h5py users can write what scal reads)."""
    tables = {t["path"]: t for t in schema["tables"]}
    strings = ["", "demo", "small", "large", "./demo 10", "./demo 20", "demo.c:10-20", "main", "/bin/demo"]
    with h5py.File(path, "w") as f:
        f.attrs["scal_format"] = "scal-campaign"
        f.attrs["scal_schema_version"] = np.int64(1)
        f.attrs["scal_tool_version"] = "test"
        f.create_dataset("strings", data=np.array(strings, dtype=h5py.string_dtype()))
        g = f.create_group("campaign")
        g.attrs["program"] = "demo"
        cfg = np.zeros(2, dtype_of(tables["configs"]["members"]))
        cfg["id"] = [0, 1]
        cfg["threads"] = [1, 2]
        cfg["input_label"] = [2, 3]
        cfg["frequency_khz"] = -1
        cfg["argv"] = [4, 5]
        f.create_dataset("configs", data=cfg, maxshape=(None,))
        runs = np.zeros(4, dtype_of(tables["runs"]["members"]))
        runs["id"] = [0, 1, 2, 3]
        runs["config"] = [0, 0, 1, 1]
        runs["repetition"] = [0, 1, 0, 1]
        runs["team_requested"] = [1, 1, 2, 2]
        runs["team_observed"] = [1, 1, 2, 2]
        runs["wall_s"] = [1.0, 1.1, 0.6, 0.62]
        f.create_dataset("runs", data=runs, maxshape=(None,))
        reg = np.zeros(2, dtype_of(tables["regions"]["members"]))
        reg["id"] = [0, 1]
        reg["parent"] = [-1, 0]
        reg["depth"] = [0, 1]
        reg["kind"] = [0, 1]
        reg["name"] = [1, 6]
        reg["file"] = [0, 0]
        reg["function"] = [0, 7]
        reg["module"] = [0, 8]
        reg["line_first"] = [-1, 10]
        reg["line_last"] = [-1, 20]
        reg["gap_prev"] = -1
        reg["gap_next"] = -1
        f.create_dataset("regions", data=reg, maxshape=(None,))
        st = np.zeros(8, dtype_of(tables["region_stats"]["members"]))
        st["run"] = [0, 0, 1, 1, 2, 2, 3, 3]
        st["region"] = [0, 1] * 4
        st["count"] = 1
        st["time_total_s"] = [1.0, 0.8, 1.1, 0.9, 0.6, 0.4, 0.62, 0.41]
        st["time_mean_s"] = st["time_total_s"]
        f.create_dataset("region_stats", data=st, maxshape=(None,))


def mutate(src, dst, fn):
    shutil.copy(src, dst)
    with h5py.File(dst, "r+") as f:
        fn(f)
    return dst


def set_member(f, table, member, row, value):
    d = f[table][:]
    d[member][row] = value
    f[table][...] = d


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scal", required=True)
    ap.add_argument("--tool", required=True)
    ap.add_argument("--demo", required=True)
    ap.add_argument("--schemas", required=True)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="scal-cli-test-")
    run_schema = json.load(open(os.path.join(args.schemas, "scal-run-1.json")))
    camp_schema = json.load(open(os.path.join(args.schemas, "scal-campaign-1.json")))

    # A real run file.
    run = os.path.join(tmp, "demo.h5")
    env = dict(os.environ, OMP_TOOL_LIBRARIES=args.tool, SCAL_OUTPUT=run, OMP_NUM_THREADS="2")
    p = subprocess.run([args.demo, "20"], env=env, capture_output=True, text=True)
    check(p.returncode == 0 and os.path.exists(run), "demo program measured")

    rc, out, err = scal(args, "check", run)
    check(rc == 0 and "ok (scal-run v1" in out, "check: a real run file is ok (%s)" % out.strip())

    rc, out, err = scal(args, "show", run)
    lines = out.splitlines()
    check(rc == 0 and any(l.startswith("whole program") for l in lines), "show: the root is printed first")
    setup = [i for i, l in enumerate(lines) if l.strip().startswith("setup ")]
    check(len(setup) == 1, "show: the 'setup' user region is listed once")
    if setup:
        below = lines[setup[0] + 1]
        indent = lambda l: len(l) - len(l.lstrip(" "))
        check("scal_demo.c:" in below and indent(below) > indent(lines[setup[0]]),
              "show: the parallel region inside 'setup' is indented under it: %r" % below.strip())
    check(any("serial: start -> setup" in l for l in lines), "show: serial gaps are named by their neighbours")

    rc, out, err = scal(args, "show", run, "--csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    with h5py.File(run, "r") as f:
        nreg = len(f["regions"])
        names = f["strings"].asstr()[:]
        regions = f["regions"][:]
    check(rc == 0 and len(rows) == nreg, "show --csv: one row per region (%d rows, %d regions)" % (len(rows), nreg))
    check(rows and set(["id", "parent", "region", "count", "total_s", "team"]) <= set(rows[0].keys()), "show --csv: header columns")
    ids = sorted(int(r["id"]) for r in rows)
    check(ids == list(range(nreg)), "show --csv: every region id appears once")
    by_id = {int(r["id"]): r for r in rows}
    check(all(int(by_id[i]["count"]) == int(regions[i]["count"]) for i in range(nreg)), "show --csv: counts equal the file's")
    check(all(float(by_id[i]["total_s"]) == float(regions[i]["time_total_s"]) for i in range(nreg)),
          "show --csv: times at full precision (equal to the file's doubles)")
    check(by_id[0]["parent"] == "" and by_id[0]["team"] == "", "show --csv: missing values are empty cells, not '-'")
    check(all(k in rows[0] for k in ("file", "line_begin", "line_end")) and
          any(r["line_begin"] not in ("", None) and r["file"] for r in rows), "show --csv: file and line columns")

    rc, out, err = scal(args, "show", run, "--depth", "1", "--csv")
    shallow = list(csv.DictReader(io.StringIO(out)))
    top_level = sum(1 for r in regions if r["parent"] <= 0)
    check(rc == 0 and len(shallow) == top_level and 0 < top_level < nreg,
          "show --depth 1: one row per top-level region and the root (%d rows of %d, %d expected)" % (len(shallow), nreg, top_level))
    check(all(int(r["parent"] or -1) <= 0 for r in shallow), "show --depth 1 keeps only top-level regions")
    rc, out, err = scal(args, "show", run, "--top", "1", "--csv")
    top_rows = list(csv.DictReader(io.StringIO(out)))
    check(len(top_rows) == 2, "show --top 1: the largest region and the root (%d rows)" % len(top_rows))

    # h5py reads every table of a real run file with the schema's member names.
    with h5py.File(run, "r") as f:
        for t in run_schema["tables"]:
            if t["path"] in f:
                names_in_file = list(f[t["path"]].dtype.names)
                check(names_in_file == [m["name"] for m in t["members"]], "h5py reads /%s with the schema's members" % t["path"])

    # A campaign built from the schema.
    camp = os.path.join(tmp, "campaign.h5")
    make_campaign(camp, camp_schema)
    rc, out, err = scal(args, "check", camp)
    check(rc == 0 and "ok (scal-campaign v1, 4 runs, 2 regions)" in out, "check: a campaign built from the schema is ok (%s%s)" % (out.strip(), err.strip()))
    rc, out, err = scal(args, "show", camp)
    check(rc == 0 and "small" in out and "large" in out and "demo.c:10-20" in out, "show: campaign configurations and regions")
    rc, out, err = scal(args, "show", camp, "--csv")
    crow = list(csv.DictReader(io.StringIO(out)))
    check(len(crow) == 8 and crow[0]["input"] == "small", "show --csv: one row per (run, region) of the campaign")
    rc, out, err = scal(args, "show", camp, "--csv", "--table", "configs")
    check(len(list(csv.DictReader(io.StringIO(out)))) == 2, "show --csv --table configs: one row per configuration")

    # Broken files: each problem named.
    text = os.path.join(tmp, "notes.h5")
    open(text, "w").write("not hdf5\n")
    trunc = os.path.join(tmp, "truncated.h5")
    data = open(run, "rb").read()
    open(trunc, "wb").write(data[: len(data) // 3])
    cases = [
        (os.path.join(tmp, "missing.h5"), "cannot read"),
        (text, "not an HDF5 file"),
        (trunc, "truncated or corrupt"),
        (mutate(run, os.path.join(tmp, "v99.h5"), lambda f: f.attrs.__setitem__("scal_schema_version", np.int64(99))), "schema version 99 is not supported"),
        (mutate(run, os.path.join(tmp, "noformat.h5"), lambda f: f.attrs.__delitem__("scal_format")), "not a scal file"),
        (mutate(run, os.path.join(tmp, "nothreads.h5"), lambda f: f.__delitem__("threads")), "table /threads is missing"),
        (mutate(run, os.path.join(tmp, "dangling.h5"), lambda f: set_member(f, "regions", "name", 1, 100000)), "refers to string 100000"),
        (mutate(run, os.path.join(tmp, "forward.h5"), lambda f: set_member(f, "regions", "parent", 1, nreg - 1)), "is not an earlier row"),
        (mutate(run, os.path.join(tmp, "nometa.h5"), lambda f: f["meta"].attrs.__delitem__("host")), "/meta: attribute 'host' is missing"),
        (mutate(camp, os.path.join(tmp, "badrun.h5"), lambda f: set_member(f, "runs", "config", 2, 7)), "configuration 7 does not exist"),
    ]
    for n, (path, expected) in enumerate(cases):
        rc, out, err = scal(args, "check", path)
        check(rc == 1 and expected in out and os.path.basename(path) in out, "check %s: exit 1 naming '%s' (%s)" % (os.path.basename(path), expected, out.strip().splitlines()[0] if out.strip() else err.strip()))
        if n < 5:  # files that cannot be opened as scal files at all
            rc, out, err = scal(args, "show", path)
            check(rc == 1 and expected in err and os.path.basename(path) in err, "show %s: exit 1 naming the file and '%s'" % (os.path.basename(path), expected))
    rc, out, err = scal(args, "check", run, text)
    check(rc == 1 and "ok" in out and "not an HDF5 file" in out, "check: several files, one bad: each reported, exit 1")

    # Usage errors.
    check(scal(args, "check")[0] == 2, "check without a file: exit 2")
    check(scal(args, "show")[0] == 2, "show without a file: exit 2")
    rc, out, err = scal(args, "show", run, "--frobnicate")
    check(rc == 2 and "--frobnicate" in err, "show: unknown option named, exit 2")
    rc, out, err = scal(args, "show", run, "--depth", "x")
    check(rc == 2 and "--depth" in err, "show: bad --depth value, exit 2")

    finish()


if __name__ == "__main__":
    main()
