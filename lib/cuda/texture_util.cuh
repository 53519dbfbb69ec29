/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_GPU_TEXTURE_UTIL_CUH
#define INCLUDED_GPUINTERP_GPU_TEXTURE_UTIL_CUH

// RAII owners for CUDA arrays and texture objects (destructors never throw).

#include "cuda_common.cuh"

namespace gr {
namespace gpuinterp {
namespace gpu {

class cuda_array
{
public:
    cuda_array() = default;
    ~cuda_array() { release(); }
    cuda_array(const cuda_array&) = delete;
    cuda_array& operator=(const cuda_array&) = delete;
    void allocate(const cudaChannelFormatDesc& desc, size_t width)
    {
        release();
        GPUINTERP_CUDA_CHECK(cudaMallocArray(&d_a, &desc, width));
        d_width = width;
    }
    cudaArray_t get() const { return d_a; }
    size_t width() const { return d_width; }

private:
    void release()
    {
        if (d_a)
            cudaFreeArray(d_a);
        d_a = nullptr;
        d_width = 0;
    }
    cudaArray_t d_a = nullptr;
    size_t d_width = 0;
};

class texture_object
{
public:
    texture_object() = default;
    ~texture_object() { release(); }
    texture_object(const texture_object&) = delete;
    texture_object& operator=(const texture_object&) = delete;
    void create(const cudaResourceDesc& res, const cudaTextureDesc& tex)
    {
        release();
        GPUINTERP_CUDA_CHECK(cudaCreateTextureObject(&d_t, &res, &tex, nullptr));
        d_valid = true;
    }
    cudaTextureObject_t get() const { return d_t; }
    bool valid() const { return d_valid; }
    void release()
    {
        if (d_valid)
            cudaDestroyTextureObject(d_t);
        d_valid = false;
        d_t = 0;
    }

private:
    cudaTextureObject_t d_t = 0;
    bool d_valid = false;
};

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
