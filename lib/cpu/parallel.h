/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_CPU_PARALLEL_H
#define INCLUDED_GPUINTERP_CPU_PARALLEL_H

// Split [0, n_blocks) across OpenMP threads when the call carries enough work to pay for it.
// The threshold is in multiply-accumulates so kernels of different cost share one rule.

#include <cstddef>
#ifdef _OPENMP
#include <omp.h>
#endif

namespace gr {
namespace gpuinterp {
namespace cpu {

inline int max_threads()
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

inline int thread_index()
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

//! Calls fn(block_index) for each block; in parallel when total_macs exceeds ~1e6.
template <typename F>
void parallel_blocks(size_t n_blocks, double total_macs, F&& fn)
{
    const bool par = n_blocks > 1 && total_macs > 1e6 && max_threads() > 1;
    (void)par;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (par)
#endif
    for (long b = 0; b < static_cast<long>(n_blocks); b++)
        fn(static_cast<size_t>(b));
}

} // namespace cpu
} // namespace gpuinterp
} // namespace gr

#endif
