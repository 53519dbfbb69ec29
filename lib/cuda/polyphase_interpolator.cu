/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CUDA backend of the polyphase interpolator.
//
// Kernel: a persistent grid walks tiles of TI input samples. Per tile, a block loads its input
// window (TI + M - 1 samples, history included) into shared memory once; the padded taps stay in
// shared memory for the block's lifetime (or are read through the read-only cache when they do not
// fit). A work item is one arm p and R consecutive inputs, so a thread computes R outputs of one arm:
// each tap is loaded once for R multiply-accumulates and the input window slides through registers
// (2R values, refreshed R at a time), which keeps shared-memory traffic at ~2 loads per R MACs.
// R is odd so the R-strided window loads of neighbouring items hit distinct banks. No
// multiplication by a stuffed zero happens anywhere. For L < 32, a warp's outputs are scattered
// (stride R*L), so they are staged in shared memory and written back as one contiguous, coalesced
// tile; for L >= 32 a warp already writes 32 consecutive outputs and writes directly.
//
// Host pipeline: the two-slot pinned pipeline of host_pipeline.cuh, where the threaded copy of
// the (L times larger) output matters most. Each chunk's history (M-1 inputs) is taken from the
// host side of the stream and sent with the chunk, which keeps the two streams independent (no
// cross-stream events) at the price of M-1 extra input samples per chunk.
#include "../common/sc16.h"
#include "channel_pointers.cuh"
#include "complex_ops.cuh"
#include "cuda_common.cuh"
#include "cuda_engines.h"
#include "device_history.cuh"
#include "fir_launch.h"
#include "fir_tuning.h"
#include "host_pipeline.cuh"
#include "sc16_counters.cuh"
#include <gnuradio/gpuinterp/kernel/stream_history.h>
#include <algorithm>
#include <cstring>

namespace gr {
namespace gpuinterp {
namespace gpu {

namespace {

constexpr int R = fir_build.outputs_per_item; // outputs per work item
constexpr int THREADS = fir_build.threads;    // threads per block

template <typename T, typename TAP>
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
template <bool TAIL, typename T, typename TAP>
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

// The kernel body, shared by the single-channel kernel and the channel kernel (gridDim.y =
// channel); force-inlined, so each kernel compiles to what it would as one function.
template <typename T, typename TAP, bool TAPS_SMEM, bool STAGE, typename Store>
__device__ __forceinline__ void
interp_body(const T* __restrict__ x, // n_in + M - 1 values: history, then the chunk
            Store& out,              // n_in * L outputs
            const TAP* __restrict__ taps_g, // M*L padded taps, tap (p,k) at k*L + p
            int n_in,
            const tile_geometry& g)
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
        for (int i = threadIdx.x - R; i < TI + M - 1 + R; i += blockDim.x)
            xs[i] = (i >= 0 && i < nt + M - 1) ? x[size_t(n0) + i] : zero<T>();
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

template <typename T,
          typename TAP,
          bool TAPS_SMEM,
          bool STAGE,
          typename Store = fir_store<T>>
__global__ void __launch_bounds__(THREADS)
    interp_kernel(const T* __restrict__ x, // n_in + M - 1 values: history, then the chunk
                  Store out,               // n_in * L outputs
                  const TAP* __restrict__ taps_g, // M*L padded taps, tap (p,k) at k*L + p
                  int n_in,
                  tile_geometry g)
{
    interp_body<T, TAP, TAPS_SMEM, STAGE>(x, out, taps_g, n_in, g);
}

// Every channel in one launch: block (bx, c) walks channel c's tiles with a stride of gridDim.x,
// reading p.x[c] (its window: history, then the chunk) and writing p.y[c]. The taps are shared.
template <typename T, typename TAP, bool TAPS_SMEM, bool STAGE, typename Store>
__global__ void __launch_bounds__(THREADS)
    interp_channels_kernel(const __grid_constant__ channel_pointers p,
                           Store proto, // the store of every channel, its pointer unset
                           const TAP* __restrict__ taps_g,
                           int n_in,
                           tile_geometry g)
{
    const unsigned c = blockIdx.y;
    Store out = proto.for_channel(p.y[c], c);
    interp_body<T, TAP, TAPS_SMEM, STAGE>(
        static_cast<const T*>(p.x[c]), out, taps_g, n_in, g);
}

template <typename T, typename TAP, typename Store = fir_store<T>>
auto pick_kernel(const tile_geometry& g)
{
    if (g.taps_smem)
        return g.stage ? interp_kernel<T, TAP, true, true, Store>
                       : interp_kernel<T, TAP, true, false, Store>;
    return g.stage ? interp_kernel<T, TAP, false, true, Store>
                   : interp_kernel<T, TAP, false, false, Store>;
}

} // namespace

template <typename T, typename TAP>
fir_plan plan_fir(int device, unsigned L, size_t M)
{
    device_guard guard(device);
    int sms = 1, optin = 48 * 1024;
    GPUINTERP_CUDA_CHECK(
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    GPUINTERP_CUDA_CHECK(
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    const fir_tuning& t = fir_tuning_for(compute_capability(device));
    tile_geometry g{};
    g.L = int(L);
    g.M = int(M);
    // items_per_thread work items per thread and tile (at least one group of R inputs).
    const int groups = std::max(1, (t.items_per_thread * THREADS + int(L) - 1) / int(L));
    g.TI = groups * R;
    g.stage = int(L) < t.stage_below_arms;
    g.taps_smem = true;
    if (smem_bytes<T, TAP>(g) > size_t(optin))
        g.taps_smem = false;
    if (smem_bytes<T, TAP>(g) > size_t(optin))
        g.stage = false;
    if (smem_bytes<T, TAP>(g) > size_t(optin))
        throw std::invalid_argument("taps: " + std::to_string(M) +
                                    " taps per arm exceed the device's shared memory");
    const auto k = pick_kernel<T, TAP>(g);
    if constexpr (std::is_same_v<T, float2>)
        GPUINTERP_CUDA_CHECK(cudaFuncSetAttribute(
            reinterpret_cast<const void*>(pick_kernel<T, TAP, fir_store_sc16>(g)),
            cudaFuncAttributeMaxDynamicSharedMemorySize,
            optin));
    fir_plan pl;
    pl.g = g;
    pl.smem = smem_bytes<T, TAP>(g);
    // The attribute belongs to the kernel, shared by every engine in the process: set it to the
    // device limit (it only permits), so an engine with fewer taps cannot lower it under another.
    GPUINTERP_CUDA_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(k),
                                              cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              optin));
    int per_sm = 0;
    GPUINTERP_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, THREADS, pl.smem));
    pl.max_blocks = std::max(1, per_sm) * sms;
    return pl;
}

template <typename T, typename TAP>
void launch_fir(
    const fir_plan& pl, const T* x, T* y, const TAP* taps, int n, cudaStream_t st)
{
    const tile_geometry& g = pl.g;
    const int tiles = (n + g.TI - 1) / g.TI;
    const int blocks = std::min(tiles, pl.max_blocks);
    pick_kernel<T, TAP>(g)<<<blocks, THREADS, pl.smem, st>>>(
        x, fir_store<T>{ y }, taps, n, g);
    GPUINTERP_CUDA_CHECK_LAUNCH(st);
}

//! sc16 out (complex samples only): y holds n * L converted outputs; counts: device counters.
template <typename TAP>
void launch_fir_sc16(const fir_plan& pl,
                     const float2* x,
                     short2* y,
                     const TAP* taps,
                     int n,
                     float scale,
                     unsigned long long* counts,
                     cudaStream_t st)
{
    const tile_geometry& g = pl.g;
    const int tiles = (n + g.TI - 1) / g.TI;
    const int blocks = std::min(tiles, pl.max_blocks);
    pick_kernel<float2, TAP, fir_store_sc16>(g)<<<blocks, THREADS, pl.smem, st>>>(
        x, fir_store_sc16{ y, scale, counts }, taps, n, g);
    GPUINTERP_CUDA_CHECK_LAUNCH(st);
}

namespace {

template <typename T, typename TAP, typename Store>
auto pick_channels_kernel(const tile_geometry& g)
{
    if (g.taps_smem)
        return g.stage ? interp_channels_kernel<T, TAP, true, true, Store>
                       : interp_channels_kernel<T, TAP, true, false, Store>;
    return g.stage ? interp_channels_kernel<T, TAP, false, true, Store>
                   : interp_channels_kernel<T, TAP, false, false, Store>;
}

template <typename T, typename TAP, typename Store>
void launch_channels(const fir_plan& pl,
                     const channel_pointers& p,
                     unsigned channels,
                     const Store& proto,
                     const TAP* taps,
                     int n,
                     cudaStream_t st)
{
    const tile_geometry& g = pl.g;
    const dim3 grid = channels_grid(n, g.TI, pl.max_blocks, channels);
    pick_channels_kernel<T, TAP, Store>(g)<<<grid, THREADS, pl.smem, st>>>(
        p, proto, taps, n, g);
    GPUINTERP_CUDA_CHECK_LAUNCH(st);
}

template <typename Store, typename T, typename TAP>
void allow_smem(const tile_geometry& g, int optin)
{
    GPUINTERP_CUDA_CHECK(cudaFuncSetAttribute(
        reinterpret_cast<const void*>(pick_channels_kernel<T, TAP, Store>(g)),
        cudaFuncAttributeMaxDynamicSharedMemorySize,
        optin));
}

} // namespace

template <typename T, typename TAP>
fir_plan plan_fir_channels(int device, unsigned L, size_t M)
{
    const fir_plan pl = plan_fir<T, TAP>(device, L, M);
    device_guard guard(device);
    const int optin = device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    allow_smem<fir_store<T>, T, TAP>(pl.g, optin);
    if constexpr (std::is_same_v<T, float2>)
        allow_smem<fir_store_sc16, T, TAP>(pl.g, optin);
    return pl;
}

template <typename T, typename TAP>
void launch_fir_channels(const fir_plan& pl,
                         const channel_pointers& p,
                         unsigned channels,
                         const TAP* taps,
                         int n,
                         cudaStream_t st)
{
    launch_channels<T, TAP>(pl, p, channels, fir_store<T>{ nullptr }, taps, n, st);
}

template <typename TAP>
void launch_fir_channels_sc16(const fir_plan& pl,
                              const channel_pointers& p,
                              unsigned channels,
                              const TAP* taps,
                              int n,
                              float scale,
                              unsigned long long* counts,
                              cudaStream_t st)
{
    launch_channels<float2, TAP>(
        pl, p, channels, fir_store_sc16{ nullptr, scale, counts }, taps, n, st);
}

#define GPUINTERP_FIR_CHANNELS(T, TAP)                                  \
    template fir_plan plan_fir_channels<T, TAP>(int, unsigned, size_t); \
    template void launch_fir_channels<T, TAP>(const fir_plan&,          \
                                              const channel_pointers&,  \
                                              unsigned,                 \
                                              const TAP*,               \
                                              int,                      \
                                              cudaStream_t);
GPUINTERP_FIR_CHANNELS(float2, float)
GPUINTERP_FIR_CHANNELS(float, float)
GPUINTERP_FIR_CHANNELS(float2, float2)
#undef GPUINTERP_FIR_CHANNELS
template void launch_fir_channels_sc16<float>(const fir_plan&,
                                              const channel_pointers&,
                                              unsigned,
                                              const float*,
                                              int,
                                              float,
                                              unsigned long long*,
                                              cudaStream_t);
template void launch_fir_channels_sc16<float2>(const fir_plan&,
                                               const channel_pointers&,
                                               unsigned,
                                               const float2*,
                                               int,
                                               float,
                                               unsigned long long*,
                                               cudaStream_t);

template fir_plan plan_fir<float2, float>(int, unsigned, size_t);
template fir_plan plan_fir<float, float>(int, unsigned, size_t);
template fir_plan plan_fir<float2, float2>(int, unsigned, size_t);
template void launch_fir<float2, float>(
    const fir_plan&, const float2*, float2*, const float*, int, cudaStream_t);
template void launch_fir<float, float>(
    const fir_plan&, const float*, float*, const float*, int, cudaStream_t);
template void launch_fir<float2, float2>(
    const fir_plan&, const float2*, float2*, const float2*, int, cudaStream_t);

namespace {

template <typename T, typename TAP>
class cuda_fir_engine final : public kernel::fir_engine<host_t<T>, host_t<TAP>>
{
public:
    using HT = host_t<T>;
    using HTAP = host_t<TAP>;
    static_assert(sizeof(HT) == sizeof(T) && sizeof(HTAP) == sizeof(TAP), "layout");

    cuda_fir_engine(int device, size_t batch)
        : d_device(device), d_batch(batch), d_pipe(device)
    {
    }

    void set_taps(const std::vector<HTAP>& padded, unsigned L, size_t M) override
    {
        device_guard guard(d_device);
        d_dev_hist.pull(d_hist); // device-buffer mode keeps the history on the device
        d_taps.reserve(padded.size());
        upload(d_taps.get(), padded.data(), padded.size());
        d_hist.resize(M - 1);
        d_plan = plan_fir<T, TAP>(d_device, L, M);
    }

    void filter(HT* out, const HT* in, size_t n_in) override
    {
        device_guard guard(d_device);
        d_dev_hist.pull(d_hist);
        const size_t L = size_t(d_plan.g.L);
        // Cap the output of one launch at 4 Mi samples so pinned staging stays bounded for large L.
        const size_t chunk = std::min(d_batch, (size_t(1) << 22) / L);
        d_pipe.run(
            reinterpret_cast<T*>(out),
            n_in,
            chunk,
            { d_hist.size(), 1, L },
            [&](T* staged, size_t pos, size_t cnt) {
                d_hist.window(reinterpret_cast<HT*>(staged), in, pos, cnt);
            },
            [&](const T* x, T* y, size_t cnt, cudaStream_t st) {
                launch(x, y, int(cnt), st);
            });
        d_hist.advance(in, n_in);
    }

    void reset() override
    {
        d_hist.clear();
        d_dev_hist.invalidate();
    }

    // Device-buffer entry point (additive; the host pipeline above is unchanged). `in`/`out` are
    // device memory owned by GNU Radio device buffers; history handling in device_history.cuh. The
    // call ends with a synchronise of this engine's stream only: GNU Radio treats input as consumed,
    // and output as readable, when work() returns.
    void filter_device(HT* out_h, const HT* in_h, size_t n_in) override
    {
        device_guard guard(d_device);
        T* out = reinterpret_cast<T*>(out_h);
        const size_t L = size_t(d_plan.g.L);
        const size_t H = d_hist.size();
        cudaStream_t st = d_pipe.stream0();
        d_dev_hist.run(d_hist,
                       reinterpret_cast<const T*>(in_h),
                       n_in,
                       st,
                       [&](const T* x, size_t first, size_t count) {
                           launch(x - H, out + first * L, int(count), st);
                       });
        GPUINTERP_CUDA_CHECK(cudaStreamSynchronize(st));
    }
    void set_batch(size_t b) override { d_batch = b; }

    bool filter_sc16(int16_t* out,
                     const HT* in,
                     size_t n_in,
                     float scale,
                     kernel::sc16_counts& counts,
                     bool device) override
    {
        if constexpr (!std::is_same_v<T, float2>) {
            return false; // real samples have no sc16 form (the front end refuses them)
        } else {
            device_guard guard(d_device);
            const size_t L = size_t(d_plan.g.L);
            cudaStream_t st = d_pipe.stream0();
            if (!d_counts.get()) {
                d_counts.ensure(1, st);
                d_pipe16 = std::make_unique<host_pipeline<T, uint32_t>>(d_device);
            }
            auto* y16 = reinterpret_cast<short2*>(out);
            auto launch16 = [&](const T* x, short2* y, int n, cudaStream_t s) {
                launch_fir_sc16(d_plan, x, y, d_taps.get(), n, scale, d_counts.get(), s);
            };
            if (device) {
                const size_t H = d_hist.size();
                d_dev_hist.run(d_hist,
                               reinterpret_cast<const T*>(in),
                               n_in,
                               st,
                               [&](const T* x, size_t first, size_t count) {
                                   launch16(x - H, y16 + first * L, int(count), st);
                               });
            } else {
                d_dev_hist.pull(d_hist);
                const size_t chunk = std::min(d_batch, (size_t(1) << 22) / L);
                d_pipe16->run(
                    reinterpret_cast<uint32_t*>(out),
                    n_in,
                    chunk,
                    { d_hist.size(), 1, L },
                    [&](T* staged, size_t pos, size_t cnt) {
                        d_hist.window(reinterpret_cast<HT*>(staged), in, pos, cnt);
                    },
                    [&](const T* x, uint32_t* y, size_t cnt, cudaStream_t s) {
                        launch16(x, reinterpret_cast<short2*>(y), int(cnt), s);
                    });
                d_hist.advance(in, n_in);
            }
            // Both pipeline streams are drained (run() returned) or the device call's launches
            // are on st: the counters are final once st is.
            d_counts.read(&counts, st);
            return true;
        }
    }

private:
    void launch(const T* x, T* y, int n, cudaStream_t st)
    {
        launch_fir(d_plan, x, y, d_taps.get(), n, st);
    }

    int d_device;
    size_t d_batch;
    fir_plan d_plan{};
    device_buffer<TAP> d_taps;
    kernel::stream_history<HT> d_hist;
    // Device-buffer mode (filter_device): history on the device and the seam array.
    device_history<T, HT> d_dev_hist;
    sc16_counters d_counts; // sc16: saturated, invalid
    // The pipelines go first (the last members): their destructors wait for their streams before
    // the members above free memory that queued work may still use. sc16 output has its own,
    // made at the first sc16 call.
    host_pipeline<T, T> d_pipe;
    std::unique_ptr<host_pipeline<T, uint32_t>> d_pipe16;
};

} // namespace

template <typename T, typename TAP>
std::unique_ptr<kernel::fir_engine<T, TAP>> make_cuda_fir_engine(int device, size_t batch)
{
    return std::make_unique<cuda_fir_engine<device_t<T>, device_t<TAP>>>(device, batch);
}

template std::unique_ptr<kernel::fir_engine<std::complex<float>, float>>
make_cuda_fir_engine<std::complex<float>, float>(int, size_t);
template std::unique_ptr<kernel::fir_engine<float, float>>
make_cuda_fir_engine<float, float>(int, size_t);
template std::unique_ptr<kernel::fir_engine<std::complex<float>, std::complex<float>>>
make_cuda_fir_engine<std::complex<float>, std::complex<float>>(int, size_t);

} // namespace gpu
} // namespace gpuinterp
} // namespace gr
