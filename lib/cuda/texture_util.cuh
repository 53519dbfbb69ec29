/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_GPU_TEXTURE_UTIL_CUH
#define INCLUDED_GPUINTERP_GPU_TEXTURE_UTIL_CUH

// Owners of CUDA arrays and texture objects (unique_handle: destructors never throw).

#include "cuda_common.cuh"

namespace gr {
namespace gpuinterp {
namespace gpu {

class cuda_array
{
public:
    void allocate(const cudaChannelFormatDesc& desc, size_t width)
    {
        d_a.reset(); // the old array is freed before the new is taken
        d_width = 0;
        cudaArray_t a = nullptr;
        GPUINTERP_CUDA_CHECK(cudaMallocArray(&a, &desc, width));
        d_a.reset(a);
        d_width = width;
    }
    cudaArray_t get() const { return d_a.get(); }
    size_t width() const { return d_width; }

private:
    unique_handle<cudaArray_t, cudaError_t, cudaFreeArray> d_a;
    size_t d_width = 0;
};

class texture_object
{
public:
    void create(const cudaResourceDesc& res, const cudaTextureDesc& tex)
    {
        release();
        cudaTextureObject_t t = 0;
        GPUINTERP_CUDA_CHECK(cudaCreateTextureObject(&t, &res, &tex, nullptr));
        d_t.reset(t);
    }
    cudaTextureObject_t get() const { return d_t.get(); }
    bool valid() const { return d_t.valid(); }
    void release() { d_t.reset(); }

private:
    unique_handle<cudaTextureObject_t, cudaError_t, cudaDestroyTextureObject> d_t;
};

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
