# SPDX-License-Identifier: BSD-3-Clause
# scal model on synthetic campaigns of known laws (imported from PaScal Viewer JSON, so no OpenMP
# run is needed): held-out and extrapolated configurations (threads 32, size x4) within 10 % where
# the law is in the search space, "no reliable model" on pure noise and beyond the data of a law
# outside it, findings ranked by predicted lost core-seconds, models in p alone for one input,
# bad arguments; then a real campaign of the demo program end to end (scal run, scal model).
import csv, io, math, os, shutil, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import synth
import scal_check

scal, demo, gen, work = sys.argv[1:5]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)


class Chk:
    def expect(self, cond, msg, detail=""):
        return scal_check.expect(cond, msg if cond or not detail else f"{msg}: {detail}")

    def finish(self):
        scal_check.finish()


chk = Chk()


def model(*args, expect=0):
    r = subprocess.run([scal, "model", *args], capture_output=True, text=True)
    chk.expect(r.returncode == expect, f"scal model {' '.join(args)} exits {expect}",
               f"got {r.returncode}: {r.stderr}")
    return r


def rows(camp, spec):
    r = model(camp, "--predict", spec, "--csv")
    return list(csv.DictReader(io.StringIO(r.stdout)))


def law_of(label):
    return label.split(".c:")[0]


IN_SPACE = ["linear", "amdahl", "logp", "nlogn", "usl"]
held = {(4000, 6), (2000, 3), (8000, 7)}

# 1. exact laws, three configurations held out
camp = os.path.join(work, "laws.h5")
synth.make_campaign(scal, os.path.join(work, "laws.json"), camp,
                    synth.campaign_json(list(synth.LAWS), skip=held, pure_noise=["noise"]))
for (n, p) in sorted(held) + [(32000, 32), (8000, 32), (32000, 8)]:
    got = {law_of(r["region"]): r for r in rows(camp, f"threads={p},input={n}")}
    for law in IN_SPACE:
        want = synth.LAWS[law](n, p)
        r = got[law]
        ok = r["predicted_s"] != "" and abs(float(r["predicted_s"]) / want - 1) < 0.10
        chk.expect(ok, f"{law} at n={n} p={p} within 10 % of {want:.4g}", str(r))
        if ok:
            chk.expect(float(r["low_s"]) <= float(r["predicted_s"]) <= float(r["high_s"]),
                       f"{law} at n={n} p={p}: interval around the prediction", str(r))
            sp = float(r["speedup"])
            chk.expect(abs(float(r["efficiency"]) - sp / p) < 1e-3 * max(1, sp),
                       f"{law}: efficiency = speedup / threads", str(r))
    chk.expect(got["noise"]["predicted_s"] == "" and "no reliable model" in got["noise"]["note"],
               f"pure noise at n={n} p={p}: no reliable model", str(got["noise"]))
    sat = got["saturation"]
    inside = p <= 8 and n <= 8000
    if inside:
        chk.expect(sat["predicted_s"] != "" and
                   abs(float(sat["predicted_s"]) / synth.LAWS["saturation"](n, p) - 1) < 0.10,
                   f"saturation (outside the space) held out at n={n} p={p} within 10 %", str(sat))
    else:
        chk.expect(sat["predicted_s"] == "" and "outside the search space" in sat["note"],
                   f"saturation extrapolated to n={n} p={p}: refused", str(sat))
r = rows(camp, "threads=4,input=2000")[0]
chk.expect(list(r)[:9] == ["region", "threads", "input_size", "predicted_s", "low_s", "high_s",
                           "speedup", "efficiency", "model"], "CSV columns", str(list(r)))

# the models read as their laws; findings ranked by predicted lost core-seconds at --at
out = model(camp, "--at", "threads=64,input=8000").stdout
chk.expect("1e-05*n + 9e-05*n/p (Amdahl" in out, "Amdahl read as such", out)
chk.expect("serial fraction 0.1 " in out, "Amdahl's serial fraction", out)
chk.expect("grows as n*log2(n) with the input" in out, "n log n growth", out)
chk.expect("(USL;" in out, "USL read as such", out)
rank = out.split("ranked by predicted lost core-seconds:")[-1]
order = [law for law in ("usl", "logp", "amdahl") if law + ".c" in rank]
chk.expect(order == ["usl", "logp", "amdahl"] and
           rank.index("usl.c") < rank.index("logp.c") < rank.index("amdahl.c"),
           "findings ranked usl > logp > amdahl by lost core-seconds at 64 threads", rank)
chk.expect("noise.c" not in rank, "no finding from pure noise", rank)

# 2. noisy repetitions (5 % per run, 5 repetitions): still within 10 %
camp = os.path.join(work, "noisy.h5")
synth.make_campaign(scal, os.path.join(work, "noisy.json"), camp,
                    synth.campaign_json(["linear", "amdahl", "nlogn", "logp"], reps=5, noise=0.05,
                                        seed=7))
for (n, p) in [(32000, 32), (16000, 16), (8000, 32)]:
    for r in rows(camp, f"threads={p},input={n}"):
        law = law_of(r["region"])
        if law not in synth.LAWS:
            continue
        want = synth.LAWS[law](n, p)
        chk.expect(r["predicted_s"] != "" and abs(float(r["predicted_s"]) / want - 1) < 0.10,
                   f"noisy {law} at n={n} p={p} within 10 % of {want:.4g}", str(r))

# 3. one input with a label that is no number: a model in p alone
camp = os.path.join(work, "one.h5")
synth.make_campaign(scal, os.path.join(work, "one.json"), camp,
                    synth.campaign_json(["amdahl", "logp"], sizes=[4000], labels=["big"]))
got = {law_of(r["region"]): r for r in rows(camp, "threads=32")}
for law in ("amdahl", "logp"):
    want = synth.LAWS[law](4000, 32)
    r = got[law]
    chk.expect(r["input"] == "big" and r["predicted_s"] != "" and
               abs(float(r["predicted_s"]) / want - 1) < 0.10 and "n" not in r["model"],
               f"{law} in p alone within 10 %", str(r))
model(camp, "--predict", "threads=8,input=9000", expect=0)
r = rows(camp, "threads=8,input=9000")
chk.expect(all(x["predicted_s"] == "" and "no sizes" in x["note"] for x in r),
           "an input size cannot be predicted without sizes", str(r))

# --size LABEL=N gives sizes to a campaign without them (here: sizes in thousands)
camp2 = os.path.join(work, "laws.h5")
got = {law_of(r["region"]): r for r in
       csv.DictReader(io.StringIO(model(camp2, "--size", "1000=1", "--size", "2000=2", "--size",
                                        "4000=4", "--size", "8000=8", "--predict",
                                        "threads=8,input=16", "--csv").stdout))}
chk.expect(abs(float(got["linear"]["predicted_s"]) / synth.LAWS["linear"](16000, 8) - 1) < 1e-6
           and got["linear"]["model"] == "0.2*n/p", "--size: the model in the given sizes",
           str(got["linear"]))

# 4. bad arguments: one line, non-zero exit
for args, code, text in [(["--predict", "threads=abc"], 2, "expected threads=LIST"),
                         (["--predict", "threads=4,input=nosuch"], 1, "neither an input label"),
                         (["--csv"], 2, "--csv goes with --predict"),
                         (["--metric", "power"], 2, "--metric must be"),
                         (["--metric", "energy"], 1, "no energy values"),
                         (["--region", "zzz*"], 1, "matches no region"),
                         (["--size", "nope=3"], 1, "has no input 'nope'"),
                         (["--size", "big=x"], 1, "expected LABEL=N")]:
    r = model(camp, *args, expect=code)
    chk.expect(text in r.stderr and r.stderr.count("\n") == 1, f"{args}: says '{text}'", r.stderr)
r = model(os.path.join(work, "missing.h5"), expect=1)
chk.expect("missing.h5" in r.stderr, "a missing file is named", r.stderr)

# 5. scal report runs the same models: summary.txt ranks by predicted lost core-seconds, the
# analysis file holds the models and predictions, the charts go on to predicted thread counts
camp = os.path.join(work, "laws.h5")
rep = os.path.join(work, "laws-report")
r = subprocess.run([scal, "report", camp, "-o", rep, "--all", "--plugin-opt", "model.at=64,8000"],
                   capture_output=True, text=True)
chk.expect(r.returncode == 0, "scal report with the model plugin", r.stderr)
summary = open(os.path.join(rep, "summary.txt")).read()
part = summary.split("regions by predicted lost core-seconds")[-1].split("findings:")[0]
chk.expect(part.index("usl.c") < part.index("logp.c") < part.index("amdahl.c"),
           "summary.txt: ranking by predicted lost core-seconds", part)
chk.expect("model: T(n,p) = 1e-05*n + 9e-05*n/p (Amdahl" in summary, "summary.txt: the models",
           summary[:2000])
chk.expect(os.path.exists(os.path.join(rep, "charts", "r002-amdahl.c_20-25-speedup.png")),
           "charts drawn")
page = open(os.path.join(rep, "index.html")).read()
chk.expect("serial fraction 0.1 " in page, "the page shows the models' findings")
try:
    import h5py
except ImportError:
    h5py = None
if h5py:
    with h5py.File(camp, "r") as f:
        g = f["analysis/regions/r002-amdahl.c_20-25"]
        m = g["model"]
        chk.expect(m["expressions"][0] in (b"1e-05*n + 9e-05*n/p", "1e-05*n + 9e-05*n/p"),
                   "analysis file: the expression", str(m["expressions"][:]))
        pr = m["predictions"][:]
        row = [x for x in pr if x["threads"] == 64 and x["input"] == 3]
        chk.expect(len(row) == 1 and abs(row[0]["predicted"] / synth.LAWS["amdahl"](8000, 64) - 1)
                   < 1e-6 and row[0]["reliable"] == 1, "analysis file: a prediction", str(row))
        row = [x for x in pr if x["threads"] == 32 and x["input"] == -1 and
               x["input_size"] == 32000]
        chk.expect(len(row) == 1 and row[0]["low"] <= row[0]["predicted"] <= row[0]["high"],
                   "analysis file: a prediction at a larger size", str(row))
        terms = m["terms"][:]
        chk.expect(sorted((t["n_exp"], t["p_exp"]) for t in terms) == [(1.0, -1.0), (1.0, 0.0)],
                   "analysis file: the terms", str(terms))
        mt, t = g["model_time"][:], g["time"][:]
        import numpy as np
        chk.expect(np.nanmax(abs(mt / t - 1)) < 1e-6 and np.isnan(t).sum() == len(held) and
                   not np.isnan(mt).any(),
                   "model_time matches the measured cells and fills the held-out ones")
        chk.expect(g["model_rank"][0, 0] == 3, "model_rank", str(g["model_rank"][:]))

# 6. energy (joule sensors) and frequency slices: energy models per slice
ecamp = os.path.join(work, "energy.h5")
subprocess.run([gen, ecamp, "--inputs", "3", "--threads", "4", "--reps", "3", "--energy",
                "--freqs", "2"], check=True)
out = model(ecamp, "--metric", "energy").stdout
chk.expect(out.count("energy model: E(p) =") == 6 and "[2000000 kHz]" in out,
           "energy models per input and frequency slice", out)
r = model(ecamp, "--metric", "energy", "--predict", "threads=16,input=i3", "--csv")
got = list(csv.DictReader(io.StringIO(r.stdout)))
chk.expect(len(got) == 2 and all(x["predicted_J"] for x in got) and
           {x["slice"] for x in got} == {"1000000 kHz", "2000000 kHz"},
           "energy predictions in J per slice", r.stdout)

# three frequencies: models in f and p per input (gen_campaign: T = (n^2/p + log2 p) / f)
fcamp = os.path.join(work, "freq.h5")
subprocess.run([gen, fcamp, "--inputs", "3", "--threads", "4", "--reps", "3", "--energy",
                "--freqs", "3"], check=True)
out = model(fcamp, "--region", "whole*").stdout
chk.expect("model in frequency, input i1: T(f,p) = 100/(f*p) + 1*log2(p)/f" in out and
           "100 % of the time scales with the clock" in out, "time in frequency and threads", out)
out = model(fcamp, "--metric", "energy", "--region", "whole*").stdout
chk.expect(out.count("energy model in frequency, input") == 3, "energy in frequency", out)
r = subprocess.run([scal, "report", fcamp, "-o", os.path.join(work, "freq-report"), "--only",
                    "scaling,model,summary"], capture_output=True, text=True)
chk.expect(r.returncode == 0 and "model in frequency, input i2: T(f,p) = 400/(f*p)" in
           open(os.path.join(work, "freq-report", "summary.txt")).read(),
           "scal report: the frequency models among the findings", r.stderr)

# three sizes are enough for a model in n (the search along each thread count leaves one out)
camp = os.path.join(work, "three.h5")
synth.make_campaign(scal, os.path.join(work, "three.json"), camp,
                    synth.campaign_json(["linear", "amdahl", "nlogn"], sizes=[1000, 2000, 4000]))
for r in rows(camp, "threads=32,input=16000"):
    law = law_of(r["region"])
    if law in synth.LAWS:
        want = synth.LAWS[law](16000, 32)
        chk.expect(r["predicted_s"] != "" and abs(float(r["predicted_s"]) / want - 1) < 0.10,
                   f"three sizes: {law} at n=16000 p=32 within 10 % of {want:.4g}", str(r))

# 7. a real campaign of the demo program: scal run, then scal model
demo_camp = os.path.join(work, "demo.h5")
r = subprocess.run([scal, "run", "-q", "-c", "1,2", "-i", "40", "--label", "s", "--size", "40",
                    "-i", "80", "--label", "m", "--size", "80", "-i", "160", "--label", "l",
                    "--size", "160", "-r", "2", "-o", demo_camp, "--", demo, "{input}"],
                   capture_output=True, text=True, env=dict(os.environ, OMP_WAIT_POLICY="passive"))
chk.expect(r.returncode == 0, "scal run of the demo", r.stderr)
if r.returncode == 0:
    out = model(demo_camp).stdout
    chk.expect("sizes 40 80 160" in out, "the sizes of scal run --size are the model's n", out)
    chk.expect("whole program" in out and "model: T(n,p) =" in out, "the demo gets models", out)
    got = rows(demo_camp, "threads=8,16,input=l")
    chk.expect(len(got) >= 2 * 4, "a row per region and thread count", str(got))
    for x in got:
        if x["predicted_s"]:
            chk.expect(float(x["low_s"]) <= float(x["predicted_s"]) <= float(x["high_s"]),
                       f"demo {x['region']}: interval around the prediction", str(x))
        else:
            chk.expect(x["note"] != "", f"demo {x['region']}: says why it does not predict",
                       str(x))
    chk.expect(any(x["region"] == "whole program" for x in got), "the whole program", str(got))
chk.finish()
