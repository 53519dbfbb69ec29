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

#include "cuda/resize_tuning.h"
#include "kernel/resize_engine.h"
#include <gnuradio/gpuinterp/kernel/resize_2d.h>
#include <initializer_list>
#include <cstddef>
#include <memory>
#include <utility>

struct CUstream_st; // cudaStream_t, without the CUDA headers

namespace gr {
namespace gpuinterp {
namespace gpu {

/*!
 * The build constants (resize_build_tuning, lib/cuda/resize_tuning.h) the lab compares with the
 * library's: each entry changes one group of resize_build, and bench/resize_lab.cu instantiates
 * the library's kernel templates with it for the variants that group concerns (float32 input and
 * output only), so one benchmark call measures the values the library was never compared with.
 * Entry 0 is the library's build.
 */
struct resize_lab_build {
    const char* name;
    //! The variants whose instances this entry changes (what it is measured and tested on).
    enum group_t {
        production,
        tile,
        vec,
        point,
        rowcache_nearest,
        rowcache_bicubic,
        staged
    } group;
    resize_build_tuning build;
};

using build_field = int resize_build_tuning::*;
//! resize_build with the given fields replaced (the entries below).
constexpr resize_build_tuning
build_with(std::initializer_list<std::pair<build_field, int>> fields)
{
    resize_build_tuning b = resize_build;
    for (const auto& f : fields)
        b.*(f.first) = f.second;
    return b;
}
using rb = resize_build_tuning;
constexpr resize_build_tuning tile_build(int threads, int elements)
{
    return build_with(
        { { &rb::tile_threads, threads }, { &rb::tile_elements, elements } });
}
//! The vec/rowcache block; `blocks_scale` multiplies the rowcache blocks per SM.
constexpr resize_build_tuning vec_build(int bx, int by, int blocks_scale = 1)
{
    return build_with({ { &rb::vec_bx, bx },
                        { &rb::vec_by, by },
                        { &rb::rowcache_blocks_nearest,
                          resize_build.rowcache_blocks_nearest * blocks_scale },
                        { &rb::rowcache_blocks_bilinear,
                          resize_build.rowcache_blocks_bilinear * blocks_scale },
                        { &rb::rowcache_blocks_other,
                          resize_build.rowcache_blocks_other * blocks_scale } });
}
constexpr resize_build_tuning point_build(int bx, int by)
{
    return build_with({ { &rb::point_bx, bx }, { &rb::point_by, by } });
}
//! Rowcache blocks per SM for nearest (`other` false) or for the other 4-tap methods.
constexpr resize_build_tuning rowcache_build(bool other, int blocks)
{
    return build_with(
        { { other ? &rb::rowcache_blocks_other : &rb::rowcache_blocks_nearest,
            blocks } });
}
constexpr resize_build_tuning staged_build(int stage_floats)
{
    return build_with({ { &rb::stage_floats, stage_floats } });
}

// The tile pairs keep the library's 256 elements per block or take 512, at 2-8 elements per
// thread. The vec blocks keep 256 threads (32x8, 128x2) or halve them (32x4); the rowcache
// instances of 32x4 keep the threads per SM their register budget is set for, so their blocks
// per SM double. Point blocks: 256 threads (16x16, 64x4) or 128 (32x4). Rowcache blocks per SM:
// nearest 6 (the float32 nearest walk needs 48 registers, below the caps of 2, 3 and 4 blocks,
// which therefore compile to the same code), bicubic 1 and 3 (128 registers at 2). The staged
// rectangle: half, and the largest that fits 48 KiB of static shared memory beside the kernel's
// 4 bounding-box words.
constexpr resize_lab_build resize_lab_builds[] = {
    { "production", resize_lab_build::production, resize_build },
    { "tile32x8", resize_lab_build::tile, tile_build(32, 8) },
    { "tile64x8", resize_lab_build::tile, tile_build(64, 8) },
    { "tile64x4", resize_lab_build::tile, tile_build(64, 4) },
    { "tile128x4", resize_lab_build::tile, tile_build(128, 4) },
    { "tile256x2", resize_lab_build::tile, tile_build(256, 2) },
    { "vec32x8", resize_lab_build::vec, vec_build(32, 8) },
    { "vec128x2", resize_lab_build::vec, vec_build(128, 2) },
    { "vec32x4", resize_lab_build::vec, vec_build(32, 4, 2) },
    { "point16x16", resize_lab_build::point, point_build(16, 16) },
    { "point64x4", resize_lab_build::point, point_build(64, 4) },
    { "point32x4", resize_lab_build::point, point_build(32, 4) },
    { "rowcache_nearest6", resize_lab_build::rowcache_nearest, rowcache_build(false, 6) },
    { "rowcache_bicubic1", resize_lab_build::rowcache_bicubic, rowcache_build(true, 1) },
    { "rowcache_bicubic3", resize_lab_build::rowcache_bicubic, rowcache_build(true, 3) },
    { "stage3072", resize_lab_build::staged, staged_build(3072) },
    { "stage12284", resize_lab_build::staged, staged_build(12284) },
};
constexpr int resize_lab_build_count =
    int(sizeof(resize_lab_builds) / sizeof(resize_lab_builds[0]));

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
    //! The build constants of the kernel instances the next launches plan for and run (default
    //! resize_build): where they differ from the library's in the fields of the variant that runs,
    //! an instance of resize_lab_builds (float32 input and output only). Launches throw
    //! std::invalid_argument ("build: ...") when there is none.
    virtual void set_build(const resize_build_tuning& b) = 0;
    //! The tuning row the next launches are planned with (default: the device's).
    virtual void set_tuning(const resize_tuning& t) = 0;
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
//! receives the variant that ran. build, tuning: the lab engine's set_build() and set_tuning()
//! (nullptr: the library's build, the device's row). l2_fetch_bytes > 0: an experiment for gather-bound shapes —
//! the context's cudaLimitMaxL2FetchGranularity (a hint, 0..128 bytes) is set to it for the
//! timed launches and restored afterwards (a process-wide setting: benchmarks only).
struct resize_timing_request {
    int in_h, in_w, out_h, out_w, channels;
    kernel::resize_method method;
    size_t n_frames;
    resize_bench_mode mode;
    bool half_output;
    int iters;
    int variant = -1;
    int l2_fetch_bytes = 0;
    const resize_build_tuning* build = nullptr;
    const resize_tuning* tuning = nullptr;
};
double
time_resize_kernel_ms(int device, const resize_timing_request& q, int* ran = nullptr);

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
