#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs the Debian packages scal needs to build, run its demo and run its tests.
#
#   bash scripts/install-deps.sh                the build machine's packages (what CI needs)
#   bash scripts/install-deps.sh --aarch64 DIR  also the aarch64 cross stage's: qemu-user, a
#                                               Debian arm64 sysroot unpacked into DIR
set -euo pipefail
aarch64_sysroot=""
if [ "${1:-}" = "--aarch64" ]; then
  [ -n "${2:-}" ] || { echo "install-deps: --aarch64 needs a sysroot directory" >&2; exit 2; }
  aarch64_sysroot=$2
elif [ $# -gt 0 ]; then
  echo "install-deps: unknown option '$1' (use --aarch64 DIR)" >&2
  exit 2
fi
pkgs=(
  build-essential cmake pkg-config clang-14 clang-format-14 libomp-14-dev libomp-dev
  libhdf5-dev hdf5-tools libdw-dev libelf-dev zlib1g-dev liblzma-dev libbz2-dev libstdc++-12-dev
  libpapi-dev papi-tools
  libcairo2-dev libpng-dev libjansson-dev fonts-dejavu-core python3 python3-h5py python3-numpy
  python3-pandas libclang-rt-14-dev file time chromium strace
  slurm-wlm munge
  openmpi-bin libopenmpi-dev
)
# The aarch64 stage (scripts/test.sh --aarch64): clang cross-compiles (lld links), so do gcc and
# g++ for the gcc-built test programs; qemu-user runs them.
[ -n "$aarch64_sysroot" ] && pkgs+=(qemu-user-static lld-14 gcc-aarch64-linux-gnu g++-aarch64-linux-gnu)
# What the arm64 sysroot holds: the libraries scal links (their headers, and the whole run-time
# closure qemu loads), libomp, libc and the compiler's start files.
arm64_dev=(
  libc6-dev linux-libc-dev libcrypt-dev libgcc-12-dev libomp-14-dev libhdf5-dev libdw-dev
  libelf-dev libjansson-dev zlib1g-dev liblzma-dev libzstd-dev libbz2-dev libstdc++-12-dev
)
arm64_run=(libc6 libgcc-s1 libstdc++6 libgomp1 libomp5-14 libhdf5-103-1 libhdf5-hl-100 libdw1 libelf1 libjansson4 zlib1g)
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#pkgs[@]} packages already installed"
else
  echo "install-deps: installing ${missing[*]}"
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
[ -n "$aarch64_sysroot" ] || exit 0

# The arm64 packages are downloaded (not installed) and unpacked into the sysroot.
if [ -f "$aarch64_sysroot/.scal-sysroot" ]; then
  echo "install-deps: arm64 sysroot $aarch64_sysroot already unpacked"
  exit 0
fi
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  $SUDO dpkg --add-architecture arm64
  $SUDO apt-get update -qq
fi
closure=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
  --no-replaces --no-enhances "${arm64_run[@]/%/:arm64}" | grep -E '^[a-z0-9].*:arm64$' | sort -u)
debs=$(mktemp -d)
(cd "$debs" && apt-get download -q ${closure} "${arm64_dev[@]/%/:arm64}")
mkdir -p "$aarch64_sysroot"
for d in "$debs"/*.deb; do dpkg -x "$d" "$aarch64_sysroot"; done
rm -rf "$debs"
# Absolute symlinks (libz.so -> /lib/...) would leave the sysroot: point them inside it.
find "$aarch64_sysroot" -type l -lname '/*' | while read -r l; do
  ln -sfn "$(realpath -m --relative-to="$(dirname "$l")" "$aarch64_sysroot$(readlink "$l")")" "$l"
done
touch "$aarch64_sysroot/.scal-sysroot"
echo "install-deps: arm64 sysroot unpacked into $aarch64_sysroot"
