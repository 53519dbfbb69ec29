/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_COMMON_SC16_H
#define INCLUDED_GPUINTERP_COMMON_SC16_H

// One component's fc32 -> sc16 conversion (kernel/sample_format.h has the definition), for the
// CUDA kernels' last store and the CPU backend alike, so both round and saturate the same way.

#include "host_device.h"
#include <cmath>
#include <cstdint>

namespace gr {
namespace gpuinterp {

//! rint(v * scale) saturated to int16; sets `sat` when clipped, `bad` when v * scale is NaN.
GPUINTERP_HD inline int16_t sc16_component(float v, float scale, bool& sat, bool& bad)
{
    const float s = v * scale;
    if (s != s) {
        bad = true;
        return 0;
    }
    if (s >= 32767.5f) {
        sat = true;
        return 32767;
    }
    if (s < -32768.5f) {
        sat = true;
        return -32768;
    }
#if defined(__CUDA_ARCH__)
    return int16_t(__float2int_rn(s));
#else
    return int16_t(std::nearbyint(s));
#endif
}

} // namespace gpuinterp
} // namespace gr

#endif
