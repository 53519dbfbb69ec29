/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_GPU_DPD_PH_KERNELS_CUH
#define INCLUDED_GPUINTERP_GPU_DPD_PH_KERNELS_CUH

// Kernels of the parallel-Hammerstein predistorter (design notes in dpd_predistorter.cu): the
// shared helpers, the `smem` kernel and the `tiled` kernel templates. The library instantiates
// tiled with (R, NT) = (5, 256) and smem (dpd_predistorter.cu); the benchmarks' lab
// (bench/dpd_ph_lab.cu) instantiates the same templates with other parameters (tiled8: R = 8,
// 128 threads) next to its warp-shuffle kernels, so what it compares is the library's code.
// The kernels are in an anonymous namespace: each .cu file gets its own instantiations; the
// parameter block dev_model is not, so launch functions can take it across files.

#include "../common/int_dispatch.h"
#include "../common/sc16.h"
#include "dpd_ph_tuning.h"
#include <cuda_runtime.h>
#include <type_traits>
#include <stdexcept>

namespace gr {
namespace gpuinterp {
namespace gpu {

constexpr int PH_MAX_M = 8; // orders up to 15 (the front end's bound)

//! What the kernels need besides the coefficient maps (passed by value: constant bank).
struct dev_model {
    int Lmax;
    int H;
    int taps[PH_MAX_M];
    float cr, ci;
};

//! A tiled kernel instantiation (tiled_for()), as the plans take it across files.
struct tiled_choice {
    const void* fn = nullptr;
    bool param =
        false; //!< maps as a kernel parameter (unrolled) or in shared memory (generic)
};

namespace {

constexpr int MAX_M = PH_MAX_M;
constexpr int THREADS =
    ph_build.smem_threads; // per block: smem kernel, the lab's shuffles
constexpr unsigned FULL = 0xffffffffu;

template <int M>
__device__ __forceinline__ void compute_basis(float2 v, float2 (&psi)[M])
{
    const float a2 = fmaf(v.x, v.x, v.y * v.y);
    psi[0] = v;
#pragma unroll
    for (int m = 1; m < M; m++)
        psi[m] = make_float2(psi[m - 1].x * a2, psi[m - 1].y * a2);
}

__device__ __forceinline__ void
apply_map(float& re, float& im, float4 c, float pr, float pi)
{
    re = fmaf(c.x, pr, re);
    re = fmaf(c.y, pi, re);
    im = fmaf(c.z, pr, im);
    im = fmaf(c.w, pi, im);
}

//! The accumulators of R outputs, each starting at the constant term (cr, ci).
template <int R>
__device__ __forceinline__ void
init_accumulators(float (&re)[R], float (&im)[R], const dev_model& md)
{
#pragma unroll
    for (int r = 0; r < R; r++) {
        re[r] = md.cr;
        im[r] = md.ci;
    }
}

__device__ __forceinline__ void
load_coefficients(float4* dst, const float4* __restrict__ src, int count)
{
    for (int i = threadIdx.x; i < count; i += blockDim.x)
        dst[i] = src[i];
    __syncthreads();
}


//! Shared-memory-halo variant: tiles of T outputs; T + H basis values per order in shared memory.
//! R = 1: one output per thread. R > 1 (odd): a thread computes R consecutive outputs with a
//! sliding register window, so each (order, tap) costs one plane load and one map load for 4R
//! FMAs instead of 4 (the kernel becomes FMA-bound rather than shared-memory-bound for long
//! filters); odd R keeps the R-strided plane loads free of bank conflicts, and the outputs are
//! staged in shared memory so the global stores stay coalesced.
template <int M, int R, int NT = THREADS>
__global__ void __launch_bounds__(NT) dpd_smem_kernel(const float2* __restrict__ x,
                                                      float2* __restrict__ y,
                                                      const float4* __restrict__ coef_g,
                                                      dev_model md,
                                                      long long n,
                                                      int T)
{
    extern __shared__ float4 coef[];
    const int W = T + md.H;                                      // window per tile
    float2* bas = reinterpret_cast<float2*>(coef + M * md.Lmax); // M planes of W values
    float2* ys = bas + M * W; // T staged outputs (R > 1)
    load_coefficients(coef, coef_g, M * md.Lmax);
    const long long n_tiles = (n + T - 1) / T;
    for (long long tile = blockIdx.x; tile < n_tiles; tile += gridDim.x) {
        const long long base = tile * T; // window index of the tile's first value
        const int nt = int(min((long long)T, n - base));
        __syncthreads(); // the previous tile's planes and staging are no longer read
        for (int j = threadIdx.x; j < W; j += blockDim.x) {
            const long long i = base + j;
            const float2 v = i < n + md.H ? x[i] : make_float2(0.f, 0.f);
            float2 psi[M];
            compute_basis<M>(v, psi);
#pragma unroll
            for (int m = 0; m < M; m++)
                bas[m * W + j] = psi[m];
        }
        __syncthreads();
        // T is a multiple of R, so a group's R values (o0 .. o0+R-1 < T) are all in the planes;
        // the ones past nt come from zero samples and are not stored.
        for (int o0 = threadIdx.x * R; o0 < nt; o0 += blockDim.x * R) {
            float re[R], im[R];
            init_accumulators<R>(re, im, md);
#pragma unroll
            for (int m = 0; m < M; m++) {
                const float4* c = coef + m * md.Lmax;
                const float2* b =
                    bas + m * W + md.H + o0; // output o0 + r, tap k reads b[r - k]
                const int L = md.taps[m];
                float2 w[R];
#pragma unroll
                for (int r = 0; r < R; r++)
                    w[r] = b[r];
                for (int k = 0; k < L; k++) {
                    const float4 cc = c[k];
#pragma unroll
                    for (int r = 0; r < R; r++)
                        apply_map(re[r], im[r], cc, w[r].x, w[r].y);
#pragma unroll
                    for (int r = R - 1; r > 0;
                         r--) // slide by one sample: w[r] = b[r - k - 1]
                        w[r] = w[r - 1];
                    if (k + 1 < L)
                        w[0] = b[-(k + 1)];
                }
            }
            if (R == 1) {
                y[base + o0] = make_float2(re[0], im[0]);
            } else {
#pragma unroll
                for (int r = 0; r < R; r++)
                    ys[o0 + r] = make_float2(re[r], im[r]);
            }
        }
        if (R > 1) {
            __syncthreads();
            for (int t = threadIdx.x; t < nt; t += blockDim.x)
                y[base + t] = ys[t];
        }
    }
}

// ---- tiled: the smem design retuned for issue/latency (`tiled`; the lab's `tiled8`) ----
//
// Measured, smem (5,3,5) ran at 39 % of the memory floor and 5x off its FMA floor, so neither
// limit binds: the time goes to latency and instruction issue. The differences from smem:
//  - the tile is a compile-time NT*R outputs; each thread fetches its share of the *next* tile
//    (16-byte float4 loads, 2 samples each, all issued before any is used) while it computes
//    the current one, so a block keeps R/2 loads in flight per thread across the compute phase
//    instead of one load per trip of a serial loop;
//  - for the common filter lengths (L in 1..8 and 16, up to 8 orders) the tap loop is unrolled
//    at compile time: the sliding window becomes register renaming (no moves), and the
//    coefficients travel as a __grid_constant__ kernel parameter, which each launch copies (no
//    shared __constant__ symbol, so concurrent engines do not race) and the FMAs read straight
//    from the constant bank: no shared-memory load for the maps at all;
//  - two barriers per tile instead of three, 16-byte output stores.
// `tiled` uses R = 5 (odd: R-strided plane reads are conflict-free) with 256 threads; the lab's
// `tiled8` uses R = 8 with 128 threads, and pads the planes by one value per 8 so the 8-strided
// reads stay conflict-free (stride 9).
template <int N>
struct coef_param {
    float4 c[N];
};

__host__ __device__ constexpr int ilog2(int r) { return r <= 1 ? 0 : 1 + ilog2(r / 2); }

//! Plane index of window value i: identity for odd R, one pad per R values for R a power of two.
template <int R>
__device__ __forceinline__ int pidx(int i)
{
    static_assert((R & 1) || (R & (R - 1)) == 0, "even R must be a power of two");
    return (R & 1) ? i : i + (i >> ilog2(R));
}

template <int R>
__host__ __device__ constexpr int padded(int count)
{
    return (R & 1) ? count : count + (count - 1) / R + 1;
}

//! Outputs of one order for a group of R consecutive outputs. b: the order's plane; j0: window
//! index of output 0 at tap 0; c: the order's maps. FULL: the order uses all LT taps (unrolled).
template <int R, int LT, bool FULL>
__device__ __forceinline__ void tiled_order(
    float (&re)[R], float (&im)[R], const float2* b, int j0, const float4* c, int L)
{
    float2 w[R]; // w[r]: the value output r needs at the current tap
#pragma unroll
    for (int r = 0; r < R; r++)
        w[r] = b[pidx<R>(j0 + r)];
    // Tap k of n: apply its map to every output, then shift the window by one input.
    const auto tap = [&](int k, int n) {
        const float4 cc = c[k];
#pragma unroll
        for (int r = 0; r < R; r++)
            apply_map(re[r], im[r], cc, w[r].x, w[r].y);
#pragma unroll
        for (int r = R - 1; r > 0; r--)
            w[r] = w[r - 1];
        if (k + 1 < n)
            w[0] = b[pidx<R>(j0 - k - 1)];
    };
    if (FULL) {
#pragma unroll
        for (int k = 0; k < LT; k++)
            tap(k, LT);
    } else {
        for (int k = 0; k < L; k++)
            tap(k, L);
    }
}

//! The tiled kernel's output: complex float in 16-byte stores of two samples (y 16-byte aligned,
//! as the single-channel kernels are launched).
struct store_fc32 {
    float2* __restrict__ y;
    __device__ __forceinline__ void pair(long long i, float2 a, float2 b)
    {
        // The intrinsic keeps it one 16-byte store (a plain float4 assignment was split into
        // two 8-byte stores in the PTX); streaming: the output is not read again.
        __stcs(reinterpret_cast<float4*>(y + i), make_float4(a.x, a.y, b.x, b.y));
    }
    __device__ __forceinline__ void one(long long i, float2 a) { y[i] = a; }
    __device__ __forceinline__ void finish() {}
};

//! The tiled body's window loads: CHECKED tests the window's alignment once per block (a bank's
//! channels arrive at any 8-byte offset) and loads float2 by float2 when it is not 16-byte aligned.
template <bool CHECKED>
__device__ __forceinline__ bool window_aligned(const float2* x)
{
    return !CHECKED || (reinterpret_cast<unsigned long long>(x) & 15) == 0;
}
//! sc16 windows (the bank's sc16 input): a pair of samples is one 8-byte load.
template <bool CHECKED>
__device__ __forceinline__ bool window_aligned(const short2* x)
{
    return !CHECKED || (reinterpret_cast<unsigned long long>(x) & 7) == 0;
}

//! The tiled kernel's body. x: the window, complex float (X = float2) or sc16 (X = short2, the
//! bank's sc16 input: converted to complex float as it is loaded, times in_scale). coef: the maps
//! (kernel parameter when LT > 0, shared memory when LT == 0), order m's at coef + m * stride.
//! smem: the planes and the output staging. out: the store policy (store_fc32, or the bank's,
//! dpd_bank_kernels.cuh); CHECKED: see window_aligned.
template <int M,
          int R,
          int NT,
          int LT,
          bool CHECKED = false,
          typename Store = store_fc32,
          typename X = float2>
__device__ __forceinline__ void tiled_body(const X* __restrict__ x,
                                           Store& out,
                                           const float4* coef,
                                           int stride,
                                           const dev_model& md,
                                           long long n,
                                           float2* smem,
                                           float in_scale = 1.f)
{
    constexpr bool SC16_IN = std::is_same<X, short2>::value;
    static_assert(SC16_IN || std::is_same<X, float2>::value,
                  "windows are float2 or short2");
    constexpr int T = NT * R; // outputs per tile
    constexpr int Q = T / 2;  // float4 loads of a tile's first T window values
    constexpr int NF = (Q + NT - 1) / NT;
    static_assert(T % 2 == 0, "tiles hold whole float4 pairs");
    const int H = md.H; // < NT (configure): one halo value per thread at most
    const int Wp = padded<R>(T + H);
    float2* bas = smem;            // M planes of Wp values
    float2* ys = bas + M * Wp;     // staged outputs, padded like the planes
    const long long total = n + H; // window values
    const long long n_tiles = (n + T - 1) / T;
    const int tid = threadIdx.x;

    float4 px[NF];
    float2 ph = make_float2(0.f, 0.f);
    const bool aligned = window_aligned<CHECKED>(x);
    // Window values [base, base + T) as float4 pairs (base is even: x + base stays 16-byte
    // aligned), then the H-value halo past them, one per thread.
    auto fetch = [&](long long tile) {
        const long long base = tile * T;
#pragma unroll
        for (int f = 0; f < NF; f++) {
            const int q = tid + f * NT;
            const long long i = base + 2 * (long long)q;
            px[f] = make_float4(0.f, 0.f, 0.f, 0.f);
            if constexpr (SC16_IN) {
                if (Q % NT == 0 || q < Q) {
                    if (i + 1 < total && aligned) {
                        const short4 v = *reinterpret_cast<const short4*>(x + i);
                        const float2 a = sc16_expand(make_short2(v.x, v.y), in_scale);
                        const float2 b = sc16_expand(make_short2(v.z, v.w), in_scale);
                        px[f] = make_float4(a.x, a.y, b.x, b.y);
                    } else if (i + 1 < total) {
                        const float2 a = sc16_expand(x[i], in_scale);
                        const float2 b = sc16_expand(x[i + 1], in_scale);
                        px[f] = make_float4(a.x, a.y, b.x, b.y);
                    } else if (i < total) {
                        const float2 a = sc16_expand(x[i], in_scale);
                        px[f].x = a.x;
                        px[f].y = a.y;
                    }
                }
            } else if (Q % NT == 0 || q < Q) {
                if (i + 1 < total && aligned) {
                    px[f] = *reinterpret_cast<const float4*>(x + i);
                } else if (CHECKED && i + 1 < total) {
                    const float2 v = x[i], w = x[i + 1];
                    px[f] = make_float4(v.x, v.y, w.x, w.y);
                } else if (i < total) {
                    const float2 v = x[i];
                    px[f].x = v.x;
                    px[f].y = v.y;
                }
            }
        }
        if (tid < H) {
            const long long i = base + T + tid;
            if constexpr (SC16_IN)
                ph = i < total ? sc16_expand(x[i], in_scale) : make_float2(0.f, 0.f);
            else
                ph = i < total ? x[i] : make_float2(0.f, 0.f);
        }
    };
    auto put = [&](int j, float2 v) {
        float2 psi[M];
        compute_basis<M>(v, psi);
#pragma unroll
        for (int m = 0; m < M; m++)
            bas[m * Wp + pidx<R>(j)] = psi[m];
    };

    long long tile = blockIdx.x;
    if (tile < n_tiles)
        fetch(tile);
    for (; tile < n_tiles; tile += gridDim.x) {
        const long long base = tile * T;
        const int nt = int(min((long long)T, n - base));
        // The previous tile's compute finished before its second barrier: the planes are free.
#pragma unroll
        for (int f = 0; f < NF; f++) {
            const int q = tid + f * NT;
            if (Q % NT == 0 || q < Q) {
                put(2 * q, make_float2(px[f].x, px[f].y));
                put(2 * q + 1, make_float2(px[f].z, px[f].w));
            }
        }
        if (tid < H)
            put(T + tid, ph);
        __syncthreads();
        if (tile + gridDim.x < n_tiles) // in flight while this tile is computed
            fetch(tile + gridDim.x);
        const int o0 = tid * R;
        if (o0 < nt) {
            float re[R], im[R];
            init_accumulators<R>(re, im, md);
#pragma unroll
            for (int m = 0; m < M; m++) {
                const float2* b = bas + m * Wp;
                const float4* c = coef + m * stride;
                const int L = md.taps[m];
                if (LT > 0 && L == LT)
                    tiled_order<R, LT, true>(re, im, b, o0 + H, c, L);
                else // fewer taps than the longest order (Lp != Lq), or L not unrolled
                    tiled_order<R, LT, false>(re, im, b, o0 + H, c, L);
            }
#pragma unroll
            for (int r = 0; r < R; r++)
                ys[pidx<R>(o0 + r)] = make_float2(re[r], im[r]);
        }
        __syncthreads();
        // Coalesced 16-byte stores; the next tile's plane writes do not touch ys, and its ys
        // writes come after its first barrier, when these reads are done.
        for (int q = tid; 2 * q < nt; q += NT) {
            const float2 a = ys[pidx<R>(2 * q)];
            if (2 * q + 1 < nt)
                out.pair(base + 2 * q, a, ys[pidx<R>(2 * q + 1)]);
            else
                out.one(base + 2 * q, a);
        }
    }
    out.finish();
}

//! Tiled kernel with the tap loop unrolled for L = LT and the maps as a kernel parameter.
template <int M, int R, int NT, int LT>
__global__ void __launch_bounds__(NT)
    dpd_tiled_kernel(const float2* __restrict__ x,
                     float2* __restrict__ y,
                     const __grid_constant__ coef_param<M * LT> cp,
                     dev_model md,
                     long long n)
{
    extern __shared__ float4 sm4[];
    store_fc32 out{ y };
    tiled_body<M, R, NT, LT>(x, out, cp.c, LT, md, n, reinterpret_cast<float2*>(sm4));
}

//! Tiled kernel for any L: the maps in shared memory (before the planes), runtime tap loop.
template <int M, int R, int NT>
__global__ void __launch_bounds__(NT)
    dpd_tiled_generic_kernel(const float2* __restrict__ x,
                             float2* __restrict__ y,
                             const float4* __restrict__ coef_g,
                             dev_model md,
                             long long n)
{
    extern __shared__ float4 sm4[];
    load_coefficients(sm4, coef_g, M * md.Lmax);
    store_fc32 out{ y };
    tiled_body<M, R, NT, 0>(
        x, out, sm4, md.Lmax, md, n, reinterpret_cast<float2*>(sm4 + M * md.Lmax));
}

//! (outputs per thread, threads per block) of the library's tiled variant.
constexpr int TILED_R = ph_build.tiled_r, TILED_NT = ph_build.tiled_threads;
//! Orders up to this many get the unrolled kernels (all 8: P, Q <= 15); more use the generic one.
constexpr int TILED_UNROLL_M = ph_build.tiled_unroll_m;


template <int M, int R, int NT, int UNROLL_M>
tiled_choice tiled_pick(int Lmax)
{
    tiled_choice c;
    if constexpr (M <= UNROLL_M)
        if (with_int_constant<1, 2, 3, 4, 5, 6, 7, 8, 16>(Lmax, [&](auto lt) {
                c = { reinterpret_cast<const void*>(
                          dpd_tiled_kernel<M, R, NT, decltype(lt)::value>),
                      true };
            }))
            return c;
    return { reinterpret_cast<const void*>(dpd_tiled_generic_kernel<M, R, NT>), false };
}

//! What pick(std::integral_constant<int, M>) returns for M = 1..8 orders (P = 2M - 1 <= 15).
template <typename Result, typename Pick>
Result for_orders(int M, Pick pick)
{
    Result r{};
    if (!with_int_constant<1, 2, 3, 4, 5, 6, 7, 8>(M, [&](auto m) { r = pick(m); }))
        throw std::invalid_argument(
            "P: orders above 15 are not supported by the CUDA backend");
    return r;
}

//! The tiled kernel of M orders and Lmax taps: unrolled (maps as a parameter) for orders up to
//! UNROLL_M and the unrolled tap counts, else the generic one.
template <int R, int NT, int UNROLL_M = TILED_UNROLL_M>
tiled_choice tiled_for(int M, int Lmax)
{
    return for_orders<tiled_choice>(
        M, [&](auto m) { return tiled_pick<decltype(m)::value, R, NT, UNROLL_M>(Lmax); });
}

//! Outputs per thread of the register-blocked smem kernel (odd: bank-conflict-free plane loads).
constexpr int SMEM_R = ph_build.smem_r;

//! The smem kernel of M orders on NT threads: one output per thread (R = 1) or RB register-blocked.
template <int NT, int RB>
const void* smem_kernel_for(int M, int R)
{
    return for_orders<const void*>(M, [&](auto m) {
        constexpr int MM = decltype(m)::value;
        return R == 1 ? reinterpret_cast<const void*>(dpd_smem_kernel<MM, 1, NT>)
                      : reinterpret_cast<const void*>(dpd_smem_kernel<MM, RB, NT>);
    });
}

} // namespace
} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
