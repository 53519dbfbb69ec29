/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// polyphase_interpolator's sc16 output: on each backend the converted outputs of its own complex
// float result (the conversion fused into the kernel's store must not change a single value),
// the counts, the device entry point at odd offsets, and the refusals.

#include "test_util.h"
#include <gnuradio/gpuinterp/kernel/polyphase_interpolator.h>
#include <cmath>
#include <stdexcept>

using namespace gpuinterp_test;
using gr::gpuinterp::kernel::polyphase_interpolator_ccc;
using gr::gpuinterp::kernel::polyphase_interpolator_ccf;
using gr::gpuinterp::kernel::polyphase_interpolator_fff;

namespace {

using FirSc16 = gpuinterp_test::backend_param;

} // namespace

TEST_P(FirSc16, ConvertsItsOwnFloatOutputAndCounts)
{
    for (unsigned L : { 2u, 8u, 33u }) {
        const float fs = 0.7f;
        auto taps = random_vector<float>(4 * L + 3, 1.0f);
        taps[0] =
            3.0f; // phase 0 is 3 x(n) and more: past full scale for the larger inputs
        polyphase_interpolator_ccf f(L, taps, GetParam());
        polyphase_interpolator_ccf s(L, taps, GetParam());
        auto x = random_vector<cf>(20000, 0.25f);
        x[777] = cf(NAN, 0.0f);
        std::vector<cf> y(x.size() * L);
        std::vector<int16_t> q(2 * y.size());
        size_t pos = 0;
        for (size_t step : { size_t(1), size_t(5), size_t(3001), x.size() }) {
            const size_t m = std::min(step, x.size() - pos);
            filter_one(f, y.data() + pos * L, x.data() + pos, m);
            filter_one(
                s, q.data() + 2 * pos * L, x.data() + pos, m, sample_format::sc16, fs);
            pos += m;
            if (pos == x.size())
                break;
        }
        uint64_t sat = 0, bad = 0, sat_samples = 0, bad_samples = 0;
        for (size_t i = 0; i < y.size(); i++) {
            const uint64_t s0 = sat, b0 = bad;
            const int16_t re = sc16_ref(y[i].real(), fs, sat, bad);
            const int16_t im = sc16_ref(y[i].imag(), fs, sat, bad);
            ASSERT_EQ(q[2 * i], re) << "L=" << L << " output " << i;
            ASSERT_EQ(q[2 * i + 1], im) << "L=" << L << " output " << i;
            sat_samples += sat > s0;
            bad_samples += bad > b0;
        }
        EXPECT_EQ(s.counts().saturated, sat_samples) << "L=" << L;
        EXPECT_EQ(s.counts().invalid, bad_samples) << "L=" << L;
        EXPECT_GT(sat_samples, 0u) << "L=" << L; // the taps' gain drives past 0.7
        EXPECT_GT(bad_samples, 0u) << "L=" << L;
    }
}

TEST(FirSc16Params, RefusesRealSamplesAndBadFullScale)
{
    polyphase_interpolator_fff r(2, { 1.0f, 0.5f });
    std::vector<int16_t> q(8);
    std::vector<float> x(2, 0.1f);
    try {
        filter_one(r, q.data(), x.data(), 2, sample_format::sc16, 1.0f);
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_EQ(std::string(e.what()).rfind("output_format:", 0), 0u) << e.what();
    }
    polyphase_interpolator_ccc c(2, { cf(1), cf(0.5f) });
    std::vector<cf> xc(2, cf(0.1f));
    for (float fs : { 0.0f, -2.0f, NAN, INFINITY }) {
        try {
            filter_one(c, q.data(), xc.data(), 2, sample_format::sc16, fs);
            FAIL() << fs;
        } catch (const std::invalid_argument& e) {
            EXPECT_EQ(std::string(e.what()).rfind("full_scale:", 0), 0u) << e.what();
        }
    }
}

#ifdef GPUINTERP_HAVE_CUDA
TEST(FirSc16Cuda, DeviceEntryPointEqualsHostAtAnOddOffset)
{
    GPUINTERP_SKIP_WITHOUT_CUDA();
    const unsigned L = 8;
    const auto taps = random_vector<float>(128, 0.5f);
    polyphase_interpolator_ccf host(L, taps, backend::cuda), dev(L, taps, backend::cuda);
    const auto x = random_vector<cf>(50001, 0.3f);
    std::vector<int16_t> want(2 * x.size() * L);
    filter_one(host, want.data(), x.data(), x.size(), sample_format::sc16, 1.0f);
    cf* din = nullptr;
    int16_t* dout = nullptr;
    ASSERT_EQ(cudaMalloc(&din, (x.size() + 1) * sizeof(cf)), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&dout, (want.size() + 2) * sizeof(int16_t)), cudaSuccess);
    ASSERT_EQ(upload_waited(din + 1, x.data(), x.size() * sizeof(cf)), cudaSuccess);
    const size_t half = 20001;
    filter_one(dev, dout + 2, din + 1, half, sample_format::sc16, 1.0f, true);
    filter_one(dev,
               dout + 2 + 2 * half * L,
               din + 1 + half,
               x.size() - half,
               sample_format::sc16,
               1.0f,
               true);
    std::vector<int16_t> got(want.size());
    cudaMemcpy(
        got.data(), dout + 2, got.size() * sizeof(int16_t), cudaMemcpyDeviceToHost);
    cudaFree(din);
    cudaFree(dout);
    EXPECT_EQ(got, want);
    EXPECT_EQ(dev.counts().saturated, host.counts().saturated);
}
#endif

GPUINTERP_BACKEND_SUITE(FirSc16);
