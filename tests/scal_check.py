# SPDX-License-Identifier: BSD-3-Clause
# The assertions every Python integration test prints: "ok: ..." per passing check, "FAIL: ..." and
# exit status 1 at the first failing one. Scripts import it after adding tests/ to sys.path.
import sys


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)
    print("ok: " + msg)
