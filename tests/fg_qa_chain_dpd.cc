/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The transmit chain: interp_fir (x4) -> dpd_predistorter -> resampler (x1.25,
// polyphase), with device buffers == with host buffers == the CPU backend, for GNU Radio's default buffers and
// for random tiny buffers and call sizes (every edge wraps; the DPD's device-side history seam runs
// and the resampler's at every call). CUDA cases run on the GPU host; on the CPU the same buffers use host memory.
#include "../lib/device/device_ops.h"
#include "fg_util.h"
#include <gnuradio/blocks/copy.h>
#include <gnuradio/blocks/vector_sink.h>
#include <gnuradio/blocks/vector_source.h>
#include <gnuradio/gpuinterp/device_binding.h>
#include <gnuradio/gpuinterp/dpd_predistorter_cc.h>
#include <gnuradio/gpuinterp/interp_fir.h>
#include <gnuradio/gpuinterp/kernel/backend.h>
#include <gnuradio/gpuinterp/resampler.h>
#include <gnuradio/top_block.h>
#include <gtest/gtest.h>
#include <type_traits>
#include <atomic>
#include <chrono>
#include <complex>
#include <cstdlib>
#include <random>
#include <thread>

using cf = std::complex<float>;
namespace gi = gr::gpuinterp;

namespace {

using gpuinterp_fg::rel_err;
using gpuinterp_fg::within;

//! Item: cf, or int16_t for a resampler with sc16 output (two per sample; `resampler_out` then
//! receives the block, for its counts).
template <typename Item = cf>
std::vector<Item> run_tx_chain(const std::string& backend,
                               bool dev,
                               bool small,
                               unsigned seed,
                               const std::vector<cf>& x,
                               const std::vector<float>& h,
                               const std::vector<cf>& co,
                               int dev_a = 0,
                               int dev_b = 0,
                               int dev_c = 0,
                               float full_scale = 1.0f,
                               gi::resampler_cc::sptr* resampler_out = nullptr)
{
    constexpr bool sc16 = std::is_same_v<Item, int16_t>;
    auto tb = gr::make_top_block("tx");
    auto src = gr::blocks::vector_source<cf>::make(x);
    auto a = gi::interp_fir_ccf::make(4, h, backend, dev_a, 0, dev);
    auto b = gi::dpd_predistorter_cc::make(
        5, 3, 4, 2, co, cf(0.01f, -0.02f), backend, dev_b, 0, false, dev);
    EXPECT_EQ(b->device_buffers(), dev);
    auto c = gi::resampler_cc::make(1.25,
                                    "polyphase",
                                    32,
                                    32,
                                    80.0,
                                    backend,
                                    dev_c,
                                    dev,
                                    sc16 ? "sc16" : "fc32",
                                    full_scale);
    EXPECT_EQ(c->device_buffers(), dev);
    if (resampler_out)
        *resampler_out = c;
    auto snk = gr::blocks::vector_sink<Item>::make(sc16 ? 2 : 1);
    std::vector<gr::basic_block_sptr> chain{ src };
    if (small) {
        gpuinterp_fg::tiny_buffers t(seed, 64, 5000, 2500);
        chain.push_back(t.copy());
        t.limit(a, 4);
        t.limit(b, 4);
        t.limit(c, 5);
    }
    chain.insert(chain.end(), { a, b, c, snk });
    gpuinterp_fg::connect_chain(tb, chain);
    tb->run();
    return snk->data();
}

using FgTxChain = gpuinterp_fg::backend_test;

//! Random x4 interpolation taps (48) and (5, 3, 4, 2) predistorter coefficients near identity.
void chain_design(std::mt19937& g, std::vector<float>& h, std::vector<cf>& co)
{
    std::uniform_real_distribution<float> d(-0.4f, 0.4f);
    h.resize(48);
    for (auto& t : h)
        t = d(g);
    co.resize(3 * 4 + 2 * 2);
    for (auto& c : co)
        c = { 0.05f * d(g), 0.05f * d(g) };
    co[0] = { 1.0f, 0.1f };
}

//! n chain input samples from g, real and imaginary parts uniform in [-0.4, 0.4].
std::vector<cf> chain_input(std::mt19937& g, size_t n)
{
    std::uniform_real_distribution<float> d(-0.4f, 0.4f);
    std::vector<cf> x(n);
    for (auto& v : x)
        v = { d(g), d(g) };
    return x;
}

TEST_P(FgTxChain, InterpDpdResampleDeviceEqualsHostEqualsCpu)
{
    std::mt19937 g(5);
    std::vector<float> h;
    std::vector<cf> co;
    chain_design(g, h, co);
    for (unsigned seed = 1; seed <= 4; seed++) {
        const auto x = chain_input(g, 20000 + 1013 * seed);
        const bool small = seed > 1;
        const auto cpu = run_tx_chain("cpu", false, false, seed, x, h, co);
        const auto host = run_tx_chain(GetParam(), false, small, seed, x, h, co);
        const auto dev = run_tx_chain(GetParam(), true, small, seed, x, h, co);
        // The resampler waits for the 16 inputs after an output's position (no delay, no
        // padding at the end): 1.25 * (4 n - 16) outputs, +-1.
        ASSERT_NEAR(double(cpu.size()), 1.25 * double(x.size() * 4 - 16), 1.5);
        ASSERT_EQ(host.size(), cpu.size());
        ASSERT_EQ(dev.size(), cpu.size());
        // float arithmetic in different orders on CPU and GPU: the DPD's |x|^4 terms at |x| <~ 1
        // keep the relative error near 1e-6; 2e-5 of the peak leaves room.
        EXPECT_LE(rel_err(host, cpu), 2e-5) << "host buffers, seed " << seed;
        EXPECT_LE(rel_err(dev, cpu), 2e-5) << "device buffers, seed " << seed;
        EXPECT_LE(rel_err(dev, host), 2e-5) << "device vs host, seed " << seed;
    }
}

// The chain ending in sc16 (the resampler's output_format), what a radio takes: on host and on
// device buffers, GNU Radio's default and random tiny buffers, it is the conversion of the same
// backend's float chain (rint(y * 32767 / full scale), clipped) to one step (the chains run in
// other work() calls, and the CUDA kernels' float sums need not be bit-identical across those),
// and the block counts the clipped samples: exactly those the conversion clips, but for samples
// that moved by a step.
TEST_P(FgTxChain, EndsInSc16LikeTheFloatChain)
{
    std::mt19937 g(9);
    std::vector<float> h;
    std::vector<cf> co;
    chain_design(g, h, co);
    const float fs = 0.25f; // below the chain's peak: some outputs clip
    for (unsigned seed = 1; seed <= 3; seed++) {
        const auto x = chain_input(g, 20000 + 1013 * seed);
        const bool small = seed > 1;
        for (bool dev : { false, true }) {
            const auto y = run_tx_chain(GetParam(), dev, small, seed, x, h, co);
            gi::resampler_cc::sptr blk;
            const auto q = run_tx_chain<int16_t>(
                GetParam(), dev, small, seed, x, h, co, 0, 0, 0, fs, &blk);
            ASSERT_EQ(q.size(), 2 * y.size()) << "seed " << seed << " dev " << dev;
            EXPECT_EQ(blk->output_format(), "sc16");
            uint64_t clipped = 0, moved = 0;
            for (size_t i = 0; i < y.size(); i++) {
                bool sat = false, off = false;
                for (int c = 0; c < 2; c++) {
                    const float v = c ? y[i].imag() : y[i].real();
                    const double r = std::nearbyint(double(v * (32767.0f / fs)));
                    const double want = std::min(32767.0, std::max(-32768.0, r));
                    sat |= r != want;
                    const double err = std::abs(double(q[2 * i + c]) - want);
                    ASSERT_LE(err, 1.0)
                        << "sample " << i << " seed " << seed << " dev " << dev;
                    off |= err != 0;
                }
                clipped += sat;
                moved += off;
            }
            EXPECT_GT(clipped, 0u) << "seed " << seed;
            const uint64_t got = blk->saturated();
            EXPECT_LE(got > clipped ? got - clipped : clipped - got, moved)
                << "seed " << seed << " dev " << dev;
            EXPECT_EQ(blk->invalid(), 0u);
            if (GetParam() == "cpu")
                EXPECT_EQ(moved, 0u) << "the CPU's float chain is chunking-invariant";
        }
    }
}

// Soak: the device-buffer chain, a new flowgraph per run, while another thread calls every runtime
// setter and posts `coeffs` messages, all re-applying the values in force: every run must equal
// the first bit for bit (and the CPU backend to float rounding), and the live device buffers and
// the device's free memory must return to the baseline after each run. The C++ twin of
// python/gpuinterp/qa_soak.py, so the CUDA path is soaked on the GPU host (no GNU Radio Python
// there). GPUINTERP_SOAK_RUNS (default 4) and GPUINTERP_SOAK_SYMBOLS (default 2^14) lengthen it.
TEST_P(FgTxChain, SoakWithSettersFromAnotherThread)
{
    auto env_or = [](const char* name, long dflt) {
        const char* v = std::getenv(name);
        return v ? std::max(1L, std::atol(v)) : dflt;
    };
    const int runs = int(env_or("GPUINTERP_SOAK_RUNS", 4));
    const size_t n = size_t(env_or("GPUINTERP_SOAK_SYMBOLS", 1 << 14));
    std::mt19937 g(11);
    std::vector<float> h;
    std::vector<cf> co;
    chain_design(g, h, co);
    const cf lo(0.01f, -0.02f);
    const auto x = chain_input(g, n);
    pmt::pmt_t msg = pmt::make_dict();
    msg = pmt::dict_add(
        msg, pmt::intern("coefficients"), pmt::init_c32vector(co.size(), co));
    msg = pmt::dict_add(msg, pmt::intern("lo_leakage"), pmt::from_complex(lo));

    auto one_run = [&](bool hammer, long& calls) {
        auto tb = gr::make_top_block("soak");
        auto src = gr::blocks::vector_source<cf>::make(x);
        auto a = gi::interp_fir_ccf::make(4, h, GetParam(), 0, 0, true);
        auto b = gi::dpd_predistorter_cc::make(
            5, 3, 4, 2, co, lo, GetParam(), 0, 0, false, true);
        auto c =
            gi::resampler_cc::make(1.25, "polyphase", 32, 32, 80.0, GetParam(), 0, true);
        auto snk = gr::blocks::vector_sink<cf>::make();
        gpuinterp_fg::connect_chain(tb, { src, a, b, c, snk });
        std::atomic<bool> stop{ false };
        std::thread t;
        tb->start();
        if (hammer)
            t = std::thread([&] {
                while (!stop) {
                    a->set_taps(h);
                    a->set_batch(calls % 2 ? 4096 : 0);
                    b->set_coefficients(co, lo);
                    // GNU Radio handles a block's pending messages before its next work(): posted
                    // faster than the block applies them, they would starve the stream for good.
                    if (b->nmsgs(pmt::mp("coeffs")) < 4)
                        b->_post(pmt::mp("coeffs"), msg);
                    c->set_rate(1.25);
                    calls++;
                    std::this_thread::yield();
                }
            });
        within(300, "soak run", [&] { tb->wait(); });
        stop = true;
        if (t.joinable())
            t.join();
        return snk->data();
    };

    long calls = 0, none = 0;
    const auto cpu = run_tx_chain("cpu", false, false, 1, x, h, co);
    const auto base = gi::device_memory_usage();
    const bool cuda = GetParam() == "cuda";
    std::vector<cf> first;
    size_t free0 = 0;
    for (int i = 0; i < runs; i++) {
        const auto y = one_run(true, calls);
        ASSERT_EQ(y.size(), cpu.size()) << "run " << i;
        EXPECT_LE(rel_err(y, cpu), 2e-5) << "run " << i;
        if (i == 0) {
            first = y;
            free0 =
                cuda ? gr::gpuinterp::gpu::cuda_mem_info(0).first : 0; // pools warmed up
        }
        ASSERT_EQ(y, first) << "run " << i << " differs from run 0";
        const auto usage = gi::device_memory_usage();
        EXPECT_EQ(usage.buffers, base.buffers)
            << "run " << i << ": device buffers left alive";
        EXPECT_EQ(usage.sim_device_bytes + usage.cuda_device_bytes,
                  base.sim_device_bytes + base.cuda_device_bytes)
            << "run " << i;
    }
    EXPECT_GT(calls, 0);
    EXPECT_EQ(one_run(false, none), first) << "a run without the setter thread";
    if (cuda) {
        const size_t free1 = gr::gpuinterp::gpu::cuda_mem_info(0).first;
        EXPECT_LE(double(free0) - double(free1), 64.0 * (1 << 20))
            << "free device memory " << free0 << " -> " << free1;
    }
    std::cout << "[ soak ] " << runs << " runs of " << n << " symbols, " << calls
              << " setter rounds\n";
}

INSTANTIATE_TEST_SUITE_P(Backends, FgTxChain, ::testing::Values("cpu", "cuda"));

// The whole chain over two GPUs and back: interp on device 0, predistorter on device 1 (reads
// device 0's buffer peer-to-peer), resampler on device 0 again (its general_work input crosses
// back), with small random buffers; equal to the CPU backend.
TEST(FgTxChainPlacement, TwoGpusFullChain)
{
    GPUINTERP_FG_SKIP_WITHOUT_CUDA_DEVICES(2);
    std::mt19937 g(9);
    std::vector<float> h;
    std::vector<cf> co;
    chain_design(g, h, co);
    const auto x = chain_input(g, 40013);
    const auto cpu = run_tx_chain("cpu", false, false, 1, x, h, co);
    for (bool small : { false, true }) {
        const auto two = run_tx_chain("cuda", true, small, 2, x, h, co, 0, 1, 0);
        ASSERT_EQ(two.size(), cpu.size()) << "small buffers " << small;
        EXPECT_LE(rel_err(two, cpu), 2e-5) << "small buffers " << small;
    }
}

} // namespace
