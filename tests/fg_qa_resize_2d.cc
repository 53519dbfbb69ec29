/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Flowgraph tests of resize_2d_ff/_bf in C++ (they also run on the GPU host, which has no
// GNU Radio Python): vector_source -> resize_2d -> vector_sink on both backends, against
// the CPU kernel (which qa_kernels checks against a double-precision reference), with
// tags, binary16 output, uint8 frames, and a setter between two runs.
#include "fg_util.h"
#include <gnuradio/gpuinterp/kernel/backend.h>
#include <gnuradio/gpuinterp/kernel/resize_2d.h>
#include <gnuradio/gpuinterp/resize_2d.h>
#include <gnuradio/top_block.h>
#include <gtest/gtest.h>
#include <cmath>
#include <cstring>
#include <random>

namespace {

using gr::gpuinterp::backend;
using gr::gpuinterp::kernel::resize_2d;

using FgResize = gpuinterp_fg::backend_test;

float half_bits_to_float(uint16_t h)
{
    const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    const float s = (h & 0x8000) ? -1.f : 1.f;
    if (e == 0)
        return s * std::ldexp(float(m), -24);
    if (e == 31)
        return m ? NAN : s * INFINITY;
    return s * std::ldexp(float(m + 1024), e - 25);
}

TEST_P(FgResize, FloatFramesWithTagsMatchKernel)
{
    const int ih = 37, iw = 50, oh = 64, ow = 23, C = 3, frames = 41;
    std::mt19937 g(3);
    std::uniform_real_distribution<float> d(0.05f, 1.f);
    std::vector<float> x(size_t(frames) * ih * iw * C);
    for (auto& v : x)
        v = d(g);
    const std::vector<float> mean{ 0.485f, 0.456f, 0.406f },
        stdv{ 0.229f, 0.224f, 0.225f };
    std::vector<gr::tag_t> tags(1);
    tags[0].offset = 29;
    tags[0].key = pmt::intern("frame");
    tags[0].value = pmt::from_long(29);

    auto tb = gr::make_top_block("t");
    auto src = gr::blocks::vector_source<float>::make(x, false, ih * iw * C, tags);
    auto blk = gr::gpuinterp::resize_2d_ff::make(ih,
                                                 iw,
                                                 oh,
                                                 ow,
                                                 C,
                                                 "bicubic",
                                                 "half_pixel",
                                                 "reflect_101",
                                                 0.f,
                                                 mean,
                                                 stdv,
                                                 1.f,
                                                 false,
                                                 false,
                                                 GetParam());
    EXPECT_EQ(blk->active_backend(), GetParam());
    auto snk = gr::blocks::vector_sink<float>::make(oh * ow * C);
    tb->connect(src, 0, blk, 0);
    tb->connect(blk, 0, snk, 0);
    tb->run();

    resize_2d<float> k(
        ih, iw, oh, ow, C, "bicubic", "half_pixel", "reflect_101", 0.f, backend::cpu);
    k.set_normalization(mean, stdv);
    std::vector<float> want(size_t(frames) * k.out_frame_size());
    k.resize(want.data(), x.data(), frames);
    const auto& got = snk->data();
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); i++)
        ASSERT_NEAR(got[i], want[i], 1e-5 * (1 + std::fabs(want[i]))) << i;
    auto t = snk->tags();
    ASSERT_EQ(t.size(), 1u);
    EXPECT_EQ(t[0].offset, 29u);
}

TEST_P(FgResize, Uint8FramesHalfOutputAndSetterBetweenRuns)
{
    const int ih = 64, iw = 48, oh = 224, ow = 224, frames = 9;
    std::mt19937 g(5);
    std::vector<uint8_t> x(size_t(frames) * ih * iw);
    for (auto& v : x)
        v = uint8_t(1 + g() % 255);
    auto blk = gr::gpuinterp::resize_2d_bf::make(ih,
                                                 iw,
                                                 oh,
                                                 ow,
                                                 1,
                                                 "bilinear",
                                                 "align_corners",
                                                 "constant",
                                                 7.f,
                                                 { 0.5f },
                                                 { 0.25f },
                                                 1.f / 255,
                                                 false,
                                                 true,
                                                 GetParam(),
                                                 0,
                                                 0.f,
                                                 1.f,
                                                 2);
    resize_2d<uint8_t> k(
        ih, iw, oh, ow, 1, "bilinear", "align_corners", "constant", 7.f, backend::cpu);
    k.set_normalization({ 0.5f }, { 0.25f });
    k.set_scale(1.f / 255);
    std::vector<float> want(size_t(frames) * k.out_frame_size());
    for (int run = 0; run < 2; run++) {
        if (run == 1) { // a setter between two runs of the same block
            blk->set_normalization({ 0.1f }, { 2.f });
            k.set_normalization({ 0.1f }, { 2.f });
        }
        auto tb = gr::make_top_block("t");
        auto src = gr::blocks::vector_source<uint8_t>::make(x, false, ih * iw);
        auto snk = gr::blocks::vector_sink<short>::make(
            oh * ow); // binary16 travels as 2-byte items
        tb->connect(src, 0, blk, 0);
        tb->connect(blk, 0, snk, 0);
        tb->run();
        k.resize(want.data(), x.data(), frames);
        const auto& got = snk->data();
        ASSERT_EQ(got.size(), want.size());
        for (size_t i = 0; i < got.size(); i++) {
            uint16_t h;
            std::memcpy(&h, &got[i], 2);
            ASSERT_LE(std::fabs(half_bits_to_float(h) - want[i]),
                      1e-3 * std::fabs(want[i]) + 1e-6)
                << "run " << run << " index " << i;
        }
    }
}

TEST_P(FgResize, BadParametersThrowNamedErrors)
{
    auto named = [](const std::function<void()>& f, const std::string& name) {
        try {
            f();
        } catch (const std::invalid_argument& e) {
            return std::string(e.what()).rfind(name + ":", 0) == 0;
        }
        return false;
    };
    const std::string b = GetParam();
    // A 4x4 -> 4x4 resizer on backend b, valid but for the parameters given.
    auto make_ff =
        [&](int in_height, const std::string& method, const std::string& border) {
            gr::gpuinterp::resize_2d_ff::make(in_height,
                                              4,
                                              4,
                                              4,
                                              1,
                                              method,
                                              "half_pixel",
                                              border,
                                              0,
                                              {},
                                              {},
                                              1,
                                              false,
                                              false,
                                              b);
        };
    auto make_bf =
        [&](int channels, const std::vector<float>& mean, const std::vector<float>& std) {
            gr::gpuinterp::resize_2d_bf::make(4,
                                              4,
                                              4,
                                              4,
                                              channels,
                                              "bilinear",
                                              "half_pixel",
                                              "replicate",
                                              0,
                                              mean,
                                              std,
                                              1,
                                              false,
                                              false,
                                              b);
        };
    EXPECT_TRUE(named([&] { make_ff(0, "bilinear", "replicate"); }, "in_height"));
    EXPECT_TRUE(named([&] { make_ff(4, "area", "replicate"); }, "method"));
    EXPECT_TRUE(named([&] { make_ff(4, "bilinear", "wrap"); }, "border"));
    EXPECT_TRUE(named([&] { make_bf(2, { 0.f, 0.f }, { 1.f, 0.f }); }, "std"));
    EXPECT_TRUE(named([&] { make_bf(3, { 0.f, 0.f, 0.f }, { 1.f, 1.f }); }, "std"));
}

INSTANTIATE_TEST_SUITE_P(Backends, FgResize, ::testing::Values("cpu", "cuda"));

} // namespace
