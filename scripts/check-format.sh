#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Fails when a tracked C file differs from what clang-format (the root .clang-format) makes of it.
set -euo pipefail
cd "$(dirname "$0")/.."
cf=$(command -v clang-format-14 || command -v clang-format || true)
[ -n "$cf" ] || { echo "check-format: clang-format not installed (scripts/install-deps.sh installs it)" >&2; exit 1; }
mapfile -t files < <(git ls-files '*.c' '*.h')
if "$cf" --dry-run --Werror "${files[@]}"; then
  echo "check-format: ${#files[@]} files formatted"
else
  echo "check-format: run '$cf -i' on the files above" >&2
  exit 1
fi
