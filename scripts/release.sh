#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Cuts release VERSION of scal from a clean checkout of main:
#   1. sets project(scal VERSION ...) in CMakeLists.txt (and the Python package's __version__) and
#      commits "release VERSION",
#   2. tags that commit vVERSION (annotated),
#   3. adds version("VERSION", tag="vVERSION", commit="<full hash>") to spack/package.py as the
#      newest numbered version (Spack's default) and commits that.
# The recipe cannot name the commit it is part of, so the release is the commit before it; the tag
# and the hash name the same tree. tests/install/check_spack_package.py fails when the recipe's
# newest version is not the one CMakeLists.txt declares. Push with: git push origin main vVERSION
#
#   bash scripts/release.sh VERSION [--dry-run]
set -euo pipefail
version=${1:-}
dry=${2:-}
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "usage: release.sh X.Y.Z [--dry-run]" >&2; exit 2; }
root=$(git rev-parse --show-toplevel)
cd "$root"
[ -z "$(git status --porcelain --untracked-files=no)" ] || { echo "release.sh: the tree has uncommitted changes" >&2; exit 1; }
git rev-parse -q --verify "refs/tags/v$version" > /dev/null && { echo "release.sh: tag v$version exists" >&2; exit 1; }
recipe=spack/package.py
grep -q "version(\"$version\"" "$recipe" && { echo "release.sh: $recipe has $version already" >&2; exit 1; }
run() { if [ "$dry" = --dry-run ]; then echo "+ $*"; else "$@"; fi; }

sed -i -E "s/^project\(scal VERSION [0-9]+\.[0-9]+\.[0-9]+/project(scal VERSION $version/" CMakeLists.txt
grep -q "^project(scal VERSION $version " CMakeLists.txt || { echo "release.sh: no project(scal VERSION ...) line" >&2; exit 1; }
# the Python package says the same version (tests/python: scal.__version__ = scal --version)
sed -i -E "s/^__version__ = \"[0-9]+\.[0-9]+\.[0-9]+\"/__version__ = \"$version\"/" python/scal/_version.py
grep -q "^__version__ = \"$version\"" python/scal/_version.py || { echo "release.sh: no __version__ line in python/scal/_version.py" >&2; exit 1; }
if [ "$dry" = --dry-run ]; then git diff; git checkout -- CMakeLists.txt python/scal/_version.py; exit 0; fi
git commit -q -m "release $version" CMakeLists.txt python/scal/_version.py
commit=$(git rev-parse HEAD)
git tag -a "v$version" -m "scal $version" "$commit"
# the new version goes first among the numbered ones (after develop)
python3 - "$recipe" "$version" "$commit" <<'PY'
import re, sys
path, version, commit = sys.argv[1:]
text = open(path).read()
m = re.search(r'^    version\("\d+\.\d+\.\d+"', text, re.M)
if not m:
    m = re.search(r'^    version\("develop".*\n', text, re.M)
    at = m.end()
else:
    at = m.start()
line = '    version("%s", tag="v%s", commit="%s")\n' % (version, version, commit)
open(path, "w").write(text[:at] + line + text[at:])
PY
git commit -q -m "spack: scal $version (tag v$version, commit $commit)" "$recipe"
echo "released $version: tag v$version at $commit; spack/package.py updated"
