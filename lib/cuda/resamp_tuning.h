/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_CUDA_RESAMP_TUNING_H
#define INCLUDED_GPUINTERP_CUDA_RESAMP_TUNING_H

// Tuning of the CUDA resampler (resamp_kernels.cuh; launches in resamp_engine.cuh).
// arch_tuning.h says how build constants and run-time rows differ; docs/performance.md ("Tuning
// tables") gives the measurement behind each value. Not here: the texture row width W
// (resamp_kernels.cuh), which keeps the texture coordinate exact in float and sets how many
// samples one pitch-2D texture covers, so it is a matter of correctness, not of speed.

#include "arch_tuning.h"

namespace gr {
namespace gpuinterp {
namespace gpu {

//! Compiled into the kernels.
struct resamp_build_tuning {
    int tiled_threads; //!< tiled polyphase kernel: threads per block (__launch_bounds__)
};
constexpr resamp_build_tuning resamp_build{ 256 };

//! Chosen per device when the engine is built.
struct resamp_tuning {
    int sm_min; //!< first compute capability (major * 10 + minor) of the row
    //! method (untiled) kernels: threads per block (they take any block size)
    int threads;
    //! method kernels: the grid is capped at this many blocks per SM, the threads stride over the
    //! rest (the tiled kernel's grid is as many blocks as fit on the SMs)
    int blocks_per_sm;
    //! tiled polyphase kernel: outputs per tile, tried in this order (largest first) until the
    //! arm table and a tile's input span fit in shared memory; when none fits, the untiled kernel
    int poly_tiles[3];
};
constexpr resamp_tuning resamp_tuning_table[] = {
    // sm_90 (H200); the default of every other architecture
    { 90, 256, 32, { 1024, 256, 64 } },
};

GPUINTERP_TUNING_ROW_FOR(resamp_tuning)

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
