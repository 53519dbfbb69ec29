/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// kernel::dpd_bank with sc16 input: a bank reading int16 I/Q equals a complex float bank fed the
// values they stand for (converted here in double: the product of an int16 and a float is exact
// in double, so rounding it once to float is the correctly rounded float product the library
// promises) — bit for bit on the CPU, to float rounding on CUDA; with sc16 output as well; and
// on device pointers at any offset.

#include "test_util.h"
#include <gnuradio/gpuinterp/kernel/dpd_bank.h>
#include <cstring>
#include <memory>
#include <random>
#include <stdexcept>

using namespace gpuinterp_test;
using gr::gpuinterp::kernel::dpd_bank;
using gr::gpuinterp::kernel::dpd_model;

namespace {

const dpd_model ph = dpd_model::parse("ph:P=5,Q=3,Lp=5,Lq=3");
const dpd_model gmp = dpd_model::parse("gmp:Ka=3,La=3,Kb=2,Lb=2,Mb=2,Kc=2,Lc=2,Mc=1");

std::vector<cf> coefficients_of(const dpd_model& m, unsigned c)
{
    auto h = random_vector<cf>(m.num_coefficients(), 0.05f);
    h[0] = cf(1.0f + 0.1f * c, -0.05f * c);
    return h;
}

// I/Q int16 pairs, n samples, with the extremes present.
std::vector<int16_t> random_iq(size_t n, unsigned seed, int peak)
{
    std::mt19937 g(seed);
    std::uniform_int_distribution<int> d(-peak, peak);
    std::vector<int16_t> v(2 * n);
    for (auto& s : v)
        s = int16_t(d(g));
    v[0] = -32768;
    v[1] = 32767;
    v[2 * (n / 2)] = 32767;
    v[2 * (n / 2) + 1] = -32768;
    return v;
}

// Runs `b` over per-channel inputs of `in_bytes` per sample in uneven calls (host pointers).
std::vector<std::vector<uint8_t>> run(dpd_bank& b,
                                      const std::vector<const uint8_t*>& x,
                                      size_t n,
                                      size_t in_bytes,
                                      size_t out_bytes)
{
    const unsigned N = b.channels();
    std::vector<std::vector<uint8_t>> y(N, std::vector<uint8_t>(n * out_bytes));
    call_in_steps(
        N,
        n,
        { 1, 6, 999, 4097, n },
        [&](unsigned c, size_t pos) { return y[c].data() + pos * out_bytes; },
        [&](unsigned c, size_t pos) { return x[c] + pos * in_bytes; },
        [&](void* const* o, const void* const* i, size_t m) { b.process(o, i, m); });
    return y;
}

template <typename T>
std::vector<T> as(const std::vector<uint8_t>& bytes)
{
    std::vector<T> v(bytes.size() / sizeof(T));
    std::memcpy(v.data(), bytes.data(), bytes.size());
    return v;
}

using DpdBankSc16In = gpuinterp_test::backend_param;

} // namespace

TEST_P(DpdBankSc16In, ReadsTheFloatItsSamplesStandFor)
{
    const float fs = 1.25f;
    const size_t n = 20000;
    for (const dpd_model* m : { &ph, &gmp }) {
        if (GetParam() == backend::cuda && m != &ph)
            continue; // refused by name (below)
        for (unsigned N : { 1u, 3u }) {
            for (sample_format out : { sample_format::fc32, sample_format::sc16 }) {
                const size_t ob = gr::gpuinterp::kernel::sample_bytes(out);
                dpd_bank s(*m,
                           N,
                           coefficients_of(*m, 0),
                           cf(0),
                           bank_options(GetParam(), out, fs, sample_format::sc16));
                // The float reference: the CPU bank, fed the converted values.
                dpd_bank f(*m,
                           N,
                           coefficients_of(*m, 0),
                           cf(0),
                           bank_options(backend::cpu, out, fs));
                ASSERT_EQ(s.input_format(), sample_format::sc16);
                for (unsigned c = 0; c < N; c++) {
                    const auto h = coefficients_of(*m, c);
                    s.set_coefficients(c, h, cf(0.002f * c, 0));
                    f.set_coefficients(c, h, cf(0.002f * c, 0));
                }
                // Channel 2 drives sc16 outputs past full scale.
                const sc16_channels x(N, fs, [&](unsigned c) {
                    return random_iq(n, 7 + c, c == 2 ? 32767 : 20000);
                });
                const auto got = run(s, x.xi, n, 4, ob);
                const auto want = run(f, x.xf, n, 8, ob);
                for (unsigned c = 0; c < N; c++) {
                    const std::string what = m->to_string() + " N=" + std::to_string(N) +
                                             " " + to_string(out) + " channel " +
                                             std::to_string(c);
                    if (GetParam() == backend::cpu) {
                        EXPECT_EQ(got[c], want[c]) << what;
                        EXPECT_EQ(s.counts(c).saturated, f.counts(c).saturated) << what;
                    } else if (out == sample_format::fc32) {
                        const auto w = as<cf>(want[c]);
                        EXPECT_TRUE(all_close(as<cf>(got[c]),
                                              std::vector<cd>(w.begin(), w.end()),
                                              2e-6,
                                              1e-7))
                            << what;
                    } else {
                        // A product rounded differently may move an output by one step.
                        const auto g = as<int16_t>(got[c]), w = as<int16_t>(want[c]);
                        for (size_t i = 0; i < g.size(); i++)
                            ASSERT_LE(std::abs(int(g[i]) - int(w[i])), 1)
                                << what << " at " << i;
                    }
                }
                if (out == sample_format::sc16 && N == 3)
                    EXPECT_GT(f.counts(2).saturated,
                              10u); // saturation is exercised for real
            }
        }
    }
}

TEST_P(DpdBankSc16In, VectorConveniencesCheckTheFormats)
{
    dpd_bank s(ph,
               2,
               coefficients_of(ph, 0),
               cf(0),
               bank_options(GetParam(), sample_format::fc32, 1.0f, sample_format::sc16));
    const auto iq = random_iq(64, 3, 30000);
    const auto y = s.process(iq); // 32 samples per channel
    EXPECT_EQ(y.size(), 64u);
    EXPECT_TRUE(throws_naming([&] { s.process(std::vector<cf>(64)); }, "input_format:"))
        << "complex input to an sc16-input bank";
    EXPECT_THROW(s.process_sc16(iq), std::invalid_argument); // output is fc32
}

TEST(DpdBankSc16InCuda, GmpSc16InputIsRefusedByName)
{
    GPUINTERP_SKIP_WITHOUT_CUDA();
    EXPECT_TRUE(throws_naming(
        [] {
            dpd_bank b(
                gmp,
                2,
                coefficients_of(gmp, 0),
                cf(0),
                bank_options(
                    backend::cuda, sample_format::fc32, 1.0f, sample_format::sc16));
        },
        "input_format:"));
}

#ifdef GPUINTERP_HAVE_CUDA
// sc16 windows at any 4-byte offset (separate GNU Radio ports), 64 channels, against the host
// path of the same bank configuration.
TEST(DpdBankSc16InCuda, DevicePathEqualsHostPathAtAnyOffset)
{
    GPUINTERP_SKIP_WITHOUT_CUDA();
    for (sample_format out : { sample_format::fc32, sample_format::sc16 }) {
        const unsigned N = 64;
        const size_t n = 9001, ob = gr::gpuinterp::kernel::sample_bytes(out);
        // Two banks of one configuration: one fed host pointers, one device pointers.
        auto make_bank = [&] {
            return std::make_unique<dpd_bank>(
                ph,
                N,
                coefficients_of(ph, 0),
                cf(0),
                bank_options(backend::cuda, out, 0.9f, sample_format::sc16));
        };
        const auto host_bank = make_bank(), dev_bank = make_bank();
        dpd_bank &host = *host_bank, &dev = *dev_bank;
        ASSERT_TRUE(dev.one_launch());
        std::vector<std::vector<int16_t>> iq(N);
        std::vector<const uint8_t*> xi(N);
        for (unsigned c = 0; c < N; c++) {
            iq[c] = random_iq(n, 100 + c, 32767);
            xi[c] = reinterpret_cast<const uint8_t*>(iq[c].data());
            const auto h = coefficients_of(ph, c);
            host.set_coefficients(c, h, cf(0));
            dev.set_coefficients(c, h, cf(0));
        }
        const auto want = run(host, xi, n, 4, ob);
        expect_device_path_equals(
            dev, host, want, n, 4, ob, [&](unsigned c) { return xi[c]; }, to_string(out));
    }
}
#endif

GPUINTERP_BACKEND_SUITE(DpdBankSc16In);
