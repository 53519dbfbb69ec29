#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The within-3 % check of the production rows, like for like: two bundles of scripts/gpu_pack.sh
# (each with bench_kernels and bench_flowgraphs), built from the baseline tree and from the tree
# under test, run side by side on one GPU in one call, then compared by bench/ab_table.py.
#
#   bash bench/ab_rows.sh OLD_BUNDLE NEW_BUNDLE OUTDIR      # on the GPU host, e.g. .gpub .gpu $OUT
#
# Kernel rows: two rounds, interleaved (old, new, old, new); the table takes the faster of each.
# Flowgraph rows: three rounds, interleaved; the table takes the medians (a single flowgraph run
# spreads by up to ±12 % on a 16-core host). Only rows both trees have are compared, so the
# filters below name rows that exist since 2dd734f. About 6 minutes on an H100; AB_KERNEL_ROUNDS and
# AB_FLOWGRAPH_ROUNDS (default 2 and 3) trade that time for confidence.
# docs/gpu_testing.md has the whole recipe; docs/performance.md (2026-12-06 10:31) its first run.
set -euo pipefail
old=${1:?usage: bash bench/ab_rows.sh OLD_BUNDLE NEW_BUNDLE OUTDIR}
new=${2:?usage: bash bench/ab_rows.sh OLD_BUNDLE NEW_BUNDLE OUTDIR}
out=${3:?usage: bash bench/ab_rows.sh OLD_BUNDLE NEW_BUNDLE OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
kernels='BM_interp_cuda_kernel_ccf/|BM_dpd_cuda_kernel/.*variant:[04]/|BM_gmp_cuda_kernel/row:[0-3]/kernel:[01]/|BM_resize_cuda_kernel_f32/|BM_gmp_cuda_device/row:[0-3]|BM_dpd_bank_cuda_device|BM_interp_cuda_channels_ccf/channels:1/|BM_resamp_cuda_device'
flowgraphs='BM_fg_linerate|BM_fg_dpd/impl:[1-4]/|BM_fg_interp/impl:2/|BM_fg_chain/impl:[12]/|BM_fg_dpd_format/impl:0/'
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$out/gpu.txt"
t0=$(date +%s)
for r in $(seq "${AB_KERNEL_ROUNDS:-2}"); do
  for side in old new; do
    bundle=$old
    [[ $side == new ]] && bundle=$new
    timeout 120 bash "$bundle/run.sh" bench_kernels --benchmark_min_time=0.2 \
      --benchmark_filter="$kernels" >"$out/k_${side}_$r.txt" 2>&1
    echo "kernels, $side, round $r: $(($(date +%s) - t0)) s"
  done
done
for r in $(seq "${AB_FLOWGRAPH_ROUNDS:-3}"); do
  for side in old new; do
    bundle=$old
    [[ $side == new ]] && bundle=$new
    timeout 90 bash "$bundle/run.sh" bench_flowgraphs \
      --benchmark_filter="$flowgraphs" >"$out/f_${side}_$r.txt" 2>&1
    echo "flowgraphs, $side, round $r: $(($(date +%s) - t0)) s"
  done
done
python3 "$here/ab_table.py" "$out" | tee "$out/table.md"
