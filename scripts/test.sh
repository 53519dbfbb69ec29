#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The whole test suite from a clean checkout: apt dependencies, build (CUDA sm_90 and PTX for sm_75
# when a toolkit is found, so CUDA code is compiled even where it cannot run), C++ kernel and flowgraph
# tests, Python QA (the numerical ones again on two more BLAS kernels),
# grcc of every example, the examples' own checks; then a build without CUDA and without GNU Radio
# to prove the kernel library stands alone. CUDA tests skip cleanly without a GPU. First of all,
# the C++ must match .clang-format and the Python pycodestyle (setup.cfg).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
# PyTorch is the independent reference of the neural kernels and trains the small models of the
# neural QA; the module itself never needs it at run time.
gpuinterp_apt_install clang-format pycodestyle python3-torch
bash scripts/check_format.sh
bash scripts/check_python.sh
jobs=$(nproc)
# Prefix /usr: what a package installs to (the package_deb test packs this tree).
# CUDA: machine code for sm_90 (the H200 the GPU tests run on) and PTX for sm_75, the oldest
# architecture of the default list (CMakeLists.txt): compiling the device code for compute_75 is what
# catches an intrinsic that newer architectures only have, at the cost of one more front-end pass
# instead of the seven architectures' full build.
cmake -S . -B build-test -DCMAKE_BUILD_TYPE=Release -DPYTHON_EXECUTABLE=/usr/bin/python3 -DCMAKE_INSTALL_PREFIX=/usr \
  -DCMAKE_CUDA_ARCHITECTURES="${GPUINTERP_CUDA_ARCHS:-75-virtual;90-real}" \
  -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache $(gpuinterp_cuda_args)
cmake --build build-test -j"$jobs"
(cd build-test && ctest --output-on-failure -j"$jobs")

# The numerical tests again on other BLAS kernels: OpenBLAS picks its kernels by CPU, and a threshold
# that holds on one CPU's kernel only is a defect the first run cannot see. Prescott (SSE3) and
# Sandybridge (AVX, no FMA) run on every x86-64 machine and sum in other orders than the
# Haswell/SkylakeX/Zen kernels most CPUs get (a noiseless fit's Gram-identity NMSE read -300 dB on
# Zen and -147 dB on Prescott on the same machine).
if [[ $(uname -m) == x86_64 ]]; then
  for core in Prescott Sandybridge; do
    echo "numerical tests with OPENBLAS_CORETYPE=$core"
    (cd build-test && OPENBLAS_CORETYPE=$core ctest --output-on-failure -j"$jobs" \
      -R '^(qa_kernels|py_qa_dpd|py_qa_dpd_gram|py_qa_dpd_capture|py_qa_dpd_model|py_qa_model_files|py_qa_dpd_estimate_cli|py_qa_arena|py_qa_dpd_fresh_data|py_qa_dpd_clipping)$')
  done
fi

cmake -S . -B build-nocuda -DENABLE_CUDA=OFF -DENABLE_GR=OFF -DENABLE_BENCHMARKS=OFF \
  -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
cmake --build build-nocuda -j"$jobs" --target qa_kernels
build-nocuda/tests/qa_kernels --gtest_brief=1
echo "all tests passed"
