#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Fails when a C++/CUDA file in lib/, include/, bench/, tests/ or the Python bindings differs from the
# repository's .clang-format (Debian 12's clang-format 14). Fix with: scripts/check_format.sh --fix
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files lib include bench tests python/gpuinterp/bindings | grep -E '\.(cc|h|cu|cuh)$')
if [[ ${1:-} == --fix ]]; then
  clang-format --style=file -i "${files[@]}"
  exit 0
fi
clang-format --style=file --dry-run -Werror "${files[@]}"
echo "clang-format: ${#files[@]} files in lib/, include/, bench/, tests/ and the bindings conform"
