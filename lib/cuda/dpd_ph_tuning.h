/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_CUDA_DPD_PH_TUNING_H
#define INCLUDED_GPUINTERP_CUDA_DPD_PH_TUNING_H

// Tuning of the parallel-Hammerstein kernels (dpd_ph_kernels.cuh, plan in dpd_ph_launch.h; the
// bank's kernel, dpd_bank.cu, runs the tiled body with the same constants). arch_tuning.h says how
// build constants and run-time rows differ; docs/performance.md ("Tuning tables") gives the
// measurement behind each value.

#include "../kernel/dpd_engine.h"
#include "arch_tuning.h"

namespace gr {
namespace gpuinterp {
namespace gpu {

//! Compiled into the kernels.
struct ph_build_tuning {
    int smem_threads; //!< threads per block of the smem kernel
    int smem_r; //!< smem kernel's register-blocked outputs per thread (odd: no conflicts)
    int tiled_r;        //!< tiled kernels: outputs per thread
    int tiled_threads;  //!< tiled kernels: threads per block
    int tiled_unroll_m; //!< orders up to this get the unrolled tiled kernels (P, Q <= 15)
};
constexpr ph_build_tuning ph_build{ 256, 7, 5, 256, 8 };

//! Chosen per device when the plan is made.
struct ph_tuning {
    int sm_min; //!< first compute capability (major * 10 + minor) of the row
    kernel::dpd_cuda_variant automatic; //!< what `automatic` runs
    int smem_blocking_above_taps; //!< smem kernel: register blocking (smem_r) above this Lmax
    int smem_outputs_per_halo; //!< smem kernel: a tile holds at least this many outputs per
                               //!< halo sample (the halo's extra basis work <= 1/this)
};
constexpr ph_tuning ph_tuning_table[] = {
    { 90,
      kernel::dpd_cuda_variant::tiled,
      1,
      4 }, // sm_90 (H200); the default of every other
};

GPUINTERP_TUNING_ROW_FOR(ph_tuning)

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
