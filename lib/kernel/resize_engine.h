/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_KERNEL_RESIZE_ENGINE_H
#define INCLUDED_GPUINTERP_KERNEL_RESIZE_ENGINE_H

// Internal: what a backend implements for resize_2d. The front end validates parameters
// and builds the per-axis tables; engines only sample with them.

#include <gnuradio/gpuinterp/kernel/resize_2d.h>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace gr {
namespace gpuinterp {
namespace kernel {

struct resize_geometry {
    int in_h = 0, in_w = 0, out_h = 0, out_w = 0, channels = 1;
};

template <typename T>
class resize_engine
{
public:
    virtual ~resize_engine() = default;
    virtual void set_tables(const resize_geometry& g,
                            const resize_axis_table& ytab,
                            const resize_axis_table& xtab,
                            float border_value) = 0;
    virtual void set_transform(const resize_transform& tf) = 0;
    //! out: float* or uint16_t* (binary16) per `half`.
    virtual void run(void* out, bool half, const T* in, size_t n_frames) = 0;
    //! Pointers in the backend's own memory (GNU Radio device buffers); the CPU's is the host's.
    virtual void run_device(void* out, bool half, const T* in, size_t n_frames) { run(out, half, in, n_frames); }
    virtual void set_batch(size_t) {}
};

template <typename T>
std::unique_ptr<resize_engine<T>> make_cpu_resize_engine();

//! IEEE binary16 from float, round to nearest even (overflow to infinity, NaN kept).
uint16_t float_to_half(float f);
float half_to_float(uint16_t h);

} // namespace kernel

namespace gpu {
// Defined in lib/cuda/resize_2d.cu (only in CUDA builds).
template <typename T>
std::unique_ptr<kernel::resize_engine<T>> make_cuda_resize_engine(int device,
                                                                  size_t batch);

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
double time_resize_expand_floor_ms(int device, int in_h, int in_w, size_t n_frames, int layout, int iters);

//! The context's current cudaLimitMaxL2FetchGranularity (bytes) on `device`.
int l2_fetch_granularity(int device);

//! Test hook: every CUDA resize engine launches kernel variant `variant` (a
//! gpu::resize_variant; -1 restores the automatic choice). A variant the shape cannot take
//! falls back to "tile". Throws std::invalid_argument ("variant: ...") for unknown values.
void set_resize_variant_override(int variant);
//! The variant of the most recent CUDA resize launch in this process (-1 before any).
int last_resize_variant();
// Used by the CUDA engine (defined in lib/kernel/resize_2d.cc, so they exist in every
// build and the tests link without CUDA).
int resize_variant_override();
void note_resize_variant(int variant);
} // namespace gpu

} // namespace gpuinterp
} // namespace gr

#endif
