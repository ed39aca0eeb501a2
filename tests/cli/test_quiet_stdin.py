# SPDX-License-Identifier: BSD-3-Clause
# One -q meaning (notes and progress hidden, never errors or why runs failed) in scal run and
# scal merge; "-" (standard input) for scal import's and scal merge's inputs; scal import --size
# LABEL=N stored as /campaign@input_sizes, which scal model reads.
#   test_quiet_stdin.py SCAL DEMO WORKDIR
import csv, io, json, os, shutil, subprocess, sys

import h5py

scal, demo, work = sys.argv[1:4]
shutil.rmtree(work, ignore_errors=True)
tmpdir = os.path.join(work, "tmp")  # standard input's copies land here, and nothing else does
os.makedirs(tmpdir)
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, ".."))
sys.path.insert(0, os.path.join(here, "..", "model"))
from scal_check import expect as check, finish  # noqa: E402  (tests/scal_check.py)
import synth  # noqa: E402  (tests/model/synth.py: PaScal JSON of known laws)

env = dict(os.environ, TMPDIR=tmpdir)


def run(*args, stdin=None):
    return subprocess.run([scal, *args], capture_output=True, text=True, cwd=work, timeout=300, env=env,
                          stdin=stdin if stdin is not None else subprocess.DEVNULL)


def run_from(path, *args):
    with open(os.path.join(work, path), "rb") as f:
        return run(*args, stdin=f)


def lines(text):
    return [s for s in text.split("\n") if s]


def no_stdin_copies(what):
    left = os.listdir(tmpdir)
    check(not left, "%s: no copy of standard input left behind (%r)" % (what, left))


# ---- scal run -q: nothing on success; each failed run's reason and the count when some failed ----
# sh runs the demo for input "good" and fails with status 3 for "bad"
prog = ["--", "sh", "-c", 'if [ "$0" = bad ]; then echo boom >&2; exit 3; fi; exec "$1" 1', "{input}", demo]
r = run("run", "-q", "-c", "1,2", "-i", "good", "-o", "ok.h5", *prog)
check(r.returncode == 0 and r.stderr == "" and r.stdout == "",
      "run -q, every run ok: nothing printed (%d %r)" % (r.returncode, r.stderr[-300:]))
r = run("run", "-q", "-c", "1,2", "-i", "good", "-i", "bad", "-o", "mixed.h5", *prog)
err = lines(r.stderr)
failed = [s for s in err if "input=bad" in s]
check(r.returncode == 1 and len(failed) == 2 and
      all("failed" in s and "exited with status 3" in s for s in failed) and
      {("threads=1" in s, "threads=2" in s) for s in failed} == {(True, False), (False, True)},
      "run -q: each failed run's configuration and reason (%r)" % err)
check(len(err) == 3 and "4 runs in" in err[-1] and "2 ok, 2 not ok" in err[-1],
      "run -q: the final count when runs failed, and nothing else (%r)" % err)
check(not any("note:" in s or "campaign file:" in s or "next:" in s or "input=good" in s for s in err),
      "run -q: no notes, no progress, no next steps (%r)" % err)
r = run("run", "-c", "1,2", "-i", "good", "-i", "bad", "-o", "loud.h5", *prog)
err = lines(r.stderr)
check(r.returncode == 1 and sum("input=bad" in s and "exited with status 3" in s for s in err) == 2 and
      any("note:" in s for s in err) and any("input=good" in s for s in err) and
      any("campaign file: loud.h5" in s for s in err),
      "run without -q: notes, progress and failures (%r)" % err)
r = run("run", "-q", "-c", "1", "-o", "nothing.h5", "--", os.path.join(work, "no-such-program"))
check(r.returncode == 2 and "no-such-program" in r.stderr, "run -q: a set-up error is still shown")
help_q = run("run", "--help").stdout.partition("-q, --quiet")[2].split("\n\n")[0]
check("failed" in help_q and "notes" in help_q, "run --help: -q hides notes, keeps why runs failed (%r)" % help_q)

# ---- scal import --size LABEL=N ----
labels, sizes = ["small", "medium", "large", "huge"], synth.SIZES
laws = synth.campaign_json(["linear", "nlogn"], labels=labels)
os.makedirs(os.path.join(work, "a"))
os.makedirs(os.path.join(work, "b"))
with open(os.path.join(work, "a", "p.json"), "w") as f:
    json.dump(laws, f)
with open(os.path.join(work, "b", "p.json"), "w") as f:
    json.dump(synth.campaign_json(["linear", "nlogn"], labels=labels, seed=2, reps=1), f)
size_args = [a for lab, n in zip(labels, sizes) for a in ("--size", "%s=%d" % (lab, n))]
r = run("import", "a/p.json", "-o", "sized.h5", "--size", "small=7", *size_args)
check(r.returncode == 0 and r.stderr == "", "import --size: %r" % r.stderr)
with h5py.File(os.path.join(work, "sized.h5"), "r") as f:
    stored = list(f["campaign"].attrs.get("input_sizes", []))
    inputs = [s.decode() if isinstance(s, bytes) else s for s in f["campaign/inputs"][()]]
check(inputs == labels and stored == [float(n) for n in sizes],
      "import --size: /campaign@input_sizes by label, a repeated --size's last counts (%r %r)" % (inputs, stored))


def predicted(camp, spec):
    r = run("model", camp, "--predict", spec, "--csv")
    return r, {row["region"].split(".c:")[0]: row for row in csv.DictReader(io.StringIO(r.stdout))}


r, rows = predicted("sized.h5", "threads=8,input=huge")
want = synth.LAWS["nlogn"](8000, 8)
got = rows.get("nlogn", {}).get("predicted_s", "")
check(r.returncode == 0 and got != "" and abs(float(got) / want - 1) < 0.10 and rows["nlogn"]["input_size"] == "8000",
      "scal model reads the imported sizes: nlogn at threads=8, input=huge %s ~ %.4g (%r)" % (got, want, r.stderr[-200:]))
run("import", "a/p.json", "-o", "unsized.h5")
sized, unsized = run("model", "sized.h5"), run("model", "unsized.h5")
check(sized.returncode == unsized.returncode == 0 and "T(n,p)" in sized.stdout and "T(n,p)" not in unsized.stdout,
      "with --size models in n and p; without, the labels are no sizes: models in p alone")
r = run("import", "a/p.json", "-o", "part.h5", "--size", "large=4000")
with h5py.File(os.path.join(work, "part.h5"), "r") as f:
    part = list(f["campaign"].attrs["input_sizes"])
check(r.returncode == 0 and part[2] == 4000 and all(x != x for x in part[:2] + part[3:]),
      "import --size for one input: the others have none (NaN) %r" % part)

for bad, want in ((["--size", "smal=1000"], "did you mean 'small'?"), (["--size", "small=0"], "greater than 0"),
                  (["--size", "small=-3"], "greater than 0"), (["--size", "small=abc"], "not a number"),
                  (["--size", "small=inf"], "greater than 0"), (["--size", "=5"], "names no input"),
                  (["--size", "small"], "LABEL=N"), (["--size"], "needs a value")):
    r = run("import", "a/p.json", "-o", "bad.h5", *bad)
    check(r.returncode == 2 and want in r.stderr and len(lines(r.stderr)) == 1 and
          not os.path.exists(os.path.join(work, "bad.h5")),
          "import %s: usage error, nothing created (%d %r)" % (" ".join(bad), r.returncode, r.stderr.strip()))
check("--size LABEL=N" in run("import", "--help").stdout, "import --help names --size LABEL=N")

# ---- "-": standard input in scal import ----
r = run_from("a/p.json", "import", "-", "-o", "piped.h5", "--size", "huge=8000")
named = run("show", "sized.h5", "--csv").stdout
check(r.returncode == 0 and r.stderr == "" and run("show", "piped.h5", "--csv").stdout == named,
      "import - reads standard input (%r)" % r.stderr)
with h5py.File(os.path.join(work, "piped.h5"), "r") as f:
    prog_attr = f["campaign"].attrs["program"]
    prog_attr = prog_attr.decode() if isinstance(prog_attr, bytes) else prog_attr
check(not prog_attr.startswith(tmpdir), "import -: the campaign names standard input, not its copy (%r)" % prog_attr)
with open(os.path.join(work, "broken.json"), "w") as f:
    f.write("[{")
r = run_from("broken.json", "import", "-", "-o", "broken.h5")
check(r.returncode == 2 and r.stderr.startswith("scal import: -:1:") and tmpdir not in r.stderr and
      not os.path.exists(os.path.join(work, "broken.h5")),
      "import - of broken JSON: exit 2 naming standard input '-' (%r)" % r.stderr.strip())
r = run("import", "a/p.json", "-o", "-")
check(r.returncode == 2 and not os.path.exists(os.path.join(work, "-")),
      "import -o -: refused, a campaign file needs a name (%r)" % r.stderr.strip())
no_stdin_copies("import -")

# ---- scal merge -q and "-" ----
run("import", "b/p.json", "-o", "b.h5", "--size", "huge=8000")
r = run("merge", "sized.h5", "b.h5", "-o", "m1.h5")
check(r.returncode == 0 and len(lines(r.stderr)) == 1 and "into m1.h5" in r.stderr,
      "merge without -q: its summary line (%r)" % r.stderr)
r = run("merge", "-q", "sized.h5", "b.h5", "-o", "m2.h5")
check(r.returncode == 0 and r.stderr == "" and os.path.exists(os.path.join(work, "m2.h5")),
      "merge -q: nothing printed (%r)" % r.stderr)
r = run("merge", "--quiet", "sized.h5", "missing.h5", "-o", "m3.h5")
check(r.returncode == 1 and "missing.h5" in r.stderr and not os.path.exists(os.path.join(work, "m3.h5")),
      "merge -q still names an error (%r)" % r.stderr.strip())
check("-q, --quiet" in run("merge", "--help").stdout, "merge --help names -q")
r = run_from("sized.h5", "merge", "-", "b.h5", "-o", "m4.h5")
merged = run("show", "m1.h5", "--csv").stdout
check(r.returncode == 0 and "into m4.h5" in r.stderr and tmpdir not in r.stderr and
      run("show", "m4.h5", "--csv").stdout == merged,
      "merge - reads a campaign from standard input (%r)" % r.stderr)
with h5py.File(os.path.join(work, "m4.h5"), "r") as f:
    note = f["campaign"].attrs["note"]
    note = note.decode() if isinstance(note, bytes) else note
check(tmpdir not in note and "standard input" in note, "merge -: the note names standard input (%r)" % note)
r = run_from("sized.h5", "merge", "b.h5", "-q", "-", "-o", "m5.h5")
check(r.returncode == 0 and r.stderr == "", "merge -q with - among the inputs (%r)" % r.stderr)
r = run_from("sized.h5", "merge", "-", "-", "-o", "m6.h5")
check(r.returncode == 2 and "standard input" in r.stderr and not os.path.exists(os.path.join(work, "m6.h5")),
      "merge - -: standard input once, a usage error (%r)" % r.stderr.strip())
r = run_from("broken.json", "merge", "-", "b.h5", "-o", "m7.h5")
check(r.returncode == 1 and "'-'" in r.stderr and tmpdir not in r.stderr and
      not os.path.exists(os.path.join(work, "m7.h5")),
      "merge - of a file that is no campaign: an error naming '-' (%r)" % r.stderr.strip()[-120:])
r = run("merge", "sized.h5", "b.h5", "-o", "-")
check(r.returncode == 2 and not os.path.exists(os.path.join(work, "-")),
      "merge -o -: refused, a campaign file needs a name (%r)" % r.stderr.strip())
no_stdin_copies("merge -")
finish()
