/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "env.h"
#include <cmath>
#include <cstdlib>
#include <stdexcept>
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

double max_solve_seconds()
{
    const char* v = std::getenv("GPUINTERP_MAX_SOLVE_SECONDS");
    if (!v || !*v)
        return 60.0;
    char* end = nullptr;
    const double s = std::strtod(v, &end);
    if (*end || !(s > 0) || !std::isfinite(s))
        throw std::invalid_argument(
            std::string(
                "GPUINTERP_MAX_SOLVE_SECONDS: must be a number of seconds > 0, got '") +
            v + "'");
    return s;
}

} // namespace env
} // namespace gpuinterp
} // namespace gr
