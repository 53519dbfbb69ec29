/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_GPU_RESAMP_KERNELS_CUH
#define INCLUDED_GPUINTERP_GPU_RESAMP_KERNELS_CUH

// Kernels of the CUDA resampler (design notes in resampler.cu): one kernel per method, the tiled
// polyphase kernel and their helpers. In an anonymous namespace: each .cu file that includes it
// (the library's resampler.cu, the benchmark's kernel timing) gets its own instantiations.

#include "../common/sc16.h"
#include "../kernel/fixed_phase.h"
#include "../kernel/poly_tiles.h"
#include "channel_pointers.cuh"
#include "complex_ops.cuh"
#include "cuda_common.cuh"
#include "resamp_tuning.h"
#include "texture_util.cuh"
#include <gnuradio/gpuinterp/kernel/resampler.h>

namespace gr {
namespace gpuinterp {
namespace gpu {
namespace {

using kernel::fx_pos;
using kernel::fx_step;
using kernel::resamp_method;

constexpr int W = 4096; // texture row width (samples) without the overlap texel

struct poly_args {
    const float* arms; // (P+1) arms of K taps: arm p, tap m at p*K + m
    int K, P, half;
};

__device__ inline float2 operator*(float a, float2 b)
{
    return make_float2(a * b.x, a * b.y);
}
__device__ inline float2 operator+(float2 a, float2 b)
{
    return make_float2(a.x + b.x, a.y + b.y);
}
__device__ inline float2 operator-(float2 a, float2 b)
{
    return make_float2(a.x - b.x, a.y - b.y);
}

// Where the kernels' outputs go: the store policy. A kernel stores output k as `y[k] = v` and
// ends with finish(y). Plain (the default): y is the output array itself, D* __restrict__, so the
// float kernels are the very code they were before the policy existed (a wrapper struct, or a
// put() call in place of the subscript, changes what ptxas makes of them).
template <typename Store>
struct store_param {
    using type = Store;
};
template <typename D>
struct store_param<D*> {
    using type = D* __restrict__;
};
template <typename Store>
using store_param_t = typename store_param<Store>::type;

template <typename D>
__device__ __forceinline__ void finish(D*)
{
}

// sc16 (kernel/sample_format.h), complex samples only: y[k] = v converts v as it is stored, so no
// float output ever reaches memory. A thread adds its counts of saturated and invalid samples to
// counts[0] / counts[1] once, in finish() (they are rare, so the atomics are too); the counters
// only grow (the engine reads how much they grew).
struct resamp_store_sc16 {
    short2* __restrict__ out;
    float scale;
    unsigned long long* counts;
    unsigned sat = 0, bad = 0;

    struct slot {
        resamp_store_sc16& owner;
        size_t k;
        __device__ __forceinline__ void operator=(float2 v) { owner.store(k, v); }
    };
    __device__ __forceinline__ slot operator[](size_t k) { return { *this, k }; }
    __device__ __forceinline__ void store(size_t k, float2 v)
    {
        out[k] = sc16_convert(v, scale, sat, bad);
    }
};
__device__ __forceinline__ void finish(resamp_store_sc16& s)
{
    if (s.sat)
        atomicAdd(s.counts, (unsigned long long)s.sat);
    if (s.bad)
        atomicAdd(s.counts + 1, (unsigned long long)s.bad);
}

//! The store of channel c in a launch of every channel: plain, its own output array; sc16, its
//! own output array and counters (counts[2c], counts[2c + 1]).
template <typename D>
__device__ __forceinline__ D* for_channel(D* /*proto*/, void* y, unsigned)
{
    return static_cast<D*>(y);
}
__device__ __forceinline__ resamp_store_sc16 for_channel(const resamp_store_sc16& proto,
                                                         void* y,
                                                         unsigned c)
{
    return { static_cast<short2*>(y), proto.scale, proto.counts + 2 * c };
}

// The kernel bodies, shared by the single-channel kernels and the channel kernels (gridDim.y =
// channel); force-inlined, so each kernel compiles to what it would as one function.
template <typename D, int M, typename Store>
__device__ __forceinline__ void resamp_body(const D* __restrict__ w,
                                            store_param_t<Store> y,
                                            size_t n_out,
                                            fx_pos pos0,
                                            fx_step step,
                                            poly_args pa,
                                            cudaTextureObject_t tex)
{
    for (size_t k = blockIdx.x * size_t(blockDim.x) + threadIdx.x; k < n_out;
         k += size_t(gridDim.x) * blockDim.x) {
        const fx_pos p = kernel::fx_advance(pos0, step, k);
        const long long i = p.ip;
        if (M == int(resamp_method::nearest)) {
            y[k] = w[i + (long long)(p.fp >> 63)];
        } else if (M == int(resamp_method::linear)) {
            const float mu = kernel::fx_frac_f(p.fp);
            y[k] = (1.0f - mu) * w[i] + mu * w[i + 1];
        } else if (M == int(resamp_method::texture)) {
            long long j = i;
            int q = kernel::fx_weight9(p.fp);
            if (q == 256) {
                j++;
                q = 0;
            }
            const long long row = j / W;
            const float x =
                float(j - row * W) + 0.5f + float(q) * (1.0f / 256.0f); // exact
            y[k] = tex2D<D>(tex, x, float(row) + 0.5f);
        } else if (M == int(resamp_method::cubic)) {
            const float mu = kernel::fx_frac_f(p.fp);
            const D xm = w[i - 1], x0 = w[i], x1 = w[i + 1], x2 = w[i + 2];
            y[k] = x0 + (0.5f * mu) *
                            ((x1 - xm) + mu * ((2.0f * xm - 5.0f * x0 + 4.0f * x1 - x2) +
                                               mu * (3.0f * (x0 - x1) + x2 - xm)));
        } else { // polyphase: two arms (K' taps each), blended
            const unsigned long long arm =
                kernel::fx_mulhi(p.fp, (unsigned long long)pa.P);
            const float f = kernel::fx_frac_f(p.fp * (unsigned long long)pa.P);
            const float* h0 = pa.arms + arm * pa.K;
            const float* h1 = h0 + pa.K;
            const D* x = w + i - (pa.half - 1);
            D a0 = zero<D>(), a1 = zero<D>();
            for (int m = 0; m < pa.K; m++) {
                const D v = x[m];
                mac(a0, __ldg(h0 + m), v);
                mac(a1, __ldg(h1 + m), v);
            }
            y[k] = (1.0f - f) * a0 + f * a1;
        }
    }
    finish(y);
}

template <typename D, int M, typename Store = D*>
__global__ void resamp_kernel(const D* __restrict__ w,
                              store_param_t<Store> y,
                              size_t n_out,
                              fx_pos pos0,
                              fx_step step,
                              poly_args pa,
                              cudaTextureObject_t tex)
{
    resamp_body<D, M, Store>(w, y, n_out, pos0, step, pa, tex);
}

//! Every channel in one launch (not the texture method: one texture per channel): block (bx, c)
//! reads channel c's window p.x[c] and writes p.y[c]; the plan is the channels' shared clock.
template <typename D, int M, typename Store>
__global__ void resamp_channels_kernel(const __grid_constant__ channel_pointers p,
                                       Store proto,
                                       size_t n_out,
                                       fx_pos pos0,
                                       fx_step step,
                                       poly_args pa)
{
    const unsigned c = blockIdx.y;
    resamp_body<D, M, Store>(static_cast<const D*>(p.x[c]),
                             for_channel(proto, p.y[c], c),
                             n_out,
                             pos0,
                             step,
                             pa,
                             0);
}

//! One polyphase output: x = its first tap sample, c = its arm at tap 0 (arm tap m at
//! c[m (P+1)], the next arm's one word later). Inlined, so x stays a shared or a global
//! pointer as the caller's is.
template <typename D>
__device__ __forceinline__ D poly_dot(const D* x, const float* c, int K, int P1, float f)
{
    D a0 = zero<D>(), a1 = zero<D>();
#pragma unroll 4
    for (int m = 0; m < K; m++) {
        const float h0 = c[m * P1], h1 = c[m * P1 + 1];
        const D v = x[m];
        mac(a0, h0, v);
        mac(a1, h1, v);
    }
    return (1.0f - f) * a0 + f * a1;
}

template <typename D, typename Store>
__device__ __forceinline__ void poly_tiled_body(const D* __restrict__ w,
                                                store_param_t<Store> y,
                                                size_t n_out,
                                                fx_pos pos0,
                                                fx_step step,
                                                const float* __restrict__ cols,
                                                int K,
                                                int P,
                                                int half,
                                                unsigned tile,
                                                unsigned cap)
{
    extern __shared__ float2 smem[];            // float2: 8-byte aligned
    float* sc = reinterpret_cast<float*>(smem); // K*(P+1) arm taps
    D* sx =
        reinterpret_cast<D*>(sc + kernel::poly_arm_columns_floats(K, P)); // cap samples
    for (int i = threadIdx.x; i < K * (P + 1); i += blockDim.x)
        sc[i] = cols[i];
    const size_t n_tiles = (n_out + tile - 1) / tile;
    for (size_t t = blockIdx.x; t < n_tiles; t += gridDim.x) {
        const size_t k0 = t * tile;
        const unsigned cnt = unsigned(min(size_t(tile), n_out - k0));
        const kernel::poly_tile tr =
            kernel::poly_tile_range(pos0, step, k0, cnt, half, K);
        const bool staged = tr.n_load <= (long long)cap; // same in every thread
        __syncthreads(); // the previous tile's reads of sx are done
        if (staged)
            for (int i = threadIdx.x; i < int(tr.n_load); i += blockDim.x)
                sx[i] = w[tr.lo + i];
        __syncthreads();                          // sx (and, the first time, sc) written
        const long long ip0 = tr.lo + (half - 1); // integer position of output k0
        for (unsigned j = threadIdx.x; j < cnt; j += blockDim.x) {
            const fx_pos p = kernel::fx_advance(pos0, step, k0 + j);
            const unsigned long long arm = kernel::fx_mulhi(p.fp, (unsigned long long)P);
            const float f = kernel::fx_frac_f(p.fp * (unsigned long long)P);
            const float* c = sc + arm;
            y[k0 + j] = staged ? poly_dot(sx + (p.ip - ip0), c, K, P + 1, f)
                               : poly_dot(w + (p.ip - (half - 1)), c, K, P + 1, f);
        }
    }
    finish(y);
}

//! NT: the block it is compiled for, resamp_build's (the benchmark lab builds others); the body
//! takes any block size.
template <typename D, typename Store = D*, int NT = resamp_build.tiled_threads>
__global__ void __launch_bounds__(NT) poly_tiled_kernel(const D* __restrict__ w,
                                                        store_param_t<Store> y,
                                                        size_t n_out,
                                                        fx_pos pos0,
                                                        fx_step step,
                                                        const float* __restrict__ cols,
                                                        int K,
                                                        int P,
                                                        int half,
                                                        unsigned tile,
                                                        unsigned cap)
{
    poly_tiled_body<D, Store>(w, y, n_out, pos0, step, cols, K, P, half, tile, cap);
}

//! The tiled polyphase kernel for every channel in one launch (as resamp_channels_kernel).
template <typename D, typename Store>
__global__ void __launch_bounds__(resamp_build.tiled_threads)
    poly_tiled_channels_kernel(const __grid_constant__ channel_pointers p,
                               Store proto,
                               size_t n_out,
                               fx_pos pos0,
                               fx_step step,
                               const float* __restrict__ cols,
                               int K,
                               int P,
                               int half,
                               unsigned tile,
                               unsigned cap)
{
    const unsigned c = blockIdx.y;
    poly_tiled_body<D, Store>(static_cast<const D*>(p.x[c]),
                              for_channel(proto, p.y[c], c),
                              n_out,
                              pos0,
                              step,
                              cols,
                              K,
                              P,
                              half,
                              tile,
                              cap);
}

} // namespace
} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
