/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_GPU_RESIZE_LAB_H
#define INCLUDED_GPUINTERP_GPU_RESIZE_LAB_H

// The resize variants `automatic` never picks (vec4_r1/r2/r2_plain, strided, rowcache_r8/r16/w8,
// staged; docs/performance.md, "2D frame resize") are not in the library: their instances live in
// bench/resize_lab.cu, which the benchmarks and the kernel tests link and register here, so the
// engine still launches them through the variant override for comparison. Without a
// registration the engine refuses them. The library keeps tile, vec4_r4, rowcache_r32, point and
// point_f4 (resize_is_production() in resize_launch.h). Included by .cu files only.

#include "../kernel/resize_engine.h"
#include "resize_launch.h"
#include "resize_walk.h"
#include <cuda_runtime.h>
#include <cstddef>
#include <memory>

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

struct resize_lab_variants {
    //! Launch variant v with K taps per axis (1, 2, 4); in_u8: uint8_t input, half: binary16 output.
    void (*launch)(resize_variant v,
                   int K,
                   bool in_u8,
                   bool half,
                   const resize_launch_args& a) = nullptr;
};

//! Defined in resize_2d.cu.
void set_resize_lab_variants(const resize_lab_variants& v);

//! Defined in bench/resize_lab.cu: registers its kernels with set_resize_lab_variants(). The
//! timing hooks there register them themselves.
void register_resize_lab_variants();

/*!
 * The CUDA resize engine as the benchmarks drive it: device-resident launches on the engine's
 * stream with a chosen variant, no host pipeline. Defined in resize_2d.cu, so a benchmark times
 * the library's own kernel instances.
 */
template <typename T>
class resize_lab_engine : public kernel::resize_engine<T>
{
public:
    //! d_in, d_out in device memory; d_out holds float or binary16 per `half`.
    virtual void
    launch(const T* d_in, void* d_out, bool half, size_t frames, cudaStream_t st) = 0;
    virtual void set_variant(resize_variant v) = 0;
    //! The transform as the kernels receive it (after set_transform()).
    virtual const rz::dev_transform& device_transform() const = 0;
    virtual cudaStream_t stream0() const = 0;
    virtual int multiprocessors() const = 0;
};

std::unique_ptr<resize_lab_engine<float>> make_resize_lab_engine(int device,
                                                                 size_t batch);

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
