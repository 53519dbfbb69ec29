/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Flowgraph tests in C++ (they run on the GPU host, which has no GNU Radio Python):
// vector_source -> gpuinterp interp_fir -> vector_sink against GNU Radio's interp_fir_filter.
#include "fg_util.h"
#include <gnuradio/filter/interp_fir_filter.h>
#include <gnuradio/gpuinterp/interp_fir.h>
#include <gnuradio/gpuinterp/kernel/backend.h>
#include <gnuradio/top_block.h>
#include <gtest/gtest.h>
#include <complex>
#include <random>

using cf = std::complex<float>;

namespace {

using FgInterp = gpuinterp_fg::backend_test;

TEST_P(FgInterp, MatchesGnuRadioInterpFirFilter)
{
    std::mt19937 g(7);
    std::uniform_real_distribution<float> d(-1, 1);
    for (auto [L, ntaps] : std::vector<std::pair<unsigned, size_t>>{
             { 2, 12 }, { 4, 64 }, { 16, 256 }, { 3, 10 } }) {
        std::vector<float> h(ntaps);
        for (auto& t : h)
            t = d(g);
        std::vector<cf> x(20011);
        for (auto& v : x)
            v = { d(g), d(g) };
        auto run = [&](gr::block_sptr blk) {
            return gpuinterp_fg::run_through<cf>(
                x, { blk }, { gpuinterp_fg::mark(1234, 42) });
        };
        auto ours = run(gr::gpuinterp::interp_fir_ccf::make(L, h, GetParam()));
        auto ref = run(gr::filter::interp_fir_filter_ccf::make(L, h));
        const auto& a = ours->data();
        const auto& b = ref->data();
        ASSERT_EQ(a.size(), x.size() * L);
        ASSERT_EQ(b.size(), a.size());
        double peak = 0, err = 0;
        for (size_t i = 0; i < a.size(); i++) {
            peak = std::max(peak, double(std::abs(b[i])));
            err = std::max(err, double(std::abs(a[i] - b[i])));
        }
        EXPECT_LE(err, 1e-5 * peak) << "L=" << L << " taps=" << ntaps;
        auto t = ours->tags();
        ASSERT_EQ(t.size(), 1u);
        EXPECT_EQ(t[0].offset, 1234u * L);
        EXPECT_EQ(pmt::symbol_to_string(t[0].key), "mark");
    }
}

INSTANTIATE_TEST_SUITE_P(Backends, FgInterp, ::testing::Values("cpu", "cuda"));

} // namespace
