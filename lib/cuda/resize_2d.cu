/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CUDA backend of resize_2d.
//
// Kernel: one launch covers a whole batch of frames. The per-axis tables built on the
// host (the same ones the CPU backend uses) live in device memory: per output row Ky
// source rows and weights, per output element (channels expanded) Kx source offsets and
// weights, tap-major so a warp reads each tap array contiguously. A block of TX threads
// owns a tile of TX*V consecutive elements of one group of output rows: thread t handles
// elements t, t+TX, ..., t+(V-1)*TX, so every store instruction of a warp writes 32
// consecutive values (coalesced), and it keeps that tile's x taps in registers while it
// walks `rows` consecutive output rows (the x tables are read once per thread, not once
// per output). The row weights are uniform across the block (broadcast loads). Source
// samples are gathered through the read-only path; for upscaling, neighbouring threads
// read neighbouring samples, so the gathers coalesce as well. The fused transform (scale,
// clip, (v - mean[c]) / std[c]) and the binary16 conversion happen before the store, so
// the output is written exactly once.
//
// Host pipeline (resize_2d::resize from host memory): chunks of `batch` frames go through the
// two-slot pinned pipeline of host_pipeline.cuh; the host copies in and out of pinned staging
// both run on several threads (one thread moves ~8 GB/s, far below the ~55 GB/s bus). Frames
// are independent, so no state crosses chunks. The output is staged as bytes: float32 or
// binary16 per call.
#include "../cpu/parallel.h"
#include "../kernel/resize_engine.h"
#include "cuda_common.cuh"
#include "host_pipeline.cuh"
#include "resize_launch.h"
#include <cuda_fp16.h>
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>

namespace gr {
namespace gpuinterp {
namespace gpu {

namespace {

constexpr int TX = resize_tile_tx; // threads per block (one row tile)
constexpr int V = resize_tile_v;    // output elements per thread along x, TX apart

struct dev_transform {
    float mul[4]; // scale/std (no clip) or 1/std (clip)
    float add[4]; // -mean/std
    float scale, lo, hi;
    int clip;
    int identity;
};

struct launch_shape {
    int in_row; // source elements per row (in_w * C)
    int RW;     // output elements per row (out_w * C)
    int out_h;
    int C;
    int tiles_x;         // tile: ceil(RW / (TX*V))
    int rows;            // tile: output rows per thread
    int row_groups;      // tile: ceil(out_h / rows)
    int frames;          // frames of this launch (point variants)
    long long in_frame;  // elements per input frame
    long long out_frame; // elements per output frame
    float border_value;
};

template <typename T>
__device__ __forceinline__ float load_src(const T* p)
{
    return float(__ldg(p));
}

// Streaming (evict-first) stores: the output is written once and not read by this kernel,
// so it should not push the source rows, which neighbouring blocks re-read, out of L2.
__device__ __forceinline__ void store_out(float* p, float v) { __stcs(p, v); }
__device__ __forceinline__ void store_out(unsigned short* p, float v)
{
    __stcs(p, __half_as_ushort(__float2half_rn(v)));
}

__device__ __forceinline__ float pick4(const float (&a)[4], int c)
{
    return c == 0 ? a[0] : (c == 1 ? a[1] : (c == 2 ? a[2] : a[3]));
}

template <typename T, typename O, int KY, int KX>
__global__ void __launch_bounds__(TX) resize_kernel(const T* __restrict__ in,
                                                    O* __restrict__ out,
                                                    const int* __restrict__ yidx,
                                                    const float* __restrict__ yw,
                                                    const int* __restrict__ xidx,
                                                    const float* __restrict__ xw,
                                                    launch_shape s,
                                                    dev_transform tf)
{
    const resize_thread_pos pos =
        resize_tile_pos(blockIdx.x, threadIdx.x, s.tiles_x, s.row_groups, s.rows);
    const long long f = pos.f;

    int xi[V][KX];
    float xwv[V][KX];
    float m[V], a[V];
    const int e0 = pos.e0;
#pragma unroll
    for (int v = 0; v < V; v++) {
        const int e = e0 + v * TX;
        const bool ok = e < s.RW;
#pragma unroll
        for (int k = 0; k < KX; k++) {
            xi[v][k] = ok ? __ldg(xidx + size_t(k) * s.RW + e) : 0;
            xwv[v][k] = ok ? __ldg(xw + size_t(k) * s.RW + e) : 0.f;
        }
        const int c = ok ? e % s.C : 0;
        m[v] = pick4(tf.mul, c);
        a[v] = pick4(tf.add, c);
    }

    const T* fin = in + f * s.in_frame;
    O* fout = out + f * s.out_frame;
    const int oy0 = pos.oy0;
    const int oy1 = min(s.out_h, oy0 + s.rows);
    for (int oy = oy0; oy < oy1; oy++) {
        float acc[V];
#pragma unroll
        for (int v = 0; v < V; v++)
            acc[v] = 0.f;
#pragma unroll
        for (int ky = 0; ky < KY; ky++) {
            const int sy = __ldg(yidx + oy * KY + ky);
            const float wyk = __ldg(yw + oy * KY + ky);
            const T* row = fin + (long long)max(sy, 0) * s.in_row;
#pragma unroll
            for (int v = 0; v < V; v++) {
                float h;
                if (KX == 1) {
                    h = (sy < 0 || xi[v][0] < 0) ? s.border_value
                                                 : load_src(row + xi[v][0]);
                } else {
                    // Same association as the CPU backend: pairs of taps, then their sum.
                    float p[KX];
#pragma unroll
                    for (int k = 0; k < KX; k++)
                        p[k] = (sy < 0 || xi[v][k] < 0) ? s.border_value
                                                        : load_src(row + xi[v][k]);
                    if (KX == 2)
                        h = xwv[v][0] * p[0] + xwv[v][1] * p[1];
                    else
                        h = (xwv[v][0] * p[0] + xwv[v][1] * p[1]) +
                            (xwv[v][2] * p[2] + xwv[v][3] * p[3]);
                }
                if (KY == 1)
                    acc[v] = h;
                else
                    acc[v] += wyk * h;
            }
        }
        O* orow = fout + (long long)oy * s.RW;
#pragma unroll
        for (int v = 0; v < V; v++) {
            const int e = e0 + v * TX;
            if (e < s.RW) {
                float r = acc[v];
                if (!tf.identity) {
                    if (tf.clip)
                        r = fminf(fmaxf(r * tf.scale, tf.lo), tf.hi);
                    r = r * m[v] + a[v];
                }
                store_out(orow + e, r);
            }
        }
    }
}

// --- vec4 and point variants -------------------------------------------------------
// Same tables, same per-output arithmetic and association as resize_kernel (so every
// variant gives bit-identical results); only the mapping of outputs to threads differs.

// Interpolated value of one output element at source row `row` (sy < 0: constant
// border row) for x taps xi/xw; the same association as the CPU backend.
template <typename T, int KX>
__device__ __forceinline__ float
horiz(const T* row, int sy, const int* xi, const float* xw, float bv)
{
    // Loads are unconditional (a constant-border tap reads a valid sample and discards
    // it): a load behind a branch cannot be issued early, and all gathers of a thread
    // should be in flight together.
    if constexpr (KX == 1) {
        const float v = load_src(row + max(xi[0], 0));
        return (sy < 0 || xi[0] < 0) ? bv : v;
    } else {
        float p[KX];
#pragma unroll
        for (int k = 0; k < KX; k++)
            p[k] = load_src(row + max(xi[k], 0));
#pragma unroll
        for (int k = 0; k < KX; k++)
            p[k] = (sy < 0 || xi[k] < 0) ? bv : p[k];
        if constexpr (KX == 2)
            return xw[0] * p[0] + xw[1] * p[1];
        else
            return (xw[0] * p[0] + xw[1] * p[1]) + (xw[2] * p[2] + xw[3] * p[3]);
    }
}

__device__ __forceinline__ float
finish(float r, const dev_transform& tf, float m, float a)
{
    if (!tf.identity) {
        if (tf.clip)
            r = fminf(fmaxf(r * tf.scale, tf.lo), tf.hi);
        r = r * m + a;
    }
    return r;
}

template <bool STREAM>
__device__ __forceinline__ void store4(float* p, const float (&r)[4])
{
    const float4 v = make_float4(r[0], r[1], r[2], r[3]);
    if (STREAM)
        __stcs(reinterpret_cast<float4*>(p), v);
    else
        *reinterpret_cast<float4*>(p) = v;
}

template <bool STREAM>
__device__ __forceinline__ void store4(unsigned short* p, const float (&r)[4])
{
    uint2 v;
    v.x = unsigned(__half_as_ushort(__float2half_rn(r[0]))) |
          (unsigned(__half_as_ushort(__float2half_rn(r[1]))) << 16);
    v.y = unsigned(__half_as_ushort(__float2half_rn(r[2]))) |
          (unsigned(__half_as_ushort(__float2half_rn(r[3]))) << 16);
    if (STREAM)
        __stcs(reinterpret_cast<uint2*>(p), v);
    else
        *reinterpret_cast<uint2*>(p) = v;
}

// vec4 (STRIDED = false): each thread writes 4 consecutive elements (one 16-byte float /
// 8-byte binary16 store per row, so a warp writes 512 contiguous bytes per instruction)
// of R consecutive rows; requires RW % 4 == 0 and an aligned output base (the plan
// checks), so the tap-major x tables are read with 16-byte loads as well.
// strided (STRIDED = true): the same blocks and rows, but tile's mapping: elements
// e0 + v*64, 4-byte stores, any row width; a warp's gather instruction then spans half
// as many source bytes (one L1 wavefront at 2x upscaling instead of two).
// Both: 256-thread 2D blocks, the R rows unrolled so all their gathers are in flight
// together, source gathers through the read-only path (at 2x upscaling every source
// sample feeds 4 outputs of neighbouring threads and rows).
template <bool STREAM>
__device__ __forceinline__ void store1(float* p, float r)
{
    if (STREAM)
        __stcs(p, r);
    else
        *p = r;
}
template <bool STREAM>
__device__ __forceinline__ void store1(unsigned short* p, float r)
{
    const unsigned short h = __half_as_ushort(__float2half_rn(r));
    if (STREAM)
        __stcs(p, h);
    else
        *p = h;
}

template <typename T, typename O, int KY, int KX, int R, bool STREAM, bool STRIDED>
__global__ void __launch_bounds__(resize_vec_bx* resize_vec_by)
    resize_vec4_kernel(const T* __restrict__ in,
                       O* __restrict__ out,
                       const int* __restrict__ yidx,
                       const float* __restrict__ yw,
                       const int* __restrict__ xidx,
                       const float* __restrict__ xw,
                       launch_shape s,
                       dev_transform tf)
{
    const resize_thread_pos pos =
        STRIDED ? resize_strided_pos(
                      blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, R)
                : resize_vec4_pos(
                      blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, R);
    if (pos.e0 >= s.RW || pos.oy0 >= s.out_h)
        return;
    constexpr int step = STRIDED ? resize_vec_bx : 1;
    int xi[4][KX];
    float xwv[4][KX];
    if constexpr (STRIDED) {
#pragma unroll
        for (int v = 0; v < 4; v++) {
            const int e = pos.e0 + v * step;
            const bool ok = e < s.RW;
#pragma unroll
            for (int k = 0; k < KX; k++) {
                xi[v][k] = ok ? __ldg(xidx + size_t(k) * s.RW + e) : 0;
                xwv[v][k] = ok ? __ldg(xw + size_t(k) * s.RW + e) : 0.f;
            }
        }
    } else {
#pragma unroll
        for (int k = 0; k < KX; k++) {
            const int4 i4 =
                __ldg(reinterpret_cast<const int4*>(xidx + size_t(k) * s.RW + pos.e0));
            const float4 w4 =
                __ldg(reinterpret_cast<const float4*>(xw + size_t(k) * s.RW + pos.e0));
            xi[0][k] = i4.x;
            xi[1][k] = i4.y;
            xi[2][k] = i4.z;
            xi[3][k] = i4.w;
            xwv[0][k] = w4.x;
            xwv[1][k] = w4.y;
            xwv[2][k] = w4.z;
            xwv[3][k] = w4.w;
        }
    }
    float m[4], a[4];
#pragma unroll
    for (int v = 0; v < 4; v++) {
        const int c = (pos.e0 + v * step) % s.C;
        m[v] = pick4(tf.mul, c);
        a[v] = pick4(tf.add, c);
    }
    const T* fin = in + pos.f * s.in_frame;
    O* fout = out + pos.f * s.out_frame;
    // Rows past the frame's last are computed on the last row and not stored, so every
    // row's gathers are unconditional and can be issued before the first store.
    float res[R][4];
#pragma unroll
    for (int r = 0; r < R; r++) {
        const int oy = min(pos.oy0 + r, s.out_h - 1);
        float acc[4] = { 0.f, 0.f, 0.f, 0.f };
#pragma unroll
        for (int ky = 0; ky < KY; ky++) {
            const int sy = __ldg(yidx + oy * KY + ky);
            const float wyk = __ldg(yw + oy * KY + ky);
            const T* row = fin + (long long)max(sy, 0) * s.in_row;
#pragma unroll
            for (int v = 0; v < 4; v++) {
                const float h = horiz<T, KX>(row, sy, xi[v], xwv[v], s.border_value);
                if (KY == 1)
                    acc[v] = h;
                else
                    acc[v] += wyk * h;
            }
        }
#pragma unroll
        for (int v = 0; v < 4; v++)
            res[r][v] = finish(acc[v], tf, m[v], a[v]);
    }
#pragma unroll
    for (int r = 0; r < R; r++) {
        const int oy = pos.oy0 + r;
        if (oy < s.out_h) {
            O* orow = fout + (long long)oy * s.RW;
            if constexpr (STRIDED) {
#pragma unroll
                for (int v = 0; v < 4; v++)
                    if (pos.e0 + v * step < s.RW)
                        store1<STREAM>(orow + pos.e0 + v * step, res[r][v]);
            } else {
                store4<STREAM>(orow + pos.e0, res[r]);
            }
        }
    }
}

// One output element per thread (F frames of it): for small outputs (e.g. 4K -> 224x224)
// the kernel is bound by the latency of the scattered gathers, so it wants as many
// independent gathers in flight as possible: 2D blocks over (x, y), grid z over frames,
// every tap of every frame loaded before any arithmetic (F = 4: 16 bilinear gathers per
// thread, the tables read once for 4 frames).
template <typename T, typename O, int KY, int KX, int F>
__global__ void __launch_bounds__(resize_point_bx* resize_point_by)
    resize_point_kernel(const T* __restrict__ in,
                        O* __restrict__ out,
                        const int* __restrict__ yidx,
                        const float* __restrict__ yw,
                        const int* __restrict__ xidx,
                        const float* __restrict__ xw,
                        launch_shape s,
                        dev_transform tf)
{
    const resize_thread_pos pos =
        resize_point_pos(blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, F);
    if (pos.e0 >= s.RW || pos.oy0 >= s.out_h)
        return;
    int xi[KX];
    float xwv[KX];
#pragma unroll
    for (int k = 0; k < KX; k++) {
        xi[k] = __ldg(xidx + size_t(k) * s.RW + pos.e0);
        xwv[k] = __ldg(xw + size_t(k) * s.RW + pos.e0);
    }
    int sy[KY];
    float wy[KY];
#pragma unroll
    for (int ky = 0; ky < KY; ky++) {
        sy[ky] = __ldg(yidx + pos.oy0 * KY + ky);
        wy[ky] = __ldg(yw + pos.oy0 * KY + ky);
    }
    const int c = pos.e0 % s.C;
    const float m = pick4(tf.mul, c), a = pick4(tf.add, c);
    // Frames past the launch's last are computed on the last frame and not stored, so all
    // F * KY * KX gathers are unconditional and issued together.
    float res[F];
#pragma unroll
    for (int j = 0; j < F; j++) {
        const long long f = min(pos.f + j, (long long)s.frames - 1);
        const T* fin = in + f * s.in_frame;
        float acc = 0.f;
#pragma unroll
        for (int ky = 0; ky < KY; ky++) {
            const float h = horiz<T, KX>(fin + (long long)max(sy[ky], 0) * s.in_row,
                                         sy[ky],
                                         xi,
                                         xwv,
                                         s.border_value);
            if (KY == 1)
                acc = h;
            else
                acc += wy[ky] * h;
        }
        res[j] = finish(acc, tf, m, a);
    }
#pragma unroll
    for (int j = 0; j < F; j++) {
        const long long f = pos.f + j;
        if (f < s.frames)
            store_out(out + f * s.out_frame + (long long)pos.oy0 * s.RW + pos.e0, res[j]);
    }
}

// Stand-alone normaliser, only for the "resize, then normalise" benchmark comparison.
__global__ void normalise_kernel(float* y, long long n, int C, dev_transform tf)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        const int c = int(i % C);
        y[i] = y[i] * pick4(tf.mul, c) + pick4(tf.add, c);
    }
}

template <typename T>
class cuda_resize_engine final : public kernel::resize_engine<T>
{
public:
    cuda_resize_engine(int device, size_t batch)
        : d_device(device), d_batch(batch), d_pipe(device)
    {
        device_guard guard(d_device);
        GPUINTERP_CUDA_CHECK(
            cudaDeviceGetAttribute(&d_sms, cudaDevAttrMultiProcessorCount, device));
    }

    void set_tables(const kernel::resize_geometry& g,
                    const kernel::resize_axis_table& ytab,
                    const kernel::resize_axis_table& xtab,
                    float border_value) override
    {
        device_guard guard(d_device);
        d_g = g;
        d_ky = ytab.taps;
        d_kx = xtab.taps;
        d_bv = border_value;
        const size_t C = size_t(g.channels), RW = size_t(g.out_w) * C;
        std::vector<int> xi(RW * d_kx);
        std::vector<float> xwt(RW * d_kx);
        for (int ox = 0; ox < g.out_w; ox++)
            for (int k = 0; k < d_kx; k++) {
                const int ix = xtab.idx[size_t(ox) * d_kx + k];
                for (size_t c = 0; c < C; c++) {
                    xi[k * RW + ox * C + c] = ix < 0 ? -1 : int(size_t(ix) * C + c);
                    xwt[k * RW + ox * C + c] = xtab.w[size_t(ox) * d_kx + k];
                }
            }
        // Nothing is in flight here (run() drains both slots before it returns), so plain
        // synchronous copies cannot race a kernel that reads the old tables.
        d_yidx.reserve(ytab.idx.size());
        d_yw.reserve(ytab.w.size());
        d_xidx.reserve(xi.size());
        d_xw.reserve(xwt.size());
        GPUINTERP_CUDA_CHECK(cudaMemcpy(d_yidx.get(),
                                        ytab.idx.data(),
                                        ytab.idx.size() * sizeof(int),
                                        cudaMemcpyHostToDevice));
        GPUINTERP_CUDA_CHECK(cudaMemcpy(d_yw.get(),
                                        ytab.w.data(),
                                        ytab.w.size() * sizeof(float),
                                        cudaMemcpyHostToDevice));
        GPUINTERP_CUDA_CHECK(cudaMemcpy(
            d_xidx.get(), xi.data(), xi.size() * sizeof(int), cudaMemcpyHostToDevice));
        GPUINTERP_CUDA_CHECK(cudaMemcpy(
            d_xw.get(), xwt.data(), xwt.size() * sizeof(float), cudaMemcpyHostToDevice));
    }

    void set_transform(const kernel::resize_transform& tf) override
    {
        for (int c = 0; c < 4; c++) {
            d_tf.mul[c] = tf.clip ? tf.inv_std[c] : tf.scale * tf.inv_std[c];
            d_tf.add[c] = -tf.mean[c] * tf.inv_std[c];
        }
        d_tf.scale = tf.scale;
        d_tf.lo = tf.clip_min;
        d_tf.hi = tf.clip_max;
        d_tf.clip = tf.clip;
        d_tf.identity = tf.identity();
    }

    void set_batch(size_t b) override { d_batch = b; }

    void run(void* out, bool half, const T* in, size_t n_frames) override
    {
        device_guard guard(d_device);
        const size_t in_frame = size_t(d_g.in_h) * d_g.in_w * d_g.channels;
        const size_t out_frame = size_t(d_g.out_h) * d_g.out_w * d_g.channels;
        const size_t osz = half ? sizeof(unsigned short) : sizeof(float);
        d_pipe.run(static_cast<char*>(out), n_frames, d_batch, { 0, in_frame, out_frame * osz },
                   [&](T* staged, size_t pos, size_t cnt) {
                       cpu::parallel_copy(staged, in + pos * in_frame, cnt * in_frame * sizeof(T));
                   },
                   [&](const T* x, char* y, size_t cnt, cudaStream_t st) { launch(x, y, half, cnt, st); });
    }

    // Device-buffer entry point: one launch on device pointers (no history: frames are independent),
    // then a synchronise of this engine's stream only.
    void run_device(void* out, bool half, const T* in, size_t n_frames) override
    {
        device_guard guard(d_device);
        cudaStream_t st = stream0();
        launch(in, out, half, n_frames, st);
        GPUINTERP_CUDA_CHECK(cudaStreamSynchronize(st));
    }

    //! Device-resident launch (benchmarks): d_out holds float or binary16 per `half`.
    void launch(const T* d_in, void* d_out, bool half, size_t frames, cudaStream_t st)
    {
        if (frames == 0)
            return;
        launch_shape s{};
        s.in_row = d_g.in_w * d_g.channels;
        s.RW = d_g.out_w * d_g.channels;
        s.out_h = d_g.out_h;
        s.C = d_g.channels;
        s.in_frame = (long long)d_g.in_h * s.in_row;
        s.out_frame = (long long)d_g.out_h * s.RW;
        s.border_value = d_bv;
        const size_t osz = half ? sizeof(unsigned short) : sizeof(float);
        // Device buffers are 256-byte aligned; with RW % 4 == 0 every row (and every
        // frame) then starts on a 16-byte (float) / 8-byte (binary16) boundary.
        const bool vec_ok = s.RW % 4 == 0 &&
                            reinterpret_cast<uintptr_t>(d_out) % (4 * osz) == 0;
        const int ov = resize_variant_override();
        const resize_variant req =
            ov != int(resize_variant::automatic) ? resize_variant(ov) : d_variant;
        const resize_plan p = resize_plan_launch(req, s.RW, s.out_h, frames, d_sms, vec_ok, d_kx);
        d_last_variant = p.variant;
        note_resize_variant(int(p.variant));
        s.tiles_x = p.tiles_x;
        s.rows = p.rows;
        s.row_groups = p.row_groups;
        for (size_t f0 = 0; f0 < frames; f0 += p.frames_per_launch) {
            const size_t nf = std::min(p.frames_per_launch, frames - f0);
            s.frames = int(nf);
            const T* src = d_in + f0 * size_t(s.in_frame);
            void* dst = static_cast<char*>(d_out) + f0 * size_t(s.out_frame) * osz;
            const resize_grid g = resize_grid_for(p, nf);
            const dim3 grid(g.x, g.y, g.z), block(p.bx, p.by);
            if (half)
                dispatch<unsigned short>(
                    src, static_cast<unsigned short*>(dst), s, p.variant, grid, block, st);
            else
                dispatch<float>(
                    src, static_cast<float*>(dst), s, p.variant, grid, block, st);
        }
    }

    void set_variant(resize_variant v) { d_variant = v; }
    resize_variant last_variant() const { return d_last_variant; }

    void launch_normalise(float* y, size_t frames, cudaStream_t st)
    {
        const long long n = (long long)frames * d_g.out_h * d_g.out_w * d_g.channels;
        const int blocks =
            int(std::min<long long>((n + 255) / 256, (long long)d_sms * 16));
        normalise_kernel<<<blocks, 256, 0, st>>>(y, n, d_g.channels, d_tf);
        GPUINTERP_CUDA_CHECK_LAUNCH(st);
    }

    cudaStream_t stream0() const { return d_pipe.stream0(); }

private:
    template <typename O, int K>
    void dispatch_k(const T* in,
                    O* out,
                    const launch_shape& s,
                    resize_variant v,
                    dim3 grid,
                    dim3 block,
                    cudaStream_t st)
    {
        const int* yi = d_yidx.get();
        const float* ywp = d_yw.get();
        const int* xi = d_xidx.get();
        const float* xwp = d_xw.get();
        switch (v) {
        case resize_variant::vec4_r1:
            resize_vec4_kernel<T, O, K, K, 1, true, false>
                <<<grid, block, 0, st>>>(in, out, yi, ywp, xi, xwp, s, d_tf);
            break;
        case resize_variant::vec4_r2:
            resize_vec4_kernel<T, O, K, K, 2, true, false>
                <<<grid, block, 0, st>>>(in, out, yi, ywp, xi, xwp, s, d_tf);
            break;
        case resize_variant::vec4_r2_plain:
            resize_vec4_kernel<T, O, K, K, 2, false, false>
                <<<grid, block, 0, st>>>(in, out, yi, ywp, xi, xwp, s, d_tf);
            break;
        case resize_variant::vec4_r4:
            resize_vec4_kernel<T, O, K, K, 4, true, false>
                <<<grid, block, 0, st>>>(in, out, yi, ywp, xi, xwp, s, d_tf);
            break;
        case resize_variant::strided_r2:
            resize_vec4_kernel<T, O, K, K, 2, true, true>
                <<<grid, block, 0, st>>>(in, out, yi, ywp, xi, xwp, s, d_tf);
            break;
        case resize_variant::strided_r4:
            resize_vec4_kernel<T, O, K, K, 4, true, true>
                <<<grid, block, 0, st>>>(in, out, yi, ywp, xi, xwp, s, d_tf);
            break;
        case resize_variant::point:
            resize_point_kernel<T, O, K, K, 1>
                <<<grid, block, 0, st>>>(in, out, yi, ywp, xi, xwp, s, d_tf);
            break;
        case resize_variant::point_f4:
            resize_point_kernel<T, O, K, K, 4>
                <<<grid, block, 0, st>>>(in, out, yi, ywp, xi, xwp, s, d_tf);
            break;
        default:
            resize_kernel<T, O, K, K>
                <<<grid, block, 0, st>>>(in, out, yi, ywp, xi, xwp, s, d_tf);
            break;
        }
        GPUINTERP_CUDA_CHECK_LAUNCH(st);
    }

    template <typename O>
    void dispatch(const T* in,
                  O* out,
                  const launch_shape& s,
                  resize_variant v,
                  dim3 grid,
                  dim3 block,
                  cudaStream_t st)
    {
        if (d_ky == 1)
            dispatch_k<O, 1>(in, out, s, v, grid, block, st);
        else if (d_ky == 2)
            dispatch_k<O, 2>(in, out, s, v, grid, block, st);
        else
            dispatch_k<O, 4>(in, out, s, v, grid, block, st);
    }

    int d_device;
    size_t d_batch;
    int d_sms = 1;
    kernel::resize_geometry d_g;
    int d_ky = 1, d_kx = 1;
    float d_bv = 0;
    dev_transform d_tf{ { 1, 1, 1, 1 }, { 0, 0, 0, 0 }, 1, 0, 1, 0, 1 };
    device_buffer<int> d_yidx, d_xidx;
    device_buffer<float> d_yw, d_xw;
    resize_variant d_variant = resize_variant::automatic;
    resize_variant d_last_variant = resize_variant::automatic;
    // Last member, so destroyed first: its destructor waits for both streams before the tables
    // above are freed.
    host_pipeline<T, char> d_pipe;
};

} // namespace

template <typename T>
std::unique_ptr<kernel::resize_engine<T>> make_cuda_resize_engine(int device,
                                                                  size_t batch)
{
    return std::make_unique<cuda_resize_engine<T>>(device, batch);
}

template std::unique_ptr<kernel::resize_engine<float>>
make_cuda_resize_engine<float>(int, size_t);
template std::unique_ptr<kernel::resize_engine<uint8_t>>
make_cuda_resize_engine<uint8_t>(int, size_t);

double time_resize_kernel_ms(int device,
                             int in_h,
                             int in_w,
                             int out_h,
                             int out_w,
                             int channels,
                             kernel::resize_method method,
                             size_t n_frames,
                             resize_bench_mode mode,
                             bool half_output,
                             int iters,
                             int variant)
{
    if (half_output && mode == resize_bench_mode::separate)
        throw std::invalid_argument(
            "half_output: the separate normalise pass works on float32 output");
    device_guard guard(device);
    cuda_resize_engine<float> e(device, n_frames);
    e.set_variant(resize_variant(variant));
    kernel::resize_geometry g;
    g.in_h = in_h;
    g.in_w = in_w;
    g.out_h = out_h;
    g.out_w = out_w;
    g.channels = channels;
    using kernel::resize_border;
    using kernel::resize_coord;
    e.set_tables(
        g,
        kernel::resize_make_axis_table(
            in_h, out_h, method, resize_coord::half_pixel, resize_border::replicate),
        kernel::resize_make_axis_table(
            in_w, out_w, method, resize_coord::half_pixel, resize_border::replicate),
        0.f);
    kernel::resize_transform tf;
    for (int c = 0; c < 4; c++) {
        tf.mean[c] = 0.5f;
        tf.inv_std[c] = 4.0f;
    }
    kernel::resize_transform plain;
    e.set_transform(mode == resize_bench_mode::fused ? tf : plain);

    const size_t in_n = n_frames * size_t(in_h) * in_w * channels;
    const size_t out_n = n_frames * size_t(out_h) * out_w * channels;
    device_buffer<float> x(in_n);
    device_buffer<char> y(out_n * (half_output ? 2 : 4));
    {
        std::vector<float> hx(in_n);
        std::mt19937 rng(7);
        std::uniform_real_distribution<float> d(0.f, 1.f);
        for (auto& v : hx)
            v = d(rng);
        GPUINTERP_CUDA_CHECK(
            cudaMemcpy(x.get(), hx.data(), in_n * sizeof(float), cudaMemcpyHostToDevice));
    }
    cudaStream_t st = e.stream0();
    return median_launch_ms(st, iters, [&] {
        e.launch(x.get(), y.get(), half_output, n_frames, st);
        if (mode == resize_bench_mode::separate) {
            e.set_transform(tf);
            e.launch_normalise(reinterpret_cast<float*>(y.get()), n_frames, st);
            e.set_transform(plain);
        }
    });
}

} // namespace gpu
} // namespace gpuinterp
} // namespace gr
