/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_KERNEL_VALIDATE_H
#define INCLUDED_GPUINTERP_KERNEL_VALIDATE_H

// Parameter checks shared by kernels and blocks. They throw std::invalid_argument whose message
// starts with the parameter's name, which pybind11 turns into a Python ValueError.

#include <cmath>
#include <complex>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace gpuinterp {

inline bool is_finite_value(float v) { return std::isfinite(v); }
inline bool is_finite_value(double v) { return std::isfinite(v); }
template <typename R>
inline bool is_finite_value(const std::complex<R>& v)
{
    return std::isfinite(v.real()) && std::isfinite(v.imag());
}

[[noreturn]] inline void invalid_parameter(const std::string& name,
                                           const std::string& why)
{
    throw std::invalid_argument(name + ": " + why);
}

template <typename V>
void require_finite(const std::string& name, const std::vector<V>& v)
{
    for (size_t i = 0; i < v.size(); i++)
        if (!is_finite_value(v[i]))
            invalid_parameter(name, "element " + std::to_string(i) + " is not finite");
}

template <typename V>
void require_nonempty_finite(const std::string& name, const std::vector<V>& v)
{
    if (v.empty())
        invalid_parameter(name, "must not be empty");
    require_finite(name, v);
}

} // namespace gpuinterp
} // namespace gr

#endif
