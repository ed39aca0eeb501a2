# SPDX-License-Identifier: BSD-3-Clause
# CLI habits every command shares: --version/-V, exit status 2 for every usage error, --json where a
# script would parse the output (show, check, plugins), the man page written from the help texts
# and the bash completion that reads them.
#   test_habits.py SCAL GEN_CAMPAIGN MAN_PAGE COMPLETION WORKDIR
import json, os, re, shutil, subprocess, sys

scal, gen, man, completion, work = sys.argv[1:6]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from scal_check import expect as check, finish  # noqa: E402  (tests/scal_check.py)


def run(*args, stdin=None):
    return subprocess.run([scal, *args], capture_output=True, text=True, cwd=work, timeout=120,
                          stdin=stdin if stdin is not None else subprocess.DEVNULL)


top = run("--help").stdout
commands = re.findall(r"^  (\w+)\s", top.split("commands:")[1].split("\n\n")[0], re.M)
check(len(commands) >= 9, "scal --help lists the commands %r" % commands)
version = run("--version").stdout.strip()
check(re.fullmatch(r"scal \d+\.\d+\.\d+ \(.*commit.*\)", version) is not None and run("-V").stdout.strip() == version,
      "scal --version and -V: %r" % version)
for c in commands:
    for flag in ("--version", "-V"):
        r = run(c, flag)
        check(r.returncode == 0 and r.stdout.strip() == "scal %s %s" % (c, version[len("scal "):]),
              "scal %s %s: %r" % (c, flag, r.stdout.strip()))

camp = os.path.join(work, "c.h5")
subprocess.run([gen, camp, "--inputs", "2", "--threads", "2", "--reps", "2", "--regions", "3"], check=True)
usage_errors = [[c, "--no-such-option"] for c in commands] + [
    ["show"], ["check"], ["report"], ["export", "c.h5"], ["export", "c.h5", "--format"],
    ["export", "c.h5", "--format", "xml"], ["export", "c.h5", "--format", "extrap", "--size", "i9=1"],
    ["show", "c.h5", "--top", "x"], ["show", "c.h5", "--table", "runs"], ["plugins", "--kind", "gpu"],
    ["report", "c.h5", "--top"], ["import"], ["merge"], ["nosuchcommand"],
]
for args in usage_errors:
    r = run(*args)
    check(r.returncode == 2 and r.stderr.strip() and not r.stdout.strip(),
          "usage error exits 2 with a message on stderr: scal %s -> %d %r" % (" ".join(args), r.returncode,
                                                                            r.stderr.strip()[-120:]))

# "-": standard input where a file is read
for args in (["show", "--csv"], ["export", "--format", "csv"], ["check"]):
    with open(camp, "rb") as f:
        piped = run(*args[:1], "-", *args[1:], stdin=f)
    named = run(*args[:1], "c.h5", *args[1:])
    same = piped.stdout == named.stdout if args[0] != "check" else piped.stdout == "-" + named.stdout[len("c.h5"):]
    check(piped.returncode == 0 and same, "scal %s - reads standard input: %r" % (args[0], piped.stdout[-100:]))
# scal report -: the same report as from the file (default directory stdin-report), nothing written
with open(camp, "rb") as f:
    piped = run("report", "-", stdin=f)
named = run("report", "c.h5", "--no-write", "-o", "named")


def report_files(d):
    out = {}
    for sub, _, files in os.walk(os.path.join(work, d)):
        for n in files:
            if n.endswith((".csv", ".txt")):
                with open(os.path.join(sub, n)) as f:
                    rel = os.path.relpath(os.path.join(sub, n), os.path.join(work, d))
                    out[rel] = [l for l in f if not l.startswith("sources:")]
    return out


pf, nf = report_files("stdin-report"), report_files("named")
check(piped.returncode == 0 and len(pf) > 5 and pf == nf,
      "scal report - writes stdin-report/, the report of the file (%d files, %r)"
      % (len(pf), sorted(k for k in set(pf) | set(nf) if pf.get(k) != nf.get(k))[:3]))
check("scal-stdin" not in piped.stderr, "scal report -: notes name no temporary copy")
r = run("report", "-", "-", "-o", "twice")
check(r.returncode == 2 and "only once" in r.stderr, "scal report - -: a usage error (%r)" % r.stderr)
# damaged standard input: the messages name "-", not the temporary copy
for args in (["check", "-"], ["check", "--json", "-"], ["report", "-", "-o", "junk"]):
    r = run(*args, stdin=open(man, "rb"))
    said = r.stdout + r.stderr
    check(r.returncode == 1 and "'-'" in said and "scal-stdin" not in said,
          "scal %s on a file that is not HDF5 names '-': %r" % (" ".join(args), said.strip()[-160:]))
check(json.loads(run("check", "--json", "-", stdin=open(camp, "rb")).stdout)[0]["file"] == "-",
      "scal check --json -: the file is '-'")
check(not [n for n in os.listdir(os.environ.get("TMPDIR", "/tmp")) if n.startswith("scal-stdin-")],
      "no temporary copy of standard input is left behind")
csvr = run("export", "c.h5", "--format", "csv").stdout.split("\n")
head = csvr[0].split(",")
root = next(line.split(",") for line in csvr[1:] if ",whole program," in line)
check(all(root[head.index(c)] == "" for c in ("work_s", "barrier_s", "lock_s", "imbalance")),
      "export csv: the root's work, waits and imbalance are missing, not 0")

# -q: notes go, errors stay
loud, quiet = run("report", "c.h5", "-o", "loud"), run("report", "-q", "c.h5", "-o", "quiet")
check(loud.returncode == quiet.returncode == 0 and "note:" in loud.stderr and quiet.stderr == "",
      "report -q: no notes (%r)" % quiet.stderr[:100])
r = run("report", "-q", "missing.h5", "-o", "q2")
check(r.returncode == 1 and "missing.h5" in r.stderr, "report -q still names an error")

# --json: what the text says, parseable
rows = json.loads(run("show", "c.h5", "--json").stdout)
csv_lines = run("show", "c.h5", "--csv").stdout.strip().split("\n")
check(len(rows) == len(csv_lines) - 1 and list(rows[0]) == csv_lines[0].split(","),
      "show --json: the --csv rows and columns (%d rows)" % len(rows))
check(all(isinstance(r["threads"], int) and isinstance(r["total_s"], (int, float)) and r["region"] for r in rows) and
      rows[0]["parent"] is None, "show --json: numbers as numbers, missing as null")
shutil.copy(camp, os.path.join(work, "bad.h5"))
with open(os.path.join(work, "bad.h5"), "r+b") as f:
    f.truncate(2000)
r = run("check", "--json", "c.h5", "bad.h5")
res = json.loads(r.stdout) if r.stdout.startswith("[") else []
check(r.returncode == 1 and [x["file"] for x in res] == ["c.h5", "bad.h5"] and res[0]["ok"] and
      res[0]["runs"] == 8 and res[0]["problems"] == [] and not res[1]["ok"] and res[1]["problems"],
      "check --json: one object per file, ok and problems: %r" % res)
p = json.loads(run("plugins", "--json").stdout)
names = {x["name"] for x in p["plugins"]}
check({"rusage", "threads", "page"} <= names and p["directories"] and
      all({"name", "kind", "available", "options", "file"} <= set(x) for x in p["plugins"]) and
      any(x["kind"] == "sensor" and x.get("metrics") for x in p["plugins"]),
      "plugins --json: every plugin with kind, availability, options, metrics (%d)" % len(names))

# a build-tree (or installed) scal found through PATH finds its plugins (dladdr gives argv[0]
# without a slash there)
env = dict(os.environ, PATH=os.path.dirname(os.path.abspath(scal)) + os.pathsep + os.environ.get("PATH", ""))
r = subprocess.run(["scal", "plugins", "--json"], capture_output=True, text=True, cwd="/", env=env)
via_path = json.loads(r.stdout)["directories"] if r.returncode == 0 else None
check(via_path and via_path == p["directories"], "scal through PATH: plugin directories %r" % via_path)

# the man page: every command's help text, rendered by man when it is installed
page = open(man).read()
check(all(".SS scal %s" % c in page for c in commands), "the man page has a section per command")
check("\\-\\-format" in page and "\\-\\-json" in page and "/work" not in page and "PREFIX/lib/libscal_ompt.so" in page,
      "the man page holds the options and no build path")
if shutil.which("man"):
    r = subprocess.run(["man", "-l", man], capture_output=True, text=True, env=dict(os.environ, MANWIDTH="100"))
    check(r.returncode == 0 and "scal export" in r.stdout, "man -l renders it")

# bash completion: commands, then a command's options from its help text
def complete(*words):
    script = 'source "%s"; COMP_WORDS=(%s); COMP_CWORD=%d; _scal; printf "%%s\\n" "${COMPREPLY[@]}"' % (
        completion, " ".join("'%s'" % w for w in (scal,) + words), len(words))
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True, cwd=work).stdout.split()


check(complete("") and set(commands) <= set(complete("")), "completion: the commands")
check(complete("re") == ["report"], "completion: 'scal re' -> report")
check({"--format", "--force"} == set(complete("export", "--f")), "completion: export --f -> %r" % complete("export", "--f"))
check("--json" in complete("check", "--"), "completion: check's options")
finish()
