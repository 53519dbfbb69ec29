/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The FIR interpolator and the resampler with channels > 1 in a flowgraph: each output equals a
// single-channel block fed that channel's input (exactly on the CPU), host and device buffers,
// fc32 and sc16; a tag on input c appears on output c only, where a single-channel block puts
// it (FIR: at offset * L); bad channel counts.
#include "fg_util.h"
#include <gnuradio/gpuinterp/interp_fir.h>
#include <gnuradio/gpuinterp/kernel/backend.h>
#include <gnuradio/gpuinterp/resampler.h>
#include <gtest/gtest.h>
#include <complex>
#include <functional>
#include <random>
#include <stdexcept>

using cf = std::complex<float>;
using gpuinterp_fg::mark;
using gpuinterp_fg::seeded_signal;
using gr::gpuinterp::interp_fir_ccf;
using gr::gpuinterp::resampler_cc;

namespace {

using FgChannels = gpuinterp_fg::backend_test;

uint64_t tag_at(unsigned channel) { return 1000 + 10 * channel; }

//! Runs `blk` with channel (first + c)'s samples x[c], tagged "mark" = first + c at
//! tag_at(first + c).
template <typename O>
std::vector<std::shared_ptr<gr::blocks::vector_sink<O>>>
run(gr::block_sptr blk, const std::vector<std::vector<cf>>& x, int vlen, unsigned first)
{
    std::vector<std::vector<gr::tag_t>> tags;
    for (unsigned c = 0; c < x.size(); c++)
        tags.push_back({ mark(tag_at(first + c), long(first + c)) });
    return gpuinterp_fg::run_ports<O>(blk, x, tags, vlen);
}

std::vector<std::vector<cf>> channel_inputs(unsigned N, size_t n, unsigned seed)
{
    std::vector<std::vector<cf>> x;
    for (unsigned c = 0; c < N; c++) // louder channel by channel: the last clips at 0.8
        x.push_back(seeded_signal(n, 0.3f + 0.3f * c, seed + c));
    return x;
}

//! Output c of the N-channel block against the single-channel block's output of channel c:
//! exactly, or (CUDA) to `rtol` of the peak (sc16: one step); and its tag, its own only.
template <typename O>
void compare(gr::block_sptr multi,
             const std::function<gr::block_sptr()>& single,
             const std::vector<std::vector<cf>>& x,
             int vlen,
             bool exact,
             double rtol,
             const std::string& what)
{
    auto got = run<O>(multi, x, vlen, 0);
    for (unsigned c = 0; c < x.size(); c++) {
        const auto want = run<O>(single(), { x[c] }, vlen, c)[0];
        const auto& g = got[c]->data();
        const auto& w = want->data();
        const std::string at = what + " channel " + std::to_string(c);
        ASSERT_EQ(g.size(), w.size()) << at;
        ASSERT_GT(w.size(), x[c].size()) << at; // both blocks raise the rate
        if (exact) {
            EXPECT_EQ(g, w) << at;
        } else if constexpr (std::is_same_v<O, cf>) {
            EXPECT_LT(gpuinterp_fg::rel_err(g, w), rtol) << at;
        } else {
            int worst = 0;
            for (size_t i = 0; i < g.size(); i++)
                worst = std::max(worst, std::abs(int(g[i]) - int(w[i])));
            EXPECT_LE(worst, 1) << at;
        }
        const auto gt = got[c]->tags(), wt = want->tags();
        ASSERT_EQ(gt.size(), 1u) << at;
        ASSERT_EQ(wt.size(), 1u) << at;
        EXPECT_EQ(gt[0].offset, wt[0].offset) << at;
        EXPECT_EQ(pmt::to_long(gt[0].value), long(c)) << at;
    }
}

//! compare() in the output format `fmt`: sc16 (2 values an item, within one step) or fc32
//! (to `fc32_rtol`), exactly when `exact`. The loudest channel clips at full scale 0.8, so
//! with sc16 the last channel's saturated() count must have grown.
template <typename Block>
void compare_format(const std::shared_ptr<Block>& multi,
                    const std::function<gr::block_sptr()>& single,
                    const std::vector<std::vector<cf>>& x,
                    const std::string& fmt,
                    bool exact,
                    double fc32_rtol,
                    const std::string& what)
{
    if (fmt == "sc16") {
        compare<short>(multi, single, x, 2, exact, 0, what);
        EXPECT_GT(multi->saturated(unsigned(x.size()) - 1), 0u) << what;
    } else {
        compare<cf>(multi, single, x, 1, exact, fc32_rtol, what);
    }
}

} // namespace

TEST_P(FgChannels, FirEachChannelEqualsASingleChannelBlock)
{
    const unsigned N = 3, L = 4;
    std::vector<float> h(37);
    std::mt19937 g(3);
    std::uniform_real_distribution<float> d(-1, 1);
    for (auto& t : h)
        t = d(g);
    const auto x = channel_inputs(N, 20011, 11);
    for (bool dev : { false, true })
        for (std::string fmt : { "fc32", "sc16" }) {
            auto make = [&](int channels) {
                return interp_fir_ccf::make(
                    int(L), h, GetParam(), 0, 0, dev, fmt, 0.8f, channels);
            };
            auto b = make(int(N));
            ASSERT_EQ(b->channels(), N);
            const std::string what = "fir " + fmt + (dev ? " device buffers" : "");
            compare_format(
                b, [&] { return make(1); }, x, fmt, GetParam() == "cpu", 2e-5, what);
        }
}

TEST_P(FgChannels, FirTagsStayOnTheirChannelScaledByL)
{
    const unsigned N = 4, L = 3;
    auto b = interp_fir_ccf::make(int(L),
                                  { 0.5f, 1.0f, 0.25f, 0.1f },
                                  GetParam(),
                                  0,
                                  0,
                                  false,
                                  "fc32",
                                  1.0f,
                                  int(N));
    auto s = run<cf>(b, channel_inputs(N, 5000, 40), 1, 0);
    for (unsigned c = 0; c < N; c++) {
        const auto tags = s[c]->tags();
        ASSERT_EQ(tags.size(), 1u) << "output " << c;
        EXPECT_EQ(tags[0].offset, tag_at(c) * L) << "output " << c;
        EXPECT_EQ(pmt::to_long(tags[0].value), long(c)) << "output " << c;
    }
}

TEST_P(FgChannels, ResamplerEachChannelEqualsASingleChannelBlock)
{
    const unsigned N = 3;
    const auto x = channel_inputs(N, 30011, 21);
    for (std::string method : { "polyphase", "linear", "texture" })
        for (bool dev : { false, true })
            for (std::string fmt : { "fc32", "sc16" }) {
                auto make = [&](int channels) {
                    return gpuinterp_fg::resampler_default_filter(
                        1.37, method, GetParam(), dev, fmt, 0.8f, channels);
                };
                auto b = make(int(N));
                ASSERT_EQ(b->channels(), N);
                const std::string what =
                    method + " " + fmt + (dev ? " device buffers" : "");
                compare_format(
                    b, [&] { return make(1); }, x, fmt, GetParam() == "cpu", 3e-4, what);
            }
}

INSTANTIATE_TEST_SUITE_P(Backends, FgChannels, ::testing::Values("cpu", "cuda"));

TEST(FgChannelsParams, BadChannelCountsNameChannels)
{
    for (int N : { 0, 65, -1 }) {
        for (int which = 0; which < 2; which++) {
            try {
                if (which == 0)
                    interp_fir_ccf::make(
                        2, { 1.0f }, "cpu", 0, 0, false, "fc32", 1.0f, N);
                else
                    resampler_cc::make(
                        1.5, "linear", 32, 32, 80.0, "cpu", 0, false, "fc32", 1.0f, N);
                FAIL() << "channels " << N << " accepted";
            } catch (const std::invalid_argument& e) {
                EXPECT_EQ(std::string(e.what()).rfind("channels:", 0), 0u) << e.what();
            }
        }
    }
}
