#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The whole test suite from a clean checkout: apt dependencies, build (CUDA sm_90 when a toolkit is
# found, so CUDA code is compiled even where it cannot run), C++ kernel and flowgraph tests, Python QA,
# grcc of every example, the examples' own checks; then a build without CUDA and without GNU Radio
# to prove the kernel library stands alone. CUDA tests skip cleanly without a GPU. First of all,
# lib/ and include/ must match .clang-format.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
gpuinterp_apt_install clang-format
bash scripts/check_format.sh
jobs=$(nproc)
# Prefix /usr: what a package installs to (the package_deb test packs this tree).
cmake -S . -B build-test -DCMAKE_BUILD_TYPE=Release -DPYTHON_EXECUTABLE=/usr/bin/python3 -DCMAKE_INSTALL_PREFIX=/usr \
  -DCMAKE_CUDA_ARCHITECTURES="${GPUINTERP_CUDA_ARCHS:-90}" \
  -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache $(gpuinterp_cuda_args)
cmake --build build-test -j"$jobs"
(cd build-test && ctest --output-on-failure -j"$jobs")

cmake -S . -B build-nocuda -DENABLE_CUDA=OFF -DENABLE_GR=OFF -DENABLE_BENCHMARKS=OFF \
  -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
cmake --build build-nocuda -j"$jobs" --target qa_kernels
build-nocuda/tests/qa_kernels --gtest_brief=1
echo "all tests passed"
