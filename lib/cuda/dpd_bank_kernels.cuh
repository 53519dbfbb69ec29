/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_GPU_DPD_BANK_KERNELS_CUH
#define INCLUDED_GPUINTERP_GPU_DPD_BANK_KERNELS_CUH

// The predistorter bank's kernel (dpd_bank.cu): the tiled ph body of dpd_ph_kernels.cuh with
// gridDim.y = channel (channel_pointers.cuh: windows float2, or short2 for sc16 input; outputs
// float2 or short2). Each block loads its channel's maps and constant term into shared memory,
// so every channel has its own coefficients in one launch; the windows and outputs arrive at any
// 8-byte offset (GNU Radio buffers of separate ports), so loads and stores check alignment once
// per block. The output store converts to sc16 (common/sc16.h) and counts saturated and invalid
// samples per thread, summed per warp and added once per warp to the channel's counters.

#include "../common/int_dispatch.h"
#include "../common/sc16.h"
#include "channel_pointers.cuh"
#include "dpd_ph_kernels.cuh"
#include <type_traits>

namespace gr {
namespace gpuinterp {
namespace gpu {

namespace {

//! Complex float at any 8-byte offset: 16-byte stores where the pair is aligned.
struct store_fc32_any {
    float2* y;
    __device__ __forceinline__ void pair(long long i, float2 a, float2 b)
    {
        float2* p = y + i;
        if ((reinterpret_cast<unsigned long long>(p) & 15) == 0) {
            __stcs(reinterpret_cast<float4*>(p), make_float4(a.x, a.y, b.x, b.y));
        } else {
            p[0] = a;
            p[1] = b;
        }
    }
    __device__ __forceinline__ void one(long long i, float2 a) { y[i] = a; }
    __device__ __forceinline__ void finish() {}
};

//! sc16: two samples in one 8-byte store where aligned; counts for the channel's counters
//! (counts[0] saturated, counts[1] invalid).
struct store_sc16 {
    short2* y;
    float scale;
    unsigned long long* counts;
    unsigned sat = 0, bad = 0;

    __device__ __forceinline__ short2 convert(float2 v)
    {
        return sc16_convert(v, scale, sat, bad);
    }
    //! I in the low half, Q in the high half: a short2's memory layout as one word.
    static __device__ __forceinline__ unsigned pack(short2 v)
    {
        return unsigned(static_cast<unsigned short>(v.x)) |
               (unsigned(static_cast<unsigned short>(v.y)) << 16);
    }
    __device__ __forceinline__ void pair(long long i, float2 a, float2 b)
    {
        const short2 p = convert(a), q = convert(b);
        short2* d = y + i;
        if ((reinterpret_cast<unsigned long long>(d) & 7) == 0) {
            const int2 w = make_int2(int(pack(p)), int(pack(q)));
            __stcs(reinterpret_cast<int2*>(d), w);
        } else {
            d[0] = p;
            d[1] = q;
        }
    }
    __device__ __forceinline__ void one(long long i, float2 a) { y[i] = convert(a); }
    __device__ __forceinline__ void finish()
    {
        // Every thread of the block reaches here (the tile loop is uniform), so the whole warp
        // takes part in the reductions.
        const unsigned s = warp_sum(sat);
        const unsigned b = warp_sum(bad);
        if ((threadIdx.x & 31) == 0) {
            if (s)
                atomicAdd(counts, (unsigned long long)s);
            if (b)
                atomicAdd(counts + 1, (unsigned long long)b);
        }
    }
};

/*!
 * Channel blockIdx.y of a bank. coef_g: per channel, M * Lmax maps then one float4 (cr, ci, 0,
 * 0), `chan_words` float4 apart. counts: two counters per channel (sc16 output only). LT > 0: the
 * tap loop unrolled for Lmax = LT, as the single-channel engine's tiled instances (the maps stay
 * in shared memory here: one kernel parameter cannot hold 64 channels' maps). SC16_IN: the
 * windows are sc16, converted in the window load (times in_scale = full_scale / 32767).
 */
template <int M, int R, int NT, int LT, bool SC16, bool SC16_IN>
__global__ void __launch_bounds__(NT)
    dpd_bank_kernel(const __grid_constant__ channel_pointers p,
                    const float4* __restrict__ coef_g,
                    int chan_words,
                    dev_model md,
                    long long n,
                    float scale,
                    unsigned long long* counts,
                    float in_scale)
{
    extern __shared__ float4 sm4[];
    const int ch = blockIdx.y;
    const int words = M * md.Lmax;
    load_coefficients(sm4, coef_g + size_t(ch) * chan_words, words + 1);
    md.cr = sm4[words].x;
    md.ci = sm4[words].y;
    float2* planes = reinterpret_cast<float2*>(sm4 + words + 1);
    using X = std::conditional_t<SC16_IN, short2, float2>;
    const X* x = static_cast<const X*>(p.x[ch]);
    if constexpr (SC16) {
        store_sc16 out{ static_cast<short2*>(p.y[ch]), scale, counts + 2 * ch };
        tiled_body<M, R, NT, LT, true>(x, out, sm4, md.Lmax, md, n, planes, in_scale);
    } else {
        store_fc32_any out{ static_cast<float2*>(p.y[ch]) };
        tiled_body<M, R, NT, LT, true>(x, out, sm4, md.Lmax, md, n, planes, in_scale);
    }
}

template <int M, int R, int NT>
const void* bank_kernel_lt(int Lmax, bool sc16, bool sc16_in)
{
    const void* fn = nullptr;
    auto pick = [&](auto lt) {
        constexpr int LT = decltype(lt)::value;
        auto ptr = [](auto kernel) { return reinterpret_cast<const void*>(kernel); };
        if (sc16_in)
            fn = sc16 ? ptr(dpd_bank_kernel<M, R, NT, LT, true, true>)
                      : ptr(dpd_bank_kernel<M, R, NT, LT, false, true>);
        else
            fn = sc16 ? ptr(dpd_bank_kernel<M, R, NT, LT, true, false>)
                      : ptr(dpd_bank_kernel<M, R, NT, LT, false, false>);
    };
    // The memory depths DPD models use most; others take the run-time tap loop.
    if constexpr (M <= TILED_UNROLL_M)
        if (with_int_constant<2, 3, 4, 5, 8>(Lmax, pick))
            return fn;
    pick(std::integral_constant<int, 0>{});
    return fn;
}

template <int R, int NT>
const void* bank_kernel_for(int M, int Lmax, bool sc16, bool sc16_in)
{
    return for_orders<const void*>(M, [&](auto m) {
        return bank_kernel_lt<decltype(m)::value, R, NT>(Lmax, sc16, sc16_in);
    });
}

} // namespace
} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
