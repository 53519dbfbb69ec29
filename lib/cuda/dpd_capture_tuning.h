/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_CUDA_DPD_CAPTURE_TUNING_H
#define INCLUDED_GPUINTERP_CUDA_DPD_CAPTURE_TUNING_H

// Tuning of the CUDA capture engine (dpd_capture.cu). arch_tuning.h says how build constants and
// run-time rows differ; docs/performance.md ("Tuning tables") gives what is behind each value.

#include "arch_tuning.h"

namespace gr {
namespace gpuinterp {
namespace gpu {

//! Build constant: threads per block of every capture kernel (their shared-memory reductions are
//! sized by it).
constexpr int capture_threads_build = 256;

//! Chosen per device when the engine is built.
struct capture_tuning {
    int sm_min;        //!< first compute capability (major * 10 + minor) of the row
    int blocks_per_sm; //!< the reductions' grid (partial sums, argmax): this many blocks per SM,
        //!< the threads striding over the rest; the host adds one partial a block
};
constexpr capture_tuning capture_tuning_table[] = {
    { 90, 2 }, // sm_90 (H200: 264 blocks); the default of every other architecture
};

GPUINTERP_TUNING_ROW_FOR(capture_tuning)

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
