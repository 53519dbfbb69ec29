/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Flowgraph tests of resampler_cc and table_lookup_fc in C++ (they run on the GPU host,
// which has no GNU Radio Python): the block on each backend against the CPU kernel, tags,
// and, on the GPU, the texture paths bit for bit against the CPU emulation.
#include "fg_util.h"
#include <gnuradio/gpuinterp/kernel/backend.h>
#include <gnuradio/gpuinterp/kernel/resampler.h>
#include <gnuradio/gpuinterp/kernel/table_lookup.h>
#include <gnuradio/gpuinterp/resampler.h>
#include <gnuradio/gpuinterp/table_lookup.h>
#include <gnuradio/top_block.h>
#include <gtest/gtest.h>
#include <complex>
#include <cstring>
#include <random>

using cf = std::complex<float>;
namespace k = gr::gpuinterp::kernel;

namespace {

using FgResamp = gpuinterp_fg::backend_test;
using gpuinterp_fg::mark;
using gpuinterp_fg::run_through;
using gpuinterp_fg::seeded_signal;


TEST_P(FgResamp, BlockEqualsKernelForEveryMethodAndMovesTags)
{
    const auto x = seeded_signal(100003, 1.0f, 3);
    for (const char* m : { "nearest", "linear", "texture", "cubic", "polyphase" }) {
        for (double r : { 1.37, 0.73 }) {
            auto blk = gr::gpuinterp::resampler_cc::make(r, m, 32, 32, 80.0, GetParam());
            ASSERT_EQ(blk->active_backend(), GetParam());
            auto snk = run_through<cf>(x, { blk }, { mark(54321, 7) });
            k::resampler_cc ref(r, k::method_from_string(m), gr::gpuinterp::backend::cpu);
            const auto want = ref.resample(x);
            const auto& got = snk->data();
            ASSERT_EQ(got.size(), want.size()) << m << " r=" << r;
            double err = 0;
            size_t differ = 0;
            for (size_t i = 0; i < got.size(); i++) {
                err = std::max(err, double(std::abs(got[i] - want[i])));
                differ += std::memcmp(&got[i], &want[i], sizeof(cf)) != 0;
            }
            if (GetParam() == "cpu" || std::string(m) == "texture" ||
                std::string(m) == "nearest")
                EXPECT_EQ(differ, 0u)
                    << m << " r=" << r; // bit for bit (texture: GPU == CPU emulation)
            else
                EXPECT_LE(err, 1e-5) << m << " r=" << r;
            auto t = snk->tags();
            ASSERT_EQ(t.size(), 1u);
            EXPECT_EQ(t[0].offset, ref.first_output_at(54321)) << m;
            EXPECT_GE(double(t[0].offset) / r, 54321 - 1e-6);
            EXPECT_LT(double(t[0].offset - 1) / r, 54321.0);
        }
    }
}

TEST_P(FgResamp, TableLookupBlockEqualsCpuEmulation)
{
    const auto [lut, x] = gpuinterp_fg::random_lookup(11, 4096, 200000, -0.1f, 1.1f);
    auto snk =
        run_through<cf>(x,
                        { gr::gpuinterp::table_lookup_fc::make(
                            lut, true, "linear", "border", "texture", GetParam()) });
    k::lookup_config cfg;
    cfg.normalized = true;
    cfg.addr = k::texemu::address::border;
    k::table_lookup_fc ref(lut, cfg);
    const auto want = ref.lookup(x);
    const auto& got = snk->data();
    ASSERT_EQ(got.size(), want.size());
    size_t differ = 0;
    for (size_t i = 0; i < got.size(); i++)
        differ += std::memcmp(&got[i], &want[i], sizeof(cf)) != 0;
    EXPECT_EQ(differ, 0u);
}

// Device buffers: host -> copy -> resampler (device buffers) -> host, with small random
// buffers and call sizes so every edge wraps and the device-side history seam runs at every call;
// equal to the same block with host buffers bit for bit, and tags still move by input time.
TEST_P(FgResamp, DeviceBuffersEqualHostBuffersBitForBit)
{
    const auto x = seeded_signal(60001, 1.0f, 5);
    auto run = [&](const char* m, double r, bool dev, unsigned seed) {
        gpuinterp_fg::tiny_buffers tiny(seed, 600, 6000, 3000);
        auto cp = tiny.copy();
        auto blk =
            gr::gpuinterp::resampler_cc::make(r, m, 32, 32, 80.0, GetParam(), 0, dev);
        EXPECT_EQ(blk->device_buffers(), dev);
        tiny.limit(blk);
        auto snk = run_through<cf>(x, { cp, blk }, { mark(31337, 1) });
        auto t = snk->tags();
        EXPECT_EQ(t.size(), 1u);
        return std::make_pair(snk->data(), t.empty() ? uint64_t(0) : t[0].offset);
    };
    unsigned seed = 1;
    for (const char* m : { "nearest", "linear", "texture", "cubic", "polyphase" }) {
        for (double r : { 1.25, 0.73 }) {
            const auto host = run(m, r, false, seed);
            const auto dev = run(m, r, true, seed++);
            k::resampler_cc ref(r, k::method_from_string(m), gr::gpuinterp::backend::cpu);
            const auto want = ref.resample(x);
            ASSERT_EQ(host.first.size(), want.size()) << m << " r=" << r;
            ASSERT_EQ(dev.first.size(), want.size()) << m << " r=" << r;
            size_t differ = 0;
            for (size_t i = 0; i < want.size(); i++)
                differ += std::memcmp(&dev.first[i], &host.first[i], sizeof(cf)) != 0;
            EXPECT_EQ(differ, 0u) << m << " r=" << r;
            EXPECT_EQ(dev.second, ref.first_output_at(31337)) << m << " r=" << r;
            EXPECT_EQ(host.second, dev.second);
        }
    }
}

// The forecast asks for what the next output needs, whatever noutput_items is: general_work()
// makes as many outputs as its inputs allow, so GNU Radio never halves noutput_items to fit the
// inputs (a geometric tail of ever smaller calls for a resampler that keeps up with its producer).
TEST(FgResampForecast, AsksOnlyForTheNextOutput)
{
    for (const char* m : { "nearest", "linear", "cubic", "polyphase" }) {
        for (double r : { 1.37, 0.73, 1.25 }) {
            auto blk = gr::gpuinterp::resampler_cc::make(r, m, 32, 32, 80.0, "cpu");
            gr_vector_int one(1), many(1);
            blk->forecast(1, one);
            blk->forecast(1 << 20, many);
            EXPECT_GE(one[0], 1) << m << " r=" << r;
            EXPECT_EQ(many[0], one[0]) << m << " r=" << r;
            // 2^20 outputs themselves would need about 2^20 / r inputs.
            EXPECT_LT(double(many[0]), 0.01 * double(1 << 20) / r) << m << " r=" << r;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Backends, FgResamp, ::testing::Values("cpu", "cuda"));

} // namespace
