/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <gnuradio/gpuinterp/kernel/sample_format.h>
#include <gnuradio/gpuinterp/kernel/validate.h>
#include <cmath>

namespace gr {
namespace gpuinterp {
namespace kernel {

void validate_full_scale(float full_scale)
{
    if (!(full_scale > 0.0f) || !std::isfinite(full_scale))
        invalid_parameter("full_scale",
                          "must be finite and > 0 (the output magnitude that maps to "
                          "32767), got " +
                              std::to_string(full_scale));
}

} // namespace kernel
} // namespace gpuinterp
} // namespace gr
