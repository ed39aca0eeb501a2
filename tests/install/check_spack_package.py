# SPDX-License-Identifier: BSD-3-Clause
# Checks spack/package.py without Spack (not installable here): it must load against a stand-in of
# the spack.package names it uses, declare the expected variants and dependencies, and constrain no
# dependency above the versions Debian 12 ships (so they concretize as externals).
import re
import sys
import types

DEBIAN = {"hdf5": "1.10.8", "papi": "7.0.0", "llvm-openmp": "14.0.6", "elfutils": "0.188", "cairo": "1.16.0",
          "jansson": "2.14", "cmake": "3.25.1"}
recorded = {"versions": [], "variants": [], "depends": []}


class CMakePackage:
    pass


stub = types.ModuleType("spack.package")
stub.CMakePackage = CMakePackage
stub.version = lambda *a, **k: recorded["versions"].append((a, k))
stub.variant = lambda *a, **k: recorded["variants"].append((a, k))
stub.depends_on = lambda *a, **k: recorded["depends"].append((a, k))
stub.maintainers = lambda *a, **k: None
stub.license = lambda *a, **k: None
stub.join_path = lambda *a: "/".join(a)
sys.modules["spack"] = types.ModuleType("spack")
sys.modules["spack.package"] = stub

ns = {}
exec(compile(open(sys.argv[1]).read(), sys.argv[1], "exec"), ns)
failures = []
if "Scal" not in ns or not issubclass(ns["Scal"], CMakePackage):
    failures.append("no CMakePackage named Scal")
if not any(a[0] == "develop" and k.get("branch") == "main" for a, k in recorded["versions"]):
    failures.append("no version('develop', branch='main')")
variants = {a[0] for a, k in recorded["variants"]}
for v in ("papi", "cairo"):
    if v not in variants:
        failures.append("variant +%s missing" % v)


def vtuple(v):
    return tuple(int(x) for x in re.findall(r"\d+", v))


deps = {}
for a, k in recorded["depends"]:
    m = re.match(r"([a-z0-9-]+)(?:@([^~+ ]*))?", a[0])
    deps[m.group(1)] = m.group(2) or ""
for name in ("cmake", "hdf5", "elfutils", "llvm-openmp", "papi", "cairo", "jansson"):
    if name not in deps:
        failures.append("no dependency on %s" % name)
        continue
    rng = deps[name]
    if not rng:
        continue
    lo, _, hi = rng.partition(":")
    have = vtuple(DEBIAN[name])
    if lo and vtuple(lo) > have:
        failures.append("%s@%s excludes Debian's %s" % (name, rng, DEBIAN[name]))
    if hi and vtuple(hi) < have[: len(vtuple(hi))]:
        failures.append("%s@%s excludes Debian's %s" % (name, rng, DEBIAN[name]))
print("spack is not installable on this machine (no PyPI, not in Debian): checked package.py with a stand-in")
for f in failures:
    print("FAIL: " + f)
if not failures:
    print("PASS: package.py loads; develop version, variants and dependency bounds fit Debian 12's versions")
sys.exit(1 if failures else 0)
