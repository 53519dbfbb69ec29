/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "../common/enum_names.h"
#include <gnuradio/gpuinterp/kernel/sample_format.h>
#include <gnuradio/gpuinterp/kernel/validate.h>
#include <cmath>

namespace gr {
namespace gpuinterp {
namespace kernel {

namespace {
// GRC's and gr-uhd's names are accepted next to the short ones.
const enum_name<sample_format> formats[] = {
    { sample_format::fc32, "fc32" },          { sample_format::sc16, "sc16" },
    { sample_format::fc32, "complex" },       { sample_format::fc32, "complex float" },
    { sample_format::sc16, "complex int16" },
};
} // namespace

sample_format sample_format_from_string(const std::string& name, const char* what)
{
    return enum_from_string(what, name, formats);
}

std::string to_string(sample_format f) { return enum_to_string(f, formats); }

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
