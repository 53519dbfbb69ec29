/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_BENCH_GMP_TIMING_H
#define INCLUDED_GPUINTERP_BENCH_GMP_TIMING_H

#include "kernel/gmp_engine.h"
#include <cstddef>

namespace gr {
namespace gpuinterp {
namespace gpu {

//! Milliseconds per launch (CUDA events, median of `iters`) of the mp/gmp kernel alone on n
//! device-resident samples (bench/gmp_timing.cu).
double time_gmp_kernel_ms(int device, const kernel::gmp_program& program, size_t n, int iters);

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
