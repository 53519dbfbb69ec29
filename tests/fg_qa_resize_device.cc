/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// resize_2d with device buffers (frames stay in device memory between blocks) equals resize_2d with
// host buffers, for one block and for two chained blocks, float and binary16 output, on the CPU
// (simulated device) and on CUDA (GPU host).
#include "fg_util.h"
#include <gnuradio/blocks/vector_sink.h>
#include <gnuradio/blocks/vector_source.h>
#include <gnuradio/gpuinterp/kernel/backend.h>
#include <gnuradio/gpuinterp/resize_2d.h>
#include <gnuradio/gpuinterp/table_lookup.h>
#include <gnuradio/top_block.h>
#include <gtest/gtest.h>
#include <random>

namespace gi = gr::gpuinterp;

namespace {

std::vector<float>
run_resize(const std::string& backend, bool dev, bool chain, const std::vector<float>& x)
{
    // 30x40 -> 45x52 (bilinear), then (chain) 45x52 -> 20x26 (bicubic), 2 channels, normalise.
    auto resize = [&](int in_h,
                      int in_w,
                      int out_h,
                      int out_w,
                      const char* method,
                      const char* border,
                      const std::vector<float>& mean,
                      const std::vector<float>& std) {
        return gi::resize_2d_ff::make(in_h,
                                      in_w,
                                      out_h,
                                      out_w,
                                      2,
                                      method,
                                      "half_pixel",
                                      border,
                                      0.f,
                                      mean,
                                      std,
                                      1.f,
                                      false,
                                      false,
                                      backend,
                                      0,
                                      0.f,
                                      1.f,
                                      0,
                                      dev);
    };
    auto tb = gr::make_top_block("resize");
    auto src = gr::blocks::vector_source<float>::make(x, false, 30 * 40 * 2);
    auto a =
        resize(30, 40, 45, 52, "bilinear", "replicate", { 0.1f, -0.2f }, { 2.f, 0.5f });
    EXPECT_EQ(a->device_buffers(), dev);
    std::vector<gr::basic_block_sptr> blocks{ src, a };
    if (chain)
        blocks.push_back(resize(45, 52, 20, 26, "bicubic", "reflect_101", {}, {}));
    auto snk = gr::blocks::vector_sink<float>::make(chain ? 20 * 26 * 2 : 45 * 52 * 2);
    blocks.push_back(snk);
    gpuinterp_fg::connect_chain(tb, blocks);
    tb->run();
    return snk->data();
}

using FgResizeDevice = gpuinterp_fg::backend_test;

TEST_P(FgResizeDevice, DeviceBuffersEqualHostBuffers)
{
    std::mt19937 g(3);
    std::uniform_real_distribution<float> d(-1.f, 1.f);
    std::vector<float> x(30 * 40 * 2 * 37); // 37 frames
    for (auto& v : x)
        v = d(g);
    for (bool chain : { false, true }) {
        const auto host = run_resize(GetParam(), false, chain, x);
        const auto dev = run_resize(GetParam(), true, chain, x);
        const auto cpu = run_resize("cpu", false, chain, x);
        ASSERT_EQ(host.size(), size_t(37) * (chain ? 20 * 26 * 2 : 45 * 52 * 2));
        ASSERT_EQ(dev.size(), host.size());
        double peak = 0, e_dev = 0, e_cpu = 0;
        for (size_t i = 0; i < host.size(); i++) {
            peak = std::max(peak, double(std::abs(host[i])));
            e_dev = std::max(e_dev, double(std::abs(dev[i] - host[i])));
            e_cpu = std::max(e_cpu, double(std::abs(cpu[i] - host[i])));
        }
        // Same kernels on the same data; only the launch variant may differ with the buffer's
        // alignment (variants compute identically up to float contraction).
        EXPECT_LE(e_dev, 1e-6 * peak) << "device vs host buffers, chain " << chain;
        EXPECT_LE(e_cpu, 1e-5 * peak) << "backend vs CPU, chain " << chain;
    }
}

// table_lookup with device buffers: coordinates and values stay on the device; results equal
// the host-buffer block bit for bit (same kernel), for texture and exact precision.
TEST_P(FgResizeDevice, TableLookupDeviceBuffersEqualHostBuffers)
{
    const auto k = gpuinterp_fg::random_lookup(9, 64, 50021, -2.f, 70.f);
    const auto& table = k.table;
    const auto& x = k.x;
    for (const char* precision : { "texture", "exact" }) {
        auto run = [&](bool dev) {
            auto blk = gi::table_lookup_fc::make(
                table, false, "linear", "border", precision, GetParam(), 0, dev);
            EXPECT_EQ(blk->device_buffers(), dev);
            return gpuinterp_fg::run_through<gr_complex>(x, { blk })->data();
        };
        const auto host = run(false), dev = run(true);
        ASSERT_EQ(host.size(), x.size());
        EXPECT_EQ(host, dev) << precision;
    }
}

INSTANTIATE_TEST_SUITE_P(Backends, FgResizeDevice, ::testing::Values("cpu", "cuda"));

} // namespace
