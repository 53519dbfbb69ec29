/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_CUDA_RESIZE_DEVICE_CUH
#define INCLUDED_GPUINTERP_CUDA_RESIZE_DEVICE_CUH

// What a CUDA resize engine is made of besides the launch plan (resize_launch.h): the tables
// and the transform in the form the kernels take, the arguments every kernel variant takes, the
// launcher of the library's variants and the L2 fetch hint of the gather-bound ones. The
// library's engine (resize_2d.cu) is built from these parts, and so is the benchmarks' lab engine
// (bench/resize_lab.cu), which adds the variants `automatic` never picks: both upload the same
// tables and launch the library's kernel instances the same way. Only .cu files include it.

#include "../kernel/resize_engine.h"
#include "cuda_common.cuh"
#include "resize_launch.h"
#include "resize_walk.h"
#include <cuda_runtime.h>
#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace gr {
namespace gpuinterp {
namespace gpu {

//! One launch of a resize kernel: the arguments every variant takes, and the grid.
struct resize_launch_args {
    const void* in; //!< float or uint8_t frames
    void* out;      //!< float or binary16 frames
    const int* yidx;
    const float* yw;
    const int* xidx;
    const float* xw;
    rz::launch_shape s;
    rz::dev_transform tf;
    dim3 grid, block;
    cudaStream_t st;
};

//! The axis tables in device memory: per output row `ky` source rows and weights, per output
//! element (channels expanded) `kx` source offsets and weights, tap-major so a warp reads each
//! tap array contiguously.
//! What the resize plan reads of a device: its multiprocessors and compute capability (major * 10
//! + minor, the tuning row).
inline void query_resize_device(int device, int& sms, int& sm)
{
    device_guard guard(device);
    sms = device_attribute(cudaDevAttrMultiProcessorCount, device);
    sm = compute_capability(device);
}

class resize_device_tables
{
public:
    //! Synchronous uploads on the current device: nothing that reads the old tables may be in
    //! flight.
    void set(const kernel::resize_geometry& g,
             const kernel::resize_axis_table& ytab,
             const kernel::resize_axis_table& xtab,
             float border_value);

    const kernel::resize_geometry& geometry() const { return d_g; }
    int ky() const { return d_ky; }
    //! Elements of one input / output frame.
    size_t in_frame() const { return size_t(d_g.in_h) * d_g.in_w * d_g.channels; }
    size_t out_frame() const { return size_t(d_g.out_h) * d_g.out_w * d_g.channels; }

    //! The plan of a launch of `req` over `frames` frames into d_out (osz bytes per output
    //! element): 16-byte row stores where the rows allow them and d_out is aligned for them.
    resize_plan plan(resize_variant req,
                     const void* d_out,
                     size_t osz,
                     size_t frames,
                     int sms,
                     int sm) const
    {
        return plan(req, d_out, osz, frames, sms, resize_tuning_for(sm), resize_build);
    }
    //! The same with tuning row t, for kernel instances built with b (resize_plan_launch).
    resize_plan plan(resize_variant req,
                     const void* d_out,
                     size_t osz,
                     size_t frames,
                     int sms,
                     const resize_tuning& t,
                     const resize_build_tuning& b) const
    {
        const int RW = d_g.out_w * d_g.channels;
        // Device buffers are 256-byte aligned; with RW % 4 == 0 every row (and every
        // frame) then starts on a 16-byte (float) / 8-byte (binary16) boundary.
        const bool vec_ok =
            RW % 4 == 0 && reinterpret_cast<uintptr_t>(d_out) % (4 * osz) == 0;
        return resize_plan_launch(
            req, RW, d_g.out_h, frames, sms, vec_ok, d_kx, d_g.out_h >= d_g.in_h, t, b);
    }

    /*!
     * Runs plan p over `frames` frames in slices of p.frames_per_launch: `launch(args)` once per
     * slice, with the slice's pointers and grid. T: the input element; osz: bytes per output
     * element.
     */
    template <typename T, typename F>
    void for_each_launch(const resize_plan& p,
                         const rz::dev_transform& tf,
                         const T* d_in,
                         void* d_out,
                         size_t osz,
                         size_t frames,
                         cudaStream_t st,
                         F&& launch) const
    {
        rz::launch_shape s{};
        s.in_row = d_g.in_w * d_g.channels;
        s.in_h = d_g.in_h;
        s.RW = d_g.out_w * d_g.channels;
        s.out_h = d_g.out_h;
        s.C = d_g.channels;
        s.in_frame = (long long)d_g.in_h * s.in_row;
        s.out_frame = (long long)d_g.out_h * s.RW;
        s.border_value = d_bv;
        s.tiles_x = p.tiles_x;
        s.rows = p.rows;
        s.row_groups = p.row_groups;
        for (size_t f0 = 0; f0 < frames; f0 += p.frames_per_launch) {
            const size_t nf = std::min(p.frames_per_launch, frames - f0);
            s.frames = int(nf);
            const T* src = d_in + f0 * size_t(s.in_frame);
            void* dst = static_cast<char*>(d_out) + f0 * size_t(s.out_frame) * osz;
            const resize_grid g = resize_grid_for(p, nf);
            launch(resize_launch_args{ src,
                                       dst,
                                       d_yidx.get(),
                                       d_yw.get(),
                                       d_xidx.get(),
                                       d_xw.get(),
                                       s,
                                       tf,
                                       dim3(g.x, g.y, g.z),
                                       dim3(p.bx, p.by),
                                       st });
        }
    }

private:
    kernel::resize_geometry d_g;
    int d_ky = 1, d_kx = 1;
    float d_bv = 0;
    device_buffer<int> d_yidx, d_xidx;
    device_buffer<float> d_yw, d_xw;
};

//! The transform as the kernels take it.
rz::dev_transform resize_dev_transform(const kernel::resize_transform& tf);

//! The identity transform (what an engine holds before set_transform()).
constexpr rz::dev_transform resize_identity_transform{
    { 1, 1, 1, 1 }, { 0, 0, 0, 0 }, 1, 0, 1, 0, 1
};

//! One launch of a library variant (resize_is_production()) with K taps per axis (1, 2, 4);
//! in_u8: uint8_t input, half: binary16 output. Throws std::invalid_argument for the other
//! variants, which only the benchmarks' lab engine launches.
void launch_resize(
    resize_variant v, int K, bool in_u8, bool half, const resize_launch_args& a);

/*!
 * The context's L2 fetch granularity set to 32 bytes while at least one engine that runs
 * gather-bound launches (the point variants) is alive on a device, then restored. An engine
 * holds one of these and calls note() before each launch; GPUINTERP_RESIZE_L2_HINT=0 turns the
 * hint off.
 */
class resize_l2_hint
{
public:
    resize_l2_hint() = default;
    resize_l2_hint(const resize_l2_hint&) = delete;
    resize_l2_hint& operator=(const resize_l2_hint&) = delete;
    ~resize_l2_hint();
    //! Takes the hint on `device` when variant v is gather-bound (once per engine).
    void note(int device, resize_variant v);

private:
    int d_device = 0;
    bool d_held = false;
};

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
