/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// kernel::resampler with sc16 input: every method, one and three channels, complex float and
// sc16 output, random call and output sizes; the outputs equal the complex float resampler of
// the same backend fed the values the int16 pairs stand for (converted here in double: the
// product of an int16 and a float is exact in double, one rounding to float), bit for bit, with
// host pointers and with device pointers (CUDA: expanded in device memory by the engine; the
// CPU's device memory is host memory).

#include "test_util.h"
#include <gnuradio/gpuinterp/kernel/resampler.h>
#include <cstring>
#include <random>
#include <stdexcept>

using namespace gpuinterp_test;
using namespace gr::gpuinterp::kernel;

namespace {

// Streams n inputs per channel through k in random offers and output caps, as GNU Radio's
// general_work does (unconsumed inputs are offered again); each channel's outputs as bytes.
std::vector<std::vector<uint8_t>> stream(resampler_cc& k,
                                         const std::vector<const uint8_t*>& x,
                                         size_t n,
                                         size_t in_bytes,
                                         sample_format out,
                                         float fs,
                                         bool device,
                                         unsigned seed)
{
    const unsigned N = k.channels();
    const size_t ob = sample_bytes(out);
    std::mt19937 g(seed);
    std::uniform_int_distribution<size_t> offer(1, 900), cap(1, 1500);
    std::vector<std::vector<uint8_t>> y(N);
    std::vector<void*> o(N);
    std::vector<const void*> i(N);
    size_t pos = 0, produced = 0;
    while (pos < n) {
        const size_t m = std::min(n - pos, offer(g) + k.lookahead() + k.reach_back() + 1);
        const size_t max_out = std::min(k.outputs_possible(m), cap(g));
        for (unsigned c = 0; c < N; c++) {
            y[c].resize((produced + max_out) * ob);
            o[c] = y[c].data() + produced * ob;
            i[c] = x[c] + pos * in_bytes;
        }
        size_t used = 0;
        const size_t got =
            k.resample_items(o.data(), max_out, i.data(), m, used, out, fs, device);
        produced += got;
        pos += used;
        if (got == 0 && used == 0 && pos + m == n)
            break; // the rest is the look-ahead of outputs that need inputs not yet here
    }
    for (auto& v : y)
        v.resize(produced * ob);
    return y;
}

// One case of the tests below: N channels at rate r, output format `out`, named by `what`.
struct sc16_case {
    unsigned N;
    sample_format out;
    double r;
    std::string what;
};

// Every case of the tests below: each method of `methods`, one and three channels (rates 1.37
// and 0.71), complex float and sc16 output; check(s, f, k) with the resampler s reading sc16 on
// backend b and its complex float twin f.
template <typename Check>
void for_each_case(backend b, std::initializer_list<resamp_method> methods, Check&& check)
{
    for (resamp_method m : methods)
        for (unsigned N : { 1u, 3u })
            for (sample_format out : { sample_format::fc32, sample_format::sc16 }) {
                const double r = N == 1 ? 1.37 : 0.71;
                resampler_cc s(r, m, b, 0, {}, 0, N, sample_format::sc16);
                resampler_cc f(r, m, b, 0, {}, 0, N);
                check(s,
                      f,
                      sc16_case{ N,
                                 out,
                                 r,
                                 to_string(m) + " N=" + std::to_string(N) + " " +
                                     to_string(out) });
            }
}

using ResamplerSc16In = gpuinterp_test::backend_param;

} // namespace

TEST_P(ResamplerSc16In, ReadsTheFloatItsSamplesStandFor)
{
    const float fs = 0.85f;
    const size_t n = 7000;
    for_each_case(GetParam(),
                  { resamp_method::polyphase,
                    resamp_method::cubic,
                    resamp_method::linear,
                    resamp_method::texture,
                    resamp_method::nearest },
                  [&](resampler_cc& s, resampler_cc& f, const sc16_case& k) {
                      ASSERT_EQ(s.input_format(), sample_format::sc16);
                      const sc16_channels x(k.N, fs, [&](unsigned c) {
                          return random_sc16(n, 3 + c, c == 2 ? 32767 : 25000);
                      });
                      // The CPU takes device pointers too (host memory there).
                      const bool dev = GetParam() == backend::cpu && k.N == 3;
                      const auto got = stream(s, x.xi, n, 4, k.out, fs, dev, 1 + k.N);
                      const auto want = stream(f, x.xf, n, 8, k.out, fs, false, 50);
                      for (unsigned c = 0; c < k.N; c++) {
                          ASSERT_GT(got[c].size(), n / 2 * sample_bytes(k.out)) << k.what;
                          EXPECT_EQ(got[c], want[c]) << k.what << " channel " << c;
                          EXPECT_EQ(s.counts(c).saturated, f.counts(c).saturated)
                              << k.what;
                      }
                      EXPECT_EQ(s.inputs_consumed(), f.inputs_consumed()) << k.what;
                  });
}

TEST_P(ResamplerSc16In, FormatsAreCheckedByName)
{
    EXPECT_TRUE(throws_naming(
        [&] {
            resampler_ff k(
                1.5, resamp_method::linear, GetParam(), 0, {}, 0, 1, sample_format::sc16);
        },
        "input_format:"));
    resampler_cc k(
        1.5, resamp_method::nearest, GetParam(), 0, {}, 0, 1, sample_format::sc16);
    std::vector<cf> x(64), y(200);
    size_t used = 0;
    EXPECT_TRUE(throws_naming([&] { k.resample(x); }, "input_format:"));
    std::vector<int16_t> iq(128, 1000);
    std::vector<void*> o{ y.data() };
    std::vector<const void*> i{ iq.data() };
    EXPECT_TRUE(throws_naming(
        [&] {
            k.resample_items(
                o.data(), 200, i.data(), 64, used, sample_format::fc32, -1.0f);
        },
        "full_scale:"));
    // A constant input of 1000 / 32767 full scale comes out as that constant (nearest).
    const size_t got =
        k.resample_items(o.data(), 200, i.data(), 64, used, sample_format::fc32, 2.0f);
    ASSERT_GT(got, 10u);
    const float v = 1000.0f * (2.0f / 32767.0f);
    EXPECT_EQ(y[5], cf(v, v));
}

#ifdef GPUINTERP_HAVE_CUDA
// CUDA device pointers: the inputs staged in device memory, fixed offers, outputs read back;
// equal to the host-pointer fc32 resampler fed the expanded values.
TEST(ResamplerSc16InCuda, DevicePointersReadTheFloatItsSamplesStandFor)
{
    GPUINTERP_SKIP_WITHOUT_CUDA();
    const float fs = 0.85f;
    const size_t n = 9000;
    for_each_case(
        backend::cuda,
        { resamp_method::polyphase,
          resamp_method::cubic,
          resamp_method::texture,
          resamp_method::nearest },
        [&](resampler_cc& s, resampler_cc& f, const sc16_case& k) {
            const size_t ob = sample_bytes(k.out), cap = size_t(2 * k.r * n) + 64;
            const sc16_channels x(
                k.N, fs, [&](unsigned c) { return random_sc16(n, 7 + c, 32767); });
            std::vector<void*> din(k.N), dout(k.N);
            for (unsigned c = 0; c < k.N; c++) {
                ASSERT_EQ(cudaMalloc(&din[c], n * 4), cudaSuccess);
                ASSERT_EQ(cudaMalloc(&dout[c], cap * ob), cudaSuccess);
                ASSERT_EQ(upload_waited(din[c], x.iq[c].data(), n * 4), cudaSuccess);
            }
            size_t pos = 0, produced = 0;
            std::vector<void*> o(k.N);
            std::vector<const void*> i(k.N);
            for (size_t call = 0; pos < n; call++) {
                const size_t m_in = std::min(n - pos, size_t(700 + 37 * (call % 11)));
                const size_t max_out = std::min(s.outputs_possible(m_in), cap - produced);
                for (unsigned c = 0; c < k.N; c++) {
                    o[c] = static_cast<uint8_t*>(dout[c]) + produced * ob;
                    i[c] = static_cast<const uint8_t*>(din[c]) + pos * 4;
                }
                size_t used = 0;
                const size_t got = s.resample_items(
                    o.data(), max_out, i.data(), m_in, used, k.out, fs, true);
                produced += got;
                pos += used;
                if (got == 0 && used == 0)
                    break; // the rest is look-ahead
            }
            const auto want = stream(f, x.xf, n, 8, k.out, fs, false, 50);
            for (unsigned c = 0; c < k.N; c++) {
                std::vector<uint8_t> got(produced * ob);
                ASSERT_EQ(
                    cudaMemcpy(got.data(), dout[c], got.size(), cudaMemcpyDeviceToHost),
                    cudaSuccess);
                ASSERT_GT(got.size(), n / 2 * ob) << k.what;
                ASSERT_LE(got.size(), want[c].size()) << k.what;
                EXPECT_EQ(0, std::memcmp(got.data(), want[c].data(), got.size()))
                    << k.what << " channel " << c;
                if (got.size() == want[c].size())
                    EXPECT_EQ(s.counts(c).saturated, f.counts(c).saturated) << k.what;
                cudaFree(din[c]);
                cudaFree(dout[c]);
            }
        });
}
#endif

GPUINTERP_BACKEND_SUITE(ResamplerSc16In);
