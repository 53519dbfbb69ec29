/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The resampler block with channels > 1 in a flowgraph: each output equals a single-channel
// block fed that channel's input (exactly on the CPU), host and device buffers, fc32 and sc16;
// a tag on input c appears on output c only, where the single-channel block puts it; bad
// channel counts.
#include "fg_util.h"
#include <gnuradio/blocks/vector_sink.h>
#include <gnuradio/blocks/vector_source.h>
#include <gnuradio/gpuinterp/kernel/backend.h>
#include <gnuradio/gpuinterp/resampler.h>
#include <gnuradio/top_block.h>
#include <gtest/gtest.h>
#include <complex>
#include <functional>
#include <random>
#include <stdexcept>

using cf = std::complex<float>;
using gr::gpuinterp::resampler_cc;

namespace {

class FgResampChannels : public ::testing::TestWithParam<std::string>
{
protected:
    void SetUp() override
    {
        if (GetParam() == "cuda" && gr::gpuinterp::cuda_device_count() == 0)
            GTEST_SKIP() << "no usable CUDA device";
    }
};

using gpuinterp_fg::mark;
using gpuinterp_fg::seeded_signal;

//! Runs `blk` with channel (first + c)'s samples x[c] and its tag at 1000 + 10 (first + c).
template <typename O>
std::vector<std::shared_ptr<gr::blocks::vector_sink<O>>>
run(gr::block_sptr blk, const std::vector<std::vector<cf>>& x, int vlen, unsigned first)
{
    std::vector<std::vector<gr::tag_t>> tags;
    for (unsigned c = 0; c < x.size(); c++)
        tags.push_back({ mark(1000 + 10 * (first + c), long(first + c)) });
    return gpuinterp_fg::run_ports<O>(blk, x, tags, vlen);
}

} // namespace

//! Output c of the N-channel block and the single-channel block's output of channel c.
template <typename O>
void compare(gr::block_sptr multi,
             const std::function<gr::block_sptr()>& single,
             const std::vector<std::vector<cf>>& x,
             int vlen,
             bool exact,
             const std::string& what)
{
    auto got = run<O>(multi, x, vlen, 0);
    for (unsigned c = 0; c < x.size(); c++) {
        const auto want = run<O>(single(), { x[c] }, vlen, c)[0];
        const auto& g = got[c]->data();
        const auto& w = want->data();
        const std::string at = what + " channel " + std::to_string(c);
        ASSERT_EQ(g.size(), w.size()) << at;
        ASSERT_GT(w.size(), x[c].size()) << at; // r > 1
        if (exact) {
            EXPECT_EQ(g, w) << at;
        } else if constexpr (std::is_same_v<O, cf>) {
            EXPECT_LT(gpuinterp_fg::rel_err(g, w), 3e-4) << at;
        } else {
            int worst = 0;
            for (size_t i = 0; i < g.size(); i++)
                worst = std::max(worst, std::abs(int(g[i]) - int(w[i])));
            EXPECT_LE(worst, 1) << at;
        }
        // one tag, its own, where the single-channel block puts it
        const auto gt = got[c]->tags(), wt = want->tags();
        ASSERT_EQ(gt.size(), 1u) << at;
        ASSERT_EQ(wt.size(), 1u) << at;
        EXPECT_EQ(gt[0].offset, wt[0].offset) << at;
        EXPECT_EQ(pmt::to_long(gt[0].value), long(c)) << at;
    }
}

TEST_P(FgResampChannels, EachChannelEqualsASingleChannelBlockAndKeepsItsTags)
{
    const unsigned N = 3;
    std::vector<std::vector<cf>> x;
    for (unsigned c = 0; c < N; c++)
        x.push_back(seeded_signal(30011, 0.3f + 0.3f * c, 21 + c));
    for (std::string method : { "polyphase", "linear", "texture" })
        for (bool dev : { false, true })
            for (std::string fmt : { "fc32", "sc16" }) {
                auto make = [&](int channels) -> gr::block_sptr {
                    return resampler_cc::make(
                        1.37, method, 32, 32, 80.0, GetParam(), 0, dev, fmt, 0.8f, channels);
                };
                auto b = resampler_cc::make(
                    1.37, method, 32, 32, 80.0, GetParam(), 0, dev, fmt, 0.8f, int(N));
                ASSERT_EQ(b->channels(), N);
                const std::string what = method + " " + fmt + (dev ? " device buffers" : "");
                const bool exact = GetParam() == "cpu";
                if (fmt == "sc16") {
                    compare<short>(b, [&] { return make(1); }, x, 2, exact, what);
                    EXPECT_GT(b->saturated(N - 1), 0u) << what; // the loudest channel clips
                } else {
                    compare<cf>(b, [&] { return make(1); }, x, 1, exact, what);
                }
            }
}

INSTANTIATE_TEST_SUITE_P(Backends, FgResampChannels, ::testing::Values("cpu", "cuda"));

TEST(FgResampChannelsParams, BadChannelCountsNameChannels)
{
    for (int N : { 0, 65, -1 }) {
        try {
            resampler_cc::make(1.5, "linear", 32, 32, 80.0, "cpu", 0, false, "fc32", 1.0f, N);
            FAIL() << "channels " << N << " accepted";
        } catch (const std::invalid_argument& e) {
            EXPECT_EQ(std::string(e.what()).rfind("channels:", 0), 0u) << e.what();
        }
    }
}
