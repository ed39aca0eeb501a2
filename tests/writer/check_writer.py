# SPDX-License-Identifier: BSD-3-Clause
# The run file's writer outside the measured process: by default the run file is complete the
# moment the process has ended (raw loads, scal exec, exit() in a region, SIGTERM, a forked child),
# and no writer process stays behind; with SCAL_WRITER=detached a direct run ends before its run
# file is written (the writer, gated here by a fifo, proves it) and the file then appears complete;
# scal run waits for the run's whole process group and writes the run file from the snapshot
# itself; SIGKILL of the program and of the writer; damaged snapshots are refused naming the file;
# the snapshot goes to the writer in memory (no file), and to disk when that writer has died.
# Synchronised on fifos and process exits, never on sleeps.
#
#   check_writer.py SCENARIO --scal SCAL --tool libscal_ompt.so --writer-lib libscal_ompt_writer.so
#                   --run-writer scal-run-writer --prog writer_prog
import argparse
import ctypes
import glob
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

import h5py

PR_SET_CHILD_SUBREAPER = 36
IN_CREATE = 0x100
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from scal_check import expect as check, failures, finish, reap_orphans  # noqa: E402  (tests/scal_check.py)


def gated_tool(a, work):
    """A copy of the tool whose writer program waits for a byte on a fifo before doing its work."""
    lib = os.path.join(work, "lib")
    os.makedirs(os.path.join(lib, "scal"))
    shutil.copy(a.tool, lib)
    shutil.copy(a.writer_lib, lib)
    fifo = os.path.join(work, "gate")
    os.mkfifo(fifo)
    gate = os.path.join(lib, "scal", "scal-run-writer")
    with open(gate, "w") as f:
        f.write('#!/bin/sh\nread line < "%s"\nexec "%s" "$@"\n' % (fifo, os.path.abspath(a.run_writer)))
    os.chmod(gate, 0o755)
    return os.path.join(lib, os.path.basename(a.tool)), fifo


def proxy_tool(a, lib, serve, libraries=()):
    """A copy of the tool in lib/ whose writer process (--serve) is a Python proxy: `serve` runs
    with `prog`, the socket to the program, and `real`, the writer program. A writer started with a
    snapshot file is the real one. libraries: more files copied beside the tool."""
    os.makedirs(os.path.join(lib, "scal"))
    for f in (a.tool, a.writer_lib) + tuple(libraries):
        shutil.copy(f, lib)
    proxy = os.path.join(lib, "scal", "scal-run-writer")
    with open(proxy, "w") as f:
        f.write("""#!%s
import os, socket, subprocess, sys
real = %r
if sys.argv[1:] != ["--serve"]:
    os.execv(real, [real] + sys.argv[1:])
prog = socket.socket(fileno=0)
""" % (sys.executable, os.path.abspath(a.run_writer)) + serve)
    os.chmod(proxy, 0o755)
    return os.path.join(lib, os.path.basename(a.tool))


def silent_tool(a, work):
    """A copy of the tool whose writer process (--serve) writes the run file, then ends without a
    word: a proxy passes the program's requests (and their descriptors) on to the real writer,
    the answers to a resolution request back, and swallows the run file's "ok" verdict, as if the
    writer died right after putting the file in place."""
    return proxy_tool(a, os.path.join(work, "lib"), """mine, theirs = socket.socketpair()
w = subprocess.Popen([real, "--serve"], stdin=theirs)
theirs.close()
msg, fds, _, _ = socket.recv_fds(prog, 8192, 4)
while msg.startswith(b"resolve-fd"):  # regions to resolve first: answered as they are
    socket.send_fds(mine, [msg], fds)
    reply = b""
    while not reply.endswith(b"\\n"):
        got = mine.recv(8192)
        if not got:
            break
        reply += got
    prog.sendall(reply)
    msg, fds, _, _ = socket.recv_fds(prog, 8192, 4)
socket.send_fds(mine, [msg], fds)
answer = b""
while True:
    got = mine.recv(8192)
    if not got:
        break
    answer += got
w.wait()
if b"\\nok " not in b"\\n" + answer:
    prog.sendall(answer)
""")


def complete_run_file(a, path, what):
    ok = os.path.isfile(path)
    check(ok, "%s: the run file %s exists" % (what, path))
    if not ok:
        return None
    p = subprocess.run([a.scal, "check", path], capture_output=True, text=True)
    check(p.returncode == 0 and "ok" in p.stdout, "%s: scal check passes: %s" % (what, (p.stdout + p.stderr).strip()))
    with h5py.File(path, "r") as f:
        regions = f["regions"][()]
        meta = dict(f["meta"].attrs)
    check(len(regions) >= 3 and int(regions[1]["count"]) == 1, "%s: h5py reads the regions (%d rows)" % (what, len(regions)))
    return meta


def env_for(tool, out, **extra):
    env = dict(os.environ, OMP_NUM_THREADS="2", OMP_TOOL_LIBRARIES=tool, SCAL_OUTPUT=out)
    env.pop("SCAL_WAIT_WRITER", None)
    env.update(extra)
    return env


def snapshots(d):
    return glob.glob(os.path.join(d, ".*.snap.*")) + glob.glob(os.path.join(d, "*.snap"))


def processes(descendants_only=False):
    """(pid, cmdline) of the live processes (not zombies; descendants_only: this one's children and
    theirs); processes of other tests come and go meanwhile."""
    live, parent = {}, {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % pid) as f:
                stat = f.read()
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        parent[int(pid)] = int(fields[1])
        if fields[0] != "Z":
            live[int(pid)] = cmd
    for pid, cmd in live.items():
        up = pid
        while descendants_only and up in parent and up != os.getpid():
            up = parent[up]
        if not descendants_only or (up == os.getpid() and pid != up):
            yield pid, cmd


def writers_running():
    """Writer processes still alive below this subreaper: a program's (its child, which it cannot
    wait for) or an orphan's (re-parented here)."""
    return [pid for pid, cmd in processes(True) if cmd.split(b"\0")[0].endswith(b"/scal-run-writer")]


def start_paused(a, out, **extra):
    """The program, measured into out, once it waits for a signal."""
    p = subprocess.Popen([a.prog, "pause"], env=env_for(a.tool, out, **extra), stdout=subprocess.PIPE, text=True)
    check(p.stdout.readline().strip() == "ready", "the program is waiting")
    return p


def sigterm(p):
    p.send_signal(signal.SIGTERM)
    p.wait()
    check(p.returncode == -signal.SIGTERM, "SIGTERM ends the program as before (%d)" % p.returncode)


def scenario_complete(a, work):
    """Default (SCAL_WRITER=wait): the run file is there, complete, the moment the process has ended:
    20 raw loads in a row, scal exec, exit() inside a region, SIGTERM, a program that forks; the
    writer process ends with the run (none is left behind, also after SIGKILL)."""
    for k in range(20):
        out = os.path.join(work, "loop-%d.h5" % k)
        p = subprocess.run([a.prog], env=env_for(a.tool, out), stdout=subprocess.DEVNULL)
        check(p.returncode == 0, "run %d exits 0" % k)
        complete_run_file(a, out, "run %d, checked as soon as it ended" % k)  # before any reaping
        reap_orphans()
    out = os.path.join(work, "e.h5")
    p = subprocess.run([a.scal, "exec", "--tool", a.tool, "-o", out, "--", a.prog], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, env=env_for(a.tool, out))
    check(p.returncode == 0, "scal exec exits 0: %s" % p.stderr.strip())
    complete_run_file(a, out, "scal exec")
    out = os.path.join(work, "x.h5")
    p = subprocess.run([a.prog, "exit"], env=env_for(a.tool, out), stdout=subprocess.DEVNULL)
    check(p.returncode == 3, "exit(3) inside a region: exit status 3 (%d)" % p.returncode)
    meta = complete_run_file(a, out, "exit() in a region")
    check(meta is not None and "exit()" in str(meta.get("exit_reason")), "its exit reason says exit()")
    # the program closed the writer's socket and has a socket of its own under that number: the tool
    # sees that it is not its writer's (else it would talk to the program's socket and get no answer)
    out = os.path.join(work, "c.h5")
    p = subprocess.run([a.prog, "closefds"], env=env_for(a.tool, out), stdout=subprocess.DEVNULL)
    check(p.returncode == 0, "a program that closes every descriptor exits 0 (%d)" % p.returncode)
    complete_run_file(a, out, "descriptors closed and reused by the program")
    out = os.path.join(work, "t.h5")
    sigterm(start_paused(a, out))
    meta = complete_run_file(a, out, "SIGTERM")
    check(meta is not None and meta["exit_reason"] == "signal SIGTERM", "its exit reason is the signal")
    d = os.path.join(work, "fork")
    os.mkdir(d)
    p = subprocess.Popen([a.prog, "fork"], env=env_for(a.tool, d + "/"), stdout=subprocess.DEVNULL)
    p.wait()
    check(p.returncode == 0, "a program whose forked child runs a region exits 0 (%d)" % p.returncode)
    names = os.listdir(d)
    check(names == ["scal-%s-%d.h5" % (os.path.basename(a.prog), p.pid)],
          "fork: one run file, the parent's, complete at its end: %s" % names)
    for n in names:
        complete_run_file(a, os.path.join(d, n), "fork")
    out = os.path.join(work, "k.h5")
    p = start_paused(a, out)
    check(len(writers_running()) == 1, "its writer process waits beside it: %s" % writers_running())
    p.kill()
    p.wait()
    reap_orphans()  # returns once the writer, reading EOF, has ended
    check(not writers_running(), "SIGKILL: the writer ended with the program")
    check(not os.path.exists(out) and not snapshots(work), "SIGKILL: neither run file nor snapshot")
    # a forked child does not hold the writer's socket: killed, the program's writer ends at once
    # while the child still lives (it ends when its stdin does)
    p = subprocess.Popen([a.prog, "hold"], env=env_for(a.tool, out), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True)
    check(p.stdout.readline().strip() == "ready", "the program (with a forked child) is waiting")
    writers = writers_running()
    p.kill()
    p.wait()
    signal.alarm(60)  # a writer waiting for the child would wait for ever: fail sooner
    ended, _ = os.waitpid(-1, 0)  # an orphan: the writer (the child waits for its stdin)
    signal.alarm(240)
    check(writers == [ended], "SIGKILL with a forked child alive: the writer %s ended first (%d)" % (writers, ended))
    p.stdin.close()
    reap_orphans()


def scenario_direct(a, work):
    """SCAL_WRITER=detached: a direct run returns while its writer is still waiting; the file
    appears complete after."""
    tool, fifo = gated_tool(a, work)
    out = os.path.join(work, "r.h5")
    with open(os.path.join(work, "stderr"), "w") as err:
        p = subprocess.run([a.prog], env=env_for(tool, out, SCAL_WRITER="detached"), stdout=subprocess.DEVNULL,
                           stderr=err)
    check(p.returncode == 0, "the program exits 0 (%d)" % p.returncode)
    with open(fifo, "w") as f:  # the writer has started and waits at the gate
        check(not os.path.exists(out), "the program ended before its run file was written (the writer is gated)")
        snaps = snapshots(work)
        check(len(snaps) == 1, "its snapshot is beside the run file's place: %s" % snaps)
        f.write("go\n")
    reap_orphans()
    meta = complete_run_file(a, out, "direct run")
    check(not snapshots(work), "the snapshot is removed once the run file is in place")
    # the default name carries the measured process's pid, not the writer's
    d = os.path.join(work, "dir")
    os.mkdir(d)
    q = subprocess.Popen([a.prog], env=env_for(a.tool, d + "/"), stdout=subprocess.DEVNULL)
    q.wait()
    reap_orphans()
    names = os.listdir(d)
    check(names == ["scal-%s-%d.h5" % (os.path.basename(a.prog), q.pid)],
          "SCAL_OUTPUT=dir/: the file is named after the measured process %d: %s" % (q.pid, names))
    if names == ["scal-%s-%d.h5" % (os.path.basename(a.prog), q.pid)]:
        meta = complete_run_file(a, os.path.join(d, names[0]), "dir/ run")
        check(meta is not None and int(meta["pid"]) == q.pid, "/meta/pid is the measured process's")
        if meta is not None:  # the date made without gmtime_r (common/utc_date.c) is its start's
            as_str = lambda v: v.decode() if isinstance(v, bytes) else str(v)
            want = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(float(meta["start_unix"]))))
            check(as_str(meta["date_utc"]) == want,
                  "/meta/date_utc %s is the UTC date of start_unix (%s)" % (as_str(meta["date_utc"]), want))
    # SCAL_WAIT_WRITER=1: the program itself waits
    out2 = os.path.join(work, "w.h5")
    subprocess.run([a.prog], env=env_for(a.tool, out2, SCAL_WAIT_WRITER="1"), stdout=subprocess.DEVNULL, check=True)
    check(os.path.isfile(out2), "SCAL_WAIT_WRITER=1: the run file is there when the program has ended")


def scenario_exec(a, work):
    """scal exec names the run file only once the writer has written it."""
    tool, fifo = gated_tool(a, work)
    out = os.path.join(work, "e.h5")
    p = subprocess.Popen([a.scal, "exec", "--tool", tool, "-o", out, "--", a.prog], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    with open(fifo, "w") as f:  # the writer is waiting for the gate
        check(p.poll() is None, "scal exec is still running while the writer waits")
        check(not os.path.exists(out), "and the run file is not there yet")
        f.write("go\n")
    err = p.communicate()[1]
    check(p.returncode == 0, "scal exec exits 0 (%d): %s" % (p.returncode, err.strip()))
    check("run file: %s" % out in err, "scal exec names the run file: %s" % err.strip())
    complete_run_file(a, out, "scal exec")


def scenario_run(a, work):
    """scal run waits for everything of a run's process group before the next run, and writes the run
    file from the snapshot itself."""
    gate, done, log = os.path.join(work, "gate"), os.path.join(work, "done"), os.path.join(work, "log")
    os.mkfifo(gate)
    os.mkfifo(done)
    out = os.path.join(work, "c.h5")
    p = subprocess.Popen([a.scal, "run", "-q", "-c", "2", "-r", "2", "-o", out, "--", a.prog, "linger", gate, done, log],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    for k in range(2):
        with open(gate, "w") as f:  # run k's lingering child is waiting
            with open(log) as l:
                lines = l.read().split()
            check(lines == ["start", "child-end"] * k + ["start"],
                  "run %d: the next run waits for the child the program left: %s" % (k + 1, lines))
            f.write("x")
        with open(done) as f:  # the child has logged its end and is leaving
            f.read()
    err = p.communicate()[1]
    check(p.returncode == 0, "scal run exits 0: %s" % err.strip()[-300:])
    with open(log) as l:
        check(l.read().split() == ["start", "child-end"] * 2, "both runs and both children, in order")
    runs = out + ".runs"
    check(not glob.glob(os.path.join(runs, "*.snap*")), "no snapshot is left in %s" % runs)
    for f in sorted(glob.glob(os.path.join(runs, "run-*.h5"))):
        complete_run_file(a, f, "scal run's " + os.path.basename(f))
    with h5py.File(out, "r") as f:
        status = [int(r["status"]) for r in f["runs"][()]]
        nreg = len(f["regions"])
    check(status == [0, 0] and nreg >= 3, "the campaign has both runs ok and their regions (%s, %d)" % (status, nreg))


def scenario_signals(a, work):
    """SIGTERM: the file is written; SIGKILL of the program: no file, no snapshot; SIGKILL of the
    (detached) writer: no run file, the snapshot is kept and scal-run-writer writes the file from
    it."""
    out = os.path.join(work, "t.h5")
    sigterm(start_paused(a, out, SCAL_WRITER="detached"))
    reap_orphans()
    meta = complete_run_file(a, out, "SIGTERM (detached writer)")
    check(meta is not None and meta["exit_reason"] == "signal SIGTERM", "its exit reason is the signal")

    out = os.path.join(work, "k.h5")
    p = start_paused(a, out, SCAL_WRITER="detached")
    p.kill()
    p.wait()
    reap_orphans()
    check(not os.path.exists(out) and not snapshots(work), "SIGKILL: neither run file nor snapshot")

    tool, fifo = gated_tool(a, os.path.join(work, "gated"))
    out = os.path.join(work, "g.h5")
    subprocess.run([a.prog], env=env_for(tool, out, SCAL_WRITER="detached"), stdout=subprocess.DEVNULL, check=True)
    # the gate's shell is the writer waiting: find it by the snapshot it was given (once it waits)
    fd = os.open(fifo, os.O_WRONLY)  # returns once the writer waits at the gate; it gets no byte
    snaps = snapshots(work)
    check(len(snaps) == 1, "one snapshot while the writer waits: %s" % snaps)
    writers = [pid for pid, cmd in processes() if snaps and snaps[0].encode() in cmd.split(b"\0")]
    check(len(writers) == 1, "the writer process is found: %s" % writers)
    for pid in writers:
        os.kill(pid, signal.SIGKILL)
    reap_orphans()
    os.close(fd)
    check(not os.path.exists(out), "SIGKILL of the writer: no run file (never a partial one)")
    check(snapshots(work) == snaps, "the snapshot is kept")
    w = subprocess.run([a.run_writer] + snaps, capture_output=True, text=True)
    check(w.returncode == 0, "scal-run-writer writes it by hand: %s" % w.stderr.strip())
    complete_run_file(a, out, "by hand")
    check(not snapshots(work), "and removes the snapshot")


def created_names(watch):
    """The names created in the directory watched by the inotify descriptor `watch` so far."""
    names = []
    while True:
        try:
            data = os.read(watch, 65536)
        except BlockingIOError:
            return names
        at = 0
        while at + 16 <= len(data):
            _, mask, _, size = struct.unpack_from("iIII", data, at)
            if mask & IN_CREATE:
                names.append(data[at + 16:at + 16 + size].rstrip(b"\0").decode())
            at += 16 + size


def scenario_in_memory(a, work):
    """The default hands the snapshot to the writer in memory: no snapshot file is ever made beside
    the run file (unless it is above 32 MiB). When the writer dies before it has written (SIGKILL while it waits at a gate), the
    program still has the snapshot: it saves it beside the run file and starts a writer of its own,
    and the run file is complete at its end, the snapshot removed. When the writer dies right after
    putting the run file in place (before its answer), the program writes no second one."""
    libc = ctypes.CDLL(None, use_errno=True)
    watch = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
    check(watch >= 0, "inotify is available")
    if watch < 0:
        return
    d = os.path.join(work, "watched")
    os.mkdir(d)
    check(libc.inotify_add_watch(watch, d.encode(), IN_CREATE) >= 0, "the output directory is watched")
    out = os.path.join(d, "m.h5")
    p = subprocess.run([a.prog], env=env_for(a.tool, out), stdout=subprocess.DEVNULL)
    check(p.returncode == 0, "the program exits 0 (%d)" % p.returncode)
    complete_run_file(a, out, "in memory")
    names = created_names(watch)
    check("m.h5" in names and not [n for n in names if ".snap" in n],
          "only the run file (and its temporary) was created, no snapshot: %s" % names)
    # a snapshot above 32 MiB (650,000 traced regions: ~36 MB) goes through a file, not memory
    out = os.path.join(d, "big.h5")
    p = subprocess.run([a.prog, "many", "650000"], env=env_for(a.tool, out, SCAL_TRACE="650000"),
                       stdout=subprocess.DEVNULL)
    check(p.returncode == 0, "the long trace's program exits 0 (%d)" % p.returncode)
    check(os.path.isfile(out) and subprocess.run([a.scal, "check", out], capture_output=True).returncode == 0,
          "its run file is complete")
    names = created_names(watch)
    check([n for n in names if n.startswith(".big.h5.snap.")] and not snapshots(d),
          "its snapshot went through a file beside the run file, removed since: %s" % names)

    tool, fifo = gated_tool(a, os.path.join(work, "gated"))
    out = os.path.join(d, "k.h5")
    p = subprocess.Popen([a.prog], env=env_for(tool, out), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True)
    fd = os.open(fifo, os.O_WRONLY)  # returns once the writer started with the tool waits at the gate
    gate = os.path.join(os.path.dirname(tool), "scal", "scal-run-writer").encode()
    writers = [pid for pid, cmd in processes(True) if gate in cmd.split(b"\0")]
    check(len(writers) == 1, "the writer started with the tool is found at the gate: %s" % writers)
    for pid in writers:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)  # an orphan, re-parented here: gone, and the gate's reader with it
    os.close(fd)
    with open(fifo, "w") as f:  # the writer the program starts of its own waits at the gate
        snaps = snapshots(d)
        check(len(snaps) == 1, "the program saved its snapshot beside the run file: %s" % snaps)
        f.write("go\n")
    err = p.communicate()[1]
    check(p.returncode == 0, "the program exits 0 (%d): %s" % (p.returncode, err.strip()))
    complete_run_file(a, out, "writer killed, the snapshot saved and written")
    check(not snapshots(d), "the snapshot is removed once the run file is in place")
    reap_orphans()
    os.close(watch)

    # the writer puts the run file in place, then dies before its answer: the program must not
    # write a second run file (out.PID.h5, "written by another process of this run")
    tool = silent_tool(a, os.path.join(work, "silent"))
    d = os.path.join(work, "silent-out")
    os.mkdir(d)
    out = os.path.join(d, "w.h5")
    p = subprocess.run([a.prog], env=env_for(tool, out), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True)
    reap_orphans()
    check(p.returncode == 0, "writer silent after writing: the program exits 0 (%d)" % p.returncode)
    complete_run_file(a, out, "writer silent after writing")
    check(sorted(os.listdir(d)) == ["w.h5"] and "another process" not in p.stderr,
          "writer silent after writing: one run file, written once: %s %s" % (os.listdir(d), p.stderr.strip()))


def scenario_damaged(a, work):
    """Truncated, changed and foreign snapshots are refused with a message naming the file; nothing
    is written and the snapshot is kept."""
    out = os.path.join(work, "s.h5")
    subprocess.run([a.prog], env=env_for(a.tool, out, SCAL_SNAPSHOT_ONLY="1"), stdout=subprocess.DEVNULL, check=True)
    reap_orphans()
    snap = out + ".snap"
    check(os.path.isfile(snap) and not os.path.exists(out), "SCAL_SNAPSHOT_ONLY=1 leaves %s only" % snap)
    good = open(snap, "rb").read()
    cases = [("truncated", good[:len(good) // 2], "truncated"),
             ("header only", good[:20], "truncated"),
             ("changed", good[:-9] + bytes([good[-9] ^ 0x55]) + good[-8:], "checksum"),
             ("foreign", b"this is not a snapshot at all, just some text\n" * 4, "not a scal run snapshot"),
             ("empty", b"", "truncated")]
    for name, data, words in cases:
        path = os.path.join(work, "%s.h5.snap" % name.replace(" ", "_"))
        with open(path, "wb") as f:
            f.write(data)
        w = subprocess.run([a.run_writer, path], capture_output=True, text=True)
        check(w.returncode != 0 and path in w.stderr and words in w.stderr,
              "%s snapshot: refused naming the file (%s): %s" % (name, words, w.stderr.strip()))
        check(os.path.exists(path), "%s snapshot: kept" % name)
        check(not glob.glob(os.path.join(work, "*.h5")) and not glob.glob(os.path.join(work, ".s.h5.*")),
              "%s snapshot: no run file, no temporary left" % name)
    w = subprocess.run([a.run_writer, snap], capture_output=True, text=True)
    check(w.returncode == 0, "the intact snapshot converts: %s" % w.stderr.strip())
    complete_run_file(a, out, "intact snapshot")


def scenario_resolve(a, work):
    """The writer process resolves the regions the identity cache missed: the program loads no
    DWARF reader. When it cannot (it died on the request, or answers that it cannot), the program
    resolves them itself (libscal_ompt_resolve.so, beside the tool) and the run file is complete
    all the same, with the same identities."""
    def identities(path):
        with h5py.File(path, "r") as f:
            s = f["strings"].asstr()[:]
            return sorted((s[r["name"]], s[r["file"]], int(r["line_first"]), s[r["function"]])
                          for r in f["regions"][:])

    def run(tool, out, **extra):
        env = env_for(tool, out, SCAL_IDENTITY_CACHE="", LD_DEBUG="files", **extra)
        p = subprocess.run([a.prog], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        reap_orphans()
        check(p.returncode == 0, "%s: the program exits 0 (%d)" % (os.path.basename(out), p.returncode))
        return [line.split("file=", 1)[1].split()[0] for line in p.stderr.splitlines() if "file=" in line]

    out = os.path.join(work, "by_writer.h5")
    loaded = run(a.tool, out)
    complete_run_file(a, out, "resolved by the writer")
    want = identities(out) if os.path.isfile(out) else []
    check(any(r[1] and r[2] > 0 for r in want), "resolved by the writer: the regions have their lines (%s)" % want)
    resolver = [n for n in loaded if "libscal_ompt_resolve" in n or "libdw" in n]
    if a.writer_resolves == "1":
        check(not resolver, "resolved by the writer: the program loads neither the resolver nor libdw (%s)" % loaded)
    else:  # a writer built without libdw's static libraries (sanitizer builds): the program resolves
        check(resolver, "a writer without libdw: the program loads the resolver (%s)" % loaded)
    if a.writer_resolves == "1":  # SCAL_RESOLVE=0: named by module and offset, by the writer too
        out = os.path.join(work, "no_lines.h5")
        loaded = run(a.tool, out, SCAL_RESOLVE="0")
        complete_run_file(a, out, "SCAL_RESOLVE=0")
        check(not [n for n in loaded if "libscal_ompt_resolve" in n or "libdw" in n],
              "SCAL_RESOLVE=0: the program loads neither the resolver nor libdw (%s)" % loaded)
    for name, body in (("dies", "sys.exit(0)"), ("cannot", "prog.sendall(b\"error -10 cannot, for the test\\n\")")):
        # the writer started with the tool takes the resolution request and dies, or refuses it
        tool = proxy_tool(a, os.path.join(work, name, "lib"), """msg, fds, _, _ = socket.recv_fds(prog, 8192, 4)
if not msg.startswith(b"resolve-fd"):
    sys.exit(1)
%s
msg, fds, _, _ = socket.recv_fds(prog, 8192, 4)
""" % body, [os.path.join(os.path.dirname(a.writer_lib), "libscal_ompt_resolve.so")])
        out = os.path.join(work, name + ".h5")
        loaded = run(tool, out)
        complete_run_file(a, out, "writer %s on the request" % name)
        check(os.path.isfile(out) and identities(out) == want,
              "writer %s on the request: the program resolved the same identities" % name)
        check([n for n in loaded if "libscal_ompt_resolve" in n],
              "writer %s on the request: the program loaded the resolver" % name)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario")
    for opt in ("--scal", "--tool", "--writer-lib", "--run-writer", "--prog"):
        ap.add_argument(opt, required=True)
    ap.add_argument("--writer-resolves", default="1", help="1: scal-run-writer has libdw linked in")
    a = ap.parse_args()
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        print("skipped: cannot become a subreaper")
        sys.exit(77)
    signal.alarm(240)  # a writer that never comes would block on a fifo: fail instead
    with tempfile.TemporaryDirectory(prefix="scal-writer-") as work:
        globals()["scenario_" + a.scenario](a, work)
    finish()


main()
