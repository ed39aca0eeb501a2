# SPDX-License-Identifier: BSD-3-Clause
# PaScal Viewer JSON -> campaign file -> scal report: round trip of every time, medians of several
# times per configuration, nesting by line range, bad JSON; and a single run file (tables only).
import json, math, os, shutil, subprocess, sys
import h5py, numpy as np

scal, work = sys.argv[1:3]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)

threads = [1, 2, 4, 8]
args = ["i1", "i2", "i3"]
def T(n, p, k):
    return (n * n / p + math.log2(p)) * (1 + 0.01 * k)
regions = []
for (first, last, frac) in [("10", "40", 1.0), ("15", "20", 0.6), ("main", None, 0.9)]:
    execs = []
    for i, a in enumerate(args):
        n = 10 * 2 ** i
        runs = [{"threads": p, "time": frac * T(n, p, k)} for p in threads for k in range(3)]
        execs.append({"argument": a, "runs": runs})
    regions.append({"region": f"{first}, {last}" if last else first, "filename": "app.c",
                    "executions": [execs]})
src = os.path.join(work, "pascal.json")
json.dump(regions, open(src, "w"))
camp = os.path.join(work, "pascal.h5")
r = subprocess.run([scal, "import", src, "-o", camp], capture_output=True, text=True)
assert r.returncode == 0, r.stderr

with h5py.File(camp, "r") as f:
    assert f.attrs["scal_format"] in (b"scal-campaign", "scal-campaign")
    strings = [s.decode() if isinstance(s, bytes) else s for s in f["strings"][:]]
    assert [s.decode() if isinstance(s, bytes) else s for s in f["campaign/inputs"][:]] == args
    assert sorted(f["campaign/threads"][:]) == threads
    regs = f["regions"][:]
    assert len(regs) == 4 and regs[0]["kind"] == 0
    assert regs[3]["kind"] == 3 and strings[regs[3]["name"]] == "app.c:main" and regs[3]["parent"] == 0
    assert strings[regs[1]["file"]] == "app.c" and regs[1]["line_first"] == 10
    assert regs[2]["parent"] == 1, "15-20 nests inside 10-40"
    # import stores each region's label, the one scal's rule derives (scal show --table labels)
    labels = json.loads(subprocess.run([scal, "show", camp, "--table", "labels", "--json"],
                                       capture_output=True, text=True, check=True).stdout)
    assert [strings[i] for i in regs["label"]] == [x["label"] for x in labels], labels
    assert all(x["stored"] == 1 and x["label"] == x["rule"] for x in labels), labels
    cfg, runs, st = f["configs"][:], f["runs"][:], f["region_stats"][:]
    assert len(cfg) == 12 and len(runs) == 36
    assert len(st) == 3 * 36 + 36  # every region in every run, plus the root
    # every JSON time is in /region_stats exactly once
    got = sorted(float(x["time_total_s"]) for x in st if x["region"] == 1)
    want = sorted(r2["time"] for e in regions[0]["executions"][0] for r2 in e["runs"])
    assert np.allclose(got, want)

out = os.path.join(work, "out")
r = subprocess.run([scal, "report", camp, "-o", out], capture_output=True, text=True)
assert r.returncode == 0, r.stderr
with h5py.File(camp, "r") as f:
    eff = f["analysis/regions/r001-app.c_10-40/efficiency"][:]
n = np.array([10, 20, 40.0])[:, None]
p = np.array(threads, float)[None, :]
closed = n * n / (p * (n * n / p + np.log2(p)))  # medians: k=1 scales both times equally
assert np.allclose(eff, closed, rtol=1e-9), eff
assert os.path.exists(os.path.join(out, "diagrams/r002-app.c_15-20.png"))

# bad JSON: exit 2, a clear message naming the file, no campaign written
for name, text, pat in [("syntax.json", "[{", "syntax.json:"),
                        ("noexec.json", '[{"region": "1, 2"}]', "executions"),
                        ("neg.json", json.dumps([{"region": "1, 2", "executions": [[{"argument": "a", "runs": [{"threads": 1, "time": -1}]}]]}]), "not positive"),
                        ("empty.json", "[]", "non-empty array")]:
    path = os.path.join(work, name)
    open(path, "w").write(text)
    r = subprocess.run([scal, "import", path, "-o", path + ".h5"], capture_output=True, text=True)
    assert r.returncode == 2 and pat in r.stderr, (name, r.stderr)  # a bad input: exit 2
    assert not os.path.exists(path + ".h5")

# A single run file (scal-run): tables only, with the note that diagrams need several configurations.
ident = "id:u4 parent:i4 depth:u4 kind:u1 name:u4 module:u4 build_id:u4 offset:u8 file:u4 " \
        "line_first:i4 line_last:i4 function:u4 gap_prev:i4 gap_next:i4"
stats = "count:u8 time_total_s:f8 time_min_s:f8 time_max_s:f8 time_mean_s:f8 time_var_s2:f8 " \
        "time_median_s:f8 median_exact:u1 team_requested_min:i4 team_requested_max:i4 " \
        "team_actual_min:i4 team_actual_max:i4 work_total_s:f8 work_inst_max_s:f8 " \
        "work_inst_min_s:f8 barrier_total_s:f8 barrier_inst_max_s:f8 lock_total_s:f8 " \
        "lock_inst_max_s:f8 threads:u4 thread_work_max_s:f8 thread_work_min_s:f8 " \
        "thread_work_mean_s:f8 imbalance:f8 loops:u8 loop_iterations:u8"
dt = np.dtype([tuple(f.split(":")) for f in (ident + " " + stats).split()])
rows = np.zeros(2, dt)
for k, v in dict(id=0, parent=-1, kind=0, name=1, line_first=-1, line_last=-1, gap_prev=-1,
                 gap_next=-1, count=1, time_total_s=2.0).items():
    rows[0][k] = v
for k, v in dict(id=1, parent=0, depth=1, kind=1, name=2, module=3, offset=0x40, file=4,
                 line_first=12, line_last=20, function=5, gap_prev=-1, gap_next=-1, count=10,
                 time_total_s=1.5).items():
    rows[1][k] = v
run = os.path.join(work, "run.h5")


def schema_complete(f):
    """Fills what the run schema requires and the test does not set (readers validate against it)."""
    here = os.path.dirname(os.path.abspath(__file__))
    schema = json.load(open(os.path.join(here, "..", "..", "schemas", "scal-run-1.json")))
    value = {"string": "", "int": 0, "float": 0.0}
    numpy_type = {"u8": "u1", "i8": "i1", "u32": "u4", "i32": "i4", "u64": "u8", "i64": "i8", "f64": "f8"}

    def attrs(obj, wanted):
        for a in wanted or []:
            if a.get("required") and a["name"] not in obj.attrs:
                obj.attrs[a["name"]] = value[a["type"]]
    attrs(f, schema["attributes"])
    for g in schema["groups"]:
        if g.get("required"):
            attrs(f.require_group(g["path"]), g.get("attributes"))
            for d in g.get("datasets") or []:
                if d.get("required") and d["path"] not in f:
                    f.create_dataset(d["path"], data=[""], dtype=h5py.string_dtype())
    for t in schema["tables"]:
        if t.get("required") and t["path"] not in f:
            dt = np.dtype([(m["name"], numpy_type[m["type"]]) for m in t["members"]])
            f.create_dataset(t["path"], shape=(0,), maxshape=(None,), dtype=dt)


with h5py.File(run, "w") as f:
    f.attrs["scal_format"] = "scal-run"
    f.attrs["scal_schema_version"] = 1
    f.create_dataset("strings", data=["", "main", "mm.c:12-20", "/bin/mm", "mm.c", "mm"],
                     dtype=h5py.string_dtype())
    f.create_dataset("regions", data=rows)
    f.create_group("meta").attrs["requested_threads"] = 4
    schema_complete(f)
out = os.path.join(work, "runout")
r = subprocess.run([scal, "report", run, "-o", out], capture_output=True, text=True)
assert r.returncode == 0, r.stderr
assert "single run file" in r.stderr and "diagrams need" in r.stderr, r.stderr
assert not os.path.exists(os.path.join(out, "diagrams"))
t = open(os.path.join(out, "csv/r001-mm.c_12-20_(mm)/time.csv".replace("(", "_").replace(")", "_"))).read()
assert t.splitlines()[-1] == "run,1.5", t
with h5py.File(run, "r") as f:
    assert "analysis" not in f  # a run file is never modified
print("ok")

# Two run files at different thread counts merge into a small campaign: diagrams, no file written.
run2 = os.path.join(work, "run8.h5")
shutil.copy(run, run2)
with h5py.File(run2, "a") as f:
    f["meta"].attrs["requested_threads"] = 8
    rows2 = f["regions"][:]
    rows2["time_total_s"] /= 2
    del f["regions"]
    f.create_dataset("regions", data=rows2)
out = os.path.join(work, "runs2")
r = subprocess.run([scal, "report", run, run2, "-o", out], capture_output=True, text=True)
assert r.returncode == 0, r.stderr
assert "run files were merged" in r.stderr
assert os.path.exists(os.path.join(out, "diagrams/r001-mm.c_12-20__mm_.png"))
sp = open(os.path.join(out, "csv/r001-mm.c_12-20__mm_/speedup.csv")).read().splitlines()
assert sp[-1] == "run,1,2", sp
with h5py.File(run, "r") as f:
    assert "analysis" not in f
print("ok")
