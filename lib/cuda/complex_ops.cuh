/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_GPU_COMPLEX_OPS_CUH
#define INCLUDED_GPUINTERP_GPU_COMPLEX_OPS_CUH

// float2 is the device twin of std::complex<float> (same size and layout). These helpers give the
// kernels one spelling of multiply-accumulate for every (sample, tap) type pair.

#include <cuda_runtime.h>
#include <type_traits>
#include <complex>

namespace gr {
namespace gpuinterp {
namespace gpu {

template <typename H>
struct device_type {
    using type = H;
};
template <>
struct device_type<std::complex<float>> {
    using type = float2;
};
template <typename H>
using device_t = typename device_type<H>::type;
//! The host type of a device sample type (float2: std::complex<float>).
template <typename D>
using host_t = std::conditional_t<std::is_same_v<D, float2>, std::complex<float>, D>;

template <typename T>
__host__ __device__ inline T zero();
template <>
__host__ __device__ inline float zero<float>()
{
    return 0.f;
}
template <>
__host__ __device__ inline float2 zero<float2>()
{
    return make_float2(0.f, 0.f);
}

// acc += h * x
__device__ inline void mac(float& acc, float h, float x) { acc = fmaf(h, x, acc); }
__device__ inline void mac(float2& acc, float h, float2 x)
{
    acc.x = fmaf(h, x.x, acc.x);
    acc.y = fmaf(h, x.y, acc.y);
}
__device__ inline void mac(float2& acc, float2 h, float2 x)
{
    acc.x = fmaf(h.x, x.x, acc.x);
    acc.x = fmaf(-h.y, x.y, acc.x);
    acc.y = fmaf(h.x, x.y, acc.y);
    acc.y = fmaf(h.y, x.x, acc.y);
}

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
