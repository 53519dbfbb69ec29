/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// kernel::dpd_bank: N channels against N single-channel predistorters (bit for bit on the CPU,
// to float rounding on CUDA), sc16 against an independent conversion written here, the counts,
// and the parameter checks.

#include "test_util.h"
#include <gnuradio/gpuinterp/kernel/dpd_bank.h>
#include <gnuradio/gpuinterp/kernel/dpd_predistorter.h>
#include <cmath>
#include <cstring>
#include <stdexcept>

using namespace gpuinterp_test;
using gr::gpuinterp::kernel::dpd_bank;
using gr::gpuinterp::kernel::dpd_model;
using gr::gpuinterp::kernel::dpd_predistorter;

namespace {

// The test's own sc16 rule (sample_format.h): product in float, round half to even in double,
// then clip. Returns {value, clipped, nan}.
struct ref16 {
    int16_t v;
    bool clipped, nan;
};
ref16 ref_component(float v, float full_scale)
{
    const float s = v * (32767.0f / full_scale);
    if (std::isnan(s))
        return { 0, false, true };
    double r = std::floor(double(s));
    const double frac = double(s) - r;
    if (frac > 0.5 || (frac == 0.5 && std::fmod(r, 2.0) != 0.0))
        r += 1.0;
    if (r > 32767.0)
        return { 32767, true, false };
    if (r < -32768.0)
        return { -32768, true, false };
    return { int16_t(r), false, false };
}

struct ref_out {
    std::vector<int16_t> iq;
    uint64_t saturated = 0, invalid = 0;
};
ref_out ref_sc16(const std::vector<cf>& z, float full_scale)
{
    ref_out r;
    for (const cf& v : z) {
        const ref16 a = ref_component(v.real(), full_scale);
        const ref16 b = ref_component(v.imag(), full_scale);
        r.iq.push_back(a.v);
        r.iq.push_back(b.v);
        r.saturated += a.clipped || b.clipped;
        r.invalid += a.nan || b.nan;
    }
    return r;
}

std::vector<cf> channel_coefficients(const dpd_model& m, unsigned c)
{
    auto h = random_vector<cf>(m.num_coefficients(), 0.05f);
    h[0] = cf(1.0f + 0.1f * c, -0.05f * c);
    return h;
}

const dpd_model ph = dpd_model::parse("ph:P=5,Q=3,Lp=5,Lq=3");
const dpd_model gmp = dpd_model::parse("gmp:Ka=3,La=3,Kb=2,Lb=2,Mb=2,Kc=2,Lc=2,Mc=1");

// Runs a bank over `x` (channel-major, n per channel) in uneven calls; returns per channel.
template <typename Out>
std::vector<std::vector<Out>>
run_bank(dpd_bank& b, const std::vector<std::vector<cf>>& x, size_t per_sample)
{
    const unsigned N = b.channels();
    const size_t n = x[0].size();
    std::vector<std::vector<Out>> y(N, std::vector<Out>(n * per_sample));
    call_in_steps(
        N,
        n,
        { 1, 7, 1000, 4093, n },
        [&](unsigned c, size_t pos) { return y[c].data() + pos * per_sample; },
        [&](unsigned c, size_t pos) { return x[c].data() + pos; },
        [&](void* const* o, const void* const* i, size_t m) { b.process(o, i, m); });
    return y;
}

using DpdBank = gpuinterp_test::backend_param;

} // namespace

TEST(DpdBankParams, RefusesBadChannelsFullScaleAndChannel)
{
    const auto h = channel_coefficients(ph, 0);
    for (unsigned bad : { 0u, 65u, 1000u }) {
        try {
            dpd_bank b(ph, bad, h);
            FAIL() << "channels " << bad << " accepted";
        } catch (const std::invalid_argument& e) {
            EXPECT_EQ(std::string(e.what()).rfind("channels:", 0), 0u) << e.what();
        }
    }
    for (float fs : { 0.0f, -1.0f, INFINITY, NAN }) {
        try {
            dpd_bank b(
                ph, 2, h, cf(0), bank_options(backend::cpu, sample_format::sc16, fs));
            FAIL() << "full_scale " << fs << " accepted";
        } catch (const std::invalid_argument& e) {
            EXPECT_EQ(std::string(e.what()).rfind("full_scale:", 0), 0u) << e.what();
        }
    }
    dpd_bank b(ph, 3, h);
    EXPECT_THROW(b.set_coefficients(3, h, cf(0)), std::invalid_argument);
    try {
        b.set_coefficients(1, std::vector<cf>(3, cf(1)), cf(0));
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_EQ(std::string(e.what()).rfind("coefficients:", 0), 0u) << e.what();
    }
    EXPECT_EQ(b.coefficients(1), h); // unchanged after the refused set
    EXPECT_THROW(gr::gpuinterp::kernel::sample_format_from_string("fc64"),
                 std::invalid_argument);
    EXPECT_EQ(gr::gpuinterp::kernel::sample_format_from_string("complex int16"),
              sample_format::sc16);
}

TEST_P(DpdBank, EveryChannelIsItsOwnPredistorter)
{
    for (const dpd_model* m : { &ph, &gmp }) {
        for (unsigned N : { 1u, 3u, 16u }) {
            const size_t n = 20000;
            dpd_bank b(*m, N, channel_coefficients(*m, 0), cf(0.01f, 0), GetParam());
            std::vector<std::vector<cf>> x(N);
            std::vector<std::vector<cf>> want(N);
            for (unsigned c = 0; c < N; c++) {
                x[c] = random_vector<cf>(n, 0.7f);
                const auto h = channel_coefficients(*m, c);
                const cf lo(0.001f * c, -0.002f);
                b.set_coefficients(c, h, lo);
                dpd_predistorter one(*m, h, lo, backend::cpu);
                want[c] = one.process(x[c]);
            }
            const auto got = run_bank<cf>(b, x, 1);
            for (unsigned c = 0; c < N; c++) {
                if (GetParam() == backend::cpu)
                    EXPECT_EQ(0,
                              std::memcmp(got[c].data(), want[c].data(), n * sizeof(cf)))
                        << m->to_string() << " N=" << N << " channel " << c;
                else
                    EXPECT_TRUE(all_close(
                        got[c], std::vector<cd>(want[c].begin(), want[c].end()), 2e-6, 0))
                        << m->to_string() << " N=" << N << " channel " << c;
            }
        }
    }
}

// A range set (what the block's setters and `coeffs` messages use): channels first..last take
// one set, each keeping its own c when none is given; a refused set changes no channel.
TEST_P(DpdBank, ARangeTakesOneSetAndKeepsEachLoLeakage)
{
    const unsigned N = 4;
    const size_t n = 5000;
    for (const dpd_model* m : { &ph, &gmp }) {
        dpd_bank b(*m, N, channel_coefficients(*m, 0), cf(0), GetParam());
        std::vector<std::vector<cf>> h(N), x(N);
        std::vector<cf> lo(N);
        for (unsigned c = 0; c < N; c++) {
            h[c] = channel_coefficients(*m, c);
            lo[c] = cf(0.001f * (c + 1), -0.002f * c);
            b.set_coefficients(c, h[c], lo[c]);
            x[c] = random_vector<cf>(n, 0.7f);
        }
        const auto shared = channel_coefficients(*m, 7);
        b.set_coefficients(1, 2, shared, std::nullopt);
        auto bad = shared;
        bad[0] = cf(NAN, 0);
        EXPECT_TRUE(throws_naming([&] { b.set_coefficients(0, N - 1, bad, cf(0)); },
                                  "coefficients"));
        EXPECT_TRUE(
            throws_naming([&] { b.set_coefficients(2, 1, shared, cf(0)); }, "channel"));
        EXPECT_TRUE(
            throws_naming([&] { b.set_coefficients(0, N, shared, cf(0)); }, "channel"));
        const auto got = run_bank<cf>(b, x, 1);
        for (unsigned c = 0; c < N; c++) {
            const bool in_range = c == 1 || c == 2;
            EXPECT_EQ(b.coefficients(c), in_range ? shared : h[c]) << "channel " << c;
            EXPECT_EQ(b.lo_leakage(c), lo[c]) << "channel " << c;
            dpd_predistorter one(*m, in_range ? shared : h[c], lo[c], backend::cpu);
            const auto want = one.process(x[c]);
            // The CPU is bit for bit; CUDA differs from the CPU reference by float rounding,
            // as in EveryChannelIsItsOwnPredistorter.
            if (GetParam() == backend::cpu)
                EXPECT_EQ(got[c], want) << m->to_string() << " channel " << c;
            else
                EXPECT_TRUE(
                    all_close(got[c], std::vector<cd>(want.begin(), want.end()), 2e-6, 0))
                    << m->to_string() << " channel " << c;
        }
    }
}

TEST_P(DpdBank, Sc16IsTheConversionOfTheFloatOutputWithCounts)
{
    const unsigned N = 4;
    const size_t n = 30000;
    const float fs = 0.8f;
    const auto h = channel_coefficients(ph, 1);
    dpd_bank f(ph, N, h, cf(0), GetParam());
    dpd_bank s(ph, N, h, cf(0), bank_options(GetParam(), sample_format::sc16, fs));
    std::vector<std::vector<cf>> x(N);
    for (unsigned c = 0; c < N; c++) {
        // Channel c peaks at (0.6 + 0.2 c): channels 2 and 3 drive the output past full scale.
        x[c] = random_vector<cf>(n, 0.45f + 0.15f * c);
        x[c][100 + c] = cf(NAN, 0.1f);    // one NaN sample per channel...
        x[c][5000] = cf(0.01f, INFINITY); // ...and an infinite one, NaN after the basis
    }
    const auto zf = run_bank<cf>(f, x, 1);
    const auto zs = run_bank<int16_t>(s, x, 2);
    uint64_t total_sat = 0;
    for (unsigned c = 0; c < N; c++) {
        const ref_out r = ref_sc16(zf[c], fs);
        EXPECT_EQ(zs[c], r.iq) << "channel " << c;
        EXPECT_EQ(s.counts(c).saturated, r.saturated) << "channel " << c;
        EXPECT_EQ(s.counts(c).invalid, r.invalid) << "channel " << c;
        EXPECT_GE(r.invalid, 1u);
        total_sat += r.saturated;
    }
    EXPECT_GT(total_sat, 100u); // the test drives saturation for real
    s.reset_counts();
    EXPECT_EQ(s.counts(3).saturated, 0u);
}

TEST(DpdBankCuda, GmpSc16IsRefusedByName)
{
    GPUINTERP_SKIP_WITHOUT_CUDA();
    EXPECT_TRUE(throws_naming(
        [] {
            dpd_bank b(gmp,
                       2,
                       channel_coefficients(gmp, 0),
                       cf(0),
                       bank_options(backend::cuda, sample_format::sc16, 1.0f));
        },
        "output_format:"));
}

// A ph structure the one-launch kernel cannot take (a history of 299 samples, beyond the tiled
// body's one halo value per thread) runs one engine per channel and says why; each channel equals
// the CPU predistorter with its values within float accumulation: at most 2 x (terms) x 2^-23 x
// sum |coefficient| (|x| < 1, so no basis value exceeds 1). With an sc16 side (which only the
// one-launch kernel converts on CUDA) the structure is refused, naming Lp.
TEST(DpdBankCuda, LongPhRunsOneEnginePerChannelAndSaysSo)
{
    GPUINTERP_SKIP_WITHOUT_CUDA();
    const dpd_model long_ph = dpd_model::parse("ph:P=3,Q=1,Lp=300,Lq=3");
    const unsigned N = 3;
    const size_t n = 20000;
    dpd_bank b(long_ph, N, channel_coefficients(long_ph, 0), cf(0), backend::cuda);
    EXPECT_FALSE(b.one_launch());
    EXPECT_NE(b.backend_note().find("one launch per channel"), std::string::npos)
        << b.backend_note();
    std::vector<std::vector<cf>> x(N), want(N);
    std::vector<double> bound(N);
    for (unsigned c = 0; c < N; c++) {
        x[c] = random_vector<cf>(n, 0.7f);
        const auto h = channel_coefficients(long_ph, c);
        b.set_coefficients(c, h, cf(0));
        want[c] = dpd_predistorter(long_ph, h, cf(0), backend::cpu).process(x[c]);
        double sum = 0;
        for (const cf& v : h)
            sum += std::abs(v);
        bound[c] = 2.0 * double(h.size()) * std::ldexp(1.0, -23) * sum;
    }
    const auto got = run_bank<cf>(b, x, 1);
    for (unsigned c = 0; c < N; c++) {
        double worst = 0;
        for (size_t i = 0; i < n; i++)
            worst = std::max(worst, double(std::abs(got[c][i] - want[c][i])));
        EXPECT_LE(worst, bound[c]) << "channel " << c;
    }
    EXPECT_TRUE(throws_naming(
        [&] {
            dpd_bank s(long_ph,
                       N,
                       channel_coefficients(long_ph, 0),
                       cf(0),
                       bank_options(backend::cuda, sample_format::sc16, 1.0f));
        },
        "Lp:"));
}

#ifdef GPUINTERP_HAVE_CUDA
// Device pointers at odd sample offsets (GNU Radio buffers of separate ports), 64 channels, sc16
// and fc32, against the host path of the same bank configuration.
TEST(DpdBankCuda, DevicePathEqualsHostPathAtAnyOffset)
{
    GPUINTERP_SKIP_WITHOUT_CUDA();
    for (sample_format fmt : { sample_format::fc32, sample_format::sc16 }) {
        const unsigned N = 64;
        const size_t n = 9001, bytes = fmt == sample_format::sc16 ? 4 : 8;
        dpd_bank host(
            ph, N, channel_coefficients(ph, 0), cf(0), bank_options(backend::cuda, fmt));
        dpd_bank dev(
            ph, N, channel_coefficients(ph, 0), cf(0), bank_options(backend::cuda, fmt));
        ASSERT_TRUE(dev.one_launch());
        std::vector<std::vector<cf>> x(N);
        for (unsigned c = 0; c < N; c++) {
            x[c] = random_vector<cf>(n, 0.9f);
            const auto h = channel_coefficients(ph, c);
            host.set_coefficients(c, h, cf(0));
            dev.set_coefficients(c, h, cf(0));
        }
        const auto want = run_bank<uint8_t>(host, x, bytes);
        expect_device_path_equals(
            dev,
            host,
            want,
            n,
            sizeof(cf),
            bytes,
            [&](unsigned c) { return x[c].data(); },
            to_string(fmt));
    }
}
#endif

GPUINTERP_BACKEND_SUITE(DpdBank);
