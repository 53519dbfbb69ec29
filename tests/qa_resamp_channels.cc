/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The resampler with channels > 1: every method, each channel against a single-channel
// resampler fed that channel's input with the same calls (bit for bit on the CPU; on CUDA to
// the single-channel CUDA-vs-CPU tolerance), host and device memory, fc32 and sc16, output
// limits and a rate change mid-stream, and the channel-count checks.
//
// The data come from seeded_signal() (test_util.h), not the shared generator.

#include "test_util.h"
#include <gnuradio/gpuinterp/kernel/resampler.h>
#include <cstring>
#include <random>
#include <stdexcept>

using namespace gpuinterp_test;
using gr::gpuinterp::kernel::resamp_method;
using gr::gpuinterp::kernel::resampler;

namespace {

const resamp_method methods[] = { resamp_method::nearest,
                                  resamp_method::linear,
                                  resamp_method::texture,
                                  resamp_method::cubic,
                                  resamp_method::polyphase };

// The calls of one run: inputs offered and the output limit (a share of what is possible).
struct call_t {
    size_t n_in;
    int share_pct;
};
const std::vector<call_t> calls = { { 1, 100 }, { 57, 100 },   { 3000, 40 },
                                    { 2, 100 }, { 5000, 100 }, { 9000, 70 } };

//! Drives `k` with the calls above (then everything left) over the channels' inputs x (equal
//! lengths), the rate changed to r2 before the fourth call; out_per: bytes per output.
//! Returns each channel's output bytes.
template <typename Call>
std::vector<std::vector<uint8_t>> drive(resampler<cf>& k,
                                        const std::vector<std::vector<cf>>& x,
                                        double r2,
                                        size_t out_per,
                                        Call&& call)
{
    const size_t N = x.size(), total = x[0].size();
    std::vector<std::vector<uint8_t>> y(N);
    size_t pos = 0;
    for (size_t i = 0;; i++) {
        if (i == 3)
            k.set_rate(r2);
        const size_t left = total - pos;
        const size_t n_in = i < calls.size() ? std::min(calls[i].n_in, left) : left;
        const size_t possible = k.outputs_possible(n_in);
        const size_t max_out =
            i < calls.size() ? possible * size_t(calls[i].share_pct) / 100 : possible;
        std::vector<std::vector<uint8_t>> o(
            N, std::vector<uint8_t>(max_out * out_per, 0xA5));
        std::vector<void*> op(N);
        std::vector<const cf*> ip(N);
        for (size_t c = 0; c < N; c++) {
            op[c] = o[c].data();
            ip[c] = x[c].data() + pos;
        }
        size_t used = 0;
        const size_t got = call(op, max_out, ip, n_in, used);
        EXPECT_EQ(got, max_out);
        for (size_t c = 0; c < N; c++)
            y[c].insert(y[c].end(), o[c].begin(), o[c].begin() + got * out_per);
        pos += used;
        if (i >= calls.size() && (used == n_in || (got == 0 && used == 0)))
            break;
    }
    return y;
}

struct resamp_case {
    resamp_method m;
    unsigned N;
    double r1, r2;
    bool sc16;
    size_t n = 20000;
    float fs = 0.7f;
    std::vector<std::vector<cf>> x = [&] {
        std::vector<std::vector<cf>> v;
        for (unsigned c = 0; c < N; c++)
            v.push_back(
                seeded_signal(n, 0.3f + 0.3f * c, 100 + c)); // louder channels clip at fs
        return v;
    }();
    size_t out_per() const { return sc16 ? 4 : sizeof(cf); }

    //! The N-channel kernel on backend b (device: through device memory on CUDA).
    std::vector<std::vector<uint8_t>>
    multi(backend b, bool dev, std::vector<sc16_counts>* k_out, bool* one_clock = nullptr)
    {
        resampler<cf> k(r1, m, b, 0, {}, 0, N);
        EXPECT_EQ(k.channels(), N);
        auto y = drive(k,
                       x,
                       r2,
                       out_per(),
                       [&](auto& op, size_t mo, auto& ip, size_t n_in, size_t& used) {
                           return run(k, op, mo, ip, n_in, used, dev);
                       });
        if (k_out)
            for (unsigned c = 0; c < N; c++)
                k_out->push_back(k.counts(c));
        if (one_clock)
            *one_clock = k.outputs_produced() == y[0].size() / out_per();
        return y;
    }

    //! Channel c through a single-channel kernel on the CPU with the same calls.
    std::vector<uint8_t> single(unsigned c, sc16_counts* k_out)
    {
        resampler<cf> k(r1, m, backend::cpu);
        auto y = drive(k,
                       { x[c] },
                       r2,
                       out_per(),
                       [&](auto& op, size_t mo, auto& ip, size_t n_in, size_t& used) {
                           if (sc16)
                               return resample_one(k,
                                                   static_cast<int16_t*>(op[0]),
                                                   mo,
                                                   ip[0],
                                                   n_in,
                                                   used,
                                                   sample_format::sc16,
                                                   fs);
                           return resample_one(
                               k, static_cast<cf*>(op[0]), mo, ip[0], n_in, used);
                       });
        if (k_out)
            *k_out = k.counts();
        return y[0];
    }

    size_t run(resampler<cf>& k,
               const std::vector<void*>& op,
               size_t mo,
               const std::vector<const cf*>& ip,
               size_t n_in,
               size_t& used,
               bool dev)
    {
        // One call of the kernel on outputs o and inputs i: host memory, or device memory with
        // `device`.
        auto call = [&](const std::vector<void*>& o,
                        const std::vector<const cf*>& i,
                        bool device) -> size_t {
            return k.resample_items(o.data(),
                                    mo,
                                    reinterpret_cast<const void* const*>(i.data()),
                                    n_in,
                                    used,
                                    sc16 ? sample_format::sc16 : sample_format::fc32,
                                    fs,
                                    device);
        };
#ifdef GPUINTERP_HAVE_CUDA
        if (dev) { // each channel's call in device memory, at an offset of c % 3 samples
            std::vector<void*> dop(N);
            std::vector<const cf*> dip(N);
            std::vector<cf*> din(N);
            std::vector<uint8_t*> dout(N);
            for (unsigned c = 0; c < N; c++) {
                cudaMalloc(&din[c], (n_in + 3) * sizeof(cf));
                cudaMalloc(&dout[c], (mo + 3) * out_per());
                upload_waited(din[c] + c % 3, ip[c], n_in * sizeof(cf));
                dip[c] = din[c] + c % 3;
                dop[c] = dout[c] + c % 3 * out_per();
            }
            const size_t got = call(dop, dip, true);
            for (unsigned c = 0; c < N; c++) {
                cudaMemcpy(op[c], dop[c], got * out_per(), cudaMemcpyDeviceToHost);
                cudaFree(din[c]);
                cudaFree(dout[c]);
            }
            return got;
        }
#endif
        return call(op, ip, false);
    }
};

template <typename T>
std::vector<T> as(const std::vector<uint8_t>& b)
{
    std::vector<T> v(b.size() / sizeof(T));
    std::memcpy(v.data(), b.data(), b.size());
    return v;
}

double rtol_for(resamp_method m) { return m == resamp_method::polyphase ? 3e-4 : 3e-6; }

} // namespace

// The CPU: channel c is bit for bit a single-channel resampler on channel c's input.
TEST(ResampChannelsCpu, EachChannelEqualsASingleChannelKernelExactly)
{
    for (resamp_method m : methods)
        for (unsigned N : { 1u, 3u, 4u })
            for (bool sc16 : { false, true }) {
                // r < 1 stretches the polyphase filter; the change to 2.3 grows nothing
                resamp_case t{ m, N, 0.73, 2.3, sc16 };
                std::vector<sc16_counts> k;
                bool one_clock = false;
                const auto got = t.multi(backend::cpu, false, &k, &one_clock);
                EXPECT_TRUE(one_clock);
                for (unsigned c = 0; c < N; c++) {
                    sc16_counts k1;
                    const auto want = t.single(c, &k1);
                    EXPECT_GT(want.size() / t.out_per(), 30000u);
                    EXPECT_EQ(got[c], want) << to_string(m) << " N=" << N
                                            << " sc16=" << sc16 << " channel " << c;
                    EXPECT_EQ(k[c].saturated, k1.saturated);
                    EXPECT_EQ(k[c].invalid, k1.invalid);
                    if (sc16 && N > 1 && c == N - 1)
                        EXPECT_GT(k[c].saturated, 0u);
                }
            }
}

TEST(ResampChannelsCpu, VectorConvenienceIsChannelMajor)
{
    const unsigned N = 3;
    resampler<cf> k(1.37, resamp_method::cubic, backend::cpu, 0, {}, 0, N);
    std::vector<cf> all;
    std::vector<std::vector<cf>> x;
    for (unsigned c = 0; c < N; c++) {
        x.push_back(seeded_signal(5000, 1.0f, 7 + c));
        all.insert(all.end(), x[c].begin(), x[c].end());
    }
    const auto y = k.resample(all);
    ASSERT_EQ(y.size() % N, 0u);
    const size_t m = y.size() / N;
    for (unsigned c = 0; c < N; c++) {
        resampler<cf> one(1.37, resamp_method::cubic, backend::cpu);
        const auto want = one.resample(x[c]);
        ASSERT_EQ(want.size(), m);
        EXPECT_TRUE(std::equal(want.begin(), want.end(), y.begin() + c * m)) << c;
    }
    EXPECT_THROW(k.resample(std::vector<cf>(10)), std::invalid_argument); // 10 % 3 != 0
}

TEST(ResampChannelsParams, ChannelCountOutOfRangeNamesChannels)
{
    for (unsigned N : { 0u, 65u, unsigned(-1) }) {
        try {
            resampler<cf> k(1.5, resamp_method::linear, backend::cpu, 0, {}, 0, N);
            FAIL() << "channels " << N << " accepted";
        } catch (const std::invalid_argument& e) {
            EXPECT_EQ(std::string(e.what()).rfind("channels:", 0), 0u) << e.what();
        }
    }
    resampler<cf> k(1.5, resamp_method::linear, backend::cpu, 0, {}, 0, 2);
    EXPECT_THROW(k.counts(2), std::invalid_argument);
}

#ifdef GPUINTERP_HAVE_CUDA
// CUDA, host and device memory: each channel within the single-channel CUDA-vs-CPU tolerance of
// the single-channel CPU kernel (sc16: within one step, the same counts up to the samples that
// float rounding moves across full scale).
TEST(ResampChannelsCuda, EachChannelMatchesTheCpu)
{
    GPUINTERP_SKIP_WITHOUT_CUDA();
    for (resamp_method m : methods)
        for (unsigned N : { 1u, 3u, 4u, 64u })
            for (bool sc16 : { false, true })
                for (bool dev : { false, true }) {
                    resamp_case t{ m, N, 0.73, 2.3, sc16, N == 64 ? 6000u : 20000u };
                    std::vector<sc16_counts> k;
                    const auto got = t.multi(backend::cuda, dev, &k);
                    for (unsigned c = 0; c < N; c += (N == 64 ? 9 : 1)) {
                        sc16_counts k1;
                        const auto want = t.single(c, &k1);
                        const std::string what =
                            to_string(m) + " N=" + std::to_string(N) +
                            (sc16 ? " sc16" : " fc32") + (dev ? " device" : " host") +
                            " channel " + std::to_string(c);
                        ASSERT_EQ(got[c].size(), want.size()) << what;
                        if (sc16) {
                            const auto g = as<int16_t>(got[c]), w = as<int16_t>(want);
                            int worst = 0;
                            for (size_t i = 0; i < g.size(); i++)
                                worst = std::max(worst, std::abs(int(g[i]) - int(w[i])));
                            EXPECT_LE(worst, 1) << what;
                            EXPECT_NEAR(double(k[c].saturated),
                                        double(k1.saturated),
                                        0.01 * double(k1.saturated) + 2)
                                << what;
                        } else {
                            const auto g = as<cf>(got[c]), w = as<cf>(want);
                            std::vector<std::complex<double>> wd(w.begin(), w.end());
                            EXPECT_TRUE(all_close(g, wd, rtol_for(m), 1e-6)) << what;
                        }
                    }
                }
}
#endif
