/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_FG_UTIL_H
#define INCLUDED_GPUINTERP_FG_UTIL_H

// Shared by the C++ flowgraph tests.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <future>
#include <iostream>
#include <vector>

namespace gpuinterp_fg {

//! Runs `f` (start + wait of a flowgraph) with a deadline: a hang is a failure, not a
//! stuck ctest.
template <typename F>
void within(int seconds, const char* what, F&& f)
{
    auto fut = std::async(std::launch::async, std::forward<F>(f));
    if (fut.wait_for(std::chrono::seconds(seconds)) == std::future_status::timeout) {
        std::cerr << "FATAL: " << what << " did not finish within " << seconds
                  << " s (hang)\n";
        std::_Exit(3);
    }
    fut.get(); // rethrows
}


//! max |a - b| over max |b|; a size mismatch or a NaN counts as a huge error.
inline double rel_err(const std::vector<std::complex<float>>& a, const std::vector<std::complex<float>>& b)
{
    if (a.size() != b.size())
        return 1e30;
    double peak = 0, err = 0;
    for (size_t i = 0; i < a.size(); i++) {
        peak = std::max(peak, double(std::abs(b[i])));
        const double e = std::abs(a[i] - b[i]);
        err = std::isnan(e) ? 1e30 : std::max(err, e);
    }
    return err / std::max(peak, 1e-30);
}

} // namespace gpuinterp_fg

#endif
