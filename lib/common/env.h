/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_COMMON_ENV_H
#define INCLUDED_GPUINTERP_COMMON_ENV_H

// Every environment variable the module reads, in one place. None selects a kernel variant:
// those are options of the kernels and blocks.

namespace gr {
namespace gpuinterp {
namespace env {

//! GPUINTERP_BACKEND=cpu: `automatic` resolves to the CPU (tests and machines with a GPU that
//! should not be used). Read at every resolution.
bool force_cpu();
//! GPUINTERP_CUDA_SYNC=1: synchronise and check after every CUDA launch (debugging). Read once.
bool cuda_sync();
//! GPUINTERP_RESIZE_L2_HINT=0: no L2 fetch-granularity hint for gather-bound resize launches
//! (to measure what the hint is worth). Read once.
bool resize_l2_hint();
//! GPUINTERP_MAX_SOLVE_SECONDS=<s>: the longest a dpd_gram solve on the CPU may be estimated to
//! take before it is refused up front (default 60; a number > 0). Read at every solve. Throws
//! std::invalid_argument naming the variable for anything else.
double max_solve_seconds();

} // namespace env
} // namespace gpuinterp
} // namespace gr

#endif
