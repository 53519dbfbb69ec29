/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_FG_UTIL_H
#define INCLUDED_GPUINTERP_FG_UTIL_H

// Shared by the C++ flowgraph tests.

#include <gnuradio/blocks/vector_sink.h>
#include <gnuradio/blocks/vector_source.h>
#include <gnuradio/top_block.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <random>
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

//! n complex values uniform in [-a, a] from a generator seeded here (the data of one test do not
//! depend on which tests ran before it).
inline std::vector<std::complex<float>> seeded_signal(size_t n, float a, unsigned seed)
{
    std::mt19937 g(seed);
    std::uniform_real_distribution<float> d(-a, a);
    std::vector<std::complex<float>> v(n);
    for (auto& x : v)
        x = { d(g), d(g) };
    return v;
}

//! A tag "mark" = value at offset.
inline gr::tag_t mark(uint64_t offset, long value)
{
    gr::tag_t t;
    t.offset = offset;
    t.key = pmt::intern("mark");
    t.value = pmt::from_long(value);
    return t;
}

//! Runs `blk` with input c fed x[c] (carrying tags[c]) and output c into a vector sink of vlen
//! items, until the sources end; returns the sinks.
template <typename O, typename I>
std::vector<std::shared_ptr<gr::blocks::vector_sink<O>>>
run_ports(gr::block_sptr blk,
          const std::vector<std::vector<I>>& x,
          const std::vector<std::vector<gr::tag_t>>& tags,
          int vlen)
{
    auto tb = gr::make_top_block("ports");
    std::vector<std::shared_ptr<gr::blocks::vector_sink<O>>> snk;
    for (unsigned c = 0; c < x.size(); c++) {
        auto src = gr::blocks::vector_source<I>::make(x[c], false, 1, tags[c]);
        snk.push_back(gr::blocks::vector_sink<O>::make(vlen));
        tb->connect(src, 0, blk, int(c));
        tb->connect(blk, int(c), snk.back(), 0);
    }
    within(120, "flowgraph", [&] { tb->run(); });
    return snk;
}

} // namespace gpuinterp_fg

#endif
