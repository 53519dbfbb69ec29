/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_CUDA_RESIZE_KERNELS_CUH
#define INCLUDED_GPUINTERP_CUDA_RESIZE_KERNELS_CUH

// The CUDA kernels of resize_2d (the engine is lib/cuda/resize_2d.cu, the launch plan
// resize_launch.h). Included by resize_2d.cu, which instantiates the library's variants, and by
// the benchmark-only bench/resize_lab.cu, which instantiates the templates with the parameters of
// the variants that lost: the kernels have internal linkage, so each file compiles the instances
// it launches.
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

#include "cuda_common.cuh"
#include "resize_device.cuh"
#include "resize_launch.h"
#include "resize_walk.h"
#include <cuda_fp16.h>

namespace gr {
namespace gpuinterp {
namespace gpu {

using namespace rz;

namespace {

//! The parameters of every resize kernel, in the order launch_variant() passes them: input and
//! output frames (T, O: the sample types), the vertical and horizontal tables, the launch shape and
//! the output transform.
#define GPUINTERP_RESIZE_KERNEL_PARAMS(T, O)                                     \
    const T *__restrict__ in, O *__restrict__ out, const int *__restrict__ yidx, \
        const float *__restrict__ yw, const int *__restrict__ xidx,              \
        const float *__restrict__ xw, launch_shape s, dev_transform tf

// Streaming (evict-first) stores: the output is written once and not read by this kernel,
// so it should not push the source rows, which neighbouring blocks re-read, out of L2.
__device__ __forceinline__ void store_out(float* p, float v) { __stcs(p, v); }
__device__ __forceinline__ void store_out(unsigned short* p, float v)
{
    __stcs(p, __half_as_ushort(__float2half_rn(v)));
}

// The block shapes and register budgets (resize_build) are template arguments with the library's
// values as defaults: the library launches the defaults, the benchmarks other values of the same
// templates (bench/resize_lab.cu). TX: threads per block (one row tile); V: output elements per
// thread along x, TX apart.
template <typename T,
          typename O,
          int KY,
          int KX,
          int TX = resize_tile_tx,
          int V = resize_tile_v>
__global__ void __launch_bounds__(TX) resize_kernel(GPUINTERP_RESIZE_KERNEL_PARAMS(T, O))
{
    const resize_thread_pos pos =
        resize_tile_pos<TX, V>(blockIdx.x, threadIdx.x, s.tiles_x, s.row_groups, s.rows);
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
                float p[KX];
#pragma unroll
                for (int k = 0; k < KX; k++)
                    p[k] = (sy < 0 || xi[v][k] < 0) ? s.border_value
                                                    : load_src(row + xi[v][k]);
                const float h = hsum<KX>(xwv[v], p);
                if (KY == 1)
                    acc[v] = h;
                else
                    acc[v] = vacc(acc[v], wyk, h);
            }
        }
        O* orow = fout + (long long)oy * s.RW;
#pragma unroll
        for (int v = 0; v < V; v++) {
            const int e = e0 + v * TX;
            if (e < s.RW)
                store_out(orow + e, finish(acc[v], tf, m[v], a[v]));
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
    float p[KX];
#pragma unroll
    for (int k = 0; k < KX; k++)
        p[k] = load_src(row + max(xi[k], 0));
    return horiz_combine<KX>(sy, xi, xw, p, bv);
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

// BX x BY: the block.
template <typename T,
          typename O,
          int KY,
          int KX,
          int R,
          bool STREAM,
          bool STRIDED,
          int BX = resize_vec_bx,
          int BY = resize_vec_by>
__global__ void __launch_bounds__(BX* BY)
    resize_vec4_kernel(GPUINTERP_RESIZE_KERNEL_PARAMS(T, O))
{
    const resize_thread_pos pos =
        STRIDED ? resize_strided_pos<BX, BY>(
                      blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, R)
                : resize_vec4_pos<BX, BY>(
                      blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, R);
    if (pos.e0 >= s.RW || pos.oy0 >= s.out_h)
        return;
    constexpr int step = STRIDED ? BX : 1;
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
                    acc[v] = vacc(acc[v], wyk, h);
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
// BX x BY: the block.
template <typename T,
          typename O,
          int KY,
          int KX,
          int F,
          int BX = resize_point_bx,
          int BY = resize_point_by>
__global__ void __launch_bounds__(BX* BY)
    resize_point_kernel(GPUINTERP_RESIZE_KERNEL_PARAMS(T, O))
{
    const resize_thread_pos pos = resize_point_pos<BX, BY>(
        blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, F);
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
                acc = vacc(acc, wy[ky], h);
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

// rowcache: the upscale variant built around reuse of horizontal work. A thread owns
// chunks of 4 consecutive elements (16-byte stores, 512 contiguous bytes per warp store)
// of R consecutive output rows and walks the rows in order. The horizontally interpolated
// value of a chunk on one source row, h(sy) = sum_k wx_k * P(sy, x_k), does not depend on
// the output row; when an upscale maps neighbouring output rows onto the same source rows
// (at 2x, output rows 2i+1 and 2i+2 both use source rows i and i+1), h(sy) of the previous
// output row is reused instead of gathered again. At 2x bilinear that is 0.5 new source rows
// per output row instead of 2 (bicubic: 0.5 instead of 4), i.e. 4x (8x) fewer gather
// instructions, which (not DRAM) bound vec4_r4: its 16 gathers per 4 outputs cost ~8x the
// L1 wavefronts of the 16-byte store. A reused h is the same value computed the same way,
// so the result stays bit-identical to the other variants.
// The reuse test compares the row's source-row indices with the previous row's: all lanes of
// a warp own the same rows, so the test and the branch around the gathers are uniform (no
// divergence). The row loop is not unrolled (unrolled with predicated loads it took 64-128
// registers plus spills); instead the walk is software-pipelined by hand (rowcache_walk in
// resize_walk.h): for nearest/bilinear the next source row's samples load one step before a
// row needs them, the next row's table entries load one step ahead, and this kernel first
// copies the block's rows of the vertical tables into shared memory; a row whose source
// rows did not change goes straight to the vertical sum. Bicubic gathers one
// tap at a time when the row needs it (at 2x exactly one tap per new row is new) without
// the prefetch: with it (128 registers, no spills) 4 x 1080p -> 4K took 0.239 ms against
// 0.230 ms without (H200, same call; measured before the short path above).

// Blocks of 256 threads per SM the register budget is set for (resize_build): 4 (64 registers)
// for nearest, 3 (80) for bilinear (at 64 it spilled), 2 (128) for bicubic and two chunks.
template <int KY, int NCH>
constexpr int resize_rowcache_min_blocks()
{
    return KY == 1 ? resize_build.rowcache_blocks_nearest
                   : (KY == 2 && NCH == 1 ? resize_build.rowcache_blocks_bilinear
                                          : resize_build.rowcache_blocks_other);
}

// BX x BY: the block; MINB: its resident blocks per SM (__launch_bounds__).
template <typename T,
          typename O,
          int KY,
          int KX,
          int R,
          int NCH,
          int BX = resize_vec_bx,
          int BY = resize_vec_by,
          int MINB = resize_rowcache_min_blocks<KY, NCH>()>
__global__ void __launch_bounds__(BX* BY, MINB)
    resize_rowcache_kernel(GPUINTERP_RESIZE_KERNEL_PARAMS(T, O))
{
    // The block's rows of the vertical tables (its BY * R output rows and the one after,
    // which the walk's look-ahead reads) in shared memory: 1-4 KiB.
    constexpr int block_rows = BY * R + 1;
    __shared__ int ys_idx[block_rows * KY];
    __shared__ float ys_w[block_rows * KY];
    const int boy0 = int(blockIdx.y) * BY * R;
    const int tid = threadIdx.y * BX + threadIdx.x;
    for (int i = tid; i < block_rows * KY; i += BX * BY) {
        const int oy = min(boy0 + i / KY, s.out_h - 1);
        ys_idx[i] = __ldg(yidx + oy * KY + i % KY);
        ys_w[i] = __ldg(yw + oy * KY + i % KY);
    }
    __syncthreads();
    const resize_thread_pos pos = resize_rowcache_pos<BX, BY>(
        blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, R, NCH);
    if (pos.e0 >= s.RW || pos.oy0 >= s.out_h)
        return;
    chunk_taps<KX, NCH, BX> t;
    t.load(xidx, xw, pos.e0, s.RW, s.C, tf);
    rowcache_walk<KY, KX, R, NCH>(
        global_rows<T>{ in + pos.f * s.in_frame, s.in_row, s.in_h },
        t,
        out + pos.f * s.out_frame,
        pos.e0,
        pos.oy0,
        shared_ytab<KY>{ ys_idx, ys_w, boy0 },
        s,
        tf);
}

//! Launch one variant's kernel: every variant takes the same arguments
//! (GPUINTERP_RESIZE_KERNEL_PARAMS).
template <typename T, typename O, typename Kernel>
void launch_variant(Kernel kernel, const resize_launch_args& a)
{
    kernel<<<a.grid, a.block, 0, a.st>>>(static_cast<const T*>(a.in),
                                         static_cast<O*>(a.out),
                                         a.yidx,
                                         a.yw,
                                         a.xidx,
                                         a.xw,
                                         a.s,
                                         a.tf);
}

} // namespace
} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
