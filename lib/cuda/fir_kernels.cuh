/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_GPU_FIR_KERNELS_CUH
#define INCLUDED_GPUINTERP_GPU_FIR_KERNELS_CUH

// The polyphase interpolation kernels (polyphase_interpolator.cu describes them) and their
// launches. In an anonymous namespace: each .cu file that includes this instantiates its own.
// polyphase_interpolator.cu instantiates the complex float and float inputs, fir_sc16_in.cu the
// sc16 ones, so adding the latter leaves the former's translation unit, and so its machine code,
// as it was. The kernels and their plan (plan_fir_shape()) take the build constants as a
// template parameter (fir_shape); the library instantiates fir_build's only.

#include "../common/sc16.h"
#include "channel_pointers.cuh"
#include "complex_ops.cuh"
#include "cuda_common.cuh"
#include "fir_launch.h"
#include "fir_tuning.h"
#include <type_traits>
#include <algorithm>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpuinterp {
namespace gpu {

namespace {

// The build constants of one instantiation of the kernels: R outputs of one arm per work item,
// THREADS threads per block. The library compiles fir_build's (fir_build_shape); the template
// parameter lets the benchmarks' lab (bench/fir_lab.cu) compile the same kernels and plan with
// other values.
template <int R_, int THREADS_>
struct fir_shape {
    static constexpr int R = R_;
    static constexpr int THREADS = THREADS_;
};
using fir_build_shape = fir_shape<fir_build.outputs_per_item, fir_build.threads>;

template <typename T, typename TAP, int R>
__host__ __device__ inline size_t smem_bytes(const tile_geometry& g)
{
    size_t b = 0;
    if (g.taps_smem)
        b += size_t(g.L) * g.M * sizeof(TAP);
    b = (b + 15) & ~size_t(15);
    b += size_t(R + g.TI + g.M - 1 + R) * sizeof(T); // front pad R, window, tail pad R
    b = (b + 15) & ~size_t(15);
    if (g.stage)
        b += size_t(g.TI) * g.L * sizeof(T);
    return b;
}

// Taps k0 .. k0+R-1 of arm p for the R outputs of a work item: the R window values below
// base go to win[0..R) (win[R..2R) holds those from base up), then the R x R
// multiply-accumulates. TAIL is the last, partial block, which skips taps from M on.
// Force-inlined, so acc and win stay in registers.
template <bool TAIL, int R, typename T, typename TAP>
__device__ __forceinline__ void tap_block(T (&acc)[R],
                                          T (&win)[2 * R],
                                          const T* xs,
                                          const TAP* taps,
                                          int base,
                                          int k0,
                                          int M,
                                          int L,
                                          int p)
{
#pragma unroll
    for (int i = 0; i < R; i++)
        win[i] = xs[base - R + i];
#pragma unroll
    for (int j = 0; j < R; j++) {
        if (!TAIL || k0 + j < M) {
            const TAP h = taps[size_t(k0 + j) * L + p];
#pragma unroll
            for (int r = 0; r < R; r++)
                mac(acc[r], h, win[R - j + r]);
        }
    }
}

// Where the kernel's outputs go. Plain: T as computed, the staged tile written back with 16-byte
// stores where it is aligned.
template <typename T>
struct fir_store {
    T* __restrict__ y;
    __device__ __forceinline__ void put(size_t i, T v) { y[i] = v; }
    __device__ __forceinline__ void tile(size_t first, const T* ys, int n_out)
    {
        T* yt = y + first;
        // 16-byte stores where the tile starts 16-byte aligned (ys is 16-byte aligned).
        constexpr int V = 16 / sizeof(T);
        int done = 0;
        if ((reinterpret_cast<size_t>(yt) & 15) == 0) {
            const int nv = n_out / V;
            float4* yv = reinterpret_cast<float4*>(yt);
            const float4* sv = reinterpret_cast<const float4*>(ys);
            for (int i = threadIdx.x; i < nv; i += blockDim.x)
                yv[i] = sv[i];
            done = nv * V;
        }
        for (int i = done + threadIdx.x; i < n_out; i += blockDim.x)
            yt[i] = ys[i];
    }
    __device__ __forceinline__ void finish() {}
    __device__ __forceinline__ fir_store for_channel(void* yc, unsigned) const
    {
        return { static_cast<T*>(yc) };
    }
};

// sc16 (kernel/sample_format.h): each output converted as it is stored; a thread adds its counts
// of saturated and invalid samples to counts[0] / counts[1] once, at the end (they are rare, so
// the atomics are too).
struct fir_store_sc16 {
    short2* __restrict__ y;
    float scale;
    unsigned long long* counts;
    unsigned sat = 0, bad = 0;
    __device__ __forceinline__ void put(size_t i, float2 v)
    {
        y[i] = sc16_convert(v, scale, sat, bad);
    }
    __device__ __forceinline__ void tile(size_t first, const float2* ys, int n_out)
    {
        for (int i = threadIdx.x; i < n_out; i += blockDim.x)
            put(first + i, ys[i]);
    }
    __device__ __forceinline__ void finish()
    {
        if (sat)
            atomicAdd(counts, (unsigned long long)sat);
        if (bad)
            atomicAdd(counts + 1, (unsigned long long)bad);
    }
    //! Channel c counts at counts[2c], counts[2c + 1].
    __device__ __forceinline__ fir_store_sc16 for_channel(void* yc, unsigned c) const
    {
        return { static_cast<short2*>(yc), scale, counts + 2 * c };
    }
};

// The kernel body of one channel (the kernels below run one channel per gridDim.y); force-inlined,
// so each kernel compiles to what it would as one function. X: the stored input, T or (complex
// samples) short2, expanded times in_scale in the window load.
template <int R,
          typename T,
          typename TAP,
          bool TAPS_SMEM,
          bool STAGE,
          typename Store,
          typename X>
__device__ __forceinline__ void
interp_body(const X* __restrict__ x, // n_in + M - 1 values: history, then the chunk
            Store& out,              // n_in * L outputs
            const TAP* __restrict__ taps_g, // M*L padded taps, tap (p,k) at k*L + p
            int n_in,
            const tile_geometry& g,
            float in_scale = 1.f)
{
    extern __shared__ __align__(16) unsigned char smem[];
    const int L = g.L, M = g.M, TI = g.TI;
    TAP* taps_s = reinterpret_cast<TAP*>(smem);
    size_t off = TAPS_SMEM ? ((size_t(L) * M * sizeof(TAP) + 15) & ~size_t(15)) : 0;
    T* xs = reinterpret_cast<T*>(smem + off) + R; // xs[-R .. TI+M-1+R)
    off += (size_t(R + TI + M - 1 + R) * sizeof(T) + 15) & ~size_t(15);
    T* ys = reinterpret_cast<T*>(smem + off);

    if (TAPS_SMEM) {
        for (int i = threadIdx.x; i < L * M; i += blockDim.x)
            taps_s[i] = taps_g[i];
    }
    const TAP* taps = TAPS_SMEM ? taps_s : taps_g;
    const int n_tiles = (n_in + TI - 1) / TI;

    for (int tile = blockIdx.x; tile < n_tiles; tile += gridDim.x) {
        const int n0 = tile * TI;
        const int nt = min(TI, n_in - n0);
        __syncthreads(); // previous tile's window and staging are no longer read
        for (int i = threadIdx.x - R; i < TI + M - 1 + R; i += blockDim.x) {
            if constexpr (std::is_same_v<X, T>)
                xs[i] = (i >= 0 && i < nt + M - 1) ? x[size_t(n0) + i] : zero<T>();
            else
                xs[i] = (i >= 0 && i < nt + M - 1)
                            ? sc16_expand(x[size_t(n0) + i], in_scale)
                            : zero<T>();
        }
        __syncthreads();

        const int groups = (nt + R - 1) / R;
        for (int item = threadIdx.x; item < groups * L; item += blockDim.x) {
            const int p = item % L;
            const int nl = (item / L) * R;
            T acc[R];
            T win[2 * R]; // win[i] = xs[base - R + i], base = nl + M - 1 - k0
#pragma unroll
            for (int r = 0; r < R; r++) {
                acc[r] = zero<T>();
                win[R + r] = xs[nl + M - 1 + r];
            }
            int k0 = 0;
            for (; k0 + R <= M; k0 += R) {
                tap_block<false>(acc, win, xs, taps, nl + M - 1 - k0, k0, M, L, p);
#pragma unroll
                for (int i = 0; i < R; i++)
                    win[R + i] = win[i];
            }
            if (k0 < M) // tail: fewer than R taps left
                tap_block<true>(acc, win, xs, taps, nl + M - 1 - k0, k0, M, L, p);
#pragma unroll
            for (int r = 0; r < R; r++) {
                if (nl + r < nt) {
                    if (STAGE)
                        ys[(nl + r) * L + p] = acc[r];
                    else
                        out.put((size_t(n0) + nl + r) * L + p, acc[r]);
                }
            }
        }
        if (STAGE) {
            __syncthreads();
            out.tile(size_t(n0) * L, ys, nt * L);
        }
    }
    out.finish();
}

// Every channel in one launch: block (bx, c) walks channel c's tiles with a stride of gridDim.x,
// reading p.x[c] (its window: history, then the chunk) and writing p.y[c]. The taps are shared.
template <typename Shape,
          typename T,
          typename TAP,
          bool TAPS_SMEM,
          bool STAGE,
          typename Store>
__global__ void __launch_bounds__(Shape::THREADS)
    interp_channels_kernel(const __grid_constant__ channel_pointers p,
                           Store proto, // the store of every channel, its pointer unset
                           const TAP* __restrict__ taps_g,
                           int n_in,
                           tile_geometry g)
{
    const unsigned c = blockIdx.y;
    Store out = proto.for_channel(p.y[c], c);
    interp_body<Shape::R, T, TAP, TAPS_SMEM, STAGE>(
        static_cast<const T*>(p.x[c]), out, taps_g, n_in, g);
}

template <typename Shape, typename TAP, bool TAPS_SMEM, bool STAGE, typename Store>
__global__ void __launch_bounds__(Shape::THREADS)
    interp_channels_kernel_sc16_in(const __grid_constant__ channel_pointers p,
                                   Store proto,
                                   const TAP* __restrict__ taps_g,
                                   int n_in,
                                   tile_geometry g,
                                   float in_scale)
{
    const unsigned c = blockIdx.y;
    Store out = proto.for_channel(p.y[c], c);
    interp_body<Shape::R, float2, TAP, TAPS_SMEM, STAGE>(
        static_cast<const short2*>(p.x[c]), out, taps_g, n_in, g, in_scale);
}

// The instance of a kernel for g's flags: instance(taps_smem, stage), each a bool_constant.
template <typename Instance>
auto pick(const tile_geometry& g, Instance&& instance)
{
    using yes = std::true_type;
    using no = std::false_type;
    if (g.taps_smem)
        return g.stage ? instance(yes{}, yes{}) : instance(yes{}, no{});
    return g.stage ? instance(no{}, yes{}) : instance(no{}, no{});
}

// X: the stored input (T, or short2 for sc16 input); Shape: the build constants (fir_shape).
template <typename X,
          typename T,
          typename TAP,
          typename Store = fir_store<T>,
          typename Shape = fir_build_shape>
auto pick_kernel(const tile_geometry& g)
{
    return pick(g, [](auto smem, auto stage) {
        constexpr bool S = decltype(smem)::value, G = decltype(stage)::value;
        constexpr bool sc16_in = !std::is_same_v<X, T>;
        if constexpr (sc16_in)
            return interp_channels_kernel_sc16_in<Shape, TAP, S, G, Store>;
        else
            return interp_channels_kernel<Shape, T, TAP, S, G, Store>;
    });
}

// The attribute belongs to the kernel, shared by every engine in the process: set it to the
// device limit (it only permits), so an engine with fewer taps cannot lower it under another.
template <typename Kernel>
void allow_smem(Kernel k, int optin)
{
    GPUINTERP_CUDA_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(k),
                                              cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              optin));
}

// The plan of Shape's kernels for L arms of M taps with the tuning row t (plan_fir() is
// fir_build_shape's): allow(g, optin) permits the shared memory of every kernel the caller may
// launch with the geometry g; the grid cap is the plain-store kernel's occupancy.
template <typename Shape, typename T, typename TAP, typename Allow>
fir_plan
plan_fir_shape(int device, unsigned L, size_t M, const fir_tuning& t, Allow&& allow)
{
    constexpr int R = Shape::R, THREADS = Shape::THREADS;
    device_guard guard(device);
    int sms = 1, optin = 48 * 1024;
    GPUINTERP_CUDA_CHECK(
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    GPUINTERP_CUDA_CHECK(
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    tile_geometry g{};
    g.L = int(L);
    g.M = int(M);
    // items_per_thread work items per thread and tile (at least one group of R inputs).
    const int groups = std::max(1, (t.items_per_thread * THREADS + int(L) - 1) / int(L));
    g.TI = groups * R;
    g.stage = int(L) < t.stage_below_arms;
    g.taps_smem = true;
    if (smem_bytes<T, TAP, R>(g) > size_t(optin))
        g.taps_smem = false;
    if (smem_bytes<T, TAP, R>(g) > size_t(optin))
        g.stage = false;
    if (smem_bytes<T, TAP, R>(g) > size_t(optin))
        throw std::invalid_argument("taps: " + std::to_string(M) +
                                    " taps per arm exceed the device's shared memory");
    allow(g, optin);
    fir_plan pl;
    pl.g = g;
    pl.smem = smem_bytes<T, TAP, R>(g);
    int per_sm = 0;
    GPUINTERP_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, pick_kernel<T, T, TAP, fir_store<T>, Shape>(g), THREADS, pl.smem));
    pl.max_blocks = std::max(1, per_sm) * sms;
    return pl;
}

// The launch of every channel: p holds each channel's window (history, then c.n inputs) and
// outputs, `proto` is the store of each; c.plan is Shape's (plan_fir_shape()).
template <typename X,
          typename T,
          typename TAP,
          typename Shape = fir_build_shape,
          typename Store>
void launch_channels(const fir_call<TAP>& c,
                     const channel_pointers& p,
                     unsigned channels,
                     const Store& proto)
{
    const fir_plan& pl = c.plan;
    const dim3 grid = channels_grid(c.n, pl.g.TI, pl.max_blocks, channels);
    const auto k = pick_kernel<X, T, TAP, Store, Shape>(pl.g);
    if constexpr (std::is_same_v<X, T>)
        k<<<grid, Shape::THREADS, pl.smem, c.st>>>(p, proto, c.taps, c.n, pl.g);
    else
        k<<<grid, Shape::THREADS, pl.smem, c.st>>>(
            p, proto, c.taps, c.n, pl.g, c.formats.in_scale);
    GPUINTERP_CUDA_CHECK_LAUNCH(c.st);
}

// f's store for T (fir_store, or with f.counts fir_store_sc16) writing y, handed to go(store).
template <typename T, typename Go>
void with_store(void* y, const fir_formats& f, Go&& go)
{
    if constexpr (std::is_same_v<T, float2>) {
        if (f.counts)
            return go(fir_store_sc16{ static_cast<short2*>(y), f.scale, f.counts });
    }
    go(fir_store<T>{ static_cast<T*>(y) });
}

} // namespace

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
