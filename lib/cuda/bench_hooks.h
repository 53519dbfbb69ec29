/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_CUDA_BENCH_HOOKS_H
#define INCLUDED_GPUINTERP_CUDA_BENCH_HOOKS_H

// Hooks of the CUDA resize engine for bench/ and tests/: the timing ones (and
// l2_fetch_granularity) are defined in bench/resize_lab.cu, with the resize variants that only
// the benchmarks run, and exist only where it is linked (the benchmarks, the kernel tests); the
// variant override is defined in the library (resize_variant.cc, every build). The other kernel
// families' timings are in bench/kernel_timing.h.

#include <gnuradio/gpuinterp/kernel/resize_2d.h>
#include <cstddef>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace gpu {

//! How the benchmark hook runs the transform.
enum class resize_bench_mode {
    fused = 0,    //!< one kernel: resize + normalise
    plain = 1,    //!< one kernel: resize only (identity transform)
    separate = 2, //!< resize kernel, then a separate element-wise normalise kernel
};

//! Benchmark hook: milliseconds per launch (CUDA events, median of `iters`) for n_frames
//! float32 frames resident on the device, bilinear/half_pixel/replicate unless `method`
//! says otherwise; normalisation mean 0.5, std 0.25 per channel in the fused and separate
//! modes. variant: a gpu::resize_variant (lib/cuda/resize_launch.h), -1 = automatic.
//! l2_fetch_bytes > 0: an experiment for gather-bound shapes — the context's
//! cudaLimitMaxL2FetchGranularity (a hint, 0..128 bytes) is set to it for the timed
//! launches and restored afterwards (a process-wide setting: benchmarks only).
double time_resize_kernel_ms(int device,
                             int in_h,
                             int in_w,
                             int out_h,
                             int out_w,
                             int channels,
                             kernel::resize_method method,
                             size_t n_frames,
                             resize_bench_mode mode,
                             bool half_output,
                             int iters,
                             int variant = -1,
                             int l2_fetch_bytes = 0);

//! Benchmark hook, what a 2x upscale's traffic can reach on this GPU: a gather-free expand
//! that reads n_frames float32 frames of in_h x in_w once and writes every pixel as a 2x2
//! block (no tables, no arithmetic). Milliseconds per launch, median of `iters`.
//! layout 0: one 16-byte store per thread, threads in output order (grid-stride);
//! 1: the rowcache variants' mapping (blocks of 64 x 4 threads, each 4 elements of 32 output
//!    rows walked in order, a new source row every other row);
//! 2: one 16-byte load per thread and two 16-byte stores on each of two output rows (a warp's
//!    store instruction then covers every other 16 bytes: half of each 32-byte sector).
//! Throws std::invalid_argument unless in_w % 4 == 0 and layout is 0..2.
double time_resize_expand_floor_ms(
    int device, int in_h, int in_w, size_t n_frames, int layout, int iters);

//! The context's current cudaLimitMaxL2FetchGranularity (bytes) on `device`.
int l2_fetch_granularity(int device);

//! Test hook: every CUDA resize engine launches kernel variant `variant` (a
//! gpu::resize_variant; -1 restores the automatic choice). A variant the shape cannot take
//! falls back to "tile"; a benchmark-only one throws std::invalid_argument at launch unless
//! bench/resize_lab.cu registered it (register_resize_lab_variants(), resize_lab.h). Throws std::invalid_argument ("variant: ...") for unknown values.
void set_resize_variant_override(int variant);
//! The variant of the most recent CUDA resize launch in this process (-1 before any).
int last_resize_variant();
// Used by the CUDA engine (defined in lib/cuda/resize_variant.cc, which every build compiles, so
// the tests link without CUDA).
int resize_variant_override();
void note_resize_variant(int variant);
} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
