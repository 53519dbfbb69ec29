#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Debian 12 packages gr-gpuinterp needs to build, test and run its examples. Sourced by install.sh and test.sh.
GPUINTERP_DEBS=(
  build-essential cmake ccache pkg-config git
  gnuradio-dev libvolk2-dev pybind11-dev libboost-all-dev libfmt-dev libspdlog-dev libgmp-dev
  libgtest-dev libbenchmark-dev
  liblapacke-dev libopenblas-dev  # dpd_gram: BLAS zherk/zgemm and LAPACKE zheevd on the CPU
  libfftw3-dev  # dpd_capture: the delay search and frequency line on the CPU
  python3-numpy python3-scipy python3-matplotlib python3-opencv
  file xvfb xauth  # CPack's dpkg-shlibdeps step needs file; grc_layout draws flowgraphs under Xvfb
  gir1.2-gtk-3.0 python3-gi-cairo  # GRC's canvas (grc_layout, and gnuradio-companion itself)
)

gpuinterp_apt_install() {
  local sudo=""
  [[ $(id -u) -eq 0 ]] || sudo=sudo
  local missing=()
  for p in "${GPUINTERP_DEBS[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "installing: ${missing[*]}"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

# nvcc is not on Debian's PATH by default: use the CUDA toolkit in /usr/local/cuda when present.
gpuinterp_cuda_args() {
  if command -v nvcc >/dev/null 2>&1; then
    echo "-DCMAKE_CUDA_COMPILER=$(command -v nvcc)"
  elif [[ -x /usr/local/cuda/bin/nvcc ]]; then
    echo "-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc"
  fi
}
