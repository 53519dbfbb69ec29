/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_CUDA_FIR_TUNING_H
#define INCLUDED_GPUINTERP_CUDA_FIR_TUNING_H

// Tuning of the polyphase interpolation kernel (polyphase_interpolator.cu, plan in fir_launch.h).
// arch_tuning.h says how build constants and run-time rows differ; docs/performance.md ("Tuning
// tables") gives the measurement behind each value.

#include "arch_tuning.h"

namespace gr {
namespace gpuinterp {
namespace gpu {

//! Compiled into the kernel (fir_kernels.cuh's fir_build_shape); the benchmarks' lab
//! (bench/fir_lab.h) compiles the same kernel and plan with other pairs for comparison.
struct fir_build_tuning {
    int outputs_per_item; //!< R: outputs of one arm per work item (odd: conflict-free window loads)
    int threads; //!< per block (__launch_bounds__)
};
constexpr fir_build_tuning fir_build{ 7, 256 };

//! Chosen per device when the plan is made.
struct fir_tuning {
    int sm_min;           //!< first compute capability (major * 10 + minor) of the row
    int items_per_thread; //!< work items per thread and tile (sets the tile's inputs)
    int stage_below_arms; //!< fewer arms: outputs staged in shared memory for coalesced stores
};
constexpr fir_tuning fir_tuning_table[] = {
    // sm_90 (H200); the default of every other architecture. 16 arms store unstaged: 8 % faster
    // at (16, 256) than staged (docs/performance.md, "Tuning tables").
    { 90, 2, 16 },
};

GPUINTERP_TUNING_ROW_FOR(fir_tuning)

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
