# SPDX-License-Identifier: BSD-3-Clause
# Where a process's fixed cost under the tool goes: the same one-region program bare and under
# libscal_ompt.so in several configurations, every configuration once per round (the order reverses
# every round), and the medians of the per-round differences to the bare run (wall and CPU, the
# writer process's included, as in fixed_cost.py):
#   declined       SCAL_ENABLE=0: the library loaded, the runtime's tool start declined
#   snapshot only  SCAL_SNAPSHOT_ONLY=1: the measurement and the end's snapshot, no writer process
#   ... + cache    the same with a warm identity cache (no DWARF)
#   first run      the whole, SCAL_IDENTITY_CACHE="" (DWARF every run)
#   default        the whole with the default, warm identity cache
#   first run, KMP_BLOCKTIME=0   the whole where the runtime's idle threads sleep at once
#
#   fixed_cost_split.py --prog PROG --tool libscal_ompt.so [--rounds 31]
import argparse
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixed_cost import become_subreaper, extra, print_bare, rounds  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prog", required=True)
    ap.add_argument("--tool", required=True)
    ap.add_argument("--rounds", type=int, default=31)
    a = ap.parse_args()
    become_subreaper()
    work = tempfile.mkdtemp()
    try:
        cache = os.path.join(work, "cache")
        bare = dict(os.environ, OMP_NUM_THREADS="2")
        for k in ("OMP_TOOL_LIBRARIES", "SCAL_IDENTITY_CACHE"):
            bare.pop(k, None)
        out = os.path.join(work, "out")
        os.mkdir(out)
        tool = dict(bare, OMP_TOOL_LIBRARIES=os.path.abspath(a.tool), SCAL_OUTPUT=out + "/",
                    XDG_CACHE_HOME=cache)
        envs = [("bare", bare), ("declined", dict(tool, SCAL_ENABLE="0")),
                ("snapshot only", dict(tool, SCAL_SNAPSHOT_ONLY="1", SCAL_IDENTITY_CACHE="")),
                ("snapshot only + cache", dict(tool, SCAL_SNAPSHOT_ONLY="1")),
                ("first run", dict(tool, SCAL_IDENTITY_CACHE="")), ("default", tool),
                ("first run, KMP_BLOCKTIME=0", dict(tool, SCAL_IDENTITY_CACHE="", KMP_BLOCKTIME="0"))]
        rows = rounds(a.prog, envs, a.rounds, clean=out)
    finally:
        shutil.rmtree(work)

    print_bare(rows)
    for name, _ in envs[1:]:
        print("  %-28s +%.2f ms wall, +%.2f ms CPU" % ((name,) + extra(rows, name)))

if __name__ == "__main__":
    main()
