/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// A transmit chain in sc16 from the interpolator on: interp_fir (x4, sc16 out) ->
// dpd_predistorter (sc16 in, sc16 out), with host and device buffers, GNU Radio's default buffers
// and random tiny ones. Reference: the interpolator's sc16 output captured, converted here in
// double (exact product, one rounding to float), fed to a complex float predistorter on the
// CPU. The CPU chain must equal it bit for bit; CUDA within one int16 step.
#include <gnuradio/blocks/copy.h>
#include <gnuradio/blocks/vector_sink.h>
#include <gnuradio/blocks/vector_source.h>
#include <gnuradio/gpuinterp/dpd_predistorter_cc.h>
#include <gnuradio/gpuinterp/interp_fir.h>
#include <gnuradio/gpuinterp/kernel/backend.h>
#include <gnuradio/top_block.h>
#include <gtest/gtest.h>
#include <complex>
#include <cstdlib>
#include <random>

using cf = std::complex<float>;
namespace gi = gr::gpuinterp;

namespace {

// One full scale along the chain: the predistorter's applies to its sc16 input and output.
constexpr float fir_fs = 0.55f, dpd_fs = fir_fs;

struct design {
    std::vector<float> h;
    std::vector<cf> co;
    std::vector<cf> x;
};

design make_design(unsigned seed, size_t n)
{
    std::mt19937 g(seed);
    std::uniform_real_distribution<float> d(-0.4f, 0.4f);
    design k;
    k.h.resize(48);
    for (auto& t : k.h)
        t = 0.6f * d(g);
    k.co.resize(3 * 4 + 2 * 2);
    for (auto& c : k.co)
        c = { 0.05f * d(g), 0.05f * d(g) };
    k.co[0] = { 1.0f, 0.1f };
    k.x.resize(n);
    for (auto& v : k.x)
        v = { d(g), d(g) };
    return k;
}

gi::dpd_predistorter_cc::sptr make_dpd(const design& k,
                                       const std::string& backend,
                                       bool dev,
                                       const std::string& in_format)
{
    return gi::dpd_predistorter_cc::make(5,
                                         3,
                                         4,
                                         2,
                                         k.co,
                                         cf(0.01f, -0.02f),
                                         backend,
                                         0,
                                         0,
                                         false,
                                         dev,
                                         "",
                                         1,
                                         "sc16",
                                         dpd_fs,
                                         in_format);
}

// src -> [copy with tiny buffers] -> FIR (sc16) -> [DPD (sc16 in)] -> sink of int16 pairs.
std::vector<int16_t> run_chain(
    const design& k, const std::string& backend, bool dev, bool small, bool with_dpd)
{
    std::mt19937 g(k.x.size());
    auto tb = gr::make_top_block("sc16 chain");
    auto src = gr::blocks::vector_source<cf>::make(k.x);
    auto a = gi::interp_fir_ccf::make(4, k.h, backend, 0, 0, dev, "sc16", fir_fs);
    auto snk = gr::blocks::vector_sink<int16_t>::make(2);
    gr::basic_block_sptr last = a;
    if (small) {
        std::uniform_int_distribution<int> bs(64, 5000), calls(1, 2500);
        auto cp = gr::blocks::copy::make(sizeof(cf));
        cp->set_max_output_buffer(bs(g));
        cp->set_max_noutput_items(calls(g));
        a->set_max_output_buffer(bs(g) * 4);
        a->set_max_noutput_items(calls(g) * 4);
        tb->connect(src, 0, cp, 0);
        tb->connect(cp, 0, a, 0);
    } else {
        tb->connect(src, 0, a, 0);
    }
    if (with_dpd) {
        auto b = make_dpd(k, backend, dev, "sc16");
        EXPECT_EQ(b->input_format(), "sc16");
        if (small) {
            b->set_max_output_buffer(std::uniform_int_distribution<int>(64, 5000)(g) * 4);
            b->set_max_noutput_items(std::uniform_int_distribution<int>(1, 2500)(g) * 4);
        }
        tb->connect(a, 0, b, 0);
        last = b;
    }
    tb->connect(last, 0, snk, 0);
    tb->run();
    return snk->data();
}

class FgDpdSc16In : public ::testing::TestWithParam<std::string>
{
protected:
    void SetUp() override
    {
        if (GetParam() == "cuda" && gi::cuda_device_count() == 0)
            GTEST_SKIP() << "no usable CUDA device";
    }
};

} // namespace

TEST_P(FgDpdSc16In, ChainInSc16EqualsTheFloatPredistorterOfItsSamples)
{
    for (unsigned seed = 1; seed <= 3; seed++) {
        const design k = make_design(seed, 15000 + 997 * seed);
        // The reference: the interpolator's samples as the floats they stand for, through a
        // complex float predistorter on the CPU.
        const auto q = run_chain(k, "cpu", false, false, false);
        const double inv = double(fir_fs / 32767.0f);
        std::vector<cf> z(q.size() / 2);
        for (size_t i = 0; i < z.size(); i++)
            z[i] = cf(float(double(q[2 * i]) * inv), float(double(q[2 * i + 1]) * inv));
        auto tb = gr::make_top_block("reference");
        auto src = gr::blocks::vector_source<cf>::make(z);
        auto ref = make_dpd(k, "cpu", false, "fc32");
        auto snk = gr::blocks::vector_sink<int16_t>::make(2);
        tb->connect(src, 0, ref, 0);
        tb->connect(ref, 0, snk, 0);
        tb->run();
        const auto want = snk->data();
        ASSERT_EQ(want.size(), 2 * 4 * k.x.size());
        for (bool dev : { false, true }) {
            const bool small = seed > 1;
            const auto got = run_chain(k, GetParam(), dev, small, true);
            ASSERT_EQ(got.size(), want.size()) << "seed " << seed << " dev " << dev;
            if (GetParam() == "cpu") {
                EXPECT_EQ(got, want) << "seed " << seed << " dev " << dev;
                continue;
            }
            // CUDA's interpolator may round a sample to the neighbouring step, which the
            // predistorter's gain (about 1.2) and its own rounding can widen to two.
            for (size_t i = 0; i < got.size(); i++)
                ASSERT_LE(std::abs(int(got[i]) - int(want[i])), 2)
                    << "index " << i << " seed " << seed << " dev " << dev;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Backends, FgDpdSc16In, ::testing::Values("cpu", "cuda"));
