/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// polyphase_interpolator with sc16 input: a kernel reading int16 I/Q equals the complex float
// kernel of the same backend fed the values they stand for (converted here in double: the
// product of an int16 and a float is exact in double, so rounding it once to float is the
// correctly rounded float product the library promises). Everything after the window load is
// the complex float arithmetic, so the outputs agree bit for bit, complex float or sc16, on the
// CPU and on CUDA; with one and three channels, uneven and tiny calls (the history seams), and
// device pointers at any 4-byte offset.

#include "test_util.h"
#include <gnuradio/gpuinterp/kernel/polyphase_interpolator.h>
#ifdef GPUINTERP_HAVE_CUDA
#include <cuda_runtime.h>
#endif
#include <cstring>
#include <random>
#include <stdexcept>

using namespace gpuinterp_test;
using gr::gpuinterp::kernel::polyphase_interpolator;
using gr::gpuinterp::kernel::polyphase_interpolator_ccf;
using gr::gpuinterp::kernel::polyphase_interpolator_fff;
using gr::gpuinterp::kernel::sample_bytes;

namespace {

// Call sizes: tiny ones first (each shorter than the history: the seams), then uneven ones.
std::vector<size_t> call_sizes(size_t n, unsigned seed)
{
    std::mt19937 g(seed);
    std::uniform_int_distribution<size_t> tiny(1, 7), some(1, 3000);
    std::vector<size_t> s;
    size_t pos = 0;
    for (int i = 0; pos < n; i++) {
        const size_t m = std::min(n - pos, i < 12 ? tiny(g) : some(g));
        s.push_back(m);
        pos += m;
    }
    return s;
}

// Runs k over per-channel inputs of in_bytes a sample in the calls `sizes`; each channel's
// n * L outputs in `out` format, as bytes.
template <typename K>
std::vector<std::vector<uint8_t>> run(K& k,
                                      const std::vector<const uint8_t*>& x,
                                      const std::vector<size_t>& sizes,
                                      size_t in_bytes,
                                      sample_format out,
                                      float fs)
{
    const unsigned N = k.channels();
    const size_t L = k.interpolation(), ob = sample_bytes(out);
    size_t n = 0;
    for (size_t m : sizes)
        n += m;
    std::vector<std::vector<uint8_t>> y(N, std::vector<uint8_t>(n * L * ob));
    size_t pos = 0;
    for (size_t m : sizes) {
        std::vector<void*> o(N);
        std::vector<const void*> i(N);
        for (unsigned c = 0; c < N; c++) {
            o[c] = y[c].data() + pos * L * ob;
            i[c] = x[c] + pos * in_bytes;
        }
        k.filter_items(o.data(), i.data(), m, out, fs);
        pos += m;
    }
    return y;
}

template <typename TAP>
std::vector<TAP> taps_for(unsigned L)
{
    auto h = random_vector<TAP>(5 * L + 2, 0.8f);
    h[0] = TAP(2.5f); // phase 0 alone reaches past full scale for the larger inputs
    return h;
}

using FirSc16In = gpuinterp_test::backend_param;

template <typename TAP>
void reads_the_float_its_samples_stand_for(backend b)
{
    const float fs = 1.3f;
    const size_t n = 12000;
    for (unsigned L : { 3u, 8u }) {
        for (unsigned N : { 1u, 3u }) {
            for (sample_format out : { sample_format::fc32, sample_format::sc16 }) {
                const auto h = taps_for<TAP>(L);
                polyphase_interpolator<cf, TAP> s(L, h, b, 0, 0, N, sample_format::sc16);
                polyphase_interpolator<cf, TAP> f(L, h, b, 0, 0, N);
                ASSERT_EQ(s.input_format(), sample_format::sc16);
                // Channel 2 drives the sc16 outputs past full scale.
                const sc16_channels x(N, fs, [&](unsigned c) {
                    return random_sc16(n, 11 + c, c == 2 ? 32767 : 9000);
                });
                // Different call patterns for the two: chunking must not matter either.
                const auto got = run(s, x.xi, call_sizes(n, L + N), 4, out, fs);
                const auto want = run(f, x.xf, call_sizes(n, 99), 8, out, fs);
                for (unsigned c = 0; c < N; c++) {
                    const std::string what =
                        "L=" + std::to_string(L) + " N=" + std::to_string(N) + " " +
                        to_string(out) + " channel " + std::to_string(c);
                    EXPECT_EQ(got[c], want[c]) << what;
                    EXPECT_EQ(s.counts(c).saturated, f.counts(c).saturated) << what;
                }
                if (out == sample_format::sc16 && N == 3)
                    EXPECT_GT(s.counts(2).saturated,
                              10u); // saturation is exercised for real
            }
        }
    }
    // Changing the taps mid-stream: both switch at the same sample.
    const unsigned L = 4;
    const auto h1 = taps_for<TAP>(L);
    polyphase_interpolator<cf, TAP> s(L, h1, b, 0, 0, 1, sample_format::sc16);
    polyphase_interpolator<cf, TAP> f(L, h1, b);
    const auto iq = random_sc16(3000, 5, 20000);
    const auto z = sc16_values(iq, fs);
    std::vector<cf> ys(3000 * L), yf(3000 * L);
    std::vector<void*> os{ ys.data() }, of{ yf.data() };
    std::vector<const void*> is{ iq.data() }, iff{ z.data() };
    s.filter_items(os.data(), is.data(), 1000, sample_format::fc32, fs);
    f.filter_items(of.data(), iff.data(), 1000, sample_format::fc32, fs);
    const auto h2 = random_vector<TAP>(3 * L + 1, 0.5f);
    s.set_taps(h2);
    f.set_taps(h2);
    os[0] = ys.data() + 1000 * L;
    of[0] = yf.data() + 1000 * L;
    is[0] = iq.data() + 2000;
    iff[0] = z.data() + 1000;
    s.filter_items(os.data(), is.data(), 2000, sample_format::fc32, fs);
    f.filter_items(of.data(), iff.data(), 2000, sample_format::fc32, fs);
    EXPECT_EQ(std::memcmp(ys.data(), yf.data(), ys.size() * sizeof(cf)), 0);
    // And the float values are the double-precision filter's, to float rounding.
    std::vector<cd> ref(1000 * L);
    for (size_t i = 0; i < 1000 * L; i++) {
        cd acc = 0;
        const size_t nn = i / L, p = i % L;
        for (size_t k = 0; p + k * L < h1.size() && k <= nn; k++)
            acc += to_d(h1[p + k * L]) * to_d(z[nn - k]);
        ref[i] = acc;
    }
    EXPECT_TRUE(
        all_close(std::vector<cf>(ys.begin(), ys.begin() + 1000 * L), ref, 1e-5, 1e-6));
}

} // namespace

TEST_P(FirSc16In, RealTapsReadTheFloatItsSamplesStandFor)
{
    reads_the_float_its_samples_stand_for<float>(GetParam());
}

TEST_P(FirSc16In, ComplexTapsReadTheFloatItsSamplesStandFor)
{
    reads_the_float_its_samples_stand_for<cf>(GetParam());
}

TEST_P(FirSc16In, FormatsAreCheckedByName)
{
    const std::vector<float> h{ 1.0f, 0.5f, 0.25f };
    EXPECT_TRUE(throws_naming(
        [&] {
            polyphase_interpolator_fff k(2, h, GetParam(), 0, 0, 1, sample_format::sc16);
        },
        "input_format:"));
    polyphase_interpolator_ccf k(2, h, GetParam(), 0, 0, 1, sample_format::sc16);
    std::vector<cf> x(8), y(16);
    EXPECT_TRUE(throws_naming([&] { k.filter(x); }, "input_format:"));
    std::vector<int16_t> iq(16, 7);
    std::vector<void*> o{ y.data() };
    std::vector<const void*> i{ iq.data() };
    EXPECT_TRUE(throws_naming(
        [&] { k.filter_items(o.data(), i.data(), 8, sample_format::fc32, 0.0f); },
        "full_scale:"));
    k.filter_items(o.data(), i.data(), 8, sample_format::fc32, 1.0f);
    // x[0] = (7 + 7i) / 32767 times tap 0.
    EXPECT_FLOAT_EQ(y[0].real(), 7.0f / 32767.0f);
    EXPECT_FLOAT_EQ(y[1].imag(), 0.5f * 7.0f / 32767.0f);
}

#ifdef GPUINTERP_HAVE_CUDA
// sc16 windows at any 4-byte offset (separate GNU Radio ports), one and three channels, against
// the host path of the same configuration, with calls shorter than the history.
TEST(FirSc16InCuda, DevicePathEqualsHostPathAtAnyOffset)
{
    GPUINTERP_SKIP_WITHOUT_CUDA();
    const unsigned L = 5;
    const float fs = 0.8f;
    const size_t n = 9001;
    for (unsigned N : { 1u, 3u }) {
        for (sample_format out : { sample_format::fc32, sample_format::sc16 }) {
            const size_t ob = sample_bytes(out);
            const auto h = taps_for<float>(L);
            polyphase_interpolator_ccf host(
                L, h, backend::cuda, 0, 0, N, sample_format::sc16);
            polyphase_interpolator_ccf dev(
                L, h, backend::cuda, 0, 0, N, sample_format::sc16);
            std::vector<std::vector<int16_t>> iq(N);
            std::vector<const uint8_t*> xi(N);
            for (unsigned c = 0; c < N; c++) {
                iq[c] = random_sc16(n, 100 + c, 32767);
                xi[c] = reinterpret_cast<const uint8_t*>(iq[c].data());
            }
            const auto sizes = call_sizes(n, 7);
            const auto want = run(host, xi, sizes, 4, out, fs);
            std::vector<uint8_t*> din(N), dout(N);
            for (unsigned c = 0; c < N; c++) {
                ASSERT_EQ(cudaMalloc(&din[c], (n + 3) * 4), cudaSuccess);
                ASSERT_EQ(cudaMalloc(&dout[c], (n + 3) * L * ob), cudaSuccess);
                upload_waited(din[c] + c % 3 * 4, iq[c].data(), n * 4);
            }
            size_t pos = 0;
            for (size_t m : sizes) {
                std::vector<void*> o(N);
                std::vector<const void*> i(N);
                for (unsigned c = 0; c < N; c++) {
                    o[c] = dout[c] + (c % 3 + pos * L) * ob;
                    i[c] = din[c] + (c % 3 + pos) * 4;
                }
                dev.filter_items(o.data(), i.data(), m, out, fs, true);
                pos += m;
            }
            for (unsigned c = 0; c < N; c++) {
                std::vector<uint8_t> got(n * L * ob);
                cudaMemcpy(
                    got.data(), dout[c] + c % 3 * ob, n * L * ob, cudaMemcpyDeviceToHost);
                EXPECT_EQ(got, want[c])
                    << "N=" << N << " " << to_string(out) << " channel " << c;
                EXPECT_EQ(dev.counts(c).saturated, host.counts(c).saturated);
                cudaFree(din[c]);
                cudaFree(dout[c]);
            }
        }
    }
}
#endif

GPUINTERP_BACKEND_SUITE(FirSc16In);
