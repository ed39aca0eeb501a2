#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The release path keeps Spack's default version current, and every build names its commit:
# in a clone of this repository, a version bump without the recipe fails the recipe check;
# scripts/release.sh tags the release, pins it in spack/package.py (newest first) and the check
# passes; `git archive` of the tag stamps the commit into cmake/version-stamp.txt, which
# cmake/scal_version.cmake reads when there is no .git (a release tarball).
#   check_release.sh SOURCE_DIR PYTHON
set -euo pipefail
src=$1 python=$2
fail() { echo "FAIL: $*"; exit 1; }
[ -e "$src/.git" ] || { echo "skip: $src is not a git checkout (a release tarball): nothing to release or fetch"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q --no-hardlinks "$src" "$work/repo"
cd "$work/repo"
git config user.email test@example.invalid
git config user.name "release test"
check() { "$python" tests/install/check_spack_package.py spack/package.py; }
check > "$work/before.log" || { cat "$work/before.log"; fail "the recipe check fails before a release"; }
# a version bump alone: the recipe's default version is no longer current
sed -i -E 's/^project\(scal VERSION [0-9.]+/project(scal VERSION 9.9.9/' CMakeLists.txt
if check > "$work/bump.log"; then fail "a version bump without the recipe passes the check"; fi
grep -q "default version .* is not the project's version 9.9.9" "$work/bump.log" || { cat "$work/bump.log"; fail "the failure does not say why"; }
git checkout -q -- CMakeLists.txt
bash scripts/release.sh 9.9.9 > "$work/release.log" || { cat "$work/release.log"; fail "release.sh failed"; }
check > "$work/after.log" || { cat "$work/after.log"; fail "the recipe check fails after release.sh"; }
tagged=$(git rev-parse 'v9.9.9^{commit}')
grep -q "version(\"9.9.9\", tag=\"v9.9.9\", commit=\"$tagged\")" spack/package.py || fail "the recipe does not pin v9.9.9 to $tagged"
first=$(grep -m1 -E '^    version\("[0-9]' spack/package.py)
case "$first" in *'"9.9.9"'*) ;; *) fail "9.9.9 is not the first numbered version: $first" ;; esac
[ "$(git describe --tags --match 'v[0-9]*')" = "v9.9.9-1-g$(git rev-parse --short=7 HEAD)" ] ||
  [ "$(git describe --tags --match 'v[0-9]*' | cut -d- -f1,2)" = "v9.9.9-1" ] || fail "git describe does not see the tag"
# a release tarball: no .git, the commit comes from the stamp
mkdir "$work/tarball"
git archive v9.9.9 | tar -x -C "$work/tarball"
grep -qx "commit $tagged" "$work/tarball/cmake/version-stamp.txt" || fail "git archive did not stamp the commit"
cat > "$work/stamp.cmake" <<C
include(\${SRC}/cmake/scal_version.cmake)
scal_version_stamp(\${SRC})
message("\${SCAL_VERSION_COMMIT} \${SCAL_VERSION_DESCRIBE}")
C
got=$(cmake -DSRC="$work/tarball" -P "$work/stamp.cmake" 2>&1)
[ "$got" = "$tagged v9.9.9" ] || fail "the tarball's build stamp is '$got', not '$tagged v9.9.9'"
got=$(cmake -DSRC="$work/repo" -P "$work/stamp.cmake" 2>&1)
[ "$got" = "$(git rev-parse HEAD) $(git describe --tags --always --dirty --match 'v[0-9]*')" ] || fail "the checkout's build stamp is '$got'"
# a copied tree (neither git nor a stamp) says so instead of inventing a commit
rm -rf "$work/copy" && mkdir "$work/copy" && cp -r cmake "$work/copy/"
got=$(cmake -DSRC="$work/copy" -P "$work/stamp.cmake" 2>&1)
[ "$got" = "unknown unknown" ] || fail "a tree without git or stamp gives '$got'"
echo "PASS: release.sh pins the tagged commit as the default version; builds name their commit"
