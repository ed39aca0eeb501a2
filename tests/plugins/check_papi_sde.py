# SPDX-License-Identifier: BSD-3-Clause
# The papi sensor through libscal_ompt.so with a real PAPI SDE counter: per-region values and the
# run value must be exactly what the program added; an unavailable event must be recorded with
# its reason while the run goes on.
import argparse
import os
import subprocess
import sys
import tempfile

import h5py


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from scal_check import check, fail  # noqa: E402  (tests/scal_check.py)


ap = argparse.ArgumentParser()
for a in ("--tool", "--prog", "--source"):
    ap.add_argument(a, required=True)
args = ap.parse_args()
lines = {}
with open(args.source) as f:
    for n, line in enumerate(f, 1):
        for m in ("SDE_A", "SDE_B"):
            if m in line:
                lines[m] = n
work = tempfile.mkdtemp(prefix="scal-sde-")
reps = 25


def run(threads, events, late=False):
    out = os.path.join(work, "sde-%d.h5" % threads)
    env = dict(os.environ, OMP_TOOL_LIBRARIES=args.tool, SCAL_OUTPUT=out, SCAL_PLUGINS="papi",
               SCAL_PAPI_EVENTS=events, OMP_NUM_THREADS=str(threads), OMP_WAIT_POLICY="passive")
    p = subprocess.run([args.prog, str(reps)] + (["late"] if late else []), env=env, capture_output=True, text=True, timeout=300)
    check(p.returncode == 0, "program ran (%s)" % p.stderr.strip()[-6000:])
    f = h5py.File(out, "r")
    strings = [s.decode() if isinstance(s, bytes) else s for s in f["strings"][()]]
    return f, strings


for T, late in ((1, False), (2, False), (4, False), (2, True)):
    f, strings = run(T, "sde:::Demo::work", late)
    plug = f["sensors/plugins"][()][0]
    if not plug["available"]:
        reason = strings[plug["reason"]]
        if "component" in reason and "disabled" in reason:
            print("SKIP: the PAPI SDE component is not usable here: " + reason)
            sys.exit(77)
        fail("papi unavailable: " + reason)
    rid = {}
    for r in f["regions"][()]:
        for k, line in lines.items():
            if r["line_first"] == line:
                rid[k] = int(r["id"])
    check(set(rid) == {"SDE_A", "SDE_B"}, "both regions found")
    vals = [v for v in f["sensors/values"][()] if strings[v["metric"]] == "papi.sde:::Demo::work"]

    def total(region):
        sel = [v for v in vals if v["region"] == region and v["thread"] == -1]
        check(len(sel) == 1, "T=%d: one total row for region %d" % (T, region))
        return sel[0]

    a, b, run_v = total(rid["SDE_A"]), total(rid["SDE_B"]), total(-1)
    check(a["value"] == reps * 10 * T and a["instances"] == reps, "T=%d: SDE_A = %g (expected %d)" % (T, a["value"], reps * 10 * T))
    check(b["value"] == reps * 1234, "T=%d: SDE_B = %g (expected %d)" % (T, b["value"], reps * 1234))
    check(run_v["value"] == reps * (10 * T + 1234 + 5), "T=%d: whole run = %g" % (T, run_v["value"]))
    check(strings[a["unit"]] == "count", "unit is count")
    check(not any(v["thread"] >= 0 for v in vals), "SDE counters are process-wide: no per-thread rows")
    since = [v for v in f["sensors/values"][()]
             if strings[v["metric"]] == "papi.sde:::Demo::work.counted_from_s" and v["region"] == -1]
    if late:  # registered after the sensor started: counted from then, and the file says when
        check(len(since) == 1 and since[0]["value"] > 0, "T=%d late: counted from %s s" % (T, [v["value"] for v in since]))
    else:
        check(not since, "T=%d: registered before the sensor started: no counted_from gauge" % T)

# An event this machine cannot count next to a good one: the good one is measured.
f, strings = run(2, "sde:::Demo::work,PAPI_TOT_INS")
check(f["sensors/plugins"][()][0]["available"] == 1, "papi available with one usable event")
names = {strings[v["metric"]] for v in f["sensors/values"][()]}
check(names == {"papi.sde:::Demo::work"}, "only the usable event is recorded: %s" % names)
# Only unusable events: unavailable with PAPI's reason, the run itself is recorded.
f, strings = run(2, "PAPI_TOT_INS")
p = f["sensors/plugins"][()][0]
check(p["available"] == 0 and "PAPI_TOT_INS" in strings[p["reason"]], "unavailable with reason: %s" % strings[p["reason"]])
check(len(f["regions"][()]) >= 3, "regions recorded without the sensor")
print("papi SDE checks passed")
