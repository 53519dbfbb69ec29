/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_COMMON_FLOAT16_H
#define INCLUDED_GPUINTERP_COMMON_FLOAT16_H

#include <cstdint>

namespace gr {
namespace gpuinterp {

//! IEEE binary16 from float, round to nearest even (overflow to infinity, NaN kept). Portable (no
//! F16C needed): the reference the CPU engines' F16C path and the CUDA __float2half_rn agree with.
uint16_t float_to_half(float f);
float half_to_float(uint16_t h);

} // namespace gpuinterp
} // namespace gr

#endif
