/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_COMMON_PARALLEL_H
#define INCLUDED_GPUINTERP_COMMON_PARALLEL_H

// Split [0, n_blocks) across OpenMP threads when the call carries enough work to pay for it.
// The threshold is in multiply-accumulates so kernels of different cost share one rule.

#include <algorithm>
#include <cstddef>
#include <cstring>
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

/*!
 * Calls fn(thread_index, s0, s1) over contiguous ranges [s0, s1) covering [0, n): up to 4 ranges
 * per thread, none shorter than 4 tiles, handed out dynamically, so a thread that the OS preempts
 * (a shared machine) does not stall the others at the end of the call. In parallel when
 * total_macs exceeds ~1e6. Streaming kernels with a history use it: a range recomputes only the
 * samples of the history before it.
 */
template <typename F>
void parallel_ranges(size_t n, size_t tile, double total_macs, F&& fn)
{
    const int nt = max_threads();
    const size_t n_ranges =
        std::max<size_t>(1, std::min<size_t>(size_t(4) * nt, n / (4 * tile)));
    const size_t per = (n + n_ranges - 1) / n_ranges;
    const bool par = n_ranges > 1 && nt > 1 && total_macs > 1e6;
    (void)par;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) if (par)
#endif
    for (long r = 0; r < long(n_ranges); r++) {
        const size_t s0 = size_t(r) * per, s1 = std::min(n, s0 + per);
        if (s0 < s1)
            fn(thread_index(), s0, s1);
    }
}

//! memcpy split across up to 8 threads for large copies: one thread moves ~8 GB/s, which would
//! cap a GPU block's host<->pinned staging far below the bus (~55 GB/s on an H200 host).
inline void parallel_copy(void* dst, const void* src, size_t bytes)
{
    constexpr size_t piece = size_t(1) << 20;
    const size_t n = (bytes + piece - 1) / piece;
    const bool par = n > 1 && max_threads() > 1;
    (void)par;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(std::min(8, max_threads())) if (par)
#endif
    for (long i = 0; i < static_cast<long>(n); i++) {
        const size_t off = size_t(i) * piece;
        std::memcpy(static_cast<char*>(dst) + off,
                    static_cast<const char*>(src) + off,
                    std::min(piece, bytes - off));
    }
}

} // namespace cpu
} // namespace gpuinterp
} // namespace gr

#endif
