/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_CUDA_RESIZE_VARIANT_H
#define INCLUDED_GPUINTERP_CUDA_RESIZE_VARIANT_H

// The CUDA resize_2d kernel variants and their names (the launch plan, resize_launch.h, and the
// tuning table, resize_tuning.h, both name them). Plain C++.

#include "../common/enum_names.h"
#include <string>

namespace gr {
namespace gpuinterp {
namespace gpu {

//! Kernel variants (all sample the same host-built tables with the same arithmetic, so
//! they produce bit-identical results; they differ only in how work maps to threads).
enum class resize_variant : int {
    automatic = -1,
    tile = 0,    //!< row tiles of strided elements x up to 4 rows (block: resize_build)
    vec4_r2 = 1, //!< 4 consecutive elements (one 16-byte store) x 2 rows, streaming
    vec4_r2_plain = 2, //!< as vec4_r2 with ordinary (write-back) stores
    vec4_r4 = 3,       //!< 4 consecutive elements x 4 rows, streaming stores
    vec4_r1 = 4,       //!< 4 consecutive elements x 1 row, streaming stores
    point = 5,         //!< one output element per thread, 32x8 blocks, grid z = frame
    point_f4 = 6,    //!< one element of 4 frames per thread (16 gathers issued together)
    strided_r2 = 7,  //!< vec4's 256-thread 2D blocks with tile's mapping (elements 64
                     //!< apart, 4-byte stores, any row width) x 2 rows
    strided_r4 = 8,  //!< the same with 4 rows per thread
    rowcache_r8 = 9, //!< vec4's mapping, 8 rows walked in order; a horizontally
                     //!< interpolated source row is reused by the next output row
    rowcache_r16 = 10, //!< the same with 16 rows per thread
    rowcache_w8 = 11, //!< rowcache_r8 with 2 chunks of 4 elements (256 apart) per thread;
                      //!< nearest/bilinear only (bicubic runs rowcache_r8)
    staged_r8 = 12,   //!< rowcache_r8 reading a shared-memory copy of the block's source
                      //!< rectangle (global gathers where it does not fit)
    staged_r16 = 13,  //!< the same with 16 rows per thread
    rowcache_r32 = 14, //!< rowcache with 32 rows per thread
};
constexpr int resize_variant_count = 15;

constexpr enum_name<resize_variant> resize_variant_names[] = {
    { resize_variant::automatic, "automatic" },
    { resize_variant::tile, "tile" },
    { resize_variant::vec4_r2, "vec4_r2" },
    { resize_variant::vec4_r2_plain, "vec4_r2_plain" },
    { resize_variant::vec4_r4, "vec4_r4" },
    { resize_variant::vec4_r1, "vec4_r1" },
    { resize_variant::point, "point" },
    { resize_variant::point_f4, "point_f4" },
    { resize_variant::strided_r2, "strided_r2" },
    { resize_variant::strided_r4, "strided_r4" },
    { resize_variant::rowcache_r8, "rowcache_r8" },
    { resize_variant::rowcache_r16, "rowcache_r16" },
    { resize_variant::rowcache_w8, "rowcache_w8" },
    { resize_variant::staged_r8, "staged_r8" },
    { resize_variant::staged_r16, "staged_r16" },
    { resize_variant::rowcache_r32, "rowcache_r32" },
};

inline std::string resize_variant_name(resize_variant v)
{
    return enum_to_string(v, resize_variant_names);
}

//! The variants the library launches itself: those the automatic choice picks (tile is also
//! every other variant's fallback). The rest are benchmark-only (bench/resize_lab.cu); their plans stay
//! here so the CPU tests check every variant's geometry.
constexpr bool resize_is_production(resize_variant v)
{
    return v == resize_variant::tile || v == resize_variant::vec4_r4 ||
           v == resize_variant::rowcache_r32 || v == resize_variant::point ||
           v == resize_variant::point_f4;
}

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
