/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_KERNEL_FIXED_PHASE_H
#define INCLUDED_GPUINTERP_KERNEL_FIXED_PHASE_H

// Output positions of the resampler in 64.64 fixed point (input samples). Why fixed
// point: the position of output k must be computable in closed form (t_0 + k*step, so GPU
// threads and CPU threads compute outputs independently) AND equal the running sum a
// sequential loop would form (so chunking never changes the output). Integer arithmetic
// gives both exactly, and with 64 fractional bits the phase never degrades however long
// the stream runs (a double closed form would lose ~1e-4 samples of precision after 10^12
// outputs). Shared by C++ and CUDA code.

#include "../common/host_device.h"
#include <cstdint>

namespace gr {
namespace gpuinterp {
namespace kernel {

//! Input samples per output: ip + fp / 2^64.
struct fx_step {
    uint64_t ip;
    uint64_t fp;
};

//! Position in input samples: ip + fp / 2^64 (ip may be negative).
struct fx_pos {
    int64_t ip;
    uint64_t fp;
};

GPUINTERP_HD inline uint64_t fx_mulhi(uint64_t a, uint64_t b)
{
#if defined(__CUDA_ARCH__)
    return __umul64hi(a, b);
#else
    return static_cast<uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
#endif
}

//! p + j * s, exactly (mod 2^64 in the integer part).
GPUINTERP_HD inline fx_pos fx_advance(fx_pos p, fx_step s, uint64_t j)
{
    const uint64_t lo = j * s.fp;
    const uint64_t hi = fx_mulhi(j, s.fp);
    const uint64_t f = p.fp + lo;
    const uint64_t carry = f < lo ? 1u : 0u;
    return { p.ip + static_cast<int64_t>(j * s.ip + hi + carry), f };
}

GPUINTERP_HD inline fx_pos fx_add(fx_pos p, fx_step s) { return fx_advance(p, s, 1); }

//! Fraction as a float with 24 bits (truncated): exact conversion, same on host and
//! device.
GPUINTERP_HD inline float fx_frac_f(uint64_t fp)
{
    return static_cast<float>(fp >> 40) * (1.0f / 16777216.0f);
}
//! Fraction as a double with 53 bits (truncated).
GPUINTERP_HD inline double fx_frac_d(uint64_t fp)
{
    return static_cast<double>(fp >> 11) * (1.0 / 9007199254740992.0);
}
//! round(frac * 256) with ties up: 0..256 (the texture method's 9-bit weight numerator).
GPUINTERP_HD inline int fx_weight9(uint64_t fp)
{
    return static_cast<int>(((fp >> 55) + 1) >> 1);
}

} // namespace kernel
} // namespace gpuinterp
} // namespace gr

#endif
