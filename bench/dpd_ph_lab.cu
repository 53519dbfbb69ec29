/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Parallel-Hammerstein CUDA variants kept for comparison only (benchmark and test targets, not
// the library): the warp-shuffle designs and tiled with 8 outputs per thread. The library's
// `automatic` runs tiled, which beat all of them on the H200 at every benchmark row
// (docs/performance.md); lib/cuda/dpd_predistorter.cu describes each design.
//  - shuffle: a thread takes its neighbours' basis values from the registers of lane - k
//    (__shfl_up_sync); warps overlap by H = L-1 samples, so a warp yields 33-L outputs (L <= 32).
//  - shuffle_x: the same layout, lanes shuffle the samples and recompute their basis per tap.
//  - tiled8: the tiled kernel with R = 8 and 128 threads per block.
// register_dpd_lab_variants() hands them to the library's engine (lib/cuda/dpd_ph_lab.h), so the
// benchmark and the tests select them with set_cuda_variant() as before.
#include "cuda/dpd_ph_kernels.cuh"
#include "cuda/dpd_ph_lab.h"

namespace gr {
namespace gpuinterp {
namespace gpu {

namespace {

//! Warp-shuffle variant. x: H + n samples (history first); y: n outputs. Needs H <= 31.
template <int M>
__global__ void __launch_bounds__(THREADS)
    dpd_shuffle_kernel(const float2* __restrict__ x,
                       float2* __restrict__ y,
                       const float4* __restrict__ coef_g,
                       dev_model md,
                       long long n)
{
    extern __shared__ float4 coef[];
    load_coefficients(coef, coef_g, M * md.Lmax);
    const int lane = threadIdx.x & 31;
    const int per_warp = 32 - md.H; // outputs per warp
    const long long n_warps = (n + per_warp - 1) / per_warp;
    const long long stride = (long long)gridDim.x * (blockDim.x / 32);
    // The loop bound is the same for all lanes of a warp, so every shuffle sees a full warp.
    for (long long w = (long long)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; w < n_warps; w += stride) {
        const long long i = w * per_warp + lane; // window index; output index i - H
        const float2 v = i < n + md.H ? x[i] : make_float2(0.f, 0.f);
        float2 psi[M];
        compute_basis<M>(v, psi);
        float re = md.cr, im = md.ci;
#pragma unroll
        for (int m = 0; m < M; m++) {
            const float4* c = coef + m * md.Lmax;
            const int L = md.taps[m];
#pragma unroll 4
            for (int k = 0; k < L; k++) {
                const float pr = __shfl_up_sync(FULL, psi[m].x, k);
                const float pi = __shfl_up_sync(FULL, psi[m].y, k);
                apply_map(re, im, c[k], pr, pi);
            }
        }
        if (lane >= md.H && i - md.H < n)
            y[i - md.H] = make_float2(re, im);
    }
}

//! Like dpd_shuffle_kernel, but the samples are shuffled and their basis recomputed per tap.
template <int M>
__global__ void __launch_bounds__(THREADS)
    dpd_shuffle_x_kernel(const float2* __restrict__ x,
                         float2* __restrict__ y,
                         const float4* __restrict__ coef_g,
                         dev_model md,
                         long long n)
{
    extern __shared__ float4 coef[];
    load_coefficients(coef, coef_g, M * md.Lmax);
    const int lane = threadIdx.x & 31;
    const int per_warp = 32 - md.H;
    const long long n_warps = (n + per_warp - 1) / per_warp;
    const long long stride = (long long)gridDim.x * (blockDim.x / 32);
    for (long long w = (long long)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; w < n_warps; w += stride) {
        const long long i = w * per_warp + lane;
        const float2 v = i < n + md.H ? x[i] : make_float2(0.f, 0.f);
        float re = md.cr, im = md.ci;
        for (int k = 0; k < md.Lmax; k++) {
            const float2 u = make_float2(__shfl_up_sync(FULL, v.x, k), __shfl_up_sync(FULL, v.y, k));
            float2 psi[M];
            compute_basis<M>(u, psi);
#pragma unroll
            for (int m = 0; m < M; m++)
                if (k < md.taps[m]) // uniform; the map is zero past an order's taps anyway
                    apply_map(re, im, coef[m * md.Lmax + k], psi[m].x, psi[m].y);
        }
        if (lane >= md.H && i - md.H < n)
            y[i - md.H] = make_float2(re, im);
    }
}

const void* shuffle(int M)
{
    switch (M) {
    case 1: return reinterpret_cast<const void*>(dpd_shuffle_kernel<1>);
    case 2: return reinterpret_cast<const void*>(dpd_shuffle_kernel<2>);
    case 3: return reinterpret_cast<const void*>(dpd_shuffle_kernel<3>);
    case 4: return reinterpret_cast<const void*>(dpd_shuffle_kernel<4>);
    case 5: return reinterpret_cast<const void*>(dpd_shuffle_kernel<5>);
    case 6: return reinterpret_cast<const void*>(dpd_shuffle_kernel<6>);
    case 7: return reinterpret_cast<const void*>(dpd_shuffle_kernel<7>);
    case 8: return reinterpret_cast<const void*>(dpd_shuffle_kernel<8>);
    default: throw std::invalid_argument("P: orders above 15 are not supported by the CUDA backend");
    }
}

const void* shuffle_x(int M)
{
    switch (M) {
    case 1: return reinterpret_cast<const void*>(dpd_shuffle_x_kernel<1>);
    case 2: return reinterpret_cast<const void*>(dpd_shuffle_x_kernel<2>);
    case 3: return reinterpret_cast<const void*>(dpd_shuffle_x_kernel<3>);
    case 4: return reinterpret_cast<const void*>(dpd_shuffle_x_kernel<4>);
    case 5: return reinterpret_cast<const void*>(dpd_shuffle_x_kernel<5>);
    case 6: return reinterpret_cast<const void*>(dpd_shuffle_x_kernel<6>);
    case 7: return reinterpret_cast<const void*>(dpd_shuffle_x_kernel<7>);
    case 8: return reinterpret_cast<const void*>(dpd_shuffle_x_kernel<8>);
    default: throw std::invalid_argument("P: orders above 15 are not supported by the CUDA backend");
    }
}

dpd_lab_kernel tiled8(int M, int Lmax)
{
    const tiled_choice c = tiled_for<TILED8_R, TILED8_NT>(M, Lmax);
    return dpd_lab_kernel{ c.fn, c.param };
}

} // namespace

void register_dpd_lab_variants()
{
    dpd_lab_variants v;
    v.shuffle = shuffle;
    v.shuffle_x = shuffle_x;
    v.tiled8 = tiled8;
    set_dpd_lab_variants(v);
}

} // namespace gpu
} // namespace gpuinterp
} // namespace gr
