#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Bundle built test and benchmark executables with the shared libraries they load, so that they run
# on a GPU host that has the NVIDIA driver and a CUDA toolkit but no GNU Radio, VOLK or Boost.
#
#   bash scripts/gpu_pack.sh OUTDIR EXECUTABLE... [-- DATA_FILE_OR_DIR...]
#
# OUTDIR (an ignored folder of the checkout: .gpu/ is in .gitignore) gets
#   bin/    the executables,
#   lib/    every library they load except the ones the GPU host has itself (below), stripped,
#   data/   whatever follows --  (Python peers from bench/, test data),
#   run.sh  which runs one bundled program with lib/ on LD_LIBRARY_PATH and GPUINTERP_DATA=data/:
#
#   bash OUTDIR/run.sh PROGRAM [ARGS...]          # on the GPU host, e.g. bash .gpu/run.sh qa_kernels
#
# Left out on purpose: libc, libm, libstdc++, libgcc_s, the dynamic loader (the host's own, newer ones
# must win), the driver (libcuda, libnvidia-*), and the CUDA toolkit's libraries (cuBLAS, cuSOLVER, cuFFT,
# cuSPARSE, cuRAND, NVRTC, nvJitLink: hundreds of MB, on the GPU host's ldconfig path). Build with
# -DCMAKE_CUDA_ARCHITECTURES=90 (H100/H200) and a toolkit no newer than the host's.
#
# Size: the folder travels with the checkout, and a transfer is limited to 64 MiB in all. The
# script prints the bundle's size and warns above 48 MiB; then send one xz archive instead of the folder,
#   tar cJf gpu.tar.xz .gpu                      # here
#   tar xJf gpu.tar.xz && bash .gpu/run.sh ...   # first thing in the command on the GPU host
# and keep build trees out of what travels. docs/gpu_testing.md has the whole recipe.
set -euo pipefail
usage="usage: bash scripts/gpu_pack.sh OUTDIR EXECUTABLE... [-- DATA...]"
out=${1:?$usage}
shift
exes=()
data=()
while (($#)); do
  if [[ $1 == -- ]]; then
    shift
    data=("$@")
    break
  fi
  exes+=("$1")
  shift
done
((${#exes[@]})) || { echo "gpu_pack.sh: no executable given; $usage" >&2; exit 2; }
for exe in "${exes[@]}"; do
  [[ -f $exe && -x $exe ]] || { echo "gpu_pack.sh: $exe is not an executable" >&2; exit 2; }
done
# A previous bundle is replaced; any other non-empty folder is refused rather than emptied.
if [[ -d $out && -n $(ls -A "$out") && ! -f $out/run.sh ]]; then
  echo "gpu_pack.sh: $out exists and is not a bundle of this script; choose another OUTDIR" >&2
  exit 2
fi
rm -rf "$out/bin" "$out/lib" "$out/data" "$out/run.sh"
mkdir -p "$out/bin" "$out/lib" "$out/data"

skip='/(libc|libm|libpthread|libdl|librt|libutil|ld-linux-x86-64|libstdc\+\+|libgcc_s|libcuda|libnvidia-[a-z-]+|libcublas|libcublasLt|libcusolver|libcusolverMg|libcufft|libcufftw|libcusparse|libcurand|libnvrtc|libnvrtc-builtins|libnvJitLink)\.so'
for exe in "${exes[@]}"; do
  cp -L "$exe" "$out/bin/"
  ldd "$exe" | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | { grep -vE "$skip" || true; } |
    while read -r lib; do
      real=$(readlink -f "$lib")
      cp -L "$real" "$out/lib/$(basename "$real")"
      # Keep the SONAME the executable asks for as a link to the file.
      [[ $(basename "$lib") == $(basename "$real") ]] || ln -sf "$(basename "$real")" "$out/lib/$(basename "$lib")"
    done
done
for d in "${data[@]}"; do cp -rL "$d" "$out/data/"; done

cat >"$out/run.sh" <<'RUN'
#!/usr/bin/env bash
# Run a bundled program with the bundled libraries: bash run.sh PROGRAM [ARGS...]
# (written by scripts/gpu_pack.sh)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
prog=${1:?usage: run.sh PROGRAM [ARGS...]}
shift
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export GPUINTERP_DATA="$here/data"
exec "$here/bin/$prog" "$@"
RUN
chmod +x "$out/run.sh"
# Libraries only: the executables keep their symbols for compute-sanitizer's backtraces.
find "$out/lib" -type f -exec strip --strip-unneeded {} + 2>/dev/null || true

kib=$(du -sk "$out" | cut -f1)
echo "gpu_pack.sh: ${#exes[@]} executable(s), $(find "$out/lib" -type f | wc -l) libraries, $((kib / 1024)) MiB in $out"
if ((kib > 48 * 1024)); then
  echo "gpu_pack.sh: the bundle nears the 64 MiB transfer limit; send it as one archive:" \
    "tar cJf gpu.tar.xz $out (see this script's header)" >&2
fi
