#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs the Debian packages scal needs to build, run its demo and run its tests.
set -euo pipefail
pkgs=(
  build-essential cmake pkg-config clang-14 clang-format-14 libomp-14-dev libomp-dev
  libhdf5-dev hdf5-tools libdw-dev libelf-dev zlib1g-dev libpapi-dev papi-tools
  libcairo2-dev libpng-dev libjansson-dev fonts-dejavu-core python3 python3-h5py python3-numpy
  python3-pandas libclang-rt-14-dev file time chromium
  slurm-wlm munge
)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#pkgs[@]} packages already installed"
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
