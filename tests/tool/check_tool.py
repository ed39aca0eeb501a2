# SPDX-License-Identifier: BSD-3-Clause
# Runs one test program under libscal_ompt.so and checks the expectations written in the program's
# own comments (RUN, SIGNAL, REGION, CHECK lines; the syntax is in tests/tool/README.md) against
# what the runs did and the run file they wrote.
#
#   check_tool.py TEST --source PROGRAM.c --prog EXECUTABLE --tool LIB [--libomp LIB] [--workdir DIR] [--scal SCAL]
#                 [--emulator 'qemu-aarch64-static -L SYSROOT' --run-writer SCAL-RUN-WRITER]
#
# With --emulator (a cross build: the programs run under qemu-user, which runs one OpenMP thread
# only and cannot start another foreign program) every program runs under it with
# OMP_NUM_THREADS=1 (%scal-exec: with libomp and the tool preloaded, as scal exec does), the run
# file is written by the driver from the tool's snapshot, and only the
# identity expectations are checked: which regions there are (REGION lines and `nodes`), their
# file, lines, function, module, offset, kind and parents, and how each run ended.
import argparse
import ctypes
import fnmatch
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from scal_check import check, fail, reap_orphans  # noqa: E402  (tests/scal_check.py)

SCHEMA = os.path.join(HERE, "..", "..", "schemas", "scal-run-1.json")
KINDS = {"root": 0, "parallel": 1, "serial": 2, "user": 3, "task": 4}  # enum scal_region_kind, common/layout.h
DIRECTIVE = re.compile(r"//\s*(RUN|SIGNAL|REGION|CHECK)(?:\[([\w,\s]*)\])?(?:\s+(\S+?))?:\s+(.*?)\s*$")
LOOKS_LIKE_DIRECTIVE = re.compile(r"//\s*(RUN|SIGNAL|REGION|CHECK)\b")
EXPECTATION = re.compile(r"^([A-Za-z_][\w.]*(?:\([\w.]+\))?)(<=|>=|!=|=|<|>|~)(.*)$")
AGGREGATE = re.compile(r"^(sum|min|max|distinct)\((\w+)\)")
ARITH = re.compile(r"^(.+?)([*+-])(\d+(?:\.\d*)?)$")
# What --emulator checks: a region's identity and a run's end (not counts, times or teams).
IDENTITY_KEYS = {"name", "file", "function", "line_first", "line_last", "module", "offset", "kind",
                 "gap_prev", "gap_next", "parent", "exit", "signal", "output", "checked"}


class Directive:
    def __init__(self, path, line, keyword, tests, subject, rest):
        self.where = "%s:%d" % (os.path.basename(path), line)
        self.line, self.keyword, self.subject, self.rest = line, keyword, subject, rest
        self.tests = [t.strip() for t in tests.split(",") if t.strip()] if tests is not None else None

    def __str__(self):
        return "%s: %s%s%s: %s" % (self.where, self.keyword, "[%s]" % ",".join(self.tests) if self.tests else "",
                                   " " + self.subject if self.subject else "", self.rest)


def parse_source(path):
    out = []
    with open(path) as f:
        for n, text in enumerate(f, 1):
            m = DIRECTIVE.search(text)
            if m:
                out.append(Directive(path, n, *m.groups()))
            elif LOOKS_LIKE_DIRECTIVE.search(text):
                fail("%s:%d: malformed directive: %s" % (os.path.basename(path), n, text.strip()))
    return out


class Run:
    """One execution of the program: RUN line, environment, results and the files it left."""

    def __init__(self, d, args, sig):
        self.name, self.d = d.subject or "run", d
        self.cwd = os.path.join(args.workdir, self.name)
        os.makedirs(self.cwd)
        words = [w.replace("%tool", args.tool).replace("%libomp", args.libomp) for w in shlex.split(d.rest)]
        # the run file is complete when the program has ended (SCAL_WRITER=detached: once the
        # writer, which this driver reaps as a subreaper, has ended)
        env = dict(os.environ, OMP_TOOL_LIBRARIES=args.tool, SCAL_OUTPUT=os.path.join(args.workdir, self.name + ".h5"))
        env.pop("SCAL_WRITER", None)
        env.pop("SCAL_WAIT_WRITER", None)
        emulator = shlex.split(args.emulator) if args.emulator else []
        launcher = []
        while words and words[0] != "%prog":
            w = words.pop(0)
            if w == "%scal-exec":  # through `scal exec`, which sets up the tool itself
                check(bool(args.scal), "%s: %%scal-exec needs --scal" % d)
                env.pop("OMP_TOOL_LIBRARIES", None)
                launcher = [args.scal, "exec", "-q", "--tool", args.tool, "--"]
                continue
            if w == "-u" and words:
                env.pop(words.pop(0), None)
            elif "=" in w and not launcher:
                k, v = w.split("=", 1)
                env[k] = v
            elif launcher:  # a wrapper scal exec starts, which then starts the program
                launcher.append(w)
            else:
                fail("%s: '%s' before %%prog is neither NAME=VALUE nor -u NAME" % (d, w))
        if not words:
            fail("%s: no %%prog" % d)
        if emulator:  # one thread; the tool leaves its snapshot, written below
            if launcher:  # scal exec cannot start a foreign program: preload as it would
                check(launcher[-1] == "--", "%s: no wrapper under an emulator" % d)
                env["LD_PRELOAD"] = "%s:%s" % (args.libomp, args.tool)
            env.update(OMP_NUM_THREADS="1", SCAL_SNAPSHOT_ONLY="1")
            launcher = emulator
        self.output = env.get("SCAL_OUTPUT")
        errpath = os.path.join(args.workdir, self.name + ".stderr")
        with open(errpath, "w") as err:
            p = subprocess.Popen(launcher + [args.prog] + words[1:], env=env, cwd=self.cwd, stdout=subprocess.PIPE, stderr=err, text=True)
            self.stdout = ""
            if sig:
                signame, line = sig.rest.split(None, 1)
                while True:
                    got = p.stdout.readline()
                    check(got != "", "%s: the program printed '%s' before ending" % (sig, line))
                    self.stdout += got
                    if got.rstrip("\n") == line:
                        break
                p.send_signal(getattr(signal, signame))
            self.stdout += p.stdout.read()
            _, status, usage = os.wait4(p.pid, 0)
            p.returncode = os.waitstatus_to_exitcode(status)
            if env.get("SCAL_WRITER") == "detached":
                reap_orphans()
        snap = (self.output or "") + ".snap"
        if emulator and os.path.isfile(snap):
            w = subprocess.run(emulator + [args.run_writer, snap], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            check(w.returncode == 0, "%s: scal-run-writer %s: %s" % (d, snap, w.stdout.strip()))
        with open(errpath) as err:
            self.stderr = err.read()
        self.fields = {
            "exit": p.returncode,
            "signal": signal.Signals(-p.returncode).name if p.returncode < 0 else "none",
            "stdout": self.stdout,
            "stderr": self.stderr,
            "output": "written" if self.output and os.path.isfile(self.output) else "absent",
            "files": sorted(os.listdir(self.cwd)),
            "peak_rss_kib": usage.ru_maxrss,
        }
        self.scal, self.emulator = args.scal, emulator

    def field(self, key):
        if key == "checked" and key not in self.fields:  # run only when an expectation names it
            self.fields[key] = self.scal_check(self.scal)
        if key == "shown" and key not in self.fields:
            self.fields[key] = self.scal_show(self.scal)
        return self.fields.get(key)

    def scal_show(self, scal):
        """What `scal show` prints for the run file ('unshown' without --scal)."""
        if not scal or not (self.output and os.path.isfile(self.output)):
            return "unshown"
        p = subprocess.run([scal, "show", self.output], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        return p.stdout

    def check_labels(self):
        """Each region of the run file stores its label, and it is the one scal's rule derives from
        the region (`scal show --table labels`: the rule lives in C only)."""
        if not self.scal or not (self.output and os.path.isfile(self.output)):
            return
        p = subprocess.run(self.emulator + [self.scal, "show", self.output, "--table", "labels", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        check(p.returncode == 0, "run %s: scal show --table labels (%s)" % (self.name, p.stderr.strip()[-300:]))
        rows = json.loads(p.stdout)
        bad = ["%s: stored %r, rule %r" % (r["id"], r["label"] if r["stored"] else None, r["rule"]) for r in rows if r["stored"] != 1 or r["label"] != r["rule"]]
        check(rows and not bad, "run %s: its %d regions store the rule's labels%s" % (self.name, len(rows), "; not: " + "; ".join(bad[:3]) if bad else ""))

    def scal_check(self, scal):
        """'ok' when `scal check` accepts the run file, else what it said ('unchecked' without --scal)."""
        if not scal:
            return "unchecked"
        if not (self.output and os.path.isfile(self.output)):
            return "absent"
        p = subprocess.run(self.emulator + [scal, "check", self.output], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        return "ok" if p.returncode == 0 else "failed: " + p.stdout.strip()


class RunFile:
    """The run file of the run named 'run', its regions table with names and derived values."""

    def __init__(self, path):
        check(os.path.isfile(path), "run file %s written" % path)
        self.f = h5py.File(path, "r")
        self.strings = self.f["strings"].asstr()[:]
        self.regions = self.f["regions"][:]
        schema = json.load(open(SCHEMA))
        members = [t for t in schema["tables"] if t["path"] == "regions"][0]["members"]
        self.string_fields = {m["name"] for m in members if m.get("string_index")}
        self.ref_fields = {m["name"] for m in members if m.get("region_ref")}
        self._trace = None

    def field(self, row, name):
        r = self.regions[row]
        if "." in name:  # parent.kind: a field of the region a reference names
            ref, rest = name.split(".", 1)
            if ref not in self.ref_fields or r[ref] < 0:
                return None
            return self.field(int(r[ref]), rest)
        if name in self.string_fields:
            return self.strings[r[name]]
        if name == "kind":
            return {v: k for k, v in KINDS.items()}.get(int(r["kind"]), str(r["kind"]))
        if name == "thread_ids":
            th = self.f["threads"][:]
            return sorted(int(t) for t in set(th["thread"][th["region"] == row]))
        if name == "thread_instances":  # instances of its /threads rows, by team index
            th = self.f["threads"][:]
            mine = sorted((int(x["thread"]), int(x["instances"])) for x in th[th["region"] == row])
            return [n for _, n in mine]
        if name in ("children_time_s", "children_wall_s"):
            member = "time_total_s" if name == "children_time_s" else "time_wall_s"
            return float(sum(x[member] for x in self.regions if x["parent"] == row))
        if name == "trace":
            return self.trace_agreement(row)
        if name in self.regions.dtype.names:
            return r[name].item()
        return None

    def trace_agreement(self, row):
        """'agrees' when the trace's instances of the region give its count, total, min, max, exact
        median and sample variance; otherwise what differs."""
        ti = self.f["trace/instances"][:]
        r = self.regions[row]
        d = ti["end_s"][ti["region"] == row] - ti["begin_s"][ti["region"] == row]
        tol = 1e-8
        if len(d) != r["count"]:
            return "differs: %d instances in the trace, count %d" % (len(d), r["count"])
        if len(d) == 0:
            return "differs: no instance in the trace"
        diffs = [("total", abs(d.sum() - r["time_total_s"]) < tol * len(d)), ("min", abs(d.min() - r["time_min_s"]) < tol),
                 ("max", abs(d.max() - r["time_max_s"]) < tol), ("median", abs(np.median(d) - r["time_median_s"]) < tol)]
        var = np.var(d, ddof=1) if len(d) > 1 else 0.0
        diffs.append(("variance", abs(var - r["time_var_s2"]) <= 1e-6 * max(var, 1e-12) + 1e-15))
        bad = [n for n, ok in diffs if not ok]
        return "agrees" if not bad else "differs: " + ", ".join(bad)


class Checker:
    def __init__(self, args, directives):
        self.args, self.ds = args, directives
        self.runs, self.bindings, self.found, self.file = {}, {}, {}, None

    # ---- values -------------------------------------------------------------------------------
    def value(self, d, text, subject_value):
        """A value of an expectation: @LINE[+-N], a number, BINDING.FIELD, a region binding (its
        id), a field of the same subject, each optionally *N, +N or -N."""
        for number in (int, float):
            try:
                return number(text)
            except ValueError:
                pass
        if text == "@LINE":
            return d.line
        m = ARITH.match(text)
        if m:
            base, op, num = m.groups()
            b = self.value(d, base, subject_value)
            if not isinstance(b, (int, float)):
                fail("%s: '%s' is not a number" % (d, base))
            n = float(num) if "." in num else int(num)
            return b * n if op == "*" else b + n if op == "+" else b - n
        if "." in text:
            name, field = text.split(".", 1)
            if name in self.runs:
                return self.runs[name].field(field)
            if name in self.bindings:
                return self.file.field(self.single(d, name), field)
        if text in self.bindings:
            return self.single(d, text)
        v = subject_value(text)
        if v is None:
            fail("%s: '%s' is neither a number, a binding nor a field" % (d, text))
        return v

    def single(self, d, name):
        rows = self.bindings[name]
        if len(rows) != 1:
            fail("%s: '%s' names %d regions, not one" % (d, name, len(rows)))
        return rows[0]

    def compare(self, d, key, op, want_text, got, subject_value, who=""):
        """One expectation key<op>value on the value got; fails with both sides shown."""
        what = "%s: %s%s%s%s (found %r)" % (d.where, who, key, op, want_text, got)
        if got is None:
            fail("%s: no such field '%s'" % (d, key))
        if isinstance(got, list):
            if op == "~":
                check(any(self.match(d, x, want_text, subject_value) for x in got), what)
                return
            want = [w for w in want_text.split(",") if w != ""]
            ok = len(want) == len(got) and all(self.match(d, g, w, subject_value) for g, w in zip(got, want))
            check(ok if op == "=" else not ok if op == "!=" else fail("%s: lists compare with = or ~" % d), what)
        elif isinstance(got, str):
            ok = self.match(d, got, want_text, subject_value)
            check(ok if op in ("=", "~") else not ok if op == "!=" else fail("%s: strings compare with = or !=" % d), what)
        else:
            want = self.value(d, want_text, subject_value)
            ok = {"=": got == want, "!=": got != want, "<": got < want, "<=": got <= want, ">": got > want, ">=": got >= want}.get(op)
            if ok is None:
                fail("%s: '%s' does not apply to numbers" % (d, op))
            check(ok, what if str(want) == want_text else "%s, want %r" % (what, want))

    def match(self, d, got, pattern, subject_value):
        if isinstance(got, str):
            return any(fnmatch.fnmatchcase(got, p) for p in pattern.split("|"))
        return got == self.value(d, pattern, subject_value)

    def expectations(self, d, words, value_of, aggregate=None, who=""):
        for w in words:
            m = EXPECTATION.match(w)
            if not m:
                fail("%s: '%s' is not KEY<op>VALUE" % (d, w))
            key, op, want = m.groups()
            agg = AGGREGATE.match(key)
            if self.args.emulator and (agg.group(2) if agg else key).split(".")[-1] not in IDENTITY_KEYS:
                continue
            if agg:
                if aggregate is None:
                    fail("%s: %s applies to a table or to several regions" % (d, key))
                self.compare(d, key, op, want, aggregate(agg.group(1), agg.group(2)), value_of, who)
            else:
                self.compare(d, key, op, want, value_of(key), value_of, who)

    # ---- REGION -------------------------------------------------------------------------------
    def bind(self, d):
        """Finds the rows of a REGION line's identity (kind and where) and binds its name to them;
        the rest of the line is kept for later, when every REGION line is bound."""
        words = shlex.split(d.rest)
        kind = words.pop(0) if words else ""
        if kind not in KINDS and kind != "any":
            fail("%s: kind '%s' is not root, parallel, serial, user, task or any" % (d, kind))
        test = lambda r: kind == "any" or r["kind"] == KINDS[kind]  # noqa: E731
        ident = "kind %s" % kind
        if words and (not EXPECTATION.match(words[0]) or "->" in words[0]):
            where = words.pop(0)
            if kind in ("parallel", "task"):
                line = self.value(d, where, lambda k: None)
                test = lambda r, t=test: t(r) and r["line_first"] == line  # noqa: E731
                ident += " at line %d" % line
            elif kind == "serial":
                a, b = where.split("->")
                prev = -1 if a == "start" else self.value(d, a, lambda k: None)
                nxt = -1 if b == "end" else self.value(d, b, lambda k: None)
                test = lambda r, t=test: t(r) and r["gap_prev"] == prev and r["gap_next"] == nxt  # noqa: E731
                ident += " %s" % where
            elif kind in ("user", "any"):
                test = lambda r, t=test: t(r) and fnmatch.fnmatchcase(self.file.strings[r["name"]], where)  # noqa: E731
                ident += " named %r" % where
            else:
                fail("%s: a root region has no '%s'" % (d, where))
        rows = [int(r["id"]) for r in self.file.regions if test(r)]
        if d.subject:
            if d.subject in self.bindings or d.subject in self.runs:
                fail("%s: '%s' is bound twice" % (d, d.subject))
            self.bindings[d.subject] = rows
        self.found[d] = (ident, rows, words)

    def region(self, d):
        ident, rows, words = self.found[d]
        nodes = [w for w in words if w.startswith("nodes")]
        words = [w for w in words if not w.startswith("nodes")]
        if nodes:
            self.expectations(d, nodes, lambda k: len(rows))
        else:
            check(len(rows) == 1, "%s: one region with %s (found %d)" % (d.where, ident, len(rows)))
        self.on_regions(d, rows, words)

    def on_regions(self, d, rows, words):
        """Aggregates (sum(f), min(f), max(f), distinct(f)) over the rows once, the rest on each."""
        whole = [w for w in words if AGGREGATE.match(w)]
        self.expectations(d, whole, lambda k: None, lambda fn, k: self.aggregate(fn, [self.file.field(r, k) for r in rows]),
                          "%d regions: " % len(rows))
        for row in rows:
            self.expectations(d, [w for w in words if w not in whole], lambda k, row=row: self.file.field(row, k),
                              who="region %d %s: " % (row, self.file.field(row, "name")))

    @staticmethod
    def aggregate(fn, values):
        return {"sum": lambda: sum(values), "min": lambda: min(values), "max": lambda: max(values),
                "distinct": lambda: len(set(values))}[fn]()

    # ---- CHECK --------------------------------------------------------------------------------
    def check_directive(self, d):
        words = shlex.split(d.rest)
        s = d.subject or ""
        if s and all(b in self.runs or b in self.bindings for b in s.split(",")):
            for b in s.split(","):
                if b in self.runs:
                    self.expectations(d, words, lambda k: self.runs[b].field(k), who="run %s: " % b)
                else:
                    self.on_regions(d, self.bindings[b], words)
        elif "/" in s:
            if self.args.emulator:  # the file's tables and attributes: not identity
                return
            fname, path = s.split(":", 1) if ":" in s else (None, s)
            if fname:
                f = h5py.File(os.path.join(self.runs["run"].cwd, fname), "r")
            else:
                f = self.file.f
            check(path in f, "%s: %s holds %s" % (d.where, fname or "the run file", path))
            self.hdf5_object(d, f[path], words)
        else:
            fail("%s: '%s' is neither a run, a region bound by REGION, nor /an/hdf5/path" % (d, s))

    def hdf5_object(self, d, obj, words):
        if isinstance(obj, h5py.Group):
            attrs = obj.attrs
            self.expectations(d, words, lambda k: self.plain(attrs[k]) if k in attrs else None)
            return
        data = obj[()]
        rows_words = [w for w in words if w.startswith("rows")]
        self.expectations(d, rows_words, lambda k: len(data))
        words = [w for w in words if not w.startswith("rows")]
        if data.dtype.names:
            whole = [w for w in words if AGGREGATE.match(w)]
            self.expectations(d, whole, lambda k: None, lambda fn, k: self.aggregate(fn, [x.item() for x in data[k]]))
            for row in data:
                self.expectations(d, [w for w in words if w not in whole],
                                  lambda k, row=row: row[k].item() if k in data.dtype.names else None)
        else:
            values = [self.plain(x) for x in data]
            self.expectations(d, words, lambda k: values if k == "values" else None)

    @staticmethod
    def plain(x):
        if isinstance(x, bytes):
            return x.decode()
        return x.item() if hasattr(x, "item") else x

    # ---- the test -----------------------------------------------------------------------------
    def run_test(self, test):
        mine = [d for d in self.ds if d.tests is None or test in d.tests]
        runs = [d for d in mine if d.keyword == "RUN"]
        expect = [d for d in mine if d.keyword in ("REGION", "CHECK")]
        check(len(runs) > 0, "%s: a RUN[%s] line runs the program" % (self.args.source, test))
        check(len(expect) > 0, "%s: test %s has expectations (REGION or CHECK lines)" % (self.args.source, test))
        if self.args.emulator:
            check(any(d.keyword == "REGION" for d in expect), "%s: test %s has REGION lines (identity, what --emulator checks)" % (self.args.source, test))
        signals = {d.subject or "run": d for d in mine if d.keyword == "SIGNAL"}
        for d in runs:
            r = Run(d, self.args, signals.get(d.subject or "run"))
            self.runs[r.name] = r
            print("ran %s: exit %d; stderr: %s" % (d, r.fields["exit"], r.stderr.strip()[-500:]))
        for name, r in self.runs.items():  # a run exits 0 unless its expectations say otherwise
            if not any(d.keyword == "CHECK" and name in (d.subject or "").split(",") and re.search(r"(^|\s)(exit|signal)\W", d.rest) for d in expect):
                check(r.fields["exit"] == 0, "run %s exits 0 (exit %d)" % (name, r.fields["exit"]))
        for name, r in self.runs.items():  # every run file stores the labels the rule gives
            r.check_labels()
        if any(d.keyword == "REGION" or d.subject and d.subject.startswith("/") for d in expect):
            if "run" not in self.runs:
                fail("%s: REGION and /path lines read the file of the run named 'run'" % self.args.source)
            self.file = RunFile(self.runs["run"].output)
        regions = [d for d in expect if d.keyword == "REGION"]  # serial gaps name their neighbours
        for d in sorted(regions, key=lambda d: d.rest.split()[0] == "serial"):
            self.bind(d)
        for d in expect:
            self.region(d) if d.keyword == "REGION" else self.check_directive(d)


PR_SET_CHILD_SUBREAPER = 36


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("test")
    ap.add_argument("--source", required=True)
    ap.add_argument("--prog", required=True)
    ap.add_argument("--tool", required=True)
    ap.add_argument("--libomp", default="/usr/lib/llvm-14/lib/libomp.so.5")
    ap.add_argument("--workdir")
    ap.add_argument("--emulator", help="runs the (cross-built) programs under this command; checks identity only")
    ap.add_argument("--run-writer", help="scal-run-writer, which writes the run files under --emulator")
    ap.add_argument("--scal", help="the scal executable: for %%scal-exec, and the fields 'checked' (whether `scal check` accepts its file) and 'shown' (what `scal show` prints) of a run")
    args = ap.parse_args()
    if ctypes.CDLL(None).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        fail("cannot become a subreaper (the detached writers could not be waited for)")
    tmp = None
    if not args.workdir:
        tmp = tempfile.TemporaryDirectory(prefix="scal-tool-%s-" % args.test)
        args.workdir = tmp.name
    directives = parse_source(args.source)
    known = {d.tests[0] for d in directives if d.keyword == "RUN" and d.tests and len(d.tests) == 1}
    for d in directives:
        if d.keyword == "RUN" and (not d.tests or len(d.tests) != 1):
            fail("%s: a RUN line names exactly one test: RUN[test]" % d)
        for t in d.tests or []:
            if t not in known:
                fail("%s: test '%s' has no RUN line" % (d, t))
    if args.test not in known:
        fail("%s: no RUN[%s] line" % (args.source, args.test))
    Checker(args, directives).run_test(args.test)
    print("PASS: %s" % args.test)


if __name__ == "__main__":
    main()
