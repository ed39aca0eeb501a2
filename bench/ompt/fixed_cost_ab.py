# SPDX-License-Identifier: BSD-3-Clause
# Two builds of libscal_ompt.so against each other and against the bare program, in the same
# minutes: each round runs the program bare, with tool A and with tool B (the order reverses every
# round), and the medians of the per-round differences are printed: extra wall and CPU time of A and
# of B over the bare run, and B - A. CPU time includes the writer processes' (the benchmark is a
# subreaper and reaps them), as in fixed_cost.py. On a shared machine the differences B - A, taken
# from runs seconds apart, are steadier than two separate fixed_cost.py figures.
#
#   fixed_cost_ab.py --prog PROG --tool-a OLD/libscal_ompt.so --tool-b NEW/libscal_ompt.so [--rounds 41] [--later]
import argparse
import os
import shutil
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixed_cost import become_subreaper, extra, print_bare, rounds  # noqa: E402  (whole processes, writers' CPU included)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prog", required=True)
    ap.add_argument("--tool-a", required=True)
    ap.add_argument("--tool-b", required=True)
    ap.add_argument("--rounds", type=int, default=41)
    ap.add_argument("--later", action="store_true",
                    help="also later runs: each build with an identity cache of its own, warmed up")
    a = ap.parse_args()
    become_subreaper()
    work = tempfile.mkdtemp()
    out = os.path.join(work, "out")
    os.mkdir(out)
    try:
        bare = dict(os.environ, OMP_NUM_THREADS="2")
        bare.pop("OMP_TOOL_LIBRARIES", None)
        bare.pop("SCAL_IDENTITY_CACHE", None)
        # SCAL_IDENTITY_CACHE empty: both builds resolve every run from DWARF (an older build has no
        # default cache, and a warm one would hide that work); --later adds the runs after the
        # first, each build's cache in an XDG_CACHE_HOME of its own
        envs = [("bare", bare)]
        for k, t in (("A", a.tool_a), ("B", a.tool_b)):
            tool = dict(bare, OMP_TOOL_LIBRARIES=os.path.abspath(t), SCAL_OUTPUT=out + "/",
                        XDG_CACHE_HOME=os.path.join(work, "cache-" + k))
            envs.append((k, dict(tool, SCAL_IDENTITY_CACHE="")))
            if a.later:
                envs.append((k + " later", tool))
        rows = rounds(a.prog, envs, a.rounds, clean=out)
    finally:
        shutil.rmtree(work)

    print_bare(rows)
    for name in ("A", "B") + (("A later", "B later") if a.later else ()):
        q = statistics.quantiles([r[name][1] - r["bare"][1] for r in rows], n=4)
        print("%s extra: wall %.2f ms, CPU %.2f ms (CPU quartiles %.2f / %.2f)" % ((name,) + extra(rows, name) + (q[0], q[2])))
    print("B - A: wall %.2f ms, CPU %.2f ms" % extra(rows, "B", "A"))
    if a.later:
        print("B - A, later runs: wall %.2f ms, CPU %.2f ms" % extra(rows, "B later", "A later"))


main()
