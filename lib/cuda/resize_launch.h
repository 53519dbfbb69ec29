/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_CUDA_RESIZE_LAUNCH_H
#define INCLUDED_GPUINTERP_CUDA_RESIZE_LAUNCH_H

// Launch geometry of the CUDA resize_2d kernels: which kernel variant runs, its grid,
// and which outputs each thread owns. Plain C++ (no CUDA headers) so the CPU test suite
// can enumerate every block and thread of a plan and check that each output element is
// written exactly once; the kernels call the same position functions.

#include "../common/host_device.h"
#include "resize_tuning.h"
#include "resize_variant.h"
#include <algorithm>
#include <cstddef>
#include <string>

namespace gr {
namespace gpuinterp {
namespace gpu {

// Names the kernels and plans use for the build constants (resize_tuning.h).
constexpr int resize_tile_tx = resize_build.tile_threads; // tile: threads per block
constexpr int resize_tile_v =
    resize_build.tile_elements; // tile: elements per thread, tx apart
// vec4, strided and rowcache variants: blocks of vec_bx x vec_by threads
constexpr int resize_vec_bx = resize_build.vec_bx;
constexpr int resize_vec_by = resize_build.vec_by;
// point variants
constexpr int resize_point_bx = resize_build.point_bx;
constexpr int resize_point_by = resize_build.point_by;
// Largest gridDim.y / gridDim.z.
constexpr unsigned resize_grid_yz_max = 65535;

struct resize_plan {
    resize_variant variant = resize_variant::tile;
    unsigned gx = 1, gy = 1, gz = 1; // grid of one launch (tile: 1D, gx blocks)
    unsigned bx = 1, by = 1;         // block
    int rows = 1;                    // output rows per thread (tile, vec4)
    int frames_per_thread = 1;       // point_f4: 4
    int chunks = 1;                  // rowcache: chunks of 4 elements per thread
    int tiles_x = 1, row_groups = 1; // tile: decomposition of the flat block index
    size_t frames_per_launch = 1;    // larger calls launch in slices of this many frames
};

inline bool resize_is_vec4(resize_variant v)
{
    return v == resize_variant::vec4_r1 || v == resize_variant::vec4_r2 ||
           v == resize_variant::vec4_r2_plain || v == resize_variant::vec4_r4;
}

inline bool resize_is_strided(resize_variant v)
{
    return v == resize_variant::strided_r2 || v == resize_variant::strided_r4;
}

//! The rowcache variants and the staged ones (the same thread mapping and row walk).
inline bool resize_is_rowcache(resize_variant v)
{
    return v == resize_variant::rowcache_r8 || v == resize_variant::rowcache_r16 ||
           v == resize_variant::rowcache_r32 || v == resize_variant::rowcache_w8 ||
           v == resize_variant::staged_r8 || v == resize_variant::staged_r16;
}

//! Rows per thread of the vec4 and strided variants.
inline int resize_vec4_rows(resize_variant v)
{
    return (v == resize_variant::vec4_r1)
               ? 1
               : (v == resize_variant::vec4_r4 || v == resize_variant::strided_r4 ? 4
                                                                                  : 2);
}

/*!
 * RW: output elements per row (out_w * channels); vec_ok: the 16-byte (float) / 8-byte
 * (binary16) row stores and the 16-byte table loads are aligned (the output base is;
 * RW % 4 == 0 is checked here); taps: x taps of the method (1, 2, 4); upscale_y: out_h >= in_h
 * (output rows can reuse source rows). A requested variant
 * that the shape cannot take falls back to tile, which takes every shape (rowcache_w8 with
 * bicubic taps runs rowcache_r8 instead, which then falls back to tile like the others).
 * t: the tuning row of the automatic choice (resize_tuning_for(sm) of the device); b: the build constants of the kernel instances that will run the plan (the
 * library's are resize_build; the benchmarks plan other instances of the same templates).
 */
inline resize_plan resize_plan_launch(resize_variant req,
                                      int RW,
                                      int out_h,
                                      size_t frames,
                                      int sms,
                                      bool vec_ok,
                                      int taps = 2,
                                      bool upscale_y = false,
                                      const resize_tuning& t = resize_tuning_for(90),
                                      const resize_build_tuning& b = resize_build)
{
    resize_plan p;
    frames = std::max<size_t>(frames, 1);
    vec_ok = vec_ok && RW % 4 == 0;
    const double total = double(RW) * out_h * double(frames);
    resize_variant v = req;
    if (v == resize_variant::automatic) {
        if (total < t.small_outputs)
            v = frames >= 4 ? resize_variant::point_f4 : resize_variant::point;
        else if (upscale_y && vec_ok && taps >= 2)
            v = t.upscale;
        else
            // Bicubic without row reuse runs tile: vec4 would need ~160 registers per thread.
            v = vec_ok && taps <= 2 ? t.wide : resize_variant::tile;
    }
    if (resize_is_vec4(v) || resize_is_strided(v)) {
        const int R = resize_vec4_rows(v);
        const long long gy = (out_h + b.vec_by * R - 1) / (b.vec_by * R);
        if ((resize_is_vec4(v) && !vec_ok) || gy > resize_grid_yz_max)
            v = resize_variant::tile;
        else {
            p.variant = v;
            p.rows = R;
            p.bx = b.vec_bx;
            p.by = b.vec_by;
            // Both cover 4 * vec_bx elements of a row per block.
            p.gx = unsigned((RW + 4 * b.vec_bx - 1) / (4 * b.vec_bx));
            p.gy = unsigned(gy);
            p.frames_per_launch = std::min<size_t>(frames, resize_grid_yz_max);
            p.gz = unsigned(p.frames_per_launch);
            return p;
        }
    }
    if (v == resize_variant::rowcache_w8 && taps > 2)
        // Two chunks of bicubic taps and cached rows would need ~250 registers.
        v = resize_variant::rowcache_r8;
    if (resize_is_rowcache(v)) {
        const int R =
            v == resize_variant::rowcache_r32
                ? 32
                : (v == resize_variant::rowcache_r16 || v == resize_variant::staged_r16
                       ? 16
                       : 8);
        const int chunks = v == resize_variant::rowcache_w8 ? 2 : 1;
        const long long gy = (out_h + b.vec_by * R - 1) / (b.vec_by * R);
        if (vec_ok && gy <= resize_grid_yz_max) {
            p.variant = v;
            p.rows = R;
            p.chunks = chunks;
            p.bx = b.vec_bx;
            p.by = b.vec_by;
            p.gx = unsigned((RW + 4 * b.vec_bx * chunks - 1) / (4 * b.vec_bx * chunks));
            p.gy = unsigned(gy);
            p.frames_per_launch = std::min<size_t>(frames, resize_grid_yz_max);
            p.gz = unsigned(p.frames_per_launch);
            return p;
        }
        v = resize_variant::tile;
    }
    if (v == resize_variant::point || v == resize_variant::point_f4) {
        const long long gy = (out_h + b.point_by - 1) / b.point_by;
        if (gy <= resize_grid_yz_max) {
            p.variant = v;
            p.frames_per_thread = v == resize_variant::point_f4 ? 4 : 1;
            p.bx = b.point_bx;
            p.by = b.point_by;
            p.gx = unsigned((RW + b.point_bx - 1) / b.point_bx);
            p.gy = unsigned(gy);
            p.frames_per_launch = std::min<size_t>(
                frames, size_t(resize_grid_yz_max) * p.frames_per_thread);
            p.gz = unsigned((p.frames_per_launch + p.frames_per_thread - 1) /
                            p.frames_per_thread);
            return p;
        }
    }
    // tile: several rows per thread reuse the x taps held in registers; only worth it
    // while the grid still has a few waves of blocks for every SM.
    p.variant = resize_variant::tile;
    p.bx = b.tile_threads;
    p.tiles_x =
        (RW + b.tile_threads * b.tile_elements - 1) / (b.tile_threads * b.tile_elements);
    const double blocks1 = double(p.tiles_x) * out_h * double(frames);
    p.rows = blocks1 >= t.tile_waves * 32 * sms * 4
                 ? 4
                 : (blocks1 >= t.tile_waves * 32 * sms * 2 ? 2 : 1);
    p.row_groups = (out_h + p.rows - 1) / p.rows;
    // The flattened block index stays below 2^31.
    const size_t per_frame = size_t(p.tiles_x) * p.row_groups;
    p.frames_per_launch =
        std::min(frames, std::max<size_t>(1, (size_t(1) << 31) / per_frame - 1));
    p.gx = unsigned(per_frame * p.frames_per_launch);
    return p;
}

//! Grid of the launch that covers `nf` (<= p.frames_per_launch) frames.
struct resize_grid {
    unsigned x, y, z;
};
inline resize_grid resize_grid_for(const resize_plan& p, size_t nf)
{
    if (p.variant == resize_variant::tile)
        return { unsigned(size_t(p.tiles_x) * p.row_groups * nf), 1, 1 };
    return { p.gx, p.gy, unsigned((nf + p.frames_per_thread - 1) / p.frames_per_thread) };
}

//! Outputs of one thread. tile: elements e0 + v*64 (v < 4) of rows [oy0, oy0+rows) of
//! frame f; vec4: elements e0..e0+3 of the same rows; strided: elements e0 + v*64 (v < 4)
//! of the same rows; rowcache: elements e0 + j*256 .. +3 (j < chunks) of the same rows;
//! point: element e0 of row oy0 of
//! frames f .. f+frames_per_thread-1. Callers drop positions past the frame's edges.
struct resize_thread_pos {
    int e0, oy0;
    long long f;
};

// The position functions take the block shape as template arguments (default: the library's
// build, resize_build) so that the benchmarks' instances of the kernels with other blocks map
// threads the same way their plans (resize_plan_launch with their build) assume.
template <int TX = resize_tile_tx, int V = resize_tile_v>
GPUINTERP_HD inline resize_thread_pos
resize_tile_pos(unsigned b, unsigned tx, int tiles_x, int row_groups, int rows)
{
    const int tile = int(b % unsigned(tiles_x));
    const unsigned rest = b / unsigned(tiles_x);
    const int rg = int(rest % unsigned(row_groups));
    return { tile * (TX * V) + int(tx),
             rg * rows,
             (long long)(rest / unsigned(row_groups)) };
}

template <int BX = resize_vec_bx, int BY = resize_vec_by>
GPUINTERP_HD inline resize_thread_pos
resize_vec4_pos(unsigned bx, unsigned by, unsigned bz, unsigned tx, unsigned ty, int rows)
{
    return { int((bx * BX + tx) * 4), int(by * BY + ty) * rows, (long long)bz };
}

template <int BX = resize_vec_bx, int BY = resize_vec_by>
GPUINTERP_HD inline resize_thread_pos resize_strided_pos(
    unsigned bx, unsigned by, unsigned bz, unsigned tx, unsigned ty, int rows)
{
    return { int(bx * (BX * 4) + tx), int(by * BY + ty) * rows, (long long)bz };
}

//! rowcache: chunk j (< chunks) of the thread is elements e0 + j*4*resize_vec_bx .. +3
//! (whole chunks: the plan requires RW % 4 == 0) of rows [oy0, oy0 + rows).
template <int BX = resize_vec_bx, int BY = resize_vec_by>
GPUINTERP_HD inline resize_thread_pos resize_rowcache_pos(
    unsigned bx, unsigned by, unsigned bz, unsigned tx, unsigned ty, int rows, int chunks)
{
    return { int(bx * (BX * 4 * chunks) + tx * 4),
             int(by * BY + ty) * rows,
             (long long)bz };
}

template <int BX = resize_point_bx, int BY = resize_point_by>
GPUINTERP_HD inline resize_thread_pos resize_point_pos(unsigned bx,
                                                       unsigned by,
                                                       unsigned bz,
                                                       unsigned tx,
                                                       unsigned ty,
                                                       int frames_per_thread)
{
    return { int(bx * BX + tx), int(by * BY + ty), (long long)bz * frames_per_thread };
}

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
