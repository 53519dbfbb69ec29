/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "float16.h"
#include <cmath>
#include <cstring>

namespace gr {
namespace gpuinterp {

uint16_t float_to_half(float f)
{
    uint32_t x;
    std::memcpy(&x, &f, 4);
    const uint32_t sign = (x >> 16) & 0x8000u;
    const uint32_t a = x & 0x7fffffffu;
    if (a >= 0x7f800000u) // inf or NaN (keep NaN quiet and non-zero)
        return uint16_t(sign | 0x7c00u |
                        (a > 0x7f800000u ? (0x200u | ((a >> 13) & 0x3ffu)) : 0u));
    if (a >= 0x477ff000u) // >= 65520 rounds to infinity
        return uint16_t(sign | 0x7c00u);
    if (a < 0x38800000u) { // below the smallest normal half, 2^-14: subnormal or zero
        float v;
        std::memcpy(&v, &a, 4);
        const uint32_t q =
            uint32_t(std::nearbyint(v * 16777216.0f)); // units of 2^-24, exact scaling
        return uint16_t(sign | q);
    }
    uint32_t h = ((((a >> 23) - 127 + 15) & 0x1fu) << 10) | ((a >> 13) & 0x3ffu);
    const uint32_t rem = a & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
        h++; // a carry into the exponent is the correct rounding
    return uint16_t(sign | h);
}

float half_to_float(uint16_t h)
{
    const uint32_t sign = uint32_t(h & 0x8000u) << 16;
    const uint32_t e = (h >> 10) & 0x1fu;
    const uint32_t m = h & 0x3ffu;
    float v;
    if (e == 0) {
        v = std::ldexp(float(m), -24);
        uint32_t b;
        std::memcpy(&b, &v, 4);
        b |= sign;
        std::memcpy(&v, &b, 4);
        return v;
    }
    uint32_t b =
        sign | (e == 31 ? (0xffu << 23) | (m << 13) : ((e - 15 + 127) << 23) | (m << 13));
    std::memcpy(&v, &b, 4);
    return v;
}

} // namespace gpuinterp
} // namespace gr
