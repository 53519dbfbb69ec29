/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_KERNEL_POLY_TILES_H
#define INCLUDED_GPUINTERP_KERNEL_POLY_TILES_H

// Index arithmetic of the tiled CUDA polyphase kernel, host-callable so the CPU test suite
// checks it (tests/qa_resampler.cc, PolyTiles.*). A tile is a run of consecutive outputs
// k0 .. k0+cnt-1; its outputs read window samples [lo, lo + n_load), which one block
// stages in shared memory once. Output k reads K samples from window index
// ip_k - (half - 1) (the CPU convention, resampler_cpu.cc), i.e. from shared index
// ip_k - ip_{k0}.

#include "fixed_phase.h"
#include <cmath>
#include <cstddef>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace kernel {

struct poly_tile {
    int64_t lo;     //!< window index of shared sample 0
    int64_t n_load; //!< samples the tile reads
};

GPUINTERP_HD inline poly_tile
poly_tile_range(fx_pos pos0, fx_step step, uint64_t k0, uint64_t cnt, int half, int K)
{
    const fx_pos a = fx_advance(pos0, step, k0);
    const fx_pos b = fx_advance(pos0, step, k0 + cnt - 1);
    return { a.ip - (half - 1), b.ip - a.ip + K };
}

//! An upper bound of n_load for any tile of `tile` outputs: ip_last - ip_first =
//! floor(f + (tile-1) s) - floor(f) <= (tile-1) s + 1 (the +2 absorbs the double rounding
//! of s, far below one sample for tile < 2^20). The kernel still checks each tile and
//! reads global memory for one that would not fit.
inline size_t poly_tile_cap(fx_step step, size_t tile, int K)
{
    const double s = double(step.ip) + std::ldexp(double(step.fp), -64);
    return size_t(std::floor(double(tile - 1) * s)) + 2 + size_t(K);
}

//! The P+1 arms in tap-major order: entry m*(P+1) + p = arm p tap m = table[(K-1-m) P + p]
//! (the CPU engine's arms). The lanes of a warp read one tap of different arms (p, then
//! p+1): 32-bit words of one row of P+1 = 33 words, so distinct arms fall in distinct
//! shared-memory banks (only arms 0 and 32 share one). A float2 pair layout (arm p, arm
//! p+1) would cost 2-4 wavefronts per load instead: 16 lanes of a half-warp on a 64-word
//! row collide whenever two arms are 16 apart.
inline std::vector<float>
poly_arm_columns(const std::vector<float>& table, unsigned K, unsigned P)
{
    std::vector<float> cols(size_t(K) * (P + 1));
    for (unsigned m = 0; m < K; m++)
        for (unsigned p = 0; p <= P; p++)
            cols[size_t(m) * (P + 1) + p] = table[size_t(K - 1 - m) * P + p];
    return cols;
}

//! Floats the arm columns take in shared memory, rounded up to keep the samples after them
//! 8-byte aligned.
GPUINTERP_HD inline size_t poly_arm_columns_floats(unsigned K, unsigned P)
{
    return (size_t(K) * (P + 1) + 1) / 2 * 2;
}

} // namespace kernel
} // namespace gpuinterp
} // namespace gr

#endif
