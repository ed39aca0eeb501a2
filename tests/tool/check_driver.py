# SPDX-License-Identifier: BSD-3-Clause
# The expectation driver (check_tool.py) fails when it should: a test without expectations, a
# region that is not in the file, a changed expectation, an unknown binding or test, a malformed
# line, and the disabled test when the tool never loads.
#
#   check_driver.py --tool LIB --prog LISTING4_EXECUTABLE --source listing4.c
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from scal_check import check  # noqa: E402  (tests/scal_check.py)


def driver(args, test, source_text, tool=None):
    """Runs check_tool.py on listing4's executable with source_text as its source."""
    src = os.path.join(args.work, "listing4-%d.c" % driver.n)
    driver.n += 1
    with open(src, "w") as f:
        f.write(source_text)
    p = subprocess.run([sys.executable, os.path.join(HERE, "check_tool.py"), test, "--source", src, "--prog", args.prog,
                        "--tool", tool or args.tool], capture_output=True, text=True)
    failed = [line for line in p.stdout.splitlines() if line.startswith("FAIL:")]
    return p.returncode, failed[0] if failed else ""


driver.n = 0


def main():
    ap = argparse.ArgumentParser()
    for a in ("--tool", "--prog", "--source"):
        ap.add_argument(a, required=True)
    args = ap.parse_args()
    tmp = tempfile.TemporaryDirectory(prefix="scal-tool-driver-")
    args.work = tmp.name
    real = open(args.source).read()

    rc, _ = driver(args, "listing4", real)
    check(rc == 0, "the unchanged listing4 expectations pass")

    def fails(what, test, text, phrase, tool=None):
        rc, line = driver(args, test, text, tool)
        check(rc == 1 and phrase in line, "%s: fails naming '%s' (%s)" % (what, phrase, line or "exit %d" % rc))

    def edited(old, new):
        check(old in real, "listing4.c holds '%s'" % old)
        return real.replace(old, new)

    fails("no expectations", "only_run", "// RUN[only_run]: %prog 10\n", "test only_run has expectations")
    fails("no RUN line", "nosuch", real, "no RUN[nosuch] line")
    fails("a region that does not exist", "listing4",
          edited("red: parallel @LINE+1", "red: parallel @LINE+2"), "(found 0)")
    fails("a changed count", "listing4",
          edited("red: loops=1 loop_iterations=20000", "red: loops=1 loop_iterations=20001"), "loop_iterations=20001")
    fails("a changed comparison", "listing4", edited("lock_total_s>0 team_actual_max=4", "lock_total_s<0 team_actual_max=4"),
          "lock_total_s<0")
    fails("an unknown binding", "listing4", real + "// CHECK[listing4] nosuch: count=1\n", "'nosuch' is neither")
    fails("a test without a RUN line in a scope", "listing4", real + "// CHECK[listing5] red: count=1\n",
          "test 'listing5' has no RUN line")
    fails("a malformed directive", "listing4", real + "// CHECK[listing4 red count=1\n", "malformed directive")
    fails("an unknown key", "listing4", real + "// CHECK[listing4] red: no_such_key=1\n", "no such field 'no_such_key'")
    fails("the disabled test when the tool never loads", "disabled", real, "Found but not using the OMPT interface",
          tool=os.path.join(args.work, "missing", "libscal_ompt.so"))
    print("PASS: the driver fails when it should")


if __name__ == "__main__":
    main()
