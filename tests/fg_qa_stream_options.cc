/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The stream options as one list (stream_options.h): each block's make(own parameters,
// stream_options) builds the block its positional make() builds from the same values, which the
// two report alike and which compute the same samples (two channels, sc16 output, CPU backend:
// bit for bit); and every field it checks is named in the error of a bad value.
#include "fg_util.h"
#include <gnuradio/gpuinterp/dpd_predistorter_cc.h>
#include <gnuradio/gpuinterp/interp_fir.h>
#include <gnuradio/gpuinterp/resampler.h>
#include <gnuradio/gpuinterp/stream_options.h>
#include <gtest/gtest.h>
#include <complex>
#include <functional>
#include <random>
#include <string>

using cf = std::complex<float>;
namespace gi = gr::gpuinterp;

namespace {

gi::stream_options two_channels_sc16()
{
    gi::stream_options o;
    o.backend = "cpu";
    o.batch = 4096;
    o.channels = 2;
    o.output_format = "sc16";
    o.full_scale = 0.8f;
    return o;
}

std::vector<std::vector<cf>> signals(size_t n)
{
    std::mt19937 g(7);
    std::uniform_real_distribution<float> d(-0.3f, 0.3f);
    std::vector<std::vector<cf>> x(2, std::vector<cf>(n));
    for (auto& ch : x)
        for (auto& v : ch)
            v = cf(d(g), d(g));
    return x;
}

// Both blocks' outputs on both channels, as int16 pairs (sc16 items are 4 bytes: one int32).
std::vector<std::vector<int32_t>> outputs(gr::block_sptr blk)
{
    const auto x = signals(3000);
    const auto snk = gpuinterp_fg::run_ports<int32_t, cf>(blk, x, { {}, {} }, 1);
    return { snk[0]->data(), snk[1]->data() };
}

template <typename B>
void expect_same_options(const B& a, const B& b)
{
    EXPECT_EQ(a->active_backend(), b->active_backend());
    EXPECT_EQ(a->device_buffers(), b->device_buffers());
    EXPECT_EQ(a->channels(), b->channels());
    EXPECT_EQ(a->output_format(), b->output_format());
    EXPECT_EQ(a->input_format(), b->input_format());
    EXPECT_EQ(a->full_scale(), b->full_scale());
}

// make(o) throws std::invalid_argument whose message starts with `field`.
void expect_names(const std::string& field,
                  const std::function<void(const gi::stream_options&)>& make,
                  const std::function<void(gi::stream_options&)>& spoil)
{
    gi::stream_options o;
    o.backend = "cpu";
    spoil(o);
    try {
        make(o);
        ADD_FAILURE() << field << ": no error";
    } catch (const std::invalid_argument& e) {
        EXPECT_EQ(std::string(e.what()).rfind(field + ":", 0), 0u) << e.what();
    }
}

void expect_every_field_named(const std::function<void(const gi::stream_options&)>& make)
{
    expect_names("backend", make, [](auto& o) { o.backend = "gpu"; });
    expect_names("batch", make, [](auto& o) { o.batch = -1; });
    expect_names("channels", make, [](auto& o) { o.channels = 0; });
    expect_names("channels", make, [](auto& o) { o.channels = 65; });
    expect_names("output_format", make, [](auto& o) { o.output_format = "sc8"; });
    expect_names("input_format", make, [](auto& o) { o.input_format = "cs16"; });
    expect_names("full_scale", make, [](auto& o) {
        o.output_format = "sc16";
        o.full_scale = 0.0f;
    });
    expect_names("full_scale", make, [](auto& o) {
        o.input_format = "sc16";
        o.full_scale = -1.0f;
    });
}

const std::vector<float> taps = {
    0.1f, 0.4f, 0.9f, 0.4f, 0.1f, -0.05f, 0.02f, 0.3f, 0.2f
};

} // namespace

TEST(StreamOptions, InterpFirOptionsEqualPositional)
{
    const auto o = two_channels_sc16();
    auto a = gi::interp_fir_ccf::make(3, taps, o);
    auto b =
        gi::interp_fir_ccf::make(3, taps, "cpu", 0, 4096, false, "sc16", 0.8f, 2, "fc32");
    expect_same_options(a, b);
    EXPECT_EQ(a->batch(), 4096);
    const auto y = outputs(a);
    ASSERT_EQ(y[1].size(), 3u * 3000);
    EXPECT_EQ(y, outputs(b));
    expect_every_field_named(
        [](const gi::stream_options& o) { gi::interp_fir_ccf::make(3, taps, o); });
}

TEST(StreamOptions, ResamplerOptionsEqualPositional)
{
    const auto o = two_channels_sc16();
    auto a = gi::resampler_cc::make(1.37, "polyphase", { 32, 16, 70.0 }, o);
    auto b = gi::resampler_cc::make(
        1.37, "polyphase", 32, 16, 70.0, "cpu", 0, false, "sc16", 0.8f, 2, "fc32");
    expect_same_options(a, b);
    const auto y = outputs(a);
    ASSERT_GT(y[1].size(), 4000u); // about 1.37 x 3000, less the filter's reach
    EXPECT_EQ(y, outputs(b));
    expect_every_field_named([](const gi::stream_options& o) {
        gi::resampler_cc::make(1.37, "polyphase", { 32, 16, 70.0 }, o);
    });
}

TEST(StreamOptions, PredistorterOptionsEqualPositional)
{
    const auto o = two_channels_sc16();
    std::vector<cf> co(3 * 2 + 2 * 2, cf(0.02f, -0.01f));
    co[0] = 1.0f;
    const cf lo(0.001f, -0.002f);
    auto a = gi::dpd_predistorter_cc::make("ph:P=5,Q=3,Lp=2,Lq=2", co, lo, {}, false, o);
    auto b = gi::dpd_predistorter_cc::make(
        5, 3, 2, 2, co, lo, "cpu", 0, 4096, false, false, "", 2, "sc16", 0.8f, "fc32");
    expect_same_options(a, b);
    EXPECT_EQ(a->batch(), 4096);
    const auto y = outputs(a);
    ASSERT_EQ(y[1].size(), 3000u);
    EXPECT_EQ(y, outputs(b));
    expect_every_field_named([&](const gi::stream_options& o) {
        gi::dpd_predistorter_cc::make("ph:P=5,Q=3,Lp=2,Lq=2", co, lo, {}, false, o);
    });
}
