/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_CUDA_RESIZE_TUNING_H
#define INCLUDED_GPUINTERP_CUDA_RESIZE_TUNING_H

// Tuning of the CUDA resize_2d kernels (resize_kernels.cuh, resize_walk.h; plan in
// resize_launch.h). arch_tuning.h says how build constants and run-time rows differ;
// docs/performance.md ("Tuning tables") gives the measurement behind each value.

#include "arch_tuning.h"
#include "resize_variant.h"

namespace gr {
namespace gpuinterp {
namespace gpu {

//! Compiled into the kernels.
struct resize_build_tuning {
    int tile_threads;   //!< tile: threads per block (one row tile)
    int tile_elements;  //!< tile: output elements per thread along x, tile_threads apart
    int vec_bx, vec_by; //!< vec4, strided, rowcache: block of vec_bx x vec_by threads
    int point_bx, point_by; //!< point variants: block
    int stage_floats; //!< staged variants: shared-memory source rectangle, in floats
    //! rowcache: resident blocks per SM its registers are budgeted for (__launch_bounds__), for
    //! nearest (1 tap), bilinear with one chunk, and the rest (bicubic, two chunks)
    int rowcache_blocks_nearest, rowcache_blocks_bilinear, rowcache_blocks_other;
};
constexpr resize_build_tuning resize_build{ 128, 2, 64, 4, 32, 8, 6144, 4, 3, 2 };

//! Chosen per device when a launch is planned: which variant `automatic` runs for each kind of
//! shape, and how many rows a tile thread takes.
struct resize_tuning {
    int sm_min; //!< first compute capability (major * 10 + minor) of the row
    //! Fewer outputs per launch: a point variant (gather-latency bound, it wants many threads).
    double small_outputs;
    resize_variant upscale; //!< output rows reuse source rows, 16-byte stores, >= 2 taps
    resize_variant wide;    //!< other shapes with 16-byte stores and <= 2 taps
    //! tile: 4 (2) rows per thread while the grid keeps this many waves of 32 blocks per SM at
    //! 4 (2) rows, else 1.
    double tile_waves;
};
constexpr resize_tuning resize_tuning_table[] = {
    // sm_90 (H200); the default of every other architecture. The rowcache walk over 32 output
    // rows wins every upscale with row reuse (bilinear and bicubic); vec4_r4 the rest (nearest,
    // shrinks).
    { 90, 4.0 * 1024 * 1024, resize_variant::rowcache_r32, resize_variant::vec4_r4, 2.0 },
};

GPUINTERP_TUNING_ROW_FOR(resize_tuning)

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
