/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CUDA backend of the predistorter: the source document's fused design, in several variants.
//
// All kernels are one fused pass: a thread loads x[n], computes its basis
// values psi_m (orders 1, 3, .., 2M-1) from low to high order in registers (|x|^2 once, one
// multiplication per order), and accumulates the output with the packed 2x2 coefficient maps
// (dpd_engine.h: 4 FMAs per order and delay, conjugate branches folded in, so conj(psi) is never
// formed). Coefficients are copied into shared memory once per block (the document's choice);
// every thread of a warp reads the same map, a broadcast. They are not kept in __constant__
// memory: a __constant__ symbol is shared by every engine in the process, so two predistorters
// with different sets on different streams would race.
//
// The variants differ in how a thread gets its neighbours' basis values psi_m(x[n-k]):
//  - shuffle: from the registers of lane - k with __shfl_up_sync. A warp covers 32 consecutive
//    samples, of which the first H = L-1 only produce basis values for the others (warps overlap
//    by H samples, the document's redundant threads), so a warp yields 33-L outputs and L <= 32.
//  - smem: a block computes the basis of a tile of T outputs plus an H-sample halo into shared
//    memory planes, synchronises, then each thread reads its L values per order from there.
//    Works for any L that fits; the halo costs H/T extra basis computations.
//  - shuffle_x (not in the document; for comparison): the same warp layout, but lanes shuffle the
//    samples x[n-k] themselves (2 shuffles per tap instead of 2 per tap and order) and recompute
//    their basis, trading shuffle traffic, which limits `shuffle` at high orders, for FMA work.
// Which is faster depends on L. Per (order, tap), `shuffle` issues 2 shuffles and a coefficient
// load per 33-L outputs of a warp, while `smem` with 5 outputs per thread issues a plane load and a
// coefficient load per 160 outputs and is left FMA-bound, so by that model smem wins once the taps
// dominate. Measured on the H200 (docs/performance.md, 2^26 samples): smem is fastest at every
// benchmark row — (5,3,5) 0.663 ms vs shuffle 0.824 / shuffle_x 0.924; (7,7,8) 0.914 vs 1.55 / 1.91;
// (9,5,16) 1.79 vs 5.41 / 6.49. smem at (5,3,5) still sat at 39 % of the memory floor and 5x off
// its FMA floor (latency and issue bound), hence two retuned variants of it, `tiled` (R = 5) and
// `tiled8` (R = 8), described where they are defined. `automatic` is `tiled`: measured on the
// H200 (2026-11-30) it is fastest at every row — (5,3,5) 0.334 ms (77 % of the memory floor) vs
// tiled8 0.368 / smem 0.658; (7,7,8) 0.520 vs 0.597 / 0.907; (9,5,16) 1.03 vs 1.34 / 1.78. Where
// tiled does not fit (L > 256), or for misaligned device-buffer pointers, it runs smem.
//
// Host pipeline: the two-slot pinned pipeline of host_pipeline.cuh, as in the FIR engine. Each
// chunk carries its own H-sample history (taken on the host), so the streams stay independent.
// Staging is pinned (copies are DMA, truly asynchronous), or with `mapped` it is mapped pinned
// memory that the kernel reads and writes directly over the bus (cudaHostAllocMapped, zero-copy:
// no device buffers and no copy engine; what the source document does on integrated GPUs, where
// host and device share the memory). Both copies between GNU Radio's pageable buffers and the
// staging are split over threads (cpu::parallel_copy): one thread's memcpy would cap the block
// far below the bus.
#include "../cpu/parallel.h"
#include "../kernel/dpd_engine.h"
#include "cuda_common.cuh"
#include "device_history.cuh"
#include "host_pipeline.cuh"
#include <gnuradio/gpuinterp/kernel/stream_history.h>
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace gr {
namespace gpuinterp {
namespace gpu {

namespace {

using kernel::dpd_cuda_variant;
using cf = std::complex<float>;

constexpr int MAX_M = 8;     // orders up to 15 (the front end's bound)
constexpr int THREADS = 256; // threads per block, both variants
constexpr unsigned FULL = 0xffffffffu;

//! What the kernels need besides the coefficient maps (passed by value: constant bank).
struct dev_model {
    int Lmax;
    int H;
    int taps[MAX_M];
    float cr, ci;
};

template <int M>
__device__ __forceinline__ void compute_basis(float2 v, float2 (&psi)[M])
{
    const float a2 = fmaf(v.x, v.x, v.y * v.y);
    psi[0] = v;
#pragma unroll
    for (int m = 1; m < M; m++)
        psi[m] = make_float2(psi[m - 1].x * a2, psi[m - 1].y * a2);
}

__device__ __forceinline__ void apply_map(float& re, float& im, float4 c, float pr, float pi)
{
    re = fmaf(c.x, pr, re);
    re = fmaf(c.y, pi, re);
    im = fmaf(c.z, pr, im);
    im = fmaf(c.w, pi, im);
}

__device__ __forceinline__ void load_coefficients(float4* dst, const float4* __restrict__ src, int count)
{
    for (int i = threadIdx.x; i < count; i += blockDim.x)
        dst[i] = src[i];
    __syncthreads();
}

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

//! Shared-memory-halo variant: tiles of T outputs; T + H basis values per order in shared memory.
//! R = 1: one output per thread. R > 1 (odd): a thread computes R consecutive outputs with a
//! sliding register window, so each (order, tap) costs one plane load and one map load for 4R
//! FMAs instead of 4 (the kernel becomes FMA-bound rather than shared-memory-bound for long
//! filters); odd R keeps the R-strided plane loads free of bank conflicts, and the outputs are
//! staged in shared memory so the global stores stay coalesced.
template <int M, int R>
__global__ void __launch_bounds__(THREADS)
    dpd_smem_kernel(const float2* __restrict__ x,
                    float2* __restrict__ y,
                    const float4* __restrict__ coef_g,
                    dev_model md,
                    long long n,
                    int T)
{
    extern __shared__ float4 coef[];
    const int W = T + md.H; // window per tile
    float2* bas = reinterpret_cast<float2*>(coef + M * md.Lmax); // M planes of W values
    float2* ys = bas + M * W;                                    // T staged outputs (R > 1)
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
#pragma unroll
            for (int r = 0; r < R; r++) {
                re[r] = md.cr;
                im[r] = md.ci;
            }
#pragma unroll
            for (int m = 0; m < M; m++) {
                const float4* c = coef + m * md.Lmax;
                const float2* b = bas + m * W + md.H + o0; // output o0 + r, tap k reads b[r - k]
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
                    for (int r = R - 1; r > 0; r--) // slide by one sample: w[r] = b[r - k - 1]
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

// ---- tiled: the smem design retuned for issue/latency (variants `tiled` and `tiled8`) ----
//
// Measured, smem (5,3,5) ran at 39 % of the memory floor and 5x off its FMA floor, so neither
// limit binds: the time goes to latency and instruction issue. The differences from smem:
//  - the tile is a compile-time NT*R outputs; each thread fetches its share of the *next* tile
//    (16-byte float4 loads, 2 samples each, all issued before any is used) while it computes
//    the current one, so a block keeps R/2 loads in flight per thread across the compute phase
//    instead of one load per trip of a serial loop;
//  - for the common filter lengths (L in 1..8 and 16, up to 5 orders) the tap loop is unrolled
//    at compile time: the sliding window becomes register renaming (no moves), and the
//    coefficients travel as a __grid_constant__ kernel parameter, which each launch copies (no
//    shared __constant__ symbol, so concurrent engines do not race) and the FMAs read straight
//    from the constant bank: no shared-memory load for the maps at all;
//  - two barriers per tile instead of three, 16-byte output stores.
// `tiled` uses R = 5 (odd: R-strided plane reads are conflict-free) with 256 threads; `tiled8`
// uses R = 8 with 128 threads, and pads the planes by one value per 8 so the 8-strided reads
// stay conflict-free (stride 9).
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
__device__ __forceinline__ void tiled_order(float (&re)[R], float (&im)[R], const float2* b, int j0, const float4* c, int L)
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

//! The tiled kernel's body. coef: the maps (kernel parameter when LT > 0, shared memory when
//! LT == 0), order m's at coef + m * stride. smem: the planes and the output staging.
template <int M, int R, int NT, int LT>
__device__ __forceinline__ void tiled_body(const float2* __restrict__ x,
                                           float2* __restrict__ y,
                                           const float4* coef,
                                           int stride,
                                           const dev_model& md,
                                           long long n,
                                           float2* smem)
{
    constexpr int T = NT * R;      // outputs per tile
    constexpr int Q = T / 2;       // float4 loads of a tile's first T window values
    constexpr int NF = (Q + NT - 1) / NT;
    static_assert(T % 2 == 0, "tiles hold whole float4 pairs");
    const int H = md.H;            // < NT (configure): one halo value per thread at most
    const int Wp = padded<R>(T + H);
    float2* bas = smem;            // M planes of Wp values
    float2* ys = bas + M * Wp;     // staged outputs, padded like the planes
    const long long total = n + H; // window values
    const long long n_tiles = (n + T - 1) / T;
    const int tid = threadIdx.x;

    float4 px[NF];
    float2 ph = make_float2(0.f, 0.f);
    // Window values [base, base + T) as float4 pairs (base is even: x + base stays 16-byte
    // aligned), then the H-value halo past them, one per thread.
    auto fetch = [&](long long tile) {
        const long long base = tile * T;
#pragma unroll
        for (int f = 0; f < NF; f++) {
            const int q = tid + f * NT;
            const long long i = base + 2 * (long long)q;
            px[f] = make_float4(0.f, 0.f, 0.f, 0.f);
            if (Q % NT == 0 || q < Q) {
                if (i + 1 < total) {
                    px[f] = *reinterpret_cast<const float4*>(x + i);
                } else if (i < total) {
                    const float2 v = x[i];
                    px[f].x = v.x;
                    px[f].y = v.y;
                }
            }
        }
        if (tid < H) {
            const long long i = base + T + tid;
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
#pragma unroll
            for (int r = 0; r < R; r++) {
                re[r] = md.cr;
                im[r] = md.ci;
            }
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
            if (2 * q + 1 < nt) {
                const float2 b = ys[pidx<R>(2 * q + 1)];
                // The intrinsic keeps it one 16-byte store (a plain float4 assignment was split into
                // two 8-byte stores in the PTX); streaming: the output is not read again.
                __stcs(reinterpret_cast<float4*>(y + base + 2 * q), make_float4(a.x, a.y, b.x, b.y));
            } else {
                y[base + 2 * q] = a;
            }
        }
    }
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
    tiled_body<M, R, NT, LT>(x, y, cp.c, LT, md, n, reinterpret_cast<float2*>(sm4));
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
    tiled_body<M, R, NT, 0>(x, y, sm4, md.Lmax, md, n, reinterpret_cast<float2*>(sm4 + M * md.Lmax));
}

//! (outputs per thread, threads per block) of the tiled variants.
constexpr int TILED_R = 5, TILED_NT = 256;
constexpr int TILED8_R = 8, TILED8_NT = 128;
//! Orders up to this many get the unrolled kernels (P, Q <= 9); more use the generic one.
constexpr int TILED_UNROLL_M = 5;

struct tiled_choice {
    const void* fn = nullptr;
    bool param = false; //!< maps as a kernel parameter (unrolled) or in shared memory (generic)
};

template <int M, int R, int NT>
tiled_choice tiled_pick(int Lmax)
{
    auto un = [](const void* f) { return tiled_choice{ f, true }; };
    if constexpr (M <= TILED_UNROLL_M) {
        switch (Lmax) {
        case 1: return un(reinterpret_cast<const void*>(dpd_tiled_kernel<M, R, NT, 1>));
        case 2: return un(reinterpret_cast<const void*>(dpd_tiled_kernel<M, R, NT, 2>));
        case 3: return un(reinterpret_cast<const void*>(dpd_tiled_kernel<M, R, NT, 3>));
        case 4: return un(reinterpret_cast<const void*>(dpd_tiled_kernel<M, R, NT, 4>));
        case 5: return un(reinterpret_cast<const void*>(dpd_tiled_kernel<M, R, NT, 5>));
        case 6: return un(reinterpret_cast<const void*>(dpd_tiled_kernel<M, R, NT, 6>));
        case 7: return un(reinterpret_cast<const void*>(dpd_tiled_kernel<M, R, NT, 7>));
        case 8: return un(reinterpret_cast<const void*>(dpd_tiled_kernel<M, R, NT, 8>));
        case 16: return un(reinterpret_cast<const void*>(dpd_tiled_kernel<M, R, NT, 16>));
        default: break;
        }
    }
    return tiled_choice{ reinterpret_cast<const void*>(dpd_tiled_generic_kernel<M, R, NT>), false };
}

template <int R, int NT>
tiled_choice tiled_for(int M, int Lmax)
{
    switch (M) {
    case 1: return tiled_pick<1, R, NT>(Lmax);
    case 2: return tiled_pick<2, R, NT>(Lmax);
    case 3: return tiled_pick<3, R, NT>(Lmax);
    case 4: return tiled_pick<4, R, NT>(Lmax);
    case 5: return tiled_pick<5, R, NT>(Lmax);
    case 6: return tiled_pick<6, R, NT>(Lmax);
    case 7: return tiled_pick<7, R, NT>(Lmax);
    case 8: return tiled_pick<8, R, NT>(Lmax);
    default: throw std::invalid_argument("P: orders above 15 are not supported by the CUDA backend");
    }
}

//! Outputs per thread of the register-blocked smem kernel (odd: bank-conflict-free plane loads).
constexpr int SMEM_R = 5;

using kernel_fn = const void*;

template <int M>
kernel_fn pick(dpd_cuda_variant v, int R)
{
    switch (v) {
    case dpd_cuda_variant::shuffle:
        return reinterpret_cast<kernel_fn>(dpd_shuffle_kernel<M>);
    case dpd_cuda_variant::shuffle_x:
        return reinterpret_cast<kernel_fn>(dpd_shuffle_x_kernel<M>);
    default:
        return R == 1 ? reinterpret_cast<kernel_fn>(dpd_smem_kernel<M, 1>)
                      : reinterpret_cast<kernel_fn>(dpd_smem_kernel<M, SMEM_R>);
    }
}

kernel_fn kernel_for(int M, dpd_cuda_variant v, int R)
{
    switch (M) {
    case 1: return pick<1>(v, R);
    case 2: return pick<2>(v, R);
    case 3: return pick<3>(v, R);
    case 4: return pick<4>(v, R);
    case 5: return pick<5>(v, R);
    case 6: return pick<6>(v, R);
    case 7: return pick<7>(v, R);
    case 8: return pick<8>(v, R);
    default: throw std::invalid_argument("P: orders above 15 are not supported by the CUDA backend");
    }
}

class cuda_dpd_engine final : public kernel::dpd_engine
{
public:
    cuda_dpd_engine(int device, size_t batch, bool mapped)
        : d_device(device), d_batch(batch), d_pipe(device, mapped) // staging mapped or not
    {
        device_guard guard(d_device);
        GPUINTERP_CUDA_CHECK(cudaDeviceGetAttribute(&d_sms, cudaDevAttrMultiProcessorCount, device));
        GPUINTERP_CUDA_CHECK(
            cudaDeviceGetAttribute(&d_smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
        if (mapped) {
            int can_map = 0;
            GPUINTERP_CUDA_CHECK(cudaDeviceGetAttribute(&can_map, cudaDevAttrCanMapHostMemory, device));
            if (!can_map)
                throw std::runtime_error("mapped: device " + std::to_string(device) +
                                         " cannot map host memory");
        }
    }

    void set_model(const kernel::dpd_packed& m) override
    {
        device_guard guard(d_device);
        if (int(m.M) > MAX_M)
            throw std::invalid_argument("P: orders above 15 are not supported by the CUDA backend");
        const bool first = d_coef.capacity() == 0;
        d_coef.reserve(m.abcd.size() / 4);
        // Synchronous copy: process() drains both slots before it returns, so no kernel reads it now.
        GPUINTERP_CUDA_CHECK(cudaMemcpy(d_coef.get(), m.abcd.data(), m.abcd.size() * sizeof(float),
                                        cudaMemcpyHostToDevice));
        d_hcoef = m.abcd;
        d_md.Lmax = int(m.Lmax);
        d_md.H = int(m.H);
        for (int i = 0; i < MAX_M; i++)
            d_md.taps[i] = i < int(m.M) ? int(m.taps[i]) : 0;
        d_md.cr = m.cr;
        d_md.ci = m.ci;
        d_M = int(m.M);
        if (first) {
            d_hist.resize(m.H);
            configure();
        }
    }

    void set_variant(dpd_cuda_variant v) override
    {
        d_requested = v;
        if (d_coef.capacity())
            configure();
    }

    dpd_cuda_variant variant() const { return d_variant; }

    // Device-buffer entry point: device pointers, history kept on the device (device_history.cuh);
    // ends with a synchronise of this engine's stream only.
    void process_device(cf* out, const cf* in, size_t n) override
    {
        device_guard guard(d_device);
        const size_t H = d_hist.size();
        cudaStream_t st = d_pipe.stream0();
        float2* y = reinterpret_cast<float2*>(out);
        d_dev_hist.run(d_hist, reinterpret_cast<const float2*>(in), n, st,
                       [&](const float2* x, size_t first, size_t count) { launch(x - H, y + first, count, st); });
        GPUINTERP_CUDA_CHECK(cudaStreamSynchronize(st));
    }

    void process(cf* out, const cf* in, size_t n) override
    {
        device_guard guard(d_device);
        d_dev_hist.pull(d_hist);
        const size_t H = d_hist.size();
        d_pipe.run(reinterpret_cast<float2*>(out), n, d_batch, { H, 1, 1 },
                   [&](float2* pinned, size_t pos, size_t cnt) {
                       // The H samples before `pos` (history or input), then the chunk, copied by threads.
                       cf* staged = reinterpret_cast<cf*>(pinned);
                       d_hist.window(staged, in, pos, 0);
                       cpu::parallel_copy(staged + H, in + pos, cnt * sizeof(cf));
                   },
                   [&](const float2* x, float2* y, size_t cnt, cudaStream_t st) { launch(x, y, cnt, st); });
        d_hist.advance(in, n);
    }

    void reset() override
    {
        d_hist.clear();
        d_dev_hist.invalidate();
    }
    void set_batch(size_t b) override { d_batch = b; }

    //! Device-resident timing: the kernel alone over n samples, median of iters launches.
    double time_kernel_ms(size_t n, int iters)
    {
        device_guard guard(d_device);
        const size_t H = d_hist.size();
        device_buffer<float2> x(n + H), y(n);
        std::vector<cf> hx(n + H);
        for (size_t i = 0; i < hx.size(); i++) // |x| <= ~0.7, deterministic
            hx[i] = cf(float((i * 2654435761u) % 1000) * 1e-3f - 0.5f, float((i * 40503u) % 997) * 1e-3f - 0.5f);
        GPUINTERP_CUDA_CHECK(cudaMemcpy(x.get(), hx.data(), hx.size() * sizeof(float2), cudaMemcpyHostToDevice));
        cudaStream_t st = d_pipe.stream0();
        return median_launch_ms(st, iters, [&] { launch(x.get(), y.get(), n, st); });
    }

private:
    //! Resolve the variant, size the tile and the grid for the current structure.
    //! The members one configuration sets (see configure()).
    struct launch_cfg {
        kernel_fn kernel;
        size_t smem;
        int tile, threads, R, max_blocks;
        bool param;
        dpd_cuda_variant variant;
    };
    launch_cfg snapshot() const
    {
        return { d_kernel, d_smem, d_tile, d_threads, d_R, d_max_blocks, d_param, d_variant };
    }
    void restore(const launch_cfg& c)
    {
        d_kernel = c.kernel;
        d_smem = c.smem;
        d_tile = c.tile;
        d_threads = c.threads;
        d_R = c.R;
        d_max_blocks = c.max_blocks;
        d_param = c.param;
        d_variant = c.variant;
    }

    void configure()
    {
        configure_variant(d_requested);
        // The tiled kernels move float4 pairs and need 16-byte aligned x and y; device-buffer
        // calls (process_device) hand over GNU Radio buffer pointers at any 8-byte offset, so a
        // smem configuration is kept ready for those.
        const launch_cfg primary = snapshot();
        if (primary.variant == dpd_cuda_variant::tiled || primary.variant == dpd_cuda_variant::tiled8) {
            configure_variant(dpd_cuda_variant::smem);
            d_fallback = snapshot();
            restore(primary);
        }
    }

    void configure_variant(dpd_cuda_variant requested)
    {
        const int H = d_md.H, Lmax = d_md.Lmax;
        dpd_cuda_variant v = requested;
        if (v == dpd_cuda_variant::automatic) // measured fastest at every row (docs/performance.md)
            v = dpd_cuda_variant::tiled;
        const bool warp_layout = v == dpd_cuda_variant::shuffle || v == dpd_cuda_variant::shuffle_x;
        if (warp_layout && H > 31) // a warp cannot cover more than 32 taps
            v = dpd_cuda_variant::smem;
        const size_t coef_bytes = size_t(d_M) * Lmax * sizeof(float4);
        size_t smem = coef_bytes;
        d_tile = 0;
        d_R = 1;
        d_threads = THREADS;
        d_param = false;
        if (v == dpd_cuda_variant::tiled || v == dpd_cuda_variant::tiled8) {
            const bool eight = v == dpd_cuda_variant::tiled8;
            const int R = eight ? TILED8_R : TILED_R, NT = eight ? TILED8_NT : TILED_NT;
            const tiled_choice tc = eight ? tiled_for<TILED8_R, TILED8_NT>(d_M, Lmax)
                                          : tiled_for<TILED_R, TILED_NT>(d_M, Lmax);
            const int T = R * NT;
            auto pad = [&](int c) { return (R & 1) ? c : c + (c - 1) / R + 1; }; // padded<R>
            const size_t need = (tc.param ? 0 : coef_bytes) +
                                (size_t(d_M) * pad(T + H) + size_t(pad(T))) * sizeof(float2);
            // One halo value per thread; longer filters (or no room) take the smem kernel.
            if (H < NT && need <= size_t(d_smem_optin)) {
                d_variant = v;
                d_kernel = tc.fn;
                d_param = tc.param;
                d_tile = T;
                d_threads = NT;
                d_smem = need;
                finish_configure();
                return;
            }
            v = dpd_cuda_variant::smem;
        }
        if (v == dpd_cuda_variant::smem) {
            // Register blocking pays where the taps dominate (L > 4); with R = 1 a tile needs no
            // staging. Tiles hold at least 4 outputs per halo sample so the halo's extra basis work
            // stays <= 25%, fewer when shared memory runs out; R = 1 is the last resort.
            auto need = [&](int t, int r) {
                return coef_bytes + size_t(d_M) * (t + H) * sizeof(float2) + (r > 1 ? size_t(t) * sizeof(float2) : 0);
            };
            int T = 0;
            for (int r : { Lmax > 4 ? SMEM_R : 1, 1 }) {
                const int unit = THREADS * r;
                T = unit * std::max(1, (4 * H + unit - 1) / unit);
                while (T > unit && need(T, r) > size_t(d_smem_optin))
                    T -= unit;
                d_R = r;
                if (need(T, r) <= size_t(d_smem_optin))
                    break;
            }
            if (need(T, d_R) > size_t(d_smem_optin))
                throw std::invalid_argument("Lp: " + std::to_string(Lmax) + " taps with " + std::to_string(d_M) +
                                            " orders exceed the device's shared memory");
            d_tile = T;
            smem = need(T, d_R);
        }
        d_variant = v;
        d_kernel = kernel_for(d_M, v, d_R);
        d_smem = smem;
        finish_configure();
    }

    void finish_configure()
    {
        // Per-kernel attribute shared by all engines: the device limit, so no engine lowers it
        // under another's need (see polyphase_interpolator.cu).
        GPUINTERP_CUDA_CHECK(cudaFuncSetAttribute(d_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, d_smem_optin));
        int per_sm = 0;
        GPUINTERP_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, d_kernel, d_threads, d_smem));
        d_max_blocks = std::max(1, per_sm) * d_sms;
    }

    void launch(const float2* x, float2* y, size_t n, cudaStream_t st)
    {
        const long long nn = (long long)n;
        const float4* co = d_coef.get();
        long long blocks;
        const bool tiled = d_variant == dpd_cuda_variant::tiled || d_variant == dpd_cuda_variant::tiled8;
        const bool warp_layout = d_variant == dpd_cuda_variant::shuffle || d_variant == dpd_cuda_variant::shuffle_x;
        if (tiled) {
            // The kernel moves samples as float4 pairs from x + even offsets; misaligned
            // (device-buffer) pointers take the smem configuration prepared in configure().
            if ((reinterpret_cast<uintptr_t>(x) | reinterpret_cast<uintptr_t>(y)) & 15) {
                const launch_cfg primary = snapshot();
                restore(d_fallback);
                launch(x, y, n, st);
                restore(primary);
                return;
            }
            blocks = (nn + d_tile - 1) / d_tile;
            const int grid = int(std::min<long long>(blocks, d_max_blocks));
            // Unrolled kernels take the maps by value (the launch copies d_hcoef, so later
            // set_model calls cannot reach a kernel in flight); the generic one from the device.
            void* args[] = { &x, &y, d_param ? static_cast<void*>(d_hcoef.data()) : static_cast<void*>(&co), &d_md,
                             const_cast<long long*>(&nn) };
            GPUINTERP_CUDA_CHECK(cudaLaunchKernel(d_kernel, dim3(grid), dim3(d_threads), args, d_smem, st));
            GPUINTERP_CUDA_CHECK_LAUNCH(st);
            return;
        }
        if (warp_layout) {
            const long long per_warp = 32 - d_md.H;
            blocks = ((nn + per_warp - 1) / per_warp + THREADS / 32 - 1) / (THREADS / 32);
        } else {
            blocks = (nn + d_tile - 1) / d_tile;
        }
        const int grid = int(std::min<long long>(blocks, d_max_blocks));
        void* args_shuffle[] = { &x, &y, &co, &d_md, const_cast<long long*>(&nn) };
        int T = d_tile;
        void* args_smem[] = { &x, &y, &co, &d_md, const_cast<long long*>(&nn), &T };
        GPUINTERP_CUDA_CHECK(cudaLaunchKernel(d_kernel, dim3(grid), dim3(THREADS),
                                              warp_layout ? args_shuffle : args_smem,
                                              d_smem, st));
        GPUINTERP_CUDA_CHECK_LAUNCH(st);
    }

    int d_device;
    size_t d_batch;
    int d_sms = 1, d_smem_optin = 48 * 1024, d_max_blocks = 1;
    int d_M = 1, d_tile = 0, d_R = 1, d_threads = THREADS;
    bool d_param = false;           //!< tiled, unrolled: maps passed as a kernel parameter
    launch_cfg d_fallback{};        //!< smem configuration for misaligned pointers (tiled only)
    std::vector<float> d_hcoef;     //!< host copy of the maps for that parameter
    size_t d_smem = 0;
    dev_model d_md{};
    dpd_cuda_variant d_requested = dpd_cuda_variant::automatic;
    dpd_cuda_variant d_variant = dpd_cuda_variant::smem;
    kernel_fn d_kernel = nullptr;
    device_buffer<float4> d_coef;
    kernel::stream_history<cf> d_hist;
    device_history<float2, cf> d_dev_hist; // device-buffer mode
    // Last member, so destroyed first: its destructor waits for both streams before the members
    // above free memory that queued work may still use.
    host_pipeline<float2, float2> d_pipe;
};

} // namespace

std::unique_ptr<kernel::dpd_engine> make_cuda_dpd_engine(int device, size_t batch, bool mapped)
{
    return std::make_unique<cuda_dpd_engine>(device, batch, mapped);
}

double time_dpd_kernel_ms(int device,
                          const kernel::dpd_packed& model,
                          size_t n,
                          int iters,
                          dpd_cuda_variant variant,
                          dpd_cuda_variant* used)
{
    cuda_dpd_engine e(device, 1, false);
    e.set_variant(variant);
    e.set_model(model);
    if (used)
        *used = e.variant();
    return e.time_kernel_ms(n, iters);
}

} // namespace gpu
} // namespace gpuinterp
} // namespace gr
