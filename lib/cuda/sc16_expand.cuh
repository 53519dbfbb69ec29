/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_GPU_SC16_EXPAND_CUH
#define INCLUDED_GPUINTERP_GPU_SC16_EXPAND_CUH

// sc16 inputs already in device memory, expanded to complex float there, for an engine whose
// kernels and device history read complex float (the resampler: five methods, one of them
// through a float texture). The expansion is the same as every other sc16 input's
// (lib/common/sc16.h) and runs on the engine's stream ahead of its kernels; the samples cross the
// bus, and GNU Radio's buffers, as sc16.

#include "../common/sc16.h"
#include "cuda_common.cuh"

namespace gr {
namespace gpuinterp {
namespace gpu {

namespace {
__global__ void sc16_expand_kernel(float2* __restrict__ out,
                                   const short2* __restrict__ in,
                                   size_t n,
                                   float inverse)
{
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += size_t(gridDim.x) * blockDim.x)
        out[i] = sc16_expand(in[i], inverse);
}
} // namespace

//! A device array of complex float, refilled from sc16 device memory on each call.
class device_sc16_expansion
{
public:
    //! in: n I/Q pairs (device memory, 4-byte aligned); the result is valid until the next
    //! call and complete once the stream reaches it.
    const float2* run(const int16_t* in, size_t n, float inverse, cudaStream_t st)
    {
        d_buf.reserve(std::max<size_t>(1, n));
        if (n) {
            const int grid = int(std::min<size_t>((n + 255) / 256, 4096));
            sc16_expand_kernel<<<grid, 256, 0, st>>>(
                d_buf.get(), reinterpret_cast<const short2*>(in), n, inverse);
            GPUINTERP_CUDA_CHECK_LAUNCH(st);
        }
        return d_buf.get();
    }

private:
    device_buffer<float2> d_buf;
};

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
