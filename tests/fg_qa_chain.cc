/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Device-resident chains: gpuinterp blocks with device_buffers (cuda_buffer)
// against the same chain with host buffers and against GNU Radio's own
// interp_fir_filter_ccf; random buffer and call sizes so the single-mapped wrap-around
// runs on both sides; start/stop cycles with memory measured; the fan-out cases; the
// buffer lock; two-GPU placement. Parametrised over "cpu" (device buffers in the
// host-memory simulation, which defers every copy until someone waits, so a missing wait
// shows up as wrong data) and "cuda" (skips without a device).
#include "../lib/device/device_ops.h"
#include "fg_util.h"
#include <gnuradio/block_detail.h>
#include <gnuradio/blocks/copy.h>
#include <gnuradio/blocks/deinterleave.h>
#include <gnuradio/blocks/vector_sink.h>
#include <gnuradio/blocks/vector_source.h>
#include <gnuradio/buffer.h>
#include <gnuradio/buffer_reader.h>
#include <gnuradio/custom_lock.h>
#include <gnuradio/filter/fir_filter_blk.h>
#include <gnuradio/filter/interp_fir_filter.h>
#include <gnuradio/gpuinterp/cuda_buffer.h>
#include <gnuradio/gpuinterp/interp_fir.h>
#include <gnuradio/gpuinterp/kernel/backend.h>
#include <gnuradio/host_buffer.h>
#include <gnuradio/io_signature.h>
#include <gnuradio/sync_block.h>
#include <gnuradio/top_block.h>
#include <gtest/gtest.h>
#include <atomic>
#include <chrono>
#include <complex>
#include <cstdlib>
#include <future>
#include <iostream>
#include <random>
#include <thread>

using cf = std::complex<float>;
namespace gi = gr::gpuinterp;

namespace {

using gpuinterp_fg::rel_err;
using gpuinterp_fg::within;

std::vector<cf> random_signal(size_t n, std::mt19937& g)
{
    std::uniform_real_distribution<float> d(-1, 1);
    std::vector<cf> x(n);
    for (auto& v : x)
        do
            v = { d(g), d(g) };
        while (v == cf(0));
    return x;
}

std::vector<float> random_taps(size_t n, std::mt19937& g)
{
    std::uniform_real_distribution<float> d(-1, 1);
    std::vector<float> h(n);
    for (auto& t : h)
        t = d(g);
    return h;
}

enum class impl { gnuradio, host_buffers, device_buffers };

struct chain_opts {
    bool small_buffers =
        false; // random tiny buffers and call sizes: wrap-around on every edge
    bool fir_after = false; // a GNU Radio fir_filter (history > 1) reading the last edge
    unsigned seed = 1;
};

struct chain_out {
    std::vector<cf> y;
    std::vector<gr::tag_t> tags;
};

chain_out run_chain(impl which,
                    const std::string& backend,
                    const std::vector<cf>& x,
                    const std::vector<float>& h1,
                    const std::vector<float>& h2,
                    const std::vector<float>& h3,
                    const chain_opts& o)
{
    std::mt19937 g(o.seed);
    std::vector<gr::tag_t> tags(2);
    tags[0].offset = 17;
    tags[0].key = pmt::intern("a");
    tags[0].value = pmt::from_long(1);
    tags[1].offset = x.size() - 3;
    tags[1].key = pmt::intern("b");
    tags[1].value = pmt::from_long(2);
    auto tb = gr::make_top_block("chain");
    auto src = gr::blocks::vector_source<cf>::make(x, false, 1, tags);
    gr::block_sptr a, b;
    if (which == impl::gnuradio) {
        a = gr::filter::interp_fir_filter_ccf::make(2, h1);
        b = gr::filter::interp_fir_filter_ccf::make(4, h2);
    } else {
        const bool dev = which == impl::device_buffers;
        a = gi::interp_fir_ccf::make(2, h1, backend, 0, 0, dev);
        b = gi::interp_fir_ccf::make(4, h2, backend, 0, 0, dev);
    }
    auto snk = gr::blocks::vector_sink<cf>::make();
    std::vector<gr::basic_block_sptr> blocks{ src };
    if (o.small_buffers && which != impl::gnuradio) { // the reference runs with defaults
        std::uniform_int_distribution<int> bs(64, 6000), calls(1, 3000);
        // vector_source emits everything in one call (output multiple = length), so a
        // copy block with a small buffer feeds the chain: its buffer is the one the
        // device block replaces.
        auto cp = gr::blocks::copy::make(sizeof(cf));
        cp->set_max_output_buffer(bs(g));
        a->set_max_output_buffer(bs(g) * 2);
        b->set_max_output_buffer(bs(g) * 4);
        cp->set_max_noutput_items(calls(g));
        a->set_max_noutput_items(calls(g) * 2);
        b->set_max_noutput_items(calls(g) * 4);
        blocks.push_back(cp);
    }
    blocks.insert(blocks.end(), { a, b });
    if (o.fir_after)
        blocks.push_back(gr::filter::fir_filter_ccf::make(1, h3));
    blocks.push_back(snk);
    gpuinterp_fg::connect_chain(tb, blocks);
    within(120, "chain", [&] { tb->run(); });
    return { snk->data(), snk->tags() };
}

//! What GNU Radio's own blocks give for x through `chain` (in order), in a flowgraph of their own.
std::vector<cf> reference_through(const std::vector<cf>& x,
                                  const std::vector<gr::basic_block_sptr>& chain)
{
    return gpuinterp_fg::run_through<cf>(x, chain)->data();
}

//! The message of the std::runtime_error that starting tb throws (empty when tb starts and stops).
std::string start_error(const gr::top_block_sptr& tb, const char* what)
{
    std::string msg;
    within(30, what, [&] {
        try {
            tb->start();
            tb->stop();
            tb->wait();
        } catch (const std::runtime_error& e) {
            msg = e.what();
        }
    });
    return msg;
}

using FgChain = gpuinterp_fg::backend_test;

// Device buffers == host buffers == GNU Radio's CPU blocks, with GNU Radio's default
// buffers (large calls) and with random tiny buffers and call sizes (every edge wraps
// many times, so the input- and output-blocked realignments run on the device side (H2D,
// D2D) and the host side (D2H)).
TEST_P(FgChain, DeviceEqualsHostEqualsGnuRadio)
{
    std::mt19937 g(11);
    const auto h1 = random_taps(24, g), h2 = random_taps(61, g), h3 = random_taps(37, g);
    for (unsigned seed = 1; seed <= 8; seed++) {
        chain_opts o;
        o.seed = seed;
        o.small_buffers = seed > 1;
        o.fir_after = seed % 3 == 0;
        const auto x = random_signal(seed == 1 ? 200003 : 30011 + 977 * seed, g);
        const auto ref = run_chain(impl::gnuradio, "", x, h1, h2, h3, o);
        const auto host = run_chain(impl::host_buffers, GetParam(), x, h1, h2, h3, o);
        const auto dev = run_chain(impl::device_buffers, GetParam(), x, h1, h2, h3, o);
        ASSERT_EQ(ref.y.size(), x.size() * 8) << "seed " << seed;
        EXPECT_LE(rel_err(host.y, ref.y), 2e-5) << "host buffers, seed " << seed;
        EXPECT_LE(rel_err(dev.y, ref.y), 2e-5) << "device buffers, seed " << seed;
        EXPECT_LE(rel_err(dev.y, host.y), 2e-5) << "device vs host, seed " << seed;
        ASSERT_EQ(dev.tags.size(), 2u) << "seed " << seed;
        EXPECT_EQ(dev.tags[0].offset, 17u * 8);
        EXPECT_EQ(dev.tags[1].offset, (x.size() - 3) * 8);
    }
}

// The blocks' own view: device ports are cuda_buffers with the expected transfer types.
TEST_P(FgChain, TransferTypesAndBindings)
{
    std::mt19937 g(3);
    const auto x = random_signal(5000, g);
    auto tb = gr::make_top_block("t");
    auto src = gr::blocks::vector_source<cf>::make(x);
    auto a = gi::interp_fir_ccf::make(2, random_taps(8, g), GetParam(), 0, 0, true);
    auto b = gi::interp_fir_ccf::make(4, random_taps(8, g), GetParam(), 0, 0, true);
    auto snk = gr::blocks::vector_sink<cf>::make();
    gpuinterp_fg::connect_chain(tb, { src, a, b, snk });
    within(60, "run", [&] { tb->run(); });
    auto in_a =
        std::dynamic_pointer_cast<gi::cuda_buffer>(a->detail()->input(0)->buffer());
    auto ab = std::dynamic_pointer_cast<gi::cuda_buffer>(a->detail()->output(0));
    auto out_b = std::dynamic_pointer_cast<gi::cuda_buffer>(b->detail()->output(0));
    ASSERT_TRUE(in_a && ab && out_b);
    EXPECT_EQ(in_a->transfer(), gr::transfer_type::HOST_TO_DEVICE);
    EXPECT_EQ(ab->transfer(), gr::transfer_type::DEVICE_TO_DEVICE);
    EXPECT_EQ(out_b->transfer(), gr::transfer_type::DEVICE_TO_HOST);
    const gi::device_binding want =
        GetParam() == "cuda" ? gi::device_binding{ gi::memory_kind::cuda, 0 }
                             : gi::device_binding{ gi::memory_kind::simulated, 0 };
    EXPECT_EQ(ab->binding(), want);
    EXPECT_EQ(snk->data().size(), x.size() * 8);
    EXPECT_TRUE(a->device_buffers());
}

size_t cuda_free_bytes() { return gr::gpuinterp::gpu::cuda_mem_info(0).first; }

// 200 start/stop cycles. GNU Radio 3.10.5.1 keeps every block with a single-mapped buffer
// alive forever (owner reference cycle), so without the workaround each new flowgraph
// leaks its device and pinned memory. Measured with the allocation counters (both kinds)
// and, on a GPU, cudaMemGetInfo.
TEST_P(FgChain, StartStopCyclesDoNotLeak)
{
    std::mt19937 g(5);
    const auto x = random_signal(4096, g);
    const auto h = random_taps(16, g);
    const bool cuda = GetParam() == "cuda";
    auto one_flowgraph = [&] {
        auto tb = gr::make_top_block("cycle");
        auto src = gr::blocks::vector_source<cf>::make(x);
        auto a = gi::interp_fir_ccf::make(2, h, GetParam(), 0, 0, true);
        auto b = gi::interp_fir_ccf::make(4, h, GetParam(), 0, 0, true);
        auto snk = gr::blocks::vector_sink<cf>::make();
        gpuinterp_fg::connect_chain(tb, { src, a, b, snk });
        tb->start();
        tb->wait();
        tb->stop();
        tb->wait();
        EXPECT_EQ(snk->data().size(), x.size() * 8);
    };
    one_flowgraph(); // warm-up: CUDA context, pools
    const auto before = gi::device_memory_usage();
    const long gr_before = gr::buffer_ncurrently_allocated();
    const size_t free_before = cuda ? cuda_free_bytes() : 0;
    for (int i = 0; i < 200; i++)
        within(60, "start/stop cycle", one_flowgraph);
    const auto after = gi::device_memory_usage();
    EXPECT_EQ(after.buffers, before.buffers);
    EXPECT_EQ(after.sim_device_bytes, before.sim_device_bytes);
    EXPECT_EQ(after.sim_host_bytes, before.sim_host_bytes);
    EXPECT_EQ(after.cuda_device_bytes, before.cuda_device_bytes);
    EXPECT_EQ(after.cuda_host_bytes, before.cuda_host_bytes);
    EXPECT_EQ(gr::buffer_ncurrently_allocated(), gr_before);
    if (cuda) {
        const size_t free_after = cuda_free_bytes();
        // One flowgraph holds ~3 x 2 MiB buffers; 200 leaked ones would be > 1 GiB.
        EXPECT_LE(double(free_before) - double(free_after), 64.0 * (1 << 20))
            << "free device memory " << free_before << " -> " << free_after;
    }

    // The same top_block started and stopped 200 times: GNU Radio makes new buffers at
    // every start(); the previous ones must go.
    auto tb = gr::make_top_block("same");
    auto src = gr::blocks::vector_source<cf>::make(x);
    auto a = gi::interp_fir_ccf::make(2, h, GetParam(), 0, 0, true);
    auto snk = gr::blocks::vector_sink<cf>::make();
    gpuinterp_fg::connect_chain(tb, { src, a, snk });
    within(60, "first", [&] { tb->run(); });
    // GNU Radio records the first allocation as the block's max_output_buffer, so buffers
    // from the second start() on are smaller; measure from there.
    src->rewind();
    within(60, "second", [&] { tb->run(); });
    const auto mid = gi::device_memory_usage();
    for (int i = 0; i < 200; i++) {
        src->rewind();
        within(60, "restart", [&] {
            tb->start();
            tb->wait();
        });
    }
    const auto end = gi::device_memory_usage();
    EXPECT_EQ(end.buffers, mid.buffers);
    EXPECT_EQ(end.sim_device_bytes + end.cuda_device_bytes,
              mid.sim_device_bytes + mid.cuda_device_bytes);
    EXPECT_EQ(snk->data().size(), x.size() * 2 * 202);
}

// The defect itself, with GNU Radio's own host_buffer (simulated device) for comparison:
// its blocks are never destroyed. Recorded, not asserted, so a fixed GNU Radio does not
// fail the test.
struct hb_copy : gr::sync_block {
    hb_copy()
        : gr::sync_block("hb_copy",
                         gr::io_signature::make(1, 1, sizeof(cf), gr::host_buffer::type),
                         gr::io_signature::make(1, 1, sizeof(cf), gr::host_buffer::type))
    {
    }
    int work(int n, gr_vector_const_void_star& in, gr_vector_void_star& out) override
    {
        std::memcpy(out[0], in[0], n * sizeof(cf));
        return n;
    }
};

TEST(FgChainDefects, GnuRadioHostBufferLeaksBlocks)
{
    std::weak_ptr<gr::block> ours, theirs;
    {
        auto tb = gr::make_top_block("t");
        auto src = gr::blocks::vector_source<cf>::make(std::vector<cf>(100, cf(1)));
        auto src2 = gr::blocks::vector_source<cf>::make(std::vector<cf>(100, cf(1)));
        auto hb = gnuradio::make_block_sptr<hb_copy>();
        auto gp = gi::interp_fir_ccf::make(2, { 1.f }, "cpu", 0, 0, true);
        auto snk = gr::blocks::vector_sink<cf>::make();
        auto snk2 = gr::blocks::vector_sink<cf>::make();
        tb->connect(src, 0, hb, 0);
        tb->connect(hb, 0, snk, 0);
        tb->connect(src2, 0, gp, 0);
        tb->connect(gp, 0, snk2, 0);
        within(30, "run", [&] { tb->run(); });
        ours = gp;
        theirs = hb;
    }
    EXPECT_TRUE(ours.expired())
        << "a gpuinterp device-buffer block outlived its flowgraph";
    std::cout << "[ info ] GNU Radio host_buffer block destroyed after teardown: "
              << theirs.expired()
              << " (false = the 3.10.5.1 owner-cycle leak is present)\n";
}

// One host output feeding two device-buffer blocks. GNU Radio 3.10.5.1 replaces the host
// buffer once per reader and orphans the first reader (it hangs; shown with its own
// host_buffer in docs/device_buffers.md). Here both read one shared buffer and both
// outputs are right.
TEST_P(FgChain, FanOutHostToSeveralDeviceBlocks)
{
    std::mt19937 g(21);
    const auto x = random_signal(100003, g);
    const auto h1 = random_taps(20, g), h2 = random_taps(33, g);
    for (int small = 0; small < 2; small++) {
        auto tb = gr::make_top_block("fan");
        auto src = gr::blocks::vector_source<cf>::make(x);
        auto a = gi::interp_fir_ccf::make(2, h1, GetParam(), 0, 0, true);
        auto b = gi::interp_fir_ccf::make(4, h2, GetParam(), 0, 0, true);
        auto s1 = gr::blocks::vector_sink<cf>::make();
        auto s2 = gr::blocks::vector_sink<cf>::make();
        auto cp = gr::blocks::copy::make(
            sizeof(cf)); // the host writer (vector_source emits all at once)
        if (small) {
            cp->set_max_output_buffer(3000);
            cp->set_max_noutput_items(777);
            a->set_max_noutput_items(1234);
            b->set_max_noutput_items(4000);
        }
        tb->connect(src, 0, cp, 0);
        tb->connect(cp, 0, a, 0);
        tb->connect(cp, 0, b, 0);
        tb->connect(a, 0, s1, 0);
        tb->connect(b, 0, s2, 0);
        within(120, "host fan-out to two device blocks", [&] { tb->run(); });
        auto ra = gr::filter::interp_fir_filter_ccf::make(2, h1);
        auto rb = gr::filter::interp_fir_filter_ccf::make(4, h2);
        EXPECT_LE(rel_err(s1->data(), reference_through(x, { ra })), 2e-5);
        EXPECT_LE(rel_err(s2->data(), reference_through(x, { rb })), 2e-5);
        EXPECT_TRUE(a->detail()->input(0)->buffer() == b->detail()->input(0)->buffer())
            << "the two readers should share one buffer";
    }
}

// A host block with two outputs of identical buffers, each feeding device-buffer blocks
// (one of them two): make_buffer must tell "second reader of output 0" from "first reader
// of output 1".
TEST_P(FgChain, TwoHostOutputsFeedingDeviceBlocks)
{
    std::mt19937 g(27);
    const auto x = random_signal(40000, g);
    const auto h1 = random_taps(11, g), h2 = random_taps(23, g), h3 = random_taps(5, g);
    auto tb = gr::make_top_block("deinterleave");
    auto src = gr::blocks::vector_source<cf>::make(x);
    auto cp = gr::blocks::copy::make(sizeof(cf));
    auto de = gr::blocks::deinterleave::make(sizeof(cf));
    auto a = gi::interp_fir_ccf::make(2, h1, GetParam(), 0, 0, true);
    // Same interpolation everywhere, so both outputs' buffers have identical sizes and
    // multiples.
    auto b = gi::interp_fir_ccf::make(2, h2, GetParam(), 0, 0, true);
    auto c = gi::interp_fir_ccf::make(2, h3, GetParam(), 0, 0, true);
    auto sa = gr::blocks::vector_sink<cf>::make();
    auto sb = gr::blocks::vector_sink<cf>::make();
    auto sc = gr::blocks::vector_sink<cf>::make();
    tb->connect(src, 0, cp, 0);
    tb->connect(cp, 0, de, 0);
    tb->connect(de, 0, a, 0);
    tb->connect(de, 1, b, 0);
    tb->connect(de, 0, c, 0);
    tb->connect(a, 0, sa, 0);
    tb->connect(b, 0, sb, 0);
    tb->connect(c, 0, sc, 0);
    within(60, "deinterleave", [&] { tb->run(); });
    std::vector<cf> even, odd;
    for (size_t i = 0; i < x.size(); i++)
        (i % 2 ? odd : even).push_back(x[i]);
    auto ref = [&](const std::vector<cf>& in, unsigned L, const std::vector<float>& h) {
        return reference_through(in, { gr::filter::interp_fir_filter_ccf::make(L, h) });
    };
    EXPECT_LE(rel_err(sa->data(), ref(even, 2, h1)), 2e-5);
    EXPECT_LE(rel_err(sb->data(), ref(odd, 2, h2)), 2e-5);
    EXPECT_LE(rel_err(sc->data(), ref(even, 2, h3)), 2e-5);
}

// A device-buffer output feeding two device-buffer blocks (D2D, two readers) and two host
// blocks (D2H, two readers), readers at different rates.
TEST_P(FgChain, FanOutFromDeviceBlock)
{
    std::mt19937 g(23);
    const auto x = random_signal(60001, g);
    const auto h0 = random_taps(9, g), h1 = random_taps(20, g), h2 = random_taps(33, g);
    auto reference = [&](const std::vector<gr::basic_block_sptr>& chain) {
        return reference_through(x, chain);
    };
    const auto ref_a = reference({ gr::filter::interp_fir_filter_ccf::make(2, h0),
                                   gr::filter::interp_fir_filter_ccf::make(2, h1) });
    const auto ref_b = reference({ gr::filter::interp_fir_filter_ccf::make(2, h0),
                                   gr::filter::interp_fir_filter_ccf::make(4, h2) });
    const auto ref_0 = reference({ gr::filter::interp_fir_filter_ccf::make(2, h0) });
    for (int small = 0; small < 2; small++) {
        {
            auto tb = gr::make_top_block("d2d");
            auto src = gr::blocks::vector_source<cf>::make(x);
            auto up = gi::interp_fir_ccf::make(2, h0, GetParam(), 0, 0, true);
            auto a = gi::interp_fir_ccf::make(2, h1, GetParam(), 0, 0, true);
            auto b = gi::interp_fir_ccf::make(4, h2, GetParam(), 0, 0, true);
            auto s1 = gr::blocks::vector_sink<cf>::make();
            auto s2 = gr::blocks::vector_sink<cf>::make();
            if (small) {
                up->set_max_output_buffer(4000);
                up->set_max_noutput_items(1000);
                b->set_max_noutput_items(3000);
            }
            tb->connect(src, 0, up, 0);
            tb->connect(up, 0, a, 0);
            tb->connect(up, 0, b, 0);
            tb->connect(a, 0, s1, 0);
            tb->connect(b, 0, s2, 0);
            within(120, "device fan-out to two device blocks", [&] { tb->run(); });
            EXPECT_LE(rel_err(s1->data(), ref_a), 2e-5) << "small " << small;
            EXPECT_LE(rel_err(s2->data(), ref_b), 2e-5) << "small " << small;
        }
        {
            auto tb = gr::make_top_block("d2h");
            auto src = gr::blocks::vector_source<cf>::make(x);
            auto up = gi::interp_fir_ccf::make(2, h0, GetParam(), 0, 0, true);
            auto s1 = gr::blocks::vector_sink<cf>::make();
            auto s2 = gr::blocks::vector_sink<cf>::make();
            if (small) {
                up->set_max_output_buffer(2000);
                s2->set_max_noutput_items(700);
            }
            tb->connect(src, 0, up, 0);
            tb->connect(up, 0, s1, 0);
            tb->connect(up, 0, s2, 0);
            within(120, "device fan-out to two host blocks", [&] { tb->run(); });
            EXPECT_LE(rel_err(s1->data(), ref_0), 2e-5) << "small " << small;
            EXPECT_LE(rel_err(s2->data(), ref_0), 2e-5) << "small " << small;
        }
    }
}

// One output feeding a host block and a device-buffer block cannot work in GNU Radio 3.10
// (one transfer type per buffer). It must be refused when the flowgraph starts, never
// hang.
TEST_P(FgChain, MixedFanOutIsRefusedAtStart)
{
    std::mt19937 g(29);
    const auto x = random_signal(1000, g);
    for (int trial = 0; trial < 6;
         trial++) { // block order inside GNU Radio follows addresses
        {
            auto tb = gr::make_top_block("mixed_host");
            auto src = gr::blocks::vector_source<cf>::make(x);
            auto dev = gi::interp_fir_ccf::make(2, { 1.f, 0.5f }, GetParam(), 0, 0, true);
            auto s1 = gr::blocks::vector_sink<cf>::make();
            auto s2 = gr::blocks::vector_sink<cf>::make();
            tb->connect(src, 0, s1, 0);
            tb->connect(src, 0, dev, 0);
            tb->connect(dev, 0, s2, 0);
            const std::string msg = start_error(tb, "mixed host fan-out");
            EXPECT_FALSE(msg.empty())
                << "start() should refuse a host output feeding host and device blocks";
            EXPECT_TRUE(msg.find("device_buffers") != std::string::npos ||
                        msg.find("transfer type") != std::string::npos)
                << msg;
        }
        {
            auto tb = gr::make_top_block("mixed_dev");
            auto src = gr::blocks::vector_source<cf>::make(x);
            auto up = gi::interp_fir_ccf::make(2, { 1.f, 0.5f }, GetParam(), 0, 0, true);
            auto dev = gi::interp_fir_ccf::make(2, { 1.f, 0.5f }, GetParam(), 0, 0, true);
            auto s1 = gr::blocks::vector_sink<cf>::make();
            auto s2 = gr::blocks::vector_sink<cf>::make();
            tb->connect(src, 0, up, 0);
            tb->connect(up, 0, s1, 0);
            tb->connect(up, 0, dev, 0);
            tb->connect(dev, 0, s2, 0);
            const std::string msg = start_error(tb, "mixed device fan-out");
            EXPECT_TRUE(msg.find("transfer type") != std::string::npos)
                << "got: '" << msg << "'";
        }
    }
}

// The documented way around the refusal: the device branch gets its own blocks.copy.
TEST_P(FgChain, MixedFanOutThroughCopyWorks)
{
    std::mt19937 g(31);
    const auto x = random_signal(20000, g);
    const auto h = random_taps(15, g);
    auto tb = gr::make_top_block("via_copy");
    auto src = gr::blocks::vector_source<cf>::make(x);
    auto cp = gr::blocks::copy::make(sizeof(cf));
    auto dev = gi::interp_fir_ccf::make(2, h, GetParam(), 0, 0, true);
    auto s1 = gr::blocks::vector_sink<cf>::make();
    auto s2 = gr::blocks::vector_sink<cf>::make();
    tb->connect(src, 0, s1, 0);
    tb->connect(src, 0, cp, 0);
    tb->connect(cp, 0, dev, 0);
    tb->connect(dev, 0, s2, 0);
    within(60, "copy workaround", [&] { tb->run(); });
    EXPECT_EQ(s1->data(), x);
    EXPECT_LE(
        rel_err(s2->data(),
                reference_through(x, { gr::filter::interp_fir_filter_ccf::make(2, h) })),
        2e-5);
}

// GNU Radio 3.10.5.1's buffer_single_mapped::output_blkd_cb_ready() writes
// `gr::thread::scoped_lock(*this->mutex());`, a temporary that unlocks at the end of the
// statement, then calls space_available() (which walks the readers and prunes tags)
// unlocked. cuda_buffer counts space_available() calls made without the mutex held: GNU
// Radio's version makes one, ours none, and neither does a whole flowgraph run with small
// buffers.
TEST_P(FgChain, BlockedCallbackChecksHoldTheBufferLock)
{
    auto owner = gi::interp_fir_ccf::make(2, { 1.f }, GetParam(), 0, 0, true);
    auto buf = gi::cuda_buffer::make_buffer(4096, sizeof(cf), 1, 1, owner, owner);
    auto* cb = dynamic_cast<gi::cuda_buffer*>(buf.get());
    ASSERT_NE(cb, nullptr);
    buf->set_transfer_type(gr::transfer_type::DEVICE_TO_DEVICE);
    cb->output_blkd_cb_ready(2);
    EXPECT_EQ(cb->unlocked_space_checks(), 0);
    cb->gr::buffer_single_mapped::output_blkd_cb_ready(2);
    EXPECT_EQ(cb->unlocked_space_checks(), 1)
        << "GNU Radio's check is expected to run unlocked (3.10.5.1)";
    // ours also really waits for the lock
    std::atomic<bool> returned{ false };
    std::unique_lock<gr::thread::mutex> lock(*buf->mutex());
    std::thread t([&] {
        cb->input_blkd_cb_ready(1, 0);
        cb->output_blkd_cb_ready(2);
        returned = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_FALSE(returned.load());
    lock.unlock();
    t.join();
    EXPECT_TRUE(returned.load());

    std::mt19937 g(37);
    const auto x = random_signal(50000, g);
    auto tb = gr::make_top_block("locks");
    auto src = gr::blocks::vector_source<cf>::make(x);
    auto cp = gr::blocks::copy::make(sizeof(cf));
    auto a = gi::interp_fir_ccf::make(2, random_taps(9, g), GetParam(), 0, 0, true);
    auto f = gr::filter::fir_filter_ccf::make(
        1, random_taps(21, g)); // history reader: realigns
    auto snk = gr::blocks::vector_sink<cf>::make();
    cp->set_max_output_buffer(1000);
    a->set_max_output_buffer(1500);
    gpuinterp_fg::connect_chain(tb, { src, cp, a, f, snk });
    within(60, "locks", [&] { tb->run(); });
    auto in_a =
        std::dynamic_pointer_cast<gi::cuda_buffer>(a->detail()->input(0)->buffer());
    auto out_a = std::dynamic_pointer_cast<gi::cuda_buffer>(a->detail()->output(0));
    ASSERT_TRUE(in_a && out_a);
    EXPECT_EQ(in_a->unlocked_space_checks(), 0);
    EXPECT_EQ(out_a->unlocked_space_checks(), 0);
    EXPECT_EQ(snk->data().size(), x.size() * 2);
}

// The single-mapped realignments, driven directly on one buffer for each transfer type,
// so the device-side moves (H2D, D2D: device array) and the host-side ones (D2H: pinned
// array) are both checked whatever the scheduler happens to do: data written as a
// counting sequence must reach the reader unchanged across an output-blocked realignment
// and an input-blocked wrap.
TEST_P(FgChain, RealignmentKeepsDataOnEitherSide)
{
    const gi::device_binding host{ gi::memory_kind::simulated, 0 };
    for (auto t : { gr::transfer_type::HOST_TO_DEVICE,
                    gr::transfer_type::DEVICE_TO_DEVICE,
                    gr::transfer_type::DEVICE_TO_HOST }) {
        auto writer = gi::interp_fir_ccf::make(1, { 1.f }, GetParam(), 0, 0, true);
        auto reader_blk = gi::interp_fir_ccf::make(1, { 1.f }, GetParam(), 0, 0, true);
        auto buf = gi::cuda_buffer::make_buffer(1000, sizeof(cf), 1, 1, writer, writer);
        auto* cb = dynamic_cast<gi::cuda_buffer*>(buf.get());
        ASSERT_NE(cb, nullptr);
        buf->set_transfer_type(t);
        auto rd = gr::buffer_add_reader(buf, 0, reader_blk, 0);
        const unsigned B = buf->bufsize();
        const bool writer_on_device = t != gr::transfer_type::HOST_TO_DEVICE;
        const bool reader_on_device = t != gr::transfer_type::DEVICE_TO_HOST;
        const gi::device_binding wb = writer_on_device ? cb->binding() : host;
        const gi::device_binding rb = reader_on_device ? cb->binding() : host;
        float next_w = 1, next_r = 1;
        auto write = [&](unsigned n) {
            std::vector<cf> v(n);
            for (auto& x : v)
                x = cf(next_w++, -1);
            gr::gpuinterp::device::copy_between(
                wb, buf->write_pointer(), host, v.data(), n * sizeof(cf));
            buf->post_work(int(n));
            buf->update_write_pointer(int(n));
        };
        auto read = [&](unsigned n) {
            ASSERT_GE(rd->items_available(), int(n));
            std::vector<cf> v(n);
            gr::gpuinterp::device::copy_between(
                host, v.data(), rb, rd->read_pointer(), n * sizeof(cf));
            for (auto& x : v)
                ASSERT_EQ(x, cf(next_r++, -1)) << "transfer type " << int(t);
            rd->update_read_pointer(int(n));
        };
        // Output-blocked realignment: unread [r, w) moves to the front.
        write(B / 2);
        read(B / 4);
        {
            gr::custom_lock lock(std::ref(*buf->mutex()), buf);
            ASSERT_TRUE(buf->output_blocked_callback(1, true));
        }
        EXPECT_EQ(rd->get_read_index(), 0u);
        read(B / 8);
        // Fill to the end, read most of it, wrap the writer, then make the reader ask for
        // more than is left before the end: input-blocked realignment copies the tail to
        // the front.
        const unsigned to_end = B - (B / 2 - B / 4);
        write(to_end);
        read(unsigned(rd->items_available()) - 5);
        write(3); // writer wrapped to the front
        const int avail = rd->items_available();
        ASSERT_EQ(avail, 5);
        {
            gr::custom_lock lock(std::ref(*buf->mutex()), buf);
            ASSERT_TRUE(rd->input_blocked_callback(8, avail));
        }
        read(8);
        rd.reset();
    }
}

INSTANTIATE_TEST_SUITE_P(Backends, FgChain, ::testing::Values("cpu", "cuda"));

// A chain spread over two GPUs: the second block reads the first one's buffer on device 0
// and copies it peer-to-peer to device 1. Also a CUDA block feeding a CPU-backend
// device-buffer block and back (simulated <-> CUDA copies).
TEST(FgChainPlacement, TwoGpus)
{
    GPUINTERP_FG_SKIP_WITHOUT_CUDA_DEVICES(2);
    std::mt19937 g(41);
    const auto x = random_signal(300007, g);
    const auto h1 = random_taps(24, g), h2 = random_taps(48, g);
    auto tb = gr::make_top_block("two");
    auto src = gr::blocks::vector_source<cf>::make(x);
    auto a = gi::interp_fir_ccf::make(2, h1, "cuda", 0, 0, true);
    auto b = gi::interp_fir_ccf::make(4, h2, "cuda", 1, 0, true);
    auto snk = gr::blocks::vector_sink<cf>::make();
    gpuinterp_fg::connect_chain(tb, { src, a, b, snk });
    within(120, "two GPUs", [&] { tb->run(); });
    auto ab = std::dynamic_pointer_cast<gi::cuda_buffer>(a->detail()->output(0));
    auto bo = std::dynamic_pointer_cast<gi::cuda_buffer>(b->detail()->output(0));
    ASSERT_TRUE(ab && bo);
    EXPECT_EQ(ab->binding(), (gi::device_binding{ gi::memory_kind::cuda, 0 }));
    EXPECT_EQ(bo->binding(), (gi::device_binding{ gi::memory_kind::cuda, 1 }));
    chain_opts o;
    const auto ref = run_chain(impl::gnuradio, "", x, h1, h2, {}, o);
    EXPECT_LE(rel_err(snk->data(), ref.y), 2e-5);
}

TEST(FgChainPlacement, CudaAndSimulatedNeighbours)
{
    GPUINTERP_FG_SKIP_WITHOUT_CUDA_DEVICES(1);
    std::mt19937 g(43);
    const auto x = random_signal(100003, g);
    const auto h1 = random_taps(24, g), h2 = random_taps(48, g), h3 = random_taps(8, g);
    auto tb = gr::make_top_block("mixed_kinds");
    auto src = gr::blocks::vector_source<cf>::make(x);
    auto a = gi::interp_fir_ccf::make(2, h1, "cuda", 0, 0, true);
    auto b = gi::interp_fir_ccf::make(4, h2, "cpu", 0, 0, true);
    auto c = gi::interp_fir_ccf::make(1, h3, "cuda", 0, 0, true);
    auto snk = gr::blocks::vector_sink<cf>::make();
    gpuinterp_fg::connect_chain(tb, { src, a, b, c, snk });
    within(120, "cuda/sim", [&] { tb->run(); });
    const auto ref =
        reference_through(x,
                          { gr::filter::interp_fir_filter_ccf::make(2, h1),
                            gr::filter::interp_fir_filter_ccf::make(4, h2),
                            gr::filter::interp_fir_filter_ccf::make(1, h3) });
    EXPECT_LE(rel_err(snk->data(), ref), 2e-5);
}

} // namespace
