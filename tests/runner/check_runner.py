# SPDX-License-Identifier: BSD-3-Clause
# scal run / scal merge on real OpenMP programs; the campaign files are read with h5py.
#
#   check_runner.py SCENARIO --scal SCAL --prog CAMPAIGN_PROG --demo SCAL_DEMO --source SRC --gcc GCC
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import select
import tempfile

import h5py


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from scal_check import check, fail  # noqa: E402  (tests/scal_check.py)


def scal(args, *cmd, expect=0, env=None, timeout=600):
    e = dict(os.environ, OMP_WAIT_POLICY="passive")
    e.update(env or {})
    p = subprocess.run([args.scal] + list(cmd), capture_output=True, text=True, env=e, timeout=timeout, cwd=args.work)
    if expect is not None:
        check(p.returncode == expect, "scal %s -> exit %d (expected %d)\nstderr: %s" % (" ".join(cmd[:3]), p.returncode, expect, p.stderr[-1500:]))
    return p


class Campaign:
    def __init__(self, path):
        self.f = h5py.File(path, "r")
        self.strings = [s.decode() if isinstance(s, bytes) else s for s in self.f["strings"][()]]
        self.configs = self.f["configs"][()]
        self.runs = self.f["runs"][()]
        self.regions = self.f["regions"][()]
        self.stats = self.f["region_stats"][()]

    def s(self, i):
        return self.strings[i]

    def run_keys(self):
        """(threads, input label, repetition, status) of every run."""
        out = []
        for r in self.runs:
            c = self.configs[r["config"]]
            out.append((int(c["threads"]), self.s(c["input_label"]), int(r["repetition"]), int(r["status"])))
        return sorted(out)

    def region_names(self):
        return sorted({self.s(r["name"]) for r in self.regions})

    def region_lines(self):
        return sorted({int(r["line_first"]) for r in self.regions if r["line_first"] > 0})


def marker(source, m):
    with open(source) as f:
        for n, line in enumerate(f, 1):
            if m in line:
                return n
    fail("no marker " + m)


def wait_for_runs(proc, n):
    """Reads the runner's progress lines ("scal run: K/N ...") until n runs are done."""
    while True:
        line = proc.stderr.readline()
        check(line != "", "the runner reports %d finished runs before it ends" % n)
        if line.startswith("scal run: %d/" % n):
            return


def committer_of(proc):
    """The committer: the runner's child running the runner's own command line."""
    with open("/proc/%d/cmdline" % proc.pid, "rb") as f:
        runner_cmdline = f.read()
    kids = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()
    committer = []
    for k in kids:
        try:
            with open("/proc/%s/cmdline" % k, "rb") as f:
                if f.read() == runner_cmdline:
                    committer.append(int(k))
        except OSError:
            pass
    check(len(committer) == 1, "the committer process found")
    return committer[0]


def wait_for_exit(pid):
    """Blocks until the process pid (not a child of ours) has ended."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    try:
        check(select.select([fd], [], [], 120)[0] == [fd], "process %d ended" % pid)
    finally:
        os.close(fd)


def scenario_campaign(args):
    out = os.path.join(args.work, "demo.h5")
    p = scal(args, "run", "-c", "1,2,4", "-r", "2", "-i", "20", "-i", "40", "--label", "medium", "-i", "60", "-o", out, "--", args.demo, "{input}")
    check("18 runs" in p.stderr and "18 ok" in p.stderr, "summary counts 18 ok runs")
    check("next: scal report" in p.stderr, "summary says what to run next")
    c = Campaign(out)
    check(c.f.attrs["scal_format"] in ("scal-campaign", b"scal-campaign"), "a campaign file")
    check(len(c.configs) == 9, "9 configurations")
    keys = c.run_keys()
    want = sorted((t, lab, rep, 0) for t in (1, 2, 4) for lab in ("20", "medium", "60") for rep in (0, 1))
    check(keys == want, "exactly the expected runs, all ok")
    check(sorted(int(x) for x in c.f["campaign/threads"][()]) == [1, 2, 4], "thread counts stored")
    labels = [x.decode() if isinstance(x, bytes) else x for x in c.f["campaign/inputs"][()]]
    check(labels == ["20", "medium", "60"], "input labels in order: %s" % labels)
    for cfg in c.configs:
        argv = c.s(cfg["argv"])
        check(argv.endswith(" 20") or argv.endswith(" 40") or argv.endswith(" 60"), "argv has the input value: " + argv)
    names = c.region_names()
    for want_name in ("whole program", "setup"):
        check(want_name in names, "region %r unified across runs" % want_name)
    # every run has the same region identities (no duplicates from unification)
    per_run = {}
    for s in c.stats:
        per_run.setdefault(int(s["run"]), set()).add(int(s["region"]))
    check(len(per_run) == 18 and all(len(v) == len(per_run[0]) for v in per_run.values()), "every run has the same %d regions" % len(per_run[0]))
    check(len(c.regions) == len(per_run[0]), "no duplicate regions in the campaign (%d)" % len(c.regions))
    for r in c.runs:
        check(r["team_observed"] == c.configs[r["config"]]["threads"] and not r["team_mismatch"], "run %d used the requested team" % r["id"])
    for r in c.runs:  # each run's own output, with its own size and team, is kept
        cfg = c.configs[r["config"]]
        want = "scal_demo: size %s, threads %d," % (c.s(cfg["argv"]).split()[-1], cfg["threads"])
        check(want in c.s(r["stdout_tail"]), "run %d's stdout tail holds %r" % (r["id"], want))
    c.f.close()  # scal report writes /analysis into the file
    p = scal(args, "check", out)
    check("ok" in p.stdout, "scal check accepts the campaign")
    p = scal(args, "report", out, "-o", os.path.join(args.work, "report"))
    check(os.path.exists(os.path.join(args.work, "report", "index.png")), "scal report draws the diagrams")
    # the same output again is refused, nothing is overwritten
    p = scal(args, "run", "-c", "1", "-o", out, "--", args.demo, "20", expect=2)
    check("exists" in p.stderr and "--resume" in p.stderr, "existing file refused with a hint: " + p.stderr.strip())
    check(len(Campaign(out).runs) == 18, "existing campaign untouched")


def scenario_sensors(args):
    """Sensor values, samples, plugin states and per-thread rows reach the campaign unchanged."""
    out = os.path.join(args.work, "sensors.h5")
    scal(args, "run", "-c", "2", "-i", "200", "-s", "rusage,proc,rapl", "--keep-runs", "-o", out, "--", args.prog, "{input}",
         env={"SCAL_SAMPLE_MS": "20"})
    c = Campaign(out)
    run_file = os.path.join(out + ".runs", "run-000000.h5")
    check(os.path.exists(run_file), "--keep-runs keeps the run file")
    with h5py.File(run_file, "r") as r:
        rs = [x.decode() if isinstance(x, bytes) else x for x in r["strings"][()]]
        rv = sorted((rs[v["metric"]], int(v["region"]), int(v["thread"]), float(v["value"])) for v in r["sensors/values"][()] if v["region"] < 0)
        rt = sorted((int(t["thread"]), float(t["work_s"]), float(t["barrier_s"]), int(t["instances"])) for t in r["threads"][()])
        rsamp = len(r["sensors/samples"][()])
    cv = sorted((c.s(v["metric"]), int(v["region"]), int(v["thread"]), float(v["value"])) for v in c.f["sensor_values"][()] if v["region"] < 0)
    check(rv == cv and len(cv) >= 8, "whole-run sensor values identical in the campaign (%d)" % len(cv))
    # every statistic of every region as the kept run file has it (the campaign's come from the
    # run's snapshot, the run file is made from the same snapshot)
    with h5py.File(run_file, "r") as r:
        rregions = r["regions"][()]
    cols = [n for n in c.f["region_stats"].dtype.names if n not in ("run", "region") and n in rregions.dtype.names]
    key = lambda row: tuple(repr(float(row[n])) for n in cols)  # noqa: E731  (NaN == NaN here)
    check(len(cols) >= 20 and sorted(map(key, rregions)) == sorted(map(key, c.stats)),
          "region statistics identical in the campaign and the run file (%d members, %d regions)" % (len(cols), len(rregions)))
    utime = [v[3] for v in cv if v[0] == "rusage.utime"][0]
    check(0 < utime < 10, "rusage.utime measured: %.3f s (its size depends on the load of the machine)" % utime)
    ct = sorted((int(t["thread"]), float(t["work_s"]), float(t["barrier_s"]), int(t["instances"])) for t in c.f["thread_stats"][()])
    check(rt == ct and all(0 <= t[1] < 5 for t in ct), "per-thread rows identical and plausible")
    check(len(c.f["sensor_samples"][()]) == rsamp and rsamp >= 3, "samples kept (%d)" % rsamp)
    samples = c.f["sensor_samples"][()]
    check(all(0 <= s["time_s"] < 30 for s in samples), "sample times plausible")
    plugins = {c.s(p["name"]): p for p in c.f["plugins"][()]}
    check(plugins["rusage"]["available"] == 1 and plugins["rapl"]["available"] == 0 and "RAPL" in c.s(plugins["rapl"]["reason"]),
          "plugin states with reasons: rapl: " + c.s(plugins["rapl"]["reason"]))
    # --plugin-opt reaches the plugin inside the measured program
    empty = os.path.join(args.work, "empty-sysfs")
    os.makedirs(empty, exist_ok=True)
    out2 = os.path.join(args.work, "plugin-opt.h5")
    scal(args, "run", "-c", "1", "-i", "10", "-s", "rapl", "--plugin-opt", "rapl.sysfs_root=" + empty, "-o", out2, "--", args.prog, "{input}")
    c2 = Campaign(out2)
    reason = [c2.s(p["reason"]) for p in c2.f["plugins"][()] if c2.s(p["name"]) == "rapl"]
    check(len(reason) == 1 and empty in reason[0], "--plugin-opt rapl.sysfs_root used by the plugin: %s" % reason)


def scenario_placeholders(args):
    out = os.path.join(args.work, "threads-arg.h5")
    p = scal(args, "run", "-c", "1,2,3", "-i", "10", "-o", out, "--dry-run", "--", args.prog, "{input}", "{threads}")
    check("cmd: " + args.prog + " 10 3" in p.stdout, "dry run shows the exact command line")
    check("OMP_NUM_THREADS=3" in p.stdout and "OMP_TOOL_LIBRARIES=" in p.stdout, "dry run shows the environment")
    check(not os.path.exists(out), "dry run writes nothing")
    env = {"OMP_NUM_THREADS": "1"}
    scal(args, "run", "-c", "1,2,3", "-i", "10", "-o", out, "--", args.prog, "{input}", "{threads}", env=env)
    c = Campaign(out)
    for r in c.runs:
        cfg = c.configs[r["config"]]
        check(c.s(cfg["argv"]).endswith(" 10 %d" % cfg["threads"]), "argv carries {threads}: " + c.s(cfg["argv"]))
        check(r["team_observed"] == cfg["threads"], "the program's own thread argument took effect")
    # an input with several words, no placeholder: the words are appended as arguments
    out2 = os.path.join(args.work, "append.h5")
    p = scal(args, "run", "-c", "2", "-i", "ignore 5", "-o", out2, "--dry-run", "--", args.prog)
    check("cmd: %s ignore 5" % args.prog in p.stdout, "input words appended without a placeholder")


def scenario_failures(args):
    out = os.path.join(args.work, "failures.h5")
    p = scal(args, "run", "-c", "1,2", "-i", "10", "-i", "fail", "-i", "hang", "-i", "ignore 10", "--timeout", "3", "-o", out, "--", args.prog, "{input}", expect=1)
    c = Campaign(out)
    by = {}
    for r in c.runs:
        cfg = c.configs[r["config"]]
        by[(c.s(cfg["input_label"]), int(cfg["threads"]))] = r
    check(len(c.runs) == 8, "every run recorded, failed ones too")
    ok, failed, hung, ign = by[("10", 2)], by[("fail", 2)], by[("hang", 2)], by[("ignore 10", 2)]
    check(ok["status"] == 0, "good run ok")
    check(failed["status"] == 1 and failed["exit_code"] == 3 and "status 3" in c.s(failed["message"]), "failing run: status failed, exit 3, message")
    check("failing on purpose" in c.s(failed["stderr_tail"]), "stderr tail kept")
    check(hung["status"] == 3 and "timeout" in c.s(hung["message"]) and 2.5 < hung["wall_s"] < 60, "hung run stopped by the timeout (%.1f s)" % hung["wall_s"])
    check(ign["status"] == 0 and ign["team_mismatch"] == 1 and ign["team_observed"] == 3 and "ignored the requested 2 threads" in c.s(ign["message"]), "ignored thread count flagged: " + c.s(ign["message"]))
    check("did not use the requested thread count" in p.stderr, "summary mentions the mismatch")
    check("not ok" in p.stderr and "timed out 2" in p.stderr, "summary counts failures: " + p.stderr.strip().splitlines()[-4])
    # fail-fast stops at the first failure
    out2 = os.path.join(args.work, "failfast.h5")
    scal(args, "run", "-c", "1", "-i", "fail", "-i", "10", "--fail-fast", "-o", out2, "--", args.prog, "{input}", expect=1)
    check(len(Campaign(out2).runs) == 1, "--fail-fast: one run recorded")
    # a program without OpenMP: recorded as 'no data' with the reason
    out3 = os.path.join(args.work, "noomp.h5")
    p = scal(args, "run", "-c", "1", "-o", out3, "--", "/bin/true", expect=1)
    c3 = Campaign(out3)
    check(c3.runs[0]["status"] == 5 and "OMPT" in c3.s(c3.runs[0]["message"]), "program without OpenMP: no data, with the reason")
    check("links no OpenMP runtime" in p.stderr, "warned up front")


def scenario_gcc(args):
    if not args.gcc:
        print("SKIP: no gcc")
        sys.exit(77)
    exe = os.path.join(args.work, "gcc_prog")
    subprocess.run([args.gcc, "-O1", "-g", "-fopenmp", args.source, "-o", exe], check=True)
    out = os.path.join(args.work, "gcc.h5")
    p = scal(args, "run", "-c", "1,2", "-i", "10", "-o", out, "--", exe, "{input}")
    check("libgomp" in p.stderr and "libomp" in p.stderr, "one line says the program runs against libomp")
    c = Campaign(out)
    check(all(r["status"] == 0 for r in c.runs) and len(c.runs) == 2, "gcc-built program measured")
    lines = c.region_lines()
    check(marker(args.source, "FIRST") in lines and marker(args.source, "SECOND") in lines, "its regions have source lines: %s" % lines)


def campaign_keys_and_regions(path):
    c = Campaign(path)
    return [k[:3] for k in c.run_keys()], c.region_lines()


def scenario_resume(args):
    cmd = ["-c", "1,2,4", "-r", "2", "-i", "150", "-i", "250", "--order", "shuffled", "--seed", "7"]
    whole = os.path.join(args.work, "whole.h5")
    scal(args, "run", *cmd, "-o", whole, "--", args.prog, "{input}")
    part = os.path.join(args.work, "killed.h5")
    e = dict(os.environ, OMP_WAIT_POLICY="passive")
    proc = subprocess.Popen([args.scal, "run", *cmd, "-o", part, "--", args.prog, "{input}"], env=e, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=args.work)
    wait_for_runs(proc, 2)
    committer = committer_of(proc)
    proc.kill()  # SIGKILL: no chance to clean up
    proc.wait()
    wait_for_exit(committer)  # it sees the runner gone and closes the file
    c = Campaign(part)
    n = len(c.runs)
    check(2 <= n < 12, "after SIGKILL the file opens and holds %d completed runs" % n)
    c.f.close()
    p = scal(args, "check", part)
    check("ok" in p.stdout, "the interrupted campaign passes scal check")
    p = scal(args, "run", "--resume", part)
    check("resuming" in p.stderr, "resume says so")
    a, ra = campaign_keys_and_regions(whole)
    b, rb = campaign_keys_and_regions(part)
    check(a == b, "resume ran exactly the missing runs: %d runs, same set as uninterrupted" % len(b))
    check(ra == rb, "same regions as the uninterrupted campaign")
    p = scal(args, "run", "--resume", part)
    check("0 runs" in p.stderr, "resuming a complete campaign runs nothing")
    p = scal(args, "run", "--resume", os.path.join(args.work, "nope.h5"), expect=2)
    check("nope.h5" in p.stderr, "resume of a missing file names it")


def scenario_merge(args):
    base = ["-i", "20", "-i", "40", "-r", "2"]
    a, b, whole, merged = (os.path.join(args.work, x) for x in ("a.h5", "b.h5", "whole.h5", "merged.h5"))
    scal(args, "run", "-c", "1,2", *base, "-o", a, "--", args.prog, "{input}")
    scal(args, "run", "-c", "4", *base, "-o", b, "--", args.prog, "{input}")
    scal(args, "run", "-c", "1,2,4", *base, "-o", whole, "--", args.prog, "{input}")
    scal(args, "merge", a, b, "-o", merged)
    ka, ra = campaign_keys_and_regions(whole)
    km, rm = campaign_keys_and_regions(merged)
    check(ka == km, "merge of two halves has the whole's runs (%d)" % len(km))
    check(ra == rm, "and the whole's regions")
    cm, cw = Campaign(merged), Campaign(whole)
    check(len(cm.regions) == len(cw.regions), "regions unified, not duplicated (%d)" % len(cm.regions))
    check(len(cm.stats) == len(cw.stats), "every region row of every run kept")
    check(sorted(int(x) for x in cm.f["campaign/threads"][()]) == [1, 2, 4], "thread counts joined")
    p = scal(args, "check", merged)
    check("ok" in p.stdout, "merged file passes scal check")
    for path in (whole, merged):  # scal run and scal merge store the rule's labels
        labels = json.loads(scal(args, "show", path, "--table", "labels", "--json").stdout)
        bad = [x for x in labels if x["stored"] != 1 or x["label"] != x["rule"]]
        check(labels and not bad, "%s: its %d regions store the rule's labels%s" % (os.path.basename(path), len(labels), "; not: %s" % bad[:3] if bad else ""))
    # the same runs twice (a file with itself, or with a merge holding it) would count them twice
    twice = os.path.join(args.work, "twice.h5")
    p = scal(args, "merge", a, a, "-o", twice, expect=1)
    check("the same run" in p.stderr and not os.path.exists(twice), "merge X X refused: " + p.stderr.strip())
    p = scal(args, "merge", merged, a, "-o", twice, expect=1)
    check("the same run" in p.stderr and not os.path.exists(twice), "merge of a merge with one of its parts refused")
    # conflicts and other programs are refused
    other = os.path.join(args.work, "other.h5")
    scal(args, "run", "-c", "1", "-i", "20", "-o", other, "--", args.prog, "{input}", "1")
    p = scal(args, "merge", a, other, "-o", os.path.join(args.work, "conflict.h5"), expect=1)
    check("conflicting configurations" in p.stderr, "same configuration, other command line: refused: " + p.stderr.strip())
    demo = os.path.join(args.work, "demo.h5")
    scal(args, "run", "-c", "1", "-i", "20", "-o", demo, "--", args.demo, "{input}")
    p = scal(args, "merge", a, demo, "-o", os.path.join(args.work, "mixed.h5"), expect=1)
    check("same program" in p.stderr, "campaigns of other programs refused")
    check(not os.path.exists(os.path.join(args.work, "mixed.h5")), "nothing written on refusal")


def fake_cpufreq(root, cpus=2):
    for n in range(cpus):
        d = os.path.join(root, "sys/devices/system/cpu/cpu%d/cpufreq" % n)
        os.makedirs(d)
        for name, v in (("scaling_governor", "ondemand"), ("scaling_available_governors", "ondemand userspace performance"),
                        ("scaling_setspeed", "<unsupported>"), ("scaling_min_freq", "800000"), ("scaling_max_freq", "3000000"),
                        ("scaling_cur_freq", "2100000"), ("cpuinfo_min_freq", "800000"), ("cpuinfo_max_freq", "3000000")):
            with open(os.path.join(d, name), "w") as f:
                f.write(v + "\n")
    with open(os.path.join(root, "sys/devices/system/cpu/online"), "w") as f:
        f.write("0-%d\n" % (cpus - 1))


def tree(root):
    """The fake sysfs as {file: text}; scaling_setspeed is left out: the kernel itself shows
    <unsupported> there whenever the governor is not userspace, a fake tree cannot."""
    out = {}
    for d, _, files in os.walk(root):
        for n in files:
            if n == "scaling_setspeed":
                continue
            with open(os.path.join(d, n)) as f:
                out[os.path.relpath(os.path.join(d, n), root)] = f.read().strip()
    return out


def scenario_frequency(args):
    root = os.path.join(args.work, "sysfs")
    fake_cpufreq(root)
    before = tree(root)
    out = os.path.join(args.work, "freq.h5")
    p = scal(args, "run", "-c", "1,2", "-f", "1200000,2.1GHz", "-i", "10", "--sysfs-root", root, "-o", out, "--", args.prog, "{input}", expect=0)
    c = Campaign(out)
    check(sorted({int(x["frequency_khz"]) for x in c.configs}) == [1200000, 2100000], "frequencies in the configurations")
    r12 = [r for r in c.runs if c.configs[r["config"]]["frequency_khz"] == 1200000]
    check(all(r["frequency_observed_khz"] == 2100000 for r in c.runs), "observed frequency read back and stored")
    check(all("frequency request ignored" in c.s(r["message"]) for r in r12), "a request the hardware ignored is flagged")
    check("another frequency than requested" in p.stderr, "and summarised")
    check(tree(root) == before, "cpufreq files restored after the campaign")
    # A failing run keeps both its outcome and the ignored frequency request in its message
    out3 = os.path.join(args.work, "freq-fail.h5")
    scal(args, "run", "-c", "1", "-f", "1200000", "-i", "fail", "--sysfs-root", root, "-o", out3, "--", args.prog, "{input}", expect=1)
    m = [Campaign(out3).s(r["message"]) for r in Campaign(out3).runs]
    check(len(m) == 1 and "exited with status" in m[0] and "frequency request ignored" in m[0], "failure and ignored frequency both recorded: %r" % m)
    # SIGINT in the middle: stops cleanly, restores, keeps completed runs. The second run opens a
    # FIFO once it runs: while it waits, every actuator is applied and the runner writes nothing.
    out2 = os.path.join(args.work, "freq-int.h5")
    fifo = os.path.join(args.work, "running.fifo")
    os.mkfifo(fifo)
    e = dict(os.environ, OMP_WAIT_POLICY="passive")
    proc = subprocess.Popen([args.scal, "run", "-c", "1,2", "-r", "5", "-f", "1200000", "-i", "10", "-i", "wait " + fifo, "--sysfs-root", root,
                             "-o", out2, "--", args.prog, "{input}"], env=e, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=args.work)
    with open(fifo) as f:
        check(f.readline() == "running\n", "the second run is running")
    mid = tree(root)
    with open(os.path.join(root, "sys/devices/system/cpu/cpu0/cpufreq/scaling_setspeed")) as f:
        speed = f.read().strip()
        check(speed == "1200000", "frequency applied during the campaign (%r)" % speed)
    check(mid["sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"].strip() == "userspace", "userspace governor set during the campaign")
    proc.send_signal(signal.SIGINT)
    err = proc.communicate(timeout=120)[1]
    check(proc.returncode == 130, "SIGINT: exit 130 (%d)" % proc.returncode)
    check("--resume" in err, "says how to resume: " + err.strip().splitlines()[-2])
    check(tree(root) == before, "cpufreq files restored after SIGINT")
    n = len(Campaign(out2).runs)
    check(n == 1, "the completed run kept, the interrupted one not recorded (%d)" % n)
    # The committer dies mid-campaign: the runner reports it and restores the machine (no SIGPIPE)
    out4 = os.path.join(args.work, "freq-committer.h5")
    proc = subprocess.Popen([args.scal, "run", "-c", "1", "-r", "40", "-f", "1200000", "-i", "10", "--sysfs-root", root, "-o", out4, "--", args.prog, "{input}"],
                            env=e, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=args.work)
    wait_for_runs(proc, 1)
    os.kill(committer_of(proc), signal.SIGKILL)
    err = proc.communicate(timeout=120)[1]
    check(proc.returncode > 0, "runner exits with a status, not killed by SIGPIPE (%d): %s" % (proc.returncode, err.strip()[-300:]))
    check(tree(root) == before, "cpufreq files restored after the committer died")
    # unavailable actuator: a clear error before anything runs
    p = scal(args, "run", "-c", "1", "-f", "1200000", "--sysfs-root", os.path.join(args.work, "empty"), "-o", os.path.join(args.work, "f3.h5"), "--", args.prog, "10", expect=2)
    check("frequency" in p.stderr and "cpufreq" in p.stderr, "unavailable frequency actuator explained: " + p.stderr.strip())


def scenario_cli(args):
    cases = [
        (["run", "--bogus", "--", args.prog], "unknown option '--bogus'"),
        (["run", "-c", "", "--", args.prog], "bad thread list ''"),
        (["run", "-c", "4-1", "--", args.prog], "bad thread list '4-1'"),
        (["run", "-c", "1"], "no program given"),
        (["run", "-c", "1", "--", args.prog, "{input}"], "use {input} but no input"),
        (["run", "-c", "1", "--", os.path.join(args.work, "missing-prog")], "does not exist"),
        (["run", "-r", "0", "--", args.prog], "bad repetition count"),
        (["run", "-f", "fast", "--", args.prog], "bad frequency list"),
        (["run", "--plugin-opt", "papi", "--", args.prog], "PLUGIN.OPTION=VALUE"),
        (["run", "--order", "random", "--", args.prog], "'given' or 'shuffled'"),
        # every option bounded and validated (a huge range used to hang, nan/inf were accepted)
        (["run", "-c", "1-1048576", "--", args.prog], "bad thread list '1-1048576'"),
        (["run", "-c", "1-60000", "--", args.prog], "at most 4096 counts"),
        (["run", "--idle", "nan", "--", args.prog], "bad --idle 'nan'"),
        (["run", "--timeout", "inf", "--", args.prog], "bad --timeout 'inf'"),
        (["run", "--timeout", "", "--", args.prog], "bad --timeout ''"),
        (["run", "-f", "nan", "--", args.prog], "bad frequency list 'nan'"),
        (["run", "-f", "infGHz", "--", args.prog], "bad frequency list"),
        (["run", "--ok-exit", "256", "--", args.prog], "bad --ok-exit"),
        (["run", "--stdin", os.path.join(args.work, "no-such-input"), "--", args.prog], "cannot read --stdin"),
        # a duplicate label would mix two inputs up
        (["run", "-i", "10", "-i", "20", "--label", "10", "--", args.prog, "{input}"], "two inputs have the label '10'"),
        (["run", "-i", "10", "-i", "10", "--", args.prog, "{input}"], "two inputs have the label '10'"),
        # --resume runs the stored plan: other options are refused, not ignored
        (["run", "--resume", os.path.join(args.work, "x.h5"), "-c", "2"], "'-c' cannot be given with --resume"),
        (["run", "--resume", os.path.join(args.work, "x.h5"), "--", args.prog], "give no program"),
        (["merge", "-o", os.path.join(args.work, "m.h5")], "no campaign files"),
        (["merge", os.path.join(args.work, "none.h5"), "-o", os.path.join(args.work, "m.h5")], "none.h5"),
    ]
    for cmd, phrase in cases:
        p = scal(args, *cmd, expect=None, timeout=60)
        check(p.returncode in (1, 2) and phrase in p.stderr, "%s -> exit %d: %s" % (" ".join(cmd[:4]), p.returncode, p.stderr.strip()))
    p = scal(args, "run", "--help")
    check("--resume" in p.stdout and "{threads}" in p.stdout, "scal run --help documents the options")


def stats_of(c, run_id):
    return [s for s in c.stats if int(s["run"]) == run_id]


def scenario_robust(args):
    """Runs that must not lose data or hang: non-zero exits, chdir, stdin, inputs files and
    --resume, long command lines."""
    # a program exiting 1 keeps its measurements; --ok-exit makes 1 a success
    out = os.path.join(args.work, "exit1.h5")
    scal(args, "run", "-c", "2", "-i", "exit1", "-o", out, "--", args.prog, "{input}", expect=1)
    c = Campaign(out)
    r = c.runs[0]
    check(r["status"] == 1 and r["exit_code"] == 1, "exit 1 is a failed run by default")
    check(len(stats_of(c, int(r["id"]))) >= 2, "its measurements are kept (%d region rows)" % len(stats_of(c, int(r["id"]))))
    out = os.path.join(args.work, "okexit.h5")
    p = scal(args, "run", "-c", "2", "-i", "exit1", "--ok-exit", "0,1", "-o", out, "--", args.prog, "{input}", expect=0)
    c = Campaign(out)
    r = c.runs[0]
    check(r["status"] == 0 and r["exit_code"] == 1 and "--ok-exit" in c.s(r["message"]), "--ok-exit 0,1: exit 1 is a success, status kept: %r" % c.s(r["message"]))
    check(len(stats_of(c, int(r["id"]))) >= 2 and "1 ok" in p.stderr, "and measured")
    # a relative -o and a program that changes directory: the run file still arrives
    p = scal(args, "run", "-c", "1", "-i", "chdir", "-o", "rel.h5", "--", args.prog, "{input}", expect=0)
    c = Campaign(os.path.join(args.work, "rel.h5"))
    check(c.runs[0]["status"] == 0 and len(stats_of(c, int(c.runs[0]["id"]))) >= 2, "chdir program measured: %r" % c.s(c.runs[0]["message"]))
    # a missing run file: the tool's own reason when it gave one, not "the tool did not load"
    fake = os.path.join(args.work, "fake-prog")
    with open(fake, "w") as f:
        f.write("#!/bin/sh\necho 'scal: measurements lost: no space left on device' >&2\nexit 0\n")
    os.chmod(fake, 0o755)
    out = os.path.join(args.work, "lost.h5")
    scal(args, "run", "-c", "1", "-o", out, "--", "/bin/sh", fake, expect=1)
    m = Campaign(out).s(Campaign(out).runs[0]["message"])
    check("the tool said 'measurements lost: no space left on device'" in m and "did not load" not in m, "the real reason for a missing run file: " + m)
    # a damaged run snapshot (here a program's own file where the tool leaves its snapshot): no
    # data, the reason names the snapshot, and the kept record rebuilds the same run
    for name, content in (("garbage", b"not a snapshot at all\n"), ("truncated", b"SCALSNAP\1\0\0\0")):
        fake = os.path.join(args.work, "snap-" + name)
        with open(fake + ".bin", "wb") as f:
            f.write(content)
        with open(fake, "w") as f:
            f.write('#!/bin/sh\ncp "%s" "$SCAL_OUTPUT.snap"\nexit 0\n' % (fake + ".bin"))
        os.chmod(fake, 0o755)
        out = os.path.join(args.work, "snap-%s.h5" % name)
        p = scal(args, "run", "-c", "1", "-r", "2", "--fail-fast", "-o", out, "--", "/bin/sh", fake, expect=1)
        c = Campaign(out)
        m = c.s(c.runs[0]["message"])
        check(len(c.runs) == 1 and c.runs[0]["status"] == 5 and "run snapshot" in m and "run-000000.h5.snap" in m
              and ("not a scal run snapshot" in m or "truncated" in m), "a damaged snapshot: no data, said: " + m)
        check(os.path.getsize(os.path.join(out + ".runs", "runs.journal")) > 0, "the run is kept on its own")
        with open(out, "r+b") as f:
            f.truncate(os.path.getsize(out) // 2)
        p = scal(args, "run", "--resume", out, expect=1)
        c = Campaign(out)
        check("rebuilt it from the plan and the 1 runs kept" in p.stderr and len(c.runs) == 2 and c.s(c.runs[0]["message"]) == m,
              "rebuilt from the kept record with the same outcome: " + p.stderr.strip()[-300:])
    # stdin: /dev/null, not the runner's stdin (here a pipe nobody writes to: reading it blocks)
    rfd, wfd = os.pipe()
    try:
        e = dict(os.environ, OMP_WAIT_POLICY="passive")
        out = os.path.join(args.work, "stdin.h5")
        q = subprocess.run([args.scal, "run", "-c", "1", "-i", "stdin", "-o", out, "--", args.prog, "{input}"], stdin=rfd,
                           capture_output=True, text=True, env=e, cwd=args.work, timeout=120)
    except subprocess.TimeoutExpired:
        fail("a program reading stdin blocked scal run")
    finally:
        os.close(wfd)
        os.close(rfd)
    check(q.returncode == 0 and "stdin: eof" in Campaign(out).s(Campaign(out).runs[0]["stdout_tail"]), "the program's stdin is /dev/null")
    feed = os.path.join(args.work, "feed.txt")
    with open(feed, "w") as f:
        f.write("hello\n")
    out = os.path.join(args.work, "stdin2.h5")
    scal(args, "run", "-c", "1", "-i", "stdin", "--stdin", feed, "-o", out, "--", args.prog, "{input}")
    check("stdin: hello" in Campaign(out).s(Campaign(out).runs[0]["stdout_tail"]), "--stdin FILE feeds the program")
    # --resume runs the stored inputs (values, not the inputs file's name) and nothing else
    inputs = os.path.join(args.work, "inputs.txt")
    with open(inputs, "w") as f:
        f.write("a\t10\nf\tfail\nc\t10\n")
    out = os.path.join(args.work, "inputs.h5")
    scal(args, "run", "-c", "1", "--inputs-file", inputs, "--fail-fast", "-o", out, "--", args.prog, "{input}", expect=1)
    check(len(Campaign(out).runs) == 2, "--fail-fast left one run to do")
    with open(inputs, "w") as f:
        f.write("c\t20\nz\t10\na\t10\nf\tfail\n")
    p = scal(args, "run", "--resume", out, expect=0)
    c = Campaign(out)
    labels = sorted(c.s(c.configs[r["config"]]["input_label"]) for r in c.runs)
    check(len(c.configs) == 3 and labels == ["a", "c", "f"], "resume ran the stored plan only: %d configs, %s" % (len(c.configs), labels))
    last = [r for r in c.runs if c.s(c.configs[r["config"]]["input_label"]) == "c"][0]
    check(c.s(c.configs[last["config"]]["argv"]).endswith(" 10"), "with the stored value: " + c.s(c.configs[last["config"]]["argv"]))
    stored = [x.decode() if isinstance(x, bytes) else x for x in c.f["campaign/runner_argv"][()]]
    check("--inputs-file" not in stored, "the inputs' values are stored, not the file's name: %s" % stored)
    # a program given relative to the current directory: --resume from elsewhere runs the same one
    shutil.copy(args.prog, os.path.join(args.work, "prog"))
    out = os.path.join(args.work, "relprog.h5")
    scal(args, "run", "-c", "1,2", "-i", "10", "-i", "fail", "--fail-fast", "-o", out, "--", "./prog", "{input}", expect=1)
    e = dict(os.environ, OMP_WAIT_POLICY="passive")
    q = subprocess.run([args.scal, "run", "--resume", out], capture_output=True, text=True, env=e, cwd="/", timeout=600)
    check(q.returncode == 1 and len(Campaign(out).runs) == 4, "resume from another directory completes the plan: " + q.stderr.strip()[-300:])
    # the thread list computed from the CPU count is stored written out
    out = os.path.join(args.work, "defthreads.h5")
    scal(args, "run", "-i", "1", "-o", out, "--", args.prog, "{input}")
    c = Campaign(out)
    stored = [x.decode() if isinstance(x, bytes) else x for x in c.f["campaign/runner_argv"][()]]
    threads = ",".join(str(int(x)) for x in c.f["campaign/threads"][()])
    check("-c" in stored and stored[stored.index("-c") + 1] == threads, "the default thread list is stored written out (%s): %s" % (threads, stored))
    # a program rebuilt between the start and --resume: refused with both identities, unless
    # --program-changed says it is meant
    rebuilt = os.path.join(args.work, "rebuilt")
    shutil.copy(args.prog, rebuilt)
    out = os.path.join(args.work, "rebuilt.h5")
    scal(args, "run", "-c", "1,2", "-i", "10", "-i", "fail", "--fail-fast", "-o", out, "--", rebuilt, "{input}", expect=1)
    c = Campaign(out)
    identity = c.f["campaign"].attrs["program_identity"]
    identity = identity.decode() if isinstance(identity, bytes) else identity
    check("bytes" in identity, "the program's identity is stored: " + identity)
    c.f.close()
    with open(rebuilt, "ab") as f:
        f.write(b"\0" * 16)  # a different binary at the same path
    p = scal(args, "run", "--resume", out, expect=2)
    check("changed since the campaign began" in p.stderr and identity in p.stderr and out in p.stderr,
          "resume refuses a rebuilt program, naming the file and both identities: " + p.stderr.strip()[-400:])
    check(len(Campaign(out).runs) == 2, "the refused resume recorded nothing")
    p = scal(args, "run", "--resume", out, "--program-changed", expect=1)
    check("changed since the campaign began" in p.stderr and len(Campaign(out).runs) == 4,
          "--program-changed resumes with the new binary and says so: " + p.stderr.strip()[-300:])
    p = scal(args, "run", "--program-changed", "-c", "1", "--", args.prog, "10", expect=2)
    check("only with --resume" in p.stderr, "--program-changed without --resume is refused: " + p.stderr.strip())
    # command lines are stored whole (they were cut at 8191 characters)
    out = os.path.join(args.work, "long.h5")
    scal(args, "run", "-c", "1", "-o", out, "--", args.prog, "10", "x" * 9000)
    argv = Campaign(out).s(Campaign(out).configs[0]["argv"])
    check(argv.endswith("x" * 9000), "the whole command line is stored (%d characters)" % len(argv))


def scenario_locked(args):
    """show, check and report on a campaign a running scal run is writing say it is locked (not
    "truncated or corrupt")."""
    fifo = os.path.join(args.work, "running.fifo")
    os.mkfifo(fifo)
    out = os.path.join(args.work, "busy.h5")
    e = dict(os.environ, OMP_WAIT_POLICY="passive")
    proc = subprocess.Popen([args.scal, "run", "-c", "1", "-i", "10", "-i", "wait " + fifo, "-o", out, "--", args.prog, "{input}"],
                            env=e, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=args.work)
    try:
        with open(fifo) as f:
            check(f.readline() == "running\n", "the second run is running")
        for cmd in (["show", out], ["check", out], ["report", out, "-o", os.path.join(args.work, "rep")]):
            p = scal(args, *cmd, expect=None)
            check(p.returncode != 0 and "is locked" in p.stdout + p.stderr and "corrupt" not in p.stdout + p.stderr,
                  "scal %s on a campaign being written: %s" % (cmd[0], (p.stdout + p.stderr).strip()[:300]))
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=120)
    check(proc.returncode == 130, "the campaign stopped on SIGINT")
    p = scal(args, "show", out, expect=0)


def scenario_exclusive(args):
    """Every file scal run, merge and import create: never through a planted symlink, never onto
    something that is not a regular file, created whole or not at all."""
    target = os.path.join(args.work, "victim")
    with open(target, "w") as f:
        f.write("precious\n")

    def untouched():
        with open(target) as f:
            check(f.read() == "precious\n", "the symlink's target is untouched")

    link = os.path.join(args.work, "link.h5")
    os.symlink(target, link)
    fifo = os.path.join(args.work, "fifo.h5")
    os.mkfifo(fifo)
    for out in (link, fifo, args.work):
        p = scal(args, "run", "-c", "1", "-i", "10", "-o", out, "--", args.prog, "{input}", expect=2)
        check("not a regular file" in p.stderr, "scal run -o %s refused: %s" % (os.path.basename(out), p.stderr.strip()))
    untouched()
    # a symlink planted where the runs' own files go
    out = os.path.join(args.work, "planted.h5")
    os.symlink(args.work, out + ".runs")
    p = scal(args, "run", "-c", "1", "-i", "10", "-o", out, "--", args.prog, "{input}", expect=2)
    check("not a private directory" in p.stderr, "a planted run directory is refused: " + p.stderr.strip())
    good = os.path.join(args.work, "good.h5")
    scal(args, "run", "-c", "1", "-i", "10", "-o", good, "--", args.prog, "{input}")
    check(stat_mode(good + ".runs") is None, "the run directory is removed when empty")
    leftovers = [n for n in os.listdir(args.work) if n.startswith(".")]
    check(leftovers == [], "no temporary files left: %s" % leftovers)
    # merge: not over a symlink, a fifo or an existing file
    for out in (link, fifo):
        p = scal(args, "merge", good, "-o", out, expect=None)
        check(p.returncode != 0 and ("not a regular file" in p.stderr or "exists" in p.stderr), "merge -o %s refused: %s" % (os.path.basename(out), p.stderr.strip()))
    untouched()
    # import: an existing file only with --force, never a symlink or a fifo
    js = os.path.join(args.work, "pascal.json")
    with open(js, "w") as f:
        f.write('[{"region": "1, 2", "filename": "a.c", "executions": [[{"argument": "a", "runs": [{"threads": 1, "time": 1.0}]}]]}]')
    for out in (link, fifo):
        p = scal(args, "import", js, "-o", out, "--force", expect=None)
        check(p.returncode != 0 and "not a regular file" in p.stderr, "import -o %s refused: %s" % (os.path.basename(out), p.stderr.strip()))
    untouched()
    mtime = os.stat(good).st_mtime_ns
    size = os.path.getsize(good)
    p = scal(args, "import", js, "-o", good, expect=None)
    check(p.returncode != 0 and "--force" in p.stderr, "import over an existing file refused: " + p.stderr.strip())
    check(os.stat(good).st_mtime_ns == mtime and os.path.getsize(good) == size, "the existing file is untouched")
    scal(args, "import", js, "-o", good, "--force")
    check(Campaign(good).f.attrs["scal_format"] in ("scal-campaign", b"scal-campaign") and len(Campaign(good).runs) == 1, "--force replaces it")
    leftovers = [n for n in os.listdir(args.work) if n.startswith(".")]
    check(leftovers == [], "no temporary files left: %s" % leftovers)


def scenario_plugins(args):
    """Plugins load only from the install's plugin directory and SCAL_PLUGIN_PATH, never from next
    to the measured program, and never from a file others can change."""
    libdir = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(args.scal))), "lib", "scal", "plugins")
    rusage = os.path.join(libdir, "libscal_rusage.so")
    check(os.path.exists(rusage), "the built rusage plugin: " + rusage)
    # a program in a directory anyone may write to, with a planted plugin beside it
    bindir = os.path.join(args.work, "bin")
    os.makedirs(os.path.join(bindir, "scal", "plugins"))
    prog = os.path.join(bindir, "prog")
    shutil.copy(args.prog, prog)
    shutil.copy(rusage, os.path.join(bindir, "scal", "plugins", "libscal_planted.so"))
    out = os.path.join(args.work, "planted.h5")
    p = scal(args, "run", "-c", "1", "-i", "10", "-s", "planted", "-o", out, "--", prog, "{input}", expect=2)
    check("no plugin 'planted'" in p.stderr and not os.path.exists(out), "a plugin beside the program is not found (a usage error, nothing created): " + p.stderr.strip()[-300:])
    # a plugin file others can write to is refused, also through SCAL_PLUGIN_PATH
    shared = os.path.join(args.work, "shared")
    os.mkdir(shared)
    loose = os.path.join(shared, "libscal_loose.so")
    shutil.copy(rusage, loose)
    os.chmod(loose, 0o666)
    p = scal(args, "plugins", loose, expect=None)
    check(p.returncode == 2 and "SCAL_PLUGIN_PATH" in p.stderr and p.stdout == "", "scal plugins refuses a path (a usage error): " + (p.stdout + p.stderr).strip()[:300])
    p = scal(args, "plugins", "loose", expect=None, env={"SCAL_PLUGIN_PATH": shared})
    check(p.returncode != 0 and "writable by group or others" in (p.stdout + p.stderr), "and through SCAL_PLUGIN_PATH")
    os.chmod(loose, 0o644)
    p = scal(args, "plugins", "loose", expect=None, env={"SCAL_PLUGIN_PATH": shared})
    check("writable" not in (p.stdout + p.stderr) and "rusage" in p.stdout, "SCAL_PLUGIN_PATH is searched: " + (p.stdout + p.stderr).strip()[:300])


def stat_mode(path):
    try:
        return os.lstat(path).st_mode
    except FileNotFoundError:
        return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario")
    for a in ("--scal", "--prog", "--demo", "--source", "--gcc"):
        ap.add_argument(a, default="")
    args = ap.parse_args()
    args.work = tempfile.mkdtemp(prefix="scal-runner-%s-" % args.scenario)
    globals()["scenario_" + args.scenario](args)
    shutil.rmtree(args.work, ignore_errors=True)
    print("runner scenario %s passed" % args.scenario)


main()
