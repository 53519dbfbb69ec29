/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_BENCH_RESIZE_LAB_H
#define INCLUDED_GPUINTERP_BENCH_RESIZE_LAB_H

// The resize lab of bench_kernels and the kernel tests (CUDA builds): an engine that launches any
// resize kernel variant, including those `automatic` never picks (bench/resize_lab.cu), and the
// timing hooks of the resize benchmarks (bench/resize_timing.cu). The library itself only runs
// its own choice. Plain C++, so the tests include it without the CUDA headers.

#include "kernel/resize_engine.h"
#include <gnuradio/gpuinterp/kernel/resize_2d.h>
#include <cstddef>
#include <memory>

struct CUstream_st; // cudaStream_t, without the CUDA headers

namespace gr {
namespace gpuinterp {
namespace gpu {

/*!
 * A CUDA resize engine built from the library's parts (lib/cuda/resize_device.cuh) with a chosen
 * variant: the library's variants launch the library's own kernel instances, the others their
 * instances in bench/resize_lab.cu. run() stages synchronously through device buffers (no
 * pipeline) into an output first filled with NaN; launch() is device-resident.
 */
template <typename T>
class resize_lab_engine : public kernel::resize_engine<T>
{
public:
    //! A gpu::resize_variant (lib/cuda/resize_launch.h) as an int, -1 = automatic; a variant the
    //! shape cannot take falls back as the plan says. Throws std::invalid_argument ("variant:
    //! ...") for other values.
    virtual void set_variant(int variant) = 0;
    //! The variant of the most recent launch (-1 before any).
    virtual int last_variant() const = 0;
    //! d_in, d_out in device memory; d_out holds float or binary16 per `half`.
    virtual void
    launch(const T* d_in, void* d_out, bool half, size_t frames, CUstream_st* st) = 0;
    virtual CUstream_st* stream() const = 0;
    virtual int multiprocessors() const = 0;
};

template <typename T>
std::unique_ptr<resize_lab_engine<T>> make_resize_lab_engine(int device, size_t batch);

//! How the benchmark hook runs the transform.
enum class resize_bench_mode {
    fused = 0,    //!< one kernel: resize + normalise
    plain = 1,    //!< one kernel: resize only (identity transform)
    separate = 2, //!< resize kernel, then a separate element-wise normalise kernel
};

//! Benchmark hook: milliseconds per launch (CUDA events, median of `iters`) for n_frames
//! float32 frames resident on the device, bilinear/half_pixel/replicate unless `method`
//! says otherwise; normalisation mean 0.5, std 0.25 per channel in the fused and separate
//! modes. variant: a gpu::resize_variant (lib/cuda/resize_launch.h), -1 = automatic; `ran`
//! receives the variant that ran. l2_fetch_bytes > 0: an experiment for gather-bound shapes —
//! the context's cudaLimitMaxL2FetchGranularity (a hint, 0..128 bytes) is set to it for the
//! timed launches and restored afterwards (a process-wide setting: benchmarks only).
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
                             int l2_fetch_bytes = 0,
                             int* ran = nullptr);

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

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
