/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_FG_UTIL_H
#define INCLUDED_GPUINTERP_FG_UTIL_H

// Shared by the C++ flowgraph tests.

#include "test_util.h"
#include <gnuradio/blocks/copy.h>
#include <gnuradio/blocks/vector_sink.h>
#include <gnuradio/blocks/vector_source.h>
#include <gnuradio/gpuinterp/kernel/backend.h>
#include <gnuradio/gpuinterp/resampler.h>
#include <gnuradio/top_block.h>
#include <gtest/gtest.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <future>
#include <iostream>
#include <random>
#include <string>
#include <vector>

namespace gpuinterp_fg {

//! The resampler block with make()'s filter (32 arms of 32 taps, 80 dB) on device 0: what the
//! format and channel tests vary is the rest.
inline gr::gpuinterp::resampler_cc::sptr
resampler_default_filter(double rate,
                         const std::string& method,
                         const std::string& backend,
                         bool device_buffers,
                         const std::string& output_format,
                         float full_scale,
                         int channels,
                         const std::string& input_format = "fc32")
{
    return gr::gpuinterp::resampler_cc::make(rate,
                                             method,
                                             32,
                                             32,
                                             80.0,
                                             backend,
                                             0,
                                             device_buffers,
                                             output_format,
                                             full_scale,
                                             channels,
                                             input_format);
}

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
inline double rel_err(const std::vector<std::complex<float>>& a,
                      const std::vector<std::complex<float>>& b)
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

//! n complex values uniform in [-a, a] from a generator seeded here (test_util.h): the data of one
//! test do not depend on which tests ran before it.
using gpuinterp_test::seeded_signal;

//! The data of a table_lookup test, drawn from one generator seeded here: a table of n complex
//! values uniform in [-1, 1], then m coordinates uniform in [lo, hi].
struct lookup_data {
    std::vector<std::complex<float>> table;
    std::vector<float> x;
};
inline lookup_data random_lookup(unsigned seed, size_t n, size_t m, float lo, float hi)
{
    std::mt19937 g(seed);
    std::uniform_real_distribution<float> d(-1.f, 1.f), c(lo, hi);
    lookup_data k{ std::vector<std::complex<float>>(n), std::vector<float>(m) };
    for (auto& t : k.table)
        t = { d(g), d(g) };
    for (auto& v : k.x)
        v = c(g);
    return k;
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

//! A test parametrised over the backend's name ("cpu", "cuda"): the "cuda" cases skip where no
//! CUDA device is usable.
class backend_test : public ::testing::TestWithParam<std::string>
{
protected:
    void SetUp() override
    {
        if (GetParam() == "cuda" && gr::gpuinterp::cuda_device_count() == 0)
            GTEST_SKIP() << "no usable CUDA device";
    }
};

//! Skips a test that needs n CUDA devices where fewer are usable.
#define GPUINTERP_FG_SKIP_WITHOUT_CUDA_DEVICES(n)                                   \
    do {                                                                            \
        const int found_ = ::gr::gpuinterp::cuda_device_count();                    \
        if (found_ < (n))                                                           \
            GTEST_SKIP() << "needs " << (n) << " CUDA device(s), found " << found_; \
    } while (0)

//! Connects port 0 of every block to port 0 of the next, as Python's tb.connect(a, b, c) does.
inline void connect_chain(const gr::top_block_sptr& tb,
                          const std::vector<gr::basic_block_sptr>& chain)
{
    for (size_t i = 1; i < chain.size(); i++)
        tb->connect(chain[i - 1], 0, chain[i], 0);
}

//! vector_source(x, tags) -> chain -> vector_sink of out_vlen items, in a flowgraph of their own,
//! run to the end of x (with a deadline); returns the sink, for its data and tags.
template <typename O, typename I>
std::shared_ptr<gr::blocks::vector_sink<O>>
run_through(const std::vector<I>& x,
            const std::vector<gr::basic_block_sptr>& chain,
            const std::vector<gr::tag_t>& tags = {},
            int out_vlen = 1)
{
    auto tb = gr::make_top_block("through");
    auto src = gr::blocks::vector_source<I>::make(x, false, 1, tags);
    auto snk = gr::blocks::vector_sink<O>::make(out_vlen);
    std::vector<gr::basic_block_sptr> all{ src };
    all.insert(all.end(), chain.begin(), chain.end());
    all.push_back(snk);
    connect_chain(tb, all);
    within(120, "flowgraph", [&] { tb->run(); });
    return snk;
}

//! The tests' random tiny buffers and call sizes (every edge wraps many times): limit() gives a
//! block max_output_buffer = multiple * a draw of [min_buffer, max_buffer] and max_noutput_items
//! = multiple * a draw of [1, max_calls], in that order, from a generator seeded here.
struct tiny_buffers {
    std::mt19937 g;
    std::uniform_int_distribution<int> buffer, calls;

    tiny_buffers(unsigned seed, int min_buffer, int max_buffer, int max_calls)
        : g(seed), buffer(min_buffer, max_buffer), calls(1, max_calls)
    {
    }

    void limit(const gr::block_sptr& b, int multiple = 1)
    {
        b->set_max_output_buffer(buffer(g) * multiple);
        b->set_max_noutput_items(calls(g) * multiple);
    }

    //! A limited copy block of complex floats to feed a chain: vector_source emits everything in
    //! one call (its output multiple is its length), so only a block behind it sees small calls.
    gr::block_sptr copy()
    {
        auto cp = gr::blocks::copy::make(sizeof(std::complex<float>));
        limit(cp);
        return cp;
    }
};

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
