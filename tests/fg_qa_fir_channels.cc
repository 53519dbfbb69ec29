/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The FIR interpolator block with channels > 1 in a flowgraph: each output equals a
// single-channel block fed that channel's input (exactly on the CPU), host and device buffers,
// fc32 and sc16; a tag on input c appears on output c only, at offset * L; bad channel counts.
#include "fg_util.h"
#include <gnuradio/blocks/vector_sink.h>
#include <gnuradio/blocks/vector_source.h>
#include <gnuradio/gpuinterp/interp_fir.h>
#include <gnuradio/gpuinterp/kernel/backend.h>
#include <gnuradio/top_block.h>
#include <gtest/gtest.h>
#include <complex>
#include <random>
#include <stdexcept>

using cf = std::complex<float>;
using gr::gpuinterp::interp_fir_ccf;

namespace {

class FgFirChannels : public ::testing::TestWithParam<std::string>
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

//! Runs `blk` with channel (first + c)'s samples x[c] and its tag at 100 + 10 (first + c).
template <typename O>
std::vector<std::shared_ptr<gr::blocks::vector_sink<O>>>
run(gr::block_sptr blk, const std::vector<std::vector<cf>>& x, int vlen, unsigned first)
{
    std::vector<std::vector<gr::tag_t>> tags;
    for (unsigned c = 0; c < x.size(); c++)
        tags.push_back({ mark(100 + 10 * (first + c), long(first + c)) });
    return gpuinterp_fg::run_ports<O>(blk, x, tags, vlen);
}

} // namespace

TEST_P(FgFirChannels, EachChannelEqualsASingleChannelBlockAndKeepsItsTags)
{
    const unsigned N = 3, L = 4;
    std::vector<float> h(37);
    std::mt19937 g(3);
    std::uniform_real_distribution<float> d(-1, 1);
    for (auto& t : h)
        t = d(g);
    std::vector<std::vector<cf>> x;
    for (unsigned c = 0; c < N; c++)
        x.push_back(seeded_signal(20011, 0.2f + 0.2f * c, 11 + c));
    const bool cpu = GetParam() == "cpu";
    for (bool dev : { false, true })
        for (std::string fmt : { "fc32", "sc16" }) {
            const bool sc16 = fmt == "sc16";
            auto b = interp_fir_ccf::make(int(L), h, GetParam(), 0, 0, dev, fmt, 0.8f, int(N));
            ASSERT_EQ(b->channels(), N);
            std::vector<std::vector<short>> got16, want16;
            std::vector<std::vector<cf>> got, want;
            if (sc16) {
                auto s = run<short>(b, x, 2, 0);
                for (unsigned c = 0; c < N; c++) {
                    got16.push_back(s[c]->data());
                    auto one = interp_fir_ccf::make(int(L), h, GetParam(), 0, 0, dev, fmt, 0.8f);
                    want16.push_back(run<short>(one, { x[c] }, 2, c)[0]->data());
                }
            } else {
                auto s = run<cf>(b, x, 1, 0);
                for (unsigned c = 0; c < N; c++) {
                    got.push_back(s[c]->data());
                    auto one = interp_fir_ccf::make(int(L), h, GetParam(), 0, 0, dev, fmt);
                    want.push_back(run<cf>(one, { x[c] }, 1, c)[0]->data());
                }
            }
            for (unsigned c = 0; c < N; c++) {
                const std::string what = fmt + (dev ? " device buffers" : "") + " channel " +
                                         std::to_string(c);
                if (sc16) {
                    ASSERT_EQ(got16[c].size(), 2 * x[c].size() * L) << what;
                    if (cpu) {
                        EXPECT_EQ(got16[c], want16[c]) << what;
                    } else {
                        int worst = 0;
                        for (size_t i = 0; i < got16[c].size(); i++)
                            worst = std::max(worst, std::abs(got16[c][i] - want16[c][i]));
                        EXPECT_LE(worst, 1) << what;
                    }
                    if (c == N - 1)
                        EXPECT_GT(b->saturated(c), 0u) << what; // the loudest channel clips
                } else {
                    ASSERT_EQ(got[c].size(), x[c].size() * L) << what;
                    if (cpu)
                        EXPECT_EQ(got[c], want[c]) << what;
                    else
                        EXPECT_LT(gpuinterp_fg::rel_err(got[c], want[c]), 2e-5) << what;
                }
            }
        }
}

TEST_P(FgFirChannels, TagsStayOnTheirChannelScaledByL)
{
    const unsigned N = 4, L = 3;
    std::vector<std::vector<cf>> x;
    for (unsigned c = 0; c < N; c++)
        x.push_back(seeded_signal(5000, 0.5f, 40 + c));
    auto b = interp_fir_ccf::make(int(L), { 0.5f, 1.0f, 0.25f, 0.1f }, GetParam(), 0, 0, false, "fc32", 1.0f, int(N));
    auto s = run<cf>(b, x, 1, 0);
    for (unsigned c = 0; c < N; c++) {
        const auto tags = s[c]->tags();
        ASSERT_EQ(tags.size(), 1u) << "output " << c;
        EXPECT_EQ(tags[0].offset, uint64_t(100 + 10 * c) * L) << "output " << c;
        EXPECT_EQ(pmt::to_long(tags[0].value), long(c)) << "output " << c;
    }
}

INSTANTIATE_TEST_SUITE_P(Backends, FgFirChannels, ::testing::Values("cpu", "cuda"));

TEST(FgFirChannelsParams, BadChannelCountsNameChannels)
{
    for (int N : { 0, 65, -1 }) {
        try {
            interp_fir_ccf::make(2, { 1.0f }, "cpu", 0, 0, false, "fc32", 1.0f, N);
            FAIL() << "channels " << N << " accepted";
        } catch (const std::invalid_argument& e) {
            EXPECT_EQ(std::string(e.what()).rfind("channels:", 0), 0u) << e.what();
        }
    }
}
