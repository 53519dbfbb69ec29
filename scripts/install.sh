#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Install gr-gpuinterp and everything it needs on Debian 12 (as root or with sudo):
# apt packages, build (CUDA backend when a toolkit is found), install under /usr so Debian's
# /usr/bin/python3, GNU Radio Companion and CMake find it.
#   GPUINTERP_CUDA_ARCHS=90 bash scripts/install.sh   # CUDA architectures (default: this GPU, else the package list)
# Undo with: cmake --build build-install --target uninstall (or use the Debian packages: scripts/package-deb.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
gpuinterp_apt_install
sudo=""; [[ $(id -u) -eq 0 ]] || sudo=sudo
archs=${GPUINTERP_CUDA_ARCHS:-}
if [[ -z $archs ]] && nvidia-smi -L >/dev/null 2>&1; then archs=native; fi
cmake -S . -B build-install -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
  -DPYTHON_EXECUTABLE=/usr/bin/python3 -DENABLE_TESTING=OFF -DENABLE_BENCHMARKS=OFF \
  -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache \
  $(gpuinterp_cuda_args) ${archs:+-DCMAKE_CUDA_ARCHITECTURES=$archs}
cmake --build build-install -j"$(nproc)"
$sudo cmake --install build-install
$sudo ldconfig
/usr/bin/python3 -c "from gnuradio import gpuinterp; print('gr-gpuinterp installed; CUDA build:', gpuinterp.built_with_cuda(), '; CUDA devices:', gpuinterp.cuda_device_count())"
