# SPDX-License-Identifier: BSD-3-Clause
# The assertions every Python integration test prints: "ok: ..." per passing check, "FAIL: ..." and
# exit status 1 at the first failing one. Scripts import it after adding tests/ to sys.path.
import os
import sys


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)
    print("ok: " + msg)


# Checks that let a script go on after a failure (to report every problem of one run): each prints
# its line, and finish() ends the script with status 1 when any of them failed.
_failed = []


def expect(cond, msg):
    print(("ok: " if cond else "FAIL: ") + msg)
    if not cond:
        _failed.append(msg)
    return cond


def failures():
    return len(_failed)


def finish():
    if _failed:
        print("FAIL: %d check(s) failed" % len(_failed))
        sys.exit(1)


def reap_orphans():
    """Waits for every process re-parented to this one (a subreaper): run-file writers."""
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return
