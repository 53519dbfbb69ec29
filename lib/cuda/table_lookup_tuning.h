/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_CUDA_TABLE_LOOKUP_TUNING_H
#define INCLUDED_GPUINTERP_CUDA_TABLE_LOOKUP_TUNING_H

// Tuning of the CUDA table lookup (table_lookup.cu). arch_tuning.h says how build constants and
// run-time rows differ; docs/performance.md ("Tuning tables") gives the measurement behind each
// value. No build constant: both kernels are grid-stride loops without __launch_bounds__, so
// their launch shape is all chosen at run time.

#include "arch_tuning.h"

namespace gr {
namespace gpuinterp {
namespace gpu {

//! Chosen per device when the engine is built.
struct table_lookup_tuning {
    int sm_min;        //!< first compute capability (major * 10 + minor) of the row
    int threads;       //!< texture and exact kernels: threads per block
    int blocks_per_sm; //!< the grid is capped at this many blocks per SM, the threads stride
                       //!< over the rest
};
constexpr table_lookup_tuning table_lookup_tuning_table[] = {
    { 90, 256, 16 }, // sm_90 (H200); the default of every other architecture
};

GPUINTERP_TUNING_ROW_FOR(table_lookup_tuning)

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
