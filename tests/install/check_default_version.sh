#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# An offline install of the recipe's default version, the way `spack install scal` builds it (Spack
# itself is not installable here): the newest numbered version's pinned commit is fetched from the
# repository (git archive: a tree without .git, its commit stamped), configured with the recipe's
# cmake_args and default variants (gcc, llvm-openmp = Debian's /usr/lib/llvm-14, no clang to fall
# back on), built, installed, and the recipe's test methods (`spack test run scal`) pass against it:
# `scal --version` names the pinned commit, `scal exec` + `scal check` measure the demo.
#   check_default_version.sh SOURCE_DIR PYTHON released   a release cut by scripts/release.sh in a
#                                                         clone (the release path, end to end)
#   check_default_version.sh SOURCE_DIR PYTHON current    this repository's own default version
set -euo pipefail
src=$1 python=$2 mode=$3
fail() { echo "FAIL: $*"; exit 1; }
[ -e "$src/.git" ] || { echo "skip: $src is not a git checkout (a release tarball): nothing to release or fetch"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
repo=$src
if [ "$mode" = released ]; then
  git clone -q --no-hardlinks "$src" "$work/repo"
  repo=$work/repo
  git -C "$repo" config user.email test@example.invalid
  git -C "$repo" config user.name "release test"
  (cd "$repo" && bash scripts/release.sh 9.9.9 > /dev/null) || fail "release.sh failed"
fi
recipe=$repo/spack/package.py
read -r version commit < <("$python" "$src/tests/install/check_spack_package.py" "$recipe" --default-version)
[ -n "$commit" ] || fail "the recipe's default version $version has no commit"
echo "default version: $version at $commit"
mkdir "$work/stage"
git -C "$repo" archive "$commit" | tar -x -C "$work/stage"
header=$(dpkg -S omp-tools.h | head -1 | cut -d' ' -f2) # Debian: PREFIX/lib/clang/VERSION/include
openmp=${header%/lib/clang/*}
mapfile -t args < <("$python" "$src/tests/install/check_spack_package.py" "$recipe" --cmake-args "$openmp")
CC=gcc cmake -S "$work/stage" -B "$work/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSCAL_CLANG=/nonexistent/clang \
  "${args[@]}" > "$work/configure.log" 2>&1 || { tail -30 "$work/configure.log"; fail "configure failed"; }
cmake --build "$work/build" -j2 > "$work/build.log" 2>&1 || { tail -30 "$work/build.log"; fail "build failed"; }
cmake --install "$work/build" --prefix "$work/prefix" > /dev/null || fail "install failed"
out=$("$work/prefix/bin/scal" --version)
case "$out" in "scal $version ("*"commit $commit)") ;; *) fail "scal --version says '$out', not version $version at $commit" ;; esac
"$python" "$src/tests/install/check_spack_package.py" "$recipe" --prefix "$work/prefix" > "$work/methods.log" 2>&1 ||
  { grep -E "^(ok|FAIL)" "$work/methods.log"; fail "the recipe's test methods fail against the default version's install"; }
grep -E "^ok" "$work/methods.log"
echo "PASS: the default version $version ($commit) installs offline and passes spack test run's methods"
