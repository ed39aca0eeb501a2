# SPDX-License-Identifier: BSD-3-Clause
# Checks spack/package.py without Spack (not installable here): it must load against a stand-in of
# the spack.package names it uses, declare the expected variants and dependencies, and constrain no
# dependency above the versions Debian 12 ships (so they concretize as externals). Also the points
# an offline `spack install` with Debian externals found: the run environment names libomp, the
# recipe is a Spack repository where its header says, and it has a numbered version and a test.
import os
import re
import subprocess
import sys
import types

DEBIAN = {"hdf5": "1.10.8", "papi": "7.0.0", "llvm-openmp": "14.0.6", "elfutils": "0.188", "cairo": "1.16.0",
          "jansson": "2.14", "cmake": "3.25.1", "libpng": "1.6.39"}
recorded = {"versions": [], "variants": [], "depends": [], "requires": [], "conflicts": []}


class CMakePackage:
    pass


stub = types.ModuleType("spack.package")
stub.CMakePackage = CMakePackage
stub.version = lambda *a, **k: recorded["versions"].append((a, k))
stub.variant = lambda *a, **k: recorded["variants"].append((a, k))
stub.depends_on = lambda *a, **k: recorded["depends"].append((a, k))
stub.requires = lambda *a, **k: recorded["requires"].append((a, k))
stub.conflicts = lambda *a, **k: recorded["conflicts"].append((a, k))
stub.maintainers = lambda *a, **k: None
stub.license = lambda *a, **k: None
stub.join_path = lambda *a: "/".join(a)


class Executable:
    """Spack's Executable as the test methods use it: output=str/error=str capture, env= replaces
    the environment, a non-zero exit raises."""

    def __init__(self, path):
        self.path = path

    def __call__(self, *args, output=None, error=None, env=None, fail_on_error=True):
        p = subprocess.run([self.path] + [str(a) for a in args], env=env, text=True,
                           stdout=subprocess.PIPE if output is str else None,
                           stderr=subprocess.PIPE if error is str else None)
        if fail_on_error and p.returncode:
            raise RuntimeError("%s %s exited %d: %s" % (self.path, " ".join(map(str, args)), p.returncode,
                                                       p.stderr or ""))
        return (p.stdout or "") + (p.stderr or "") if output is str else None


stub.which = lambda path, **k: Executable(path) if os.access(path, os.X_OK) else None
stub.extends = lambda *a, **k: recorded["depends"].append(((a[0],), dict(k, type=("build", "run"))))
stub.python_purelib = "lib/python3.11/site-packages"
sys.modules["spack"] = types.ModuleType("spack")
sys.modules["spack.package"] = stub

recipe_path = sys.argv[1]
installed = sys.argv[sys.argv.index("--prefix") + 1] if "--prefix" in sys.argv else None
ns = {}
exec(compile(open(recipe_path).read(), recipe_path, "exec"), ns)
failures = []
if "Scal" not in ns or not issubclass(ns["Scal"], CMakePackage):
    failures.append("no CMakePackage named Scal")
if not any(a[0] == "develop" and k.get("branch") == "main" for a, k in recorded["versions"]):
    failures.append("no version('develop', branch='main')")
variants = {a[0] for a, k in recorded["variants"]}
for v in ("papi", "cairo", "python"):
    if v not in variants:
        failures.append("variant +%s missing" % v)


def vtuple(v):
    return tuple(int(x) for x in re.findall(r"\d+", v))


seen = set()
for a, k in recorded["depends"]:
    key = (a, tuple(sorted((n, str(v)) for n, v in k.items())))
    if key in seen:
        failures.append("depends_on%s declared twice" % (a,))
    seen.add(key)
deps = {}
for a, k in recorded["depends"]:
    m = re.match(r"([a-z0-9-]+)(?:@([^~+ ]*))?", a[0])
    deps[m.group(1)] = m.group(2) or ""
for name in ("cmake", "hdf5", "elfutils", "llvm-openmp", "papi", "cairo", "jansson", "libpng"):
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
deptypes = {}
for a, k in recorded["depends"]:
    deptypes[re.match(r"[a-z0-9-]+", a[0]).group(0)] = k.get("type", ("build", "link"))
omp_types = deptypes.get("llvm-openmp", ())
if set(omp_types) != {"build", "run"}:
    failures.append("llvm-openmp must be a build and run dependency (nothing links it), is %s" % (omp_types,))
if not any(re.match(r"cairo.*\+fc", a[0]) for a, k in recorded["depends"]):
    failures.append("cairo without +fc: the diagrams' text needs fontconfig")
if not any(a and a[0] == "platform=linux" for a, k in recorded["requires"]):
    failures.append("no requires('platform=linux')")
numbered = [(a, k) for a, k in recorded["versions"] if re.match(r"^\d+(\.\d+)+$", a[0])]
if not numbered:
    failures.append("no numbered version")
# a numbered version names a commit of this repository (a tag alone may be missing from a mirror)
repo = os.path.dirname(os.path.dirname(os.path.abspath(recipe_path)))
for a, k in numbered:
    sha = k.get("commit", "")
    if not re.match(r"^[0-9a-f]{40}$", sha):
        failures.append("version %s is not pinned to a full commit hash" % a[0])
    elif os.path.isdir(os.path.join(repo, ".git")) and subprocess.run(
            ["git", "-C", repo, "cat-file", "-e", sha + "^{commit}"], capture_output=True).returncode:
        failures.append("version %s names commit %s, which this repository does not have" % (a[0], sha))
# the default (newest numbered) version is the project's version, at a commit declaring it
cmakelists = os.path.join(repo, "CMakeLists.txt")
project_m = re.search(r"^project\(scal VERSION (\d+\.\d+\.\d+)", open(cmakelists).read(), re.M) if os.path.isfile(cmakelists) else None
if numbered and project_m:
    newest = max(numbered, key=lambda ak: vtuple(ak[0][0]))
    if newest[0][0] != project_m.group(1):
        failures.append("the default version %s is not the project's version %s (CMakeLists.txt): "
                        "scripts/release.sh adds the release to the recipe" % (newest[0][0], project_m.group(1)))
    if [a[0] for a, k in numbered][0] != newest[0][0]:
        failures.append("numbered versions are not listed newest first")
    sha, tag = newest[1].get("commit", ""), newest[1].get("tag")
    if os.path.isdir(os.path.join(repo, ".git")) and re.match(r"^[0-9a-f]{40}$", sha):
        then = subprocess.run(["git", "-C", repo, "show", sha + ":CMakeLists.txt"], capture_output=True, text=True).stdout
        if not re.search(r"^project\(scal VERSION %s[ )]" % re.escape(newest[0][0]), then, re.M):
            failures.append("commit %s of version %s does not declare that version" % (sha, newest[0][0]))
        if tag:
            t = subprocess.run(["git", "-C", repo, "rev-parse", "-q", "--verify", tag + "^{commit}"],
                               capture_output=True, text=True)
            if t.returncode == 0 and t.stdout.strip() != sha:
                failures.append("tag %s is %s, not the pinned commit %s" % (tag, t.stdout.strip(), sha))
for name in ("py-h5py", "py-numpy", "py-pandas"):
    if not any(a[0] == name and "run" in k.get("type", ()) and k.get("when") == "+python"
               for a, k in recorded["depends"]):
        failures.append("+python needs %s at run time" % name)
build_type = [k.get("default") for a, k in recorded["variants"] if a[0] == "build_type"]
if build_type != ["RelWithDebInfo"]:
    failures.append("build_type must default to RelWithDebInfo (regions are named from debug info)")
for name in ("python", "py-h5py", "py-numpy"):
    if "test" not in deptypes.get(name, ()):
        failures.append("the test suite's dependency %s is not declared" % name)
if not any(n.startswith("test_") and callable(getattr(ns.get("Scal"), n)) for n in dir(ns.get("Scal", object))):
    failures.append("no test_* method (stand-alone test of the installed tool)")


class Env:
    def __init__(self):
        self.vars = {}

    def set(self, k, v):
        self.vars[k] = v


class Prefix(str):
    def __getattr__(self, name):
        return Prefix(self + "/" + name)


class Spec:
    def __getitem__(self, name):
        return types.SimpleNamespace(prefix=Prefix("/opt/" + name))


def numbered_newest():
    nums = [(a, k) for a, k in recorded["versions"] if re.match(r"^\d+(\.\d+)+$", a[0])]
    return max(nums, key=lambda ak: vtuple(ak[0][0])) if nums else None


if "--default-version" in sys.argv:  # what `spack install scal` picks: the newest numbered version
    newest = numbered_newest()
    print(newest[0][0], newest[1].get("commit", ""))
    sys.exit(0)
if "--cmake-args" in sys.argv:
    openmp = sys.argv[sys.argv.index("--cmake-args") + 1]
    pkg = ns["Scal"].__new__(ns["Scal"])
    defaults = {a[0]: k.get("default") for a, k in recorded["variants"]}

    class ArgSpec:
        def __getitem__(self, name):
            return types.SimpleNamespace(prefix=openmp if name == "llvm-openmp" else "/usr",
                                         command=types.SimpleNamespace(path=sys.executable))

        def satisfies(self, s):
            return s.startswith("+") and defaults.get(s[1:]) is True

    pkg.spec = ArgSpec()
    pkg.define = lambda name, value: "-D%s=%s" % (name, "ON" if value is True else "OFF" if value is False else value)
    pkg.define_from_variant = lambda name, variant: "-D%s=%s" % (name, "ON" if defaults.get(variant) else "OFF")
    for a in pkg.cmake_args():
        print(a)
    sys.exit(0)
if "Scal" in ns:
    pkg = ns["Scal"].__new__(ns["Scal"])
    pkg.prefix = Prefix("/opt/scal")
    pkg.spec = Spec()
    env = Env()
    pkg.setup_run_environment(env)
    if not env.vars.get("SCAL_LIBOMP", "").startswith("/opt/llvm-openmp/lib/libomp.so"):
        failures.append("setup_run_environment does not set SCAL_LIBOMP to llvm-openmp's libomp")
    if env.vars.get("SCAL_OMPT_TOOL") != "/opt/scal/lib/libscal_ompt.so":
        failures.append("setup_run_environment does not set SCAL_OMPT_TOOL")
    # omp-tools.h is searched in the llvm-openmp prefix (both layouts), not only clang's directory
    pkg.define = lambda name, value: "-D%s=%s" % (name, value)
    pkg.define_from_variant = lambda name, variant: "-D%s=%s" % (name, variant)
    pkg.spec.satisfies = lambda s: False
    if "-DSCAL_OPENMP_ROOT=/opt/llvm-openmp" not in pkg.cmake_args():
        failures.append("cmake_args does not give the llvm-openmp prefix (SCAL_OPENMP_ROOT)")
    # what `spack test run scal` runs, against a real install
    if installed:
        import tempfile
        pkg.prefix = Prefix(installed)
        pkg.spec.version = types.SimpleNamespace(up_to=lambda n: project_m.group(1) if project_m else "")
        pkg.spec.satisfies = lambda s: False
        for name in sorted(n for n in dir(ns["Scal"]) if n.startswith("test_")):
            cwd = os.getcwd()
            os.chdir(tempfile.mkdtemp(prefix="scal-spack-test-"))
            try:
                getattr(pkg, name)()
                print("ok: %s passes against %s" % (name, installed))
            except Exception as e:  # noqa: BLE001  (any failure of the test method is reported)
                failures.append("%s fails against the install: %s" % (name, e))
            finally:
                os.chdir(cwd)
header = open(recipe_path).read()
m = re.search(r"spack repo add <scal source>/(\S+)", header)
repo = os.path.join(os.path.dirname(os.path.abspath(recipe_path)), "..", m.group(1)) if m else None
if not repo or not os.path.isfile(os.path.join(repo, "repo.yaml")) or not os.path.samefile(
        os.path.join(repo, "packages", "scal", "package.py"), recipe_path):
    failures.append("the header's 'spack repo add' folder is not a Spack repository holding this recipe")
print("spack is not installable on this machine (no PyPI, not in Debian): checked package.py with a stand-in")
for f in failures:
    print("FAIL: " + f)
if not failures:
    print("PASS: package.py loads; develop version, variants and dependency bounds fit Debian 12's versions")
sys.exit(1 if failures else 0)
