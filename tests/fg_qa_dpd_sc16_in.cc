/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// A transmit chain in sc16 from the interpolator on: interp_fir (x4, sc16 out) ->
// dpd_predistorter (sc16 in, sc16 out), with host and device buffers, GNU Radio's default buffers
// and random tiny ones. Reference: the interpolator's sc16 output captured, converted here in
// double (exact product, one rounding to float), fed to a complex float predistorter on the
// CPU. The CPU chain must equal it bit for bit; CUDA within one int16 step.
#include "fg_util.h"
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
    auto a = gi::interp_fir_ccf::make(4, k.h, backend, 0, 0, dev, "sc16", fir_fs);
    std::vector<gr::basic_block_sptr> chain;
    gpuinterp_fg::tiny_buffers t(k.x.size(), 64, 5000, 2500);
    if (small) {
        chain.push_back(t.copy());
        t.limit(a, 4);
    }
    chain.push_back(a);
    if (with_dpd) {
        auto b = make_dpd(k, backend, dev, "sc16");
        EXPECT_EQ(b->input_format(), "sc16");
        if (small)
            t.limit(b, 4);
        chain.push_back(b);
    }
    return gpuinterp_fg::run_through<int16_t>(k.x, chain, {}, 2)->data();
}

using FgDpdSc16In = gpuinterp_fg::backend_test;

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
        const auto want = gpuinterp_fg::run_through<int16_t>(
                              z, { make_dpd(k, "cpu", false, "fc32") }, {}, 2)
                              ->data();
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
