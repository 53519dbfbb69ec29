/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_CUDA_RESIZE_WALK_H
#define INCLUDED_GPUINTERP_CUDA_RESIZE_WALK_H

// Device code shared by the CUDA resize_2d kernels (lib/cuda/resize_2d.cu): the
// per-output arithmetic every variant performs, and the row walk of the rowcache/staged
// variants. In a header, and compilable as plain C++ with host stand-ins for the few CUDA
// intrinsics it uses, so the CPU test suite runs the very same walk
// (tests/qa_resize_walk.cc) and checks it bit for bit without a GPU.

#include "resize_launch.h"
#include <climits>

#ifdef __CUDACC__
#include <cuda_fp16.h>
#define GPUINTERP_DI __device__ __forceinline__
#else
#include <algorithm>
#include <cmath>
#define GPUINTERP_DI inline
#endif

namespace gr {
namespace gpuinterp {
namespace gpu {
namespace rz {

#ifndef __CUDACC__
// Host stand-ins (tests only). The rounding intrinsics go through volatile so that no
// compiler setting can contract them into something else.
struct int4 {
    int x, y, z, w;
};
struct float4 {
    float x, y, z, w;
};
template <typename T>
inline T __ldg(const T* p)
{
    return *p;
}
inline float __fmaf_rn(float a, float b, float c)
{
    volatile float r = std::fma(a, b, c);
    return r;
}
inline float __fmul_rn(float a, float b)
{
    volatile float r = a * b;
    return r;
}
inline float __fadd_rn(float a, float b)
{
    volatile float r = a + b;
    return r;
}
inline float4 make_float4(float a, float b, float c, float d) { return { a, b, c, d }; }
template <typename T>
inline void __stcs(T* p, T v)
{
    *p = v;
}
using std::max;
using std::min;
#endif

struct dev_transform {
    float mul[4]; // scale/std (no clip) or 1/std (clip)
    float add[4]; // -mean/std
    float scale, lo, hi;
    int clip;
    int identity;
};

struct launch_shape {
    int in_row; // source elements per row (in_w * C)
    int in_h;   // source rows
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
GPUINTERP_DI float load_src(const T* p)
{
    return float(__ldg(p));
}

GPUINTERP_DI float pick4(const float (&a)[4], int c)
{
    return c == 0 ? a[0] : (c == 1 ? a[1] : (c == 2 ? a[2] : a[3]));
}

// The arithmetic every variant shares, spelled with explicit rounding intrinsics: left to
// the compiler, `w0*p0 + w1*p1` may be contracted into an FMA around either product, and
// it may choose differently in differently shaped kernels. With the intrinsics every
// variant performs the same roundings in the same order, so the variants are
// bit-identical by construction (Resize.EveryKernelVariant compares them bit for bit).
// Horizontal: pairs of taps, then their sum (the CPU backend's association).
template <int KX>
GPUINTERP_DI float hsum(const float* w, const float* p)
{
    if constexpr (KX == 1)
        return p[0];
    else if constexpr (KX == 2)
        return __fmaf_rn(w[0], p[0], __fmul_rn(w[1], p[1]));
    else
        return __fadd_rn(__fmaf_rn(w[0], p[0], __fmul_rn(w[1], p[1])),
                         __fmaf_rn(w[2], p[2], __fmul_rn(w[3], p[3])));
}

// Vertical: acc = 0, then acc += wy_k * h_k in tap order (KY == 1: the value itself).
GPUINTERP_DI float vacc(float acc, float w, float h) { return __fmaf_rn(w, h, acc); }

// Output transform: scale, clip, then (v - mean) / std as v * mul + add.
GPUINTERP_DI float finish(float r, const dev_transform& tf, float m, float a)
{
    if (!tf.identity) {
        if (tf.clip)
            r = fminf(fmaxf(__fmul_rn(r, tf.scale), tf.lo), tf.hi);
        r = __fmaf_rn(r, m, a);
    }
    return r;
}

// Second half of horiz on already loaded samples p (constant-border taps replaced here).
template <int KX>
GPUINTERP_DI float
horiz_combine(int sy, const int* xi, const float* xw, const float* p, float bv)
{
    float q[KX];
#pragma unroll
    for (int k = 0; k < KX; k++)
        q[k] = (sy < 0 || xi[k] < 0) ? bv : p[k];
    return hsum<KX>(xw, q);
}

template <bool STREAM>
GPUINTERP_DI void store4(float* p, const float (&r)[4])
{
    const float4 v = make_float4(r[0], r[1], r[2], r[3]);
    if (STREAM)
        __stcs(reinterpret_cast<float4*>(p), v);
    else
        *reinterpret_cast<float4*>(p) = v;
}

#ifdef __CUDACC__
template <bool STREAM>
GPUINTERP_DI void store4(unsigned short* p, const float (&r)[4])
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
#endif

// Shared-memory source rectangle of the staged variants, in floats (24 KiB): a 2x upscale
// block needs 18 x 130 (bilinear, 32 rows) to 36 x 132 (bicubic, 64 rows).
constexpr int resize_stage_floats = resize_build.stage_floats;

// Source accessors of the walk: row(sy) is computed once per tap and row, at(row, x) per
// sample. Constant-border taps (index -1) read some valid sample, replaced afterwards.
// `prefetch`: whether the walk loads the next source row one step before it is needed
// (global memory: yes, to hide its latency; shared memory: no, it is already on chip);
// has_row(sy) says whether row sy may be read.
template <typename T>
struct global_rows {
    const T* fin;
    int in_row;
    int in_h;
    static constexpr bool prefetch = true;
    GPUINTERP_DI const T* row(int sy) const
    {
        return fin + (long long)max(sy, 0) * in_row;
    }
    GPUINTERP_DI float at(const T* r, int x) const { return load_src(r + max(x, 0)); }
    GPUINTERP_DI bool has_row(int sy) const { return sy < in_h; }
};

struct shared_rows {
    const float* tile;
    int pitch, y0, x0;
    static constexpr bool prefetch = false;
    GPUINTERP_DI int row(int sy) const { return (sy < 0 ? 0 : sy - y0) * pitch - x0; }
    GPUINTERP_DI float at(int r, int x) const { return tile[r + (x < 0 ? x0 : x)]; }
    GPUINTERP_DI bool has_row(int) const { return false; }
};

// Vertical tables of the walk: source row k of output row oy and its weight. global_ytab
// reads the engine's tables (idx[oy * KY + k]) through the read-only cache; shared_ytab a
// block's slice of them, rows [oy_base, ...), copied into shared memory first (the rowcache
// kernel: a table load then costs a shared-memory access instead of an L1 lookup that
// the streaming source rows may have evicted, and it sits on the walk's critical path).
template <int KY>
struct global_ytab {
    const int* idx;
    const float* w;
    GPUINTERP_DI int row(int oy, int k) const { return __ldg(idx + oy * KY + k); }
    GPUINTERP_DI float weight(int oy, int k) const { return __ldg(w + oy * KY + k); }
};

template <int KY>
struct shared_ytab {
    const int* idx;
    const float* w;
    int oy_base;
    GPUINTERP_DI int row(int oy, int k) const { return idx[(oy - oy_base) * KY + k]; }
    GPUINTERP_DI float weight(int oy, int k) const { return w[(oy - oy_base) * KY + k]; }
};

// A thread's x taps and per-element transform for NCH chunks of 4 elements starting at e0
// (chunk j at e0 + j * 4 * BX, BX: the block's threads along x); a chunk past the row
// (keep = false) loads chunk 0's, recomputes it and is not stored. e0 itself must be < RW.
template <int KX, int NCH, int BX = resize_vec_bx>
struct chunk_taps {
    int xi[4 * NCH][KX];
    float xw[4 * NCH][KX];
    float m[4 * NCH], a[4 * NCH];
    bool keep[NCH];

    GPUINTERP_DI void load(const int* __restrict__ xidx,
                           const float* __restrict__ xwt,
                           int e0,
                           int RW,
                           int C,
                           const dev_transform& tf)
    {
#pragma unroll
        for (int j = 0; j < NCH; j++) {
            const int ej = e0 + j * 4 * BX;
            keep[j] = ej < RW;
            const int el = keep[j] ? ej : e0;
#pragma unroll
            for (int k = 0; k < KX; k++) {
                const int4 i4 =
                    __ldg(reinterpret_cast<const int4*>(xidx + size_t(k) * RW + el));
                const float4 w4 =
                    __ldg(reinterpret_cast<const float4*>(xwt + size_t(k) * RW + el));
                xi[4 * j + 0][k] = i4.x;
                xi[4 * j + 1][k] = i4.y;
                xi[4 * j + 2][k] = i4.z;
                xi[4 * j + 3][k] = i4.w;
                xw[4 * j + 0][k] = w4.x;
                xw[4 * j + 1][k] = w4.y;
                xw[4 * j + 2][k] = w4.z;
                xw[4 * j + 3][k] = w4.w;
            }
#pragma unroll
            for (int v = 0; v < 4; v++) {
                const int c = (el + v) % C;
                m[4 * j + v] = pick4(tf.mul, c);
                a[4 * j + v] = pick4(tf.add, c);
            }
        }
    }

    //! The samples of source row sy that the chunk's taps read.
    template <typename Src>
    GPUINTERP_DI void gather(const Src& src, int sy, float (&p)[4 * NCH][KX]) const
    {
        const auto rp = src.row(sy);
#pragma unroll
        for (int v = 0; v < 4 * NCH; v++)
#pragma unroll
            for (int k = 0; k < KX; k++)
                p[v][k] = src.at(rp, xi[v][k]);
    }

    //! h(sy) of every element from those samples (constant-border taps replaced by bv).
    GPUINTERP_DI void
    horiz(int sy, const float (&p)[4 * NCH][KX], float bv, float (&h)[4 * NCH]) const
    {
#pragma unroll
        for (int v = 0; v < 4 * NCH; v++)
            h[v] = horiz_combine<KX>(sy, xi[v], xw[v], p[v], bv);
    }
};

// The row walk of the rowcache and staged variants (see resize_2d.cu): a thread owns NCH
// chunks of 4 elements of rows [oy0, oy0 + R) and walks them in order, reusing the
// horizontally interpolated values h(sy) of the previous row's source rows. Software
// pipelining, all without changing a single rounding (the loaded floats and the arithmetic
// are the same; only when the loads are issued moves):
// - the next row's table entries (source rows and weights) load one step ahead;
// - with Src::prefetch and KY <= 2, the raw samples of source row (largest row in use) + 1
//   load at the end of a step, one or more steps before a later row needs them: at a 2x
//   upscale a new source row is needed every other output row, and without the prefetch
//   the thread waited for that row's DRAM round trip right before using it (measured on
//   the H200, 4 x 1080p -> 4K bilinear: 0.084 ms without, 0.073 ms with it and the
//   tables in shared memory). A row not read from the prefetch is gathered directly (the
//   first row, shrinks, taps past the prefetched row).
template <int KY, int KX, int R, int NCH, typename Src, typename YTab, typename O, int BX>
GPUINTERP_DI void rowcache_walk(const Src& src,
                                const chunk_taps<KX, NCH, BX>& t,
                                O* __restrict__ fout,
                                int e0,
                                int oy0,
                                const YTab& yt,
                                const launch_shape& s,
                                const dev_transform& tf)
{
    constexpr int W = 4 * NCH; // elements per thread and row
    constexpr int chunk_step = 4 * BX;
    constexpr bool PF = Src::prefetch && KY <= 2;
    // Cache: the source rows in use (those of the last row that changed them) and their h.
    // Table indices are >= -1, so INT_MIN never matches.
    int csy[KY];
    float ch[KY][W];
#pragma unroll
    for (int k = 0; k < KY; k++) {
        csy[k] = INT_MIN;
#pragma unroll
        for (int v = 0; v < W; v++)
            ch[k][v] = 0.f;
    }
    int sy[KY];
    float wy[KY];
#pragma unroll
    for (int k = 0; k < KY; k++) {
        sy[k] = yt.row(min(oy0, s.out_h - 1), k);
        wy[k] = yt.weight(min(oy0, s.out_h - 1), k);
    }
    // Prefetched raw samples of source row pfy (PF only).
    int pfy = INT_MIN;
    float pp[PF ? W : 1][KX];
#pragma unroll
    for (int v = 0; v < (PF ? W : 1); v++)
#pragma unroll
        for (int kx = 0; kx < KX; kx++)
            pp[v][kx] = 0.f;
    // Rows past the frame's last are skipped (the count is uniform across the warp).
    const int rows = min(R, s.out_h - oy0);
#pragma unroll 1
    for (int r = 0; r < rows; r++) {
        const int oy = oy0 + r;
        // The next row's table entries load while this row works.
        int nsy[KY];
        float nwy[KY];
        const int oyn = min(oy + 1, s.out_h - 1);
#pragma unroll
        for (int k = 0; k < KY; k++) {
            nsy[k] = yt.row(oyn, k);
            nwy[k] = yt.weight(oyn, k);
        }
        // Rows with the same source rows as the previous one (every other row at 2x)
        // take the short path: the cached h are still current. The test is warp-uniform.
        bool changed = false;
#pragma unroll
        for (int k = 0; k < KY; k++)
            changed = changed || sy[k] != csy[k];
        if (changed) {
            int hit[KY];
            bool any_new = false;
#pragma unroll
            for (int k = 0; k < KY; k++) {
                hit[k] = -1;
#pragma unroll
                for (int j = KY - 1; j >= 0; j--)
                    hit[k] = sy[k] == csy[j] ? j : hit[k];
                any_new = any_new || hit[k] < 0;
            }
            float nh[KY][W];
#pragma unroll
            for (int k = 0; k < KY; k++)
#pragma unroll
                for (int v = 0; v < W; v++) {
                    float c = ch[0][v];
#pragma unroll
                    for (int j = 1; j < KY; j++)
                        c = hit[k] == j ? ch[j][v] : c;
                    nh[k][v] = c;
                }
            if constexpr (PF) {
#pragma unroll
                for (int k = 0; k < KY; k++)
                    if (hit[k] < 0) {
                        float p[W][KX];
                        if (sy[k] == pfy) {
#pragma unroll
                            for (int v = 0; v < W; v++)
#pragma unroll
                                for (int kx = 0; kx < KX; kx++)
                                    p[v][kx] = pp[v][kx];
                        } else {
                            t.gather(src, sy[k], p);
                        }
                        t.horiz(sy[k], p, s.border_value, nh[k]);
                    }
                // Next prefetch: the source row after the largest in use, if there is
                // one and this thread has rows left.
                int top = sy[0];
#pragma unroll
                for (int k = 1; k < KY; k++)
                    top = max(top, sy[k]);
                if (top + 1 != pfy && src.has_row(top + 1) && r + 1 < rows) {
                    pfy = top + 1;
                    t.gather(src, pfy, pp);
                }
            } else if constexpr (KY <= 2) {
                // All new taps' loads are issued before any is used.
                if (any_new) {
                    float p[KY][W][KX];
#pragma unroll
                    for (int k = 0; k < KY; k++)
                        if (hit[k] < 0)
                            t.gather(src, sy[k], p[k]);
#pragma unroll
                    for (int k = 0; k < KY; k++)
                        if (hit[k] < 0)
                            t.horiz(sy[k], p[k], s.border_value, nh[k]);
                }
            } else {
#pragma unroll
                for (int k = 0; k < KY; k++)
                    if (hit[k] < 0) {
                        float p[W][KX];
                        t.gather(src, sy[k], p);
                        t.horiz(sy[k], p, s.border_value, nh[k]);
                    }
            }
#pragma unroll
            for (int k = 0; k < KY; k++) {
                csy[k] = sy[k];
#pragma unroll
                for (int v = 0; v < W; v++)
                    ch[k][v] = nh[k][v];
            }
        }
        float res[W];
#pragma unroll
        for (int v = 0; v < W; v++) {
            float acc;
            if constexpr (KY == 1) {
                acc = ch[0][v];
            } else {
                acc = 0.f;
#pragma unroll
                for (int k = 0; k < KY; k++)
                    acc = vacc(acc, wy[k], ch[k][v]);
            }
            res[v] = finish(acc, tf, t.m[v], t.a[v]);
        }
        O* orow = fout + (long long)oy * s.RW + e0;
#pragma unroll
        for (int j = 0; j < NCH; j++)
            if (t.keep[j]) {
                const float r4[4] = {
                    res[4 * j], res[4 * j + 1], res[4 * j + 2], res[4 * j + 3]
                };
                store4<true>(orow + j * chunk_step, r4);
            }
#pragma unroll
        for (int k = 0; k < KY; k++) {
            sy[k] = nsy[k];
            wy[k] = nwy[k];
        }
    }
}

} // namespace rz
} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
