#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Build the Debian packages of gr-gpuinterp with CPack (the component split and the Depends are in
# cmake/Modules/GpuinterpPackaging.cmake):
#   libgnuradio-gpuinterp<ver>   the shared library (CUDA runtime linked statically)
#   gr-gpuinterp                 Python module, GRC blocks, apps, docs, examples
#   libgnuradio-gpuinterp-dev    headers, .so link, CMake package
# Usage: scripts/package-deb.sh [--no-build] [BUILD_DIR [OUT_DIR]]
#   BUILD_DIR (default build-deb) is configured for packaging when new: prefix /usr, no tests or
#   benchmarks, the CUDA architecture list for packages (GPUINTERP_CUDA_ARCHS overrides). An existing
#   BUILD_DIR is packed as configured; it must have CMAKE_INSTALL_PREFIX=/usr, since the Python
#   directory is chosen for the prefix at configure time. --no-build packs the tree as it is.
#   OUT_DIR defaults to BUILD_DIR/packages. Install with: sudo apt install ./OUT_DIR/*.deb
set -euo pipefail
build_first=1
if [[ ${1:-} == --no-build ]]; then build_first=0; shift; fi
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath -m "${1:-$src/build-deb}")
out=$(realpath -m "${2:-$build/packages}")
if [[ ! -f $build/CMakeCache.txt ]]; then
  source "$src/scripts/deps.sh"
  gpuinterp_apt_install
  cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
    -DPYTHON_EXECUTABLE=/usr/bin/python3 -DENABLE_TESTING=OFF -DENABLE_BENCHMARKS=OFF \
    -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache \
    "-DCMAKE_CUDA_ARCHITECTURES=${GPUINTERP_CUDA_ARCHS:-75-real;80-real;86-real;89-real;90-real;100-real;120}" \
    $(gpuinterp_cuda_args)
fi
if ! grep -qx "CMAKE_INSTALL_PREFIX:PATH=/usr" "$build/CMakeCache.txt"; then
  echo "package-deb.sh: $build is not configured with -DCMAKE_INSTALL_PREFIX=/usr" >&2
  exit 1
fi
if ((build_first)); then cmake --build "$build" -j"$(nproc)"; fi
mkdir -p "$out"
rm -f "$out"/*.deb
(cd "$out" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$out" >cpack.log 2>&1) \
  || { cat "$out/cpack.log"; exit 1; }
rm -rf "$out/_CPack_Packages"
for deb in "$out"/*.deb; do
  echo "$(basename "$deb") ($(du -k "$deb" | cut -f1) KiB)"
  dpkg-deb -f "$deb" Depends | sed 's/^/  Depends: /'
done
