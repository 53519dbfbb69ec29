/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "env.h"
#include <cstdlib>
#include <string>

namespace gr {
namespace gpuinterp {
namespace env {

namespace {
bool equals(const char* name, const char* value)
{
    const char* v = std::getenv(name);
    return v && std::string(v) == value;
}
} // namespace

bool force_cpu() { return equals("GPUINTERP_BACKEND", "cpu"); }

bool cuda_sync()
{
    static const bool on = [] {
        const char* v = std::getenv("GPUINTERP_CUDA_SYNC");
        return v && v[0] == '1';
    }();
    return on;
}

bool resize_l2_hint()
{
    static const bool on = !equals("GPUINTERP_RESIZE_L2_HINT", "0");
    return on;
}

} // namespace env
} // namespace gpuinterp
} // namespace gr
