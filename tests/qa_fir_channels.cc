/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// polyphase_interpolator with channels > 1: each channel against a single-channel kernel fed
// that channel's input (bit for bit on the CPU; on CUDA against the naive double reference to
// the single-channel tests' tolerance, and bit for bit against the single-channel CUDA kernel,
// whose body the channel kernel shares), host and device memory, fc32 and sc16, taps changed
// mid-stream, and the channel-count checks.

#include "test_util.h"
#include <gnuradio/gpuinterp/kernel/channels.h>
#include <gnuradio/gpuinterp/kernel/dpd_bank.h>
#include <gnuradio/gpuinterp/kernel/polyphase_interpolator.h>
#include <cstring>
#include <stdexcept>

using namespace gpuinterp_test;
using gr::gpuinterp::kernel::polyphase_interpolator;

namespace {

template <typename T, typename TAP>
std::vector<std::complex<double>>
reference(const std::vector<T>& x, const std::vector<TAP>& h, unsigned L)
{
    std::vector<std::complex<double>> y(x.size() * L);
    for (size_t n = 0; n < x.size(); n++)
        for (unsigned p = 0; p < L; p++) {
            std::complex<double> acc = 0;
            for (size_t k = 0; p + k * L < h.size() && k <= n; k++)
                acc += std::complex<double>(to_d(h[p + k * L])) *
                       std::complex<double>(to_d(x[n - k]));
            y[n * L + p] = acc;
        }
    return y;
}

const std::vector<size_t> splits = { 1, 7, 300, 2, 4001 };

//! Feeds every channel with the call sizes of `splits` (then the rest) through
//! `call(pos, m, retap)`; retap: the taps change before this call (the fourth).
template <typename Call>
void feed(size_t n, Call&& call)
{
    size_t pos = 0;
    for (size_t i = 0; pos < n; i++) {
        const size_t m = i < splits.size() ? std::min(splits[i], n - pos) : n - pos;
        call(pos, m, i == 3);
        pos += m;
    }
}

// Output values of one call: T (fc32) or int16 pairs (sc16).
template <typename T, typename TAP>
struct channels_case {
    unsigned L, N;
    size_t ntaps, n;
    bool sc16;
    backend b;
    float fs = 0.6f;

    std::vector<TAP> h = random_vector<TAP>(ntaps);
    std::vector<TAP> h2 = random_vector<TAP>(ntaps + 2 * L + 1); // longer: M grows
    std::vector<std::vector<T>> x = [&] {
        std::vector<std::vector<T>> v;
        for (unsigned c = 0; c < N; c++)
            v.push_back(
                random_vector<T>(n, 0.5f + 0.2f * c)); // different data per channel
        return v;
    }();
    size_t out_per_sample() const { return sc16 ? 2 * sizeof(int16_t) : sizeof(T); }

    //! The multi-channel kernel's outputs (bytes per channel); `dev`: through device memory.
    std::vector<std::vector<uint8_t>>
    multi(bool dev, std::vector<gr::gpuinterp::kernel::sc16_counts>* k)
    {
        polyphase_interpolator<T, TAP> f(L, h, b, 0, 0, N);
        EXPECT_EQ(f.channels(), N);
        std::vector<std::vector<uint8_t>> y(
            N, std::vector<uint8_t>(n * L * out_per_sample(), 0xA5));
        std::vector<const T*> in(N);
        std::vector<void*> out(N);
#ifdef GPUINTERP_HAVE_CUDA
        std::vector<T*> din(N);
        std::vector<uint8_t*> dout(N);
        if (dev) // channel c at an offset of c % 3 samples, as separate GNU Radio buffers are
            for (unsigned c = 0; c < N; c++) {
                EXPECT_EQ(cudaMalloc(&din[c], (n + 3) * sizeof(T)), cudaSuccess);
                EXPECT_EQ(cudaMalloc(&dout[c], (n + 3) * L * out_per_sample()),
                          cudaSuccess);
                cudaMemset(dout[c], 0xA5, (n + 3) * L * out_per_sample());
                upload_waited(
                    din[c] + c % 3, x[c].data(), n * sizeof(T)); // the memset too
            }
#endif
        feed(n, [&](size_t pos, size_t m, bool retap) {
            if (retap) // every channel changes at this sample
                f.set_taps(h2);
            for (unsigned c = 0; c < N; c++) {
#ifdef GPUINTERP_HAVE_CUDA
                if (dev) {
                    in[c] = din[c] + c % 3 + pos;
                    out[c] = dout[c] + (c % 3 + pos) * L * out_per_sample();
                    continue;
                }
#endif
                in[c] = x[c].data() + pos;
                out[c] = y[c].data() + pos * L * out_per_sample();
            }
            if (sc16)
                call_sc16(f, out, in, m, dev);
            else
                f.filter_items(out.data(),
                               reinterpret_cast<const void* const*>(in.data()),
                               m,
                               sample_format::fc32,
                               1.0f,
                               dev);
        });
#ifdef GPUINTERP_HAVE_CUDA
        if (dev)
            for (unsigned c = 0; c < N; c++) {
                cudaMemcpy(y[c].data(),
                           dout[c] + c % 3 * L * out_per_sample(),
                           y[c].size(),
                           cudaMemcpyDeviceToHost);
                cudaFree(din[c]);
                cudaFree(dout[c]);
            }
#endif
        if (k)
            for (unsigned c = 0; c < N; c++)
                k->push_back(f.counts(c));
        return y;
    }

    //! Channel c through a single-channel kernel on backend `sb`, with the same calls.
    std::vector<uint8_t>
    single(unsigned c, backend sb, gr::gpuinterp::kernel::sc16_counts* k)
    {
        polyphase_interpolator<T, TAP> f(L, h, sb);
        std::vector<uint8_t> y(n * L * out_per_sample(), 0x5A);
        feed(n, [&](size_t pos, size_t m, bool retap) {
            if (retap)
                f.set_taps(h2);
            void* o = y.data() + pos * L * out_per_sample();
            if constexpr (std::is_same_v<T, cf>)
                if (sc16) {
                    filter_one(f,
                               static_cast<int16_t*>(o),
                               x[c].data() + pos,
                               m,
                               sample_format::sc16,
                               fs);
                    return;
                }
            filter_one(f, static_cast<T*>(o), x[c].data() + pos, m);
        });
        if (k)
            *k = f.counts();
        return y;
    }

    //! The double reference of channel c (fc32): taps h, then h2 from the retap call on.
    std::vector<std::complex<double>> ref(unsigned c)
    {
        size_t at = 0;
        feed(n, [&](size_t pos, size_t, bool retap) {
            if (retap)
                at = pos;
        });
        // With more taps than before, inputs older than the previous history count as zero.
        const size_t H1 = (h.size() + L - 1) / L - 1;
        std::vector<T> xz = x[c];
        std::fill(xz.begin(), xz.begin() + (at - H1), T(0));
        auto a = reference(x[c], h, L), bb = reference(xz, h2, L);
        std::copy(bb.begin() + at * L, bb.end(), a.begin() + at * L);
        return a;
    }

    static void call_sc16(polyphase_interpolator<T, TAP>& f,
                          const std::vector<void*>& out,
                          const std::vector<const T*>& in,
                          size_t m,
                          bool dev)
    {
        if constexpr (std::is_same_v<T, cf>)
            f.filter_items(out.data(),
                           reinterpret_cast<const void* const*>(in.data()),
                           m,
                           sample_format::sc16,
                           0.6f,
                           dev);
    }
};

template <typename T>
std::vector<T> as(const std::vector<uint8_t>& b)
{
    std::vector<T> v(b.size() / sizeof(T));
    std::memcpy(v.data(), b.data(), b.size());
    return v;
}

//! The fff and ccc tap variants on `b` (`device`: the fff one through device memory), N = 3
//! and 4: every channel against the naive double reference, so no two kernels can agree on a
//! wrong value; on the CPU also bit for bit against the single-channel kernel.
void check_tap_variants(backend b, bool device)
{
    for (unsigned N : { 3u, 4u }) {
        channels_case<float, float> r{ 4, N, 23, 5000, false, b };
        channels_case<cf, cf> z{ 5, N, 31, 5000, false, b };
        const auto gr = r.multi(device, nullptr);
        const auto gz = z.multi(false, nullptr);
        for (unsigned c = 0; c < N; c++) {
            if (b == backend::cpu) {
                EXPECT_EQ(gr[c], r.single(c, b, nullptr)) << "fff channel " << c;
                EXPECT_EQ(gz[c], z.single(c, b, nullptr)) << "ccc channel " << c;
            }
            EXPECT_TRUE(all_close(as<float>(gr[c]), r.ref(c), 2e-5, 1e-6)) << c;
            EXPECT_TRUE(all_close(as<cf>(gz[c]), z.ref(c), 2e-5, 1e-6)) << c;
        }
    }
}

} // namespace

// The CPU: channel c is bit for bit a single-channel kernel on channel c's input.
TEST(FirChannelsCpu, EachChannelEqualsASingleChannelKernelExactly)
{
    for (unsigned N : { 1u, 3u, 4u })
        for (unsigned L : { 1u, 3u, 8u })
            for (bool sc16 : { false, true }) {
                channels_case<cf, float> t{ L, N, 5 * L + 2, 9000, sc16, backend::cpu };
                std::vector<gr::gpuinterp::kernel::sc16_counts> k;
                const auto got = t.multi(false, &k);
                for (unsigned c = 0; c < N; c++) {
                    gr::gpuinterp::kernel::sc16_counts k1;
                    EXPECT_EQ(got[c], t.single(c, backend::cpu, &k1))
                        << "N=" << N << " L=" << L << " sc16=" << sc16 << " channel "
                        << c;
                    EXPECT_EQ(k[c].saturated, k1.saturated);
                    EXPECT_EQ(k[c].invalid, k1.invalid);
                    if (sc16 && c == N - 1 && N > 1)
                        EXPECT_GT(k[c].saturated, 0u); // the louder channels clip at 0.6
                }
            }
}

TEST(FirChannelsCpu, RealAndComplexTapVariants)
{
    check_tap_variants(backend::cpu, false);
}

TEST(FirChannelsParams, ChannelCountOutOfRangeNamesChannels)
{
    const std::vector<float> h{ 1.0f, 0.5f };
    for (unsigned N : { 0u, 65u, unsigned(-1) }) {
        try {
            polyphase_interpolator<cf, float> f(2, h, backend::cpu, 0, 0, N);
            FAIL() << "channels " << N << " accepted";
        } catch (const std::invalid_argument& e) {
            EXPECT_EQ(std::string(e.what()).rfind("channels:", 0), 0u) << e.what();
        }
    }
    polyphase_interpolator<cf, float> f(2, h, backend::cpu, 0, 0, 64);
    EXPECT_EQ(f.channels(), 64u);
    // The vector form takes every channel's inputs: a length that does not split is refused.
    EXPECT_TRUE(
        throws_naming([&] { f.filter(std::vector<cf>(4, cf(0.1f, 0.2f))); }, "in:"));
    EXPECT_THROW(f.counts(64), std::invalid_argument);
}

#ifdef GPUINTERP_HAVE_CUDA
// CUDA, host and device memory: the reference's tolerance (as the single-channel CUDA tests) and
// bit for bit the single-channel CUDA kernel (the same kernel body, one launch for all channels).
TEST(FirChannelsCuda, EachChannelMatchesTheCpuAndTheSingleChannelKernel)
{
    GPUINTERP_SKIP_WITHOUT_CUDA();
    for (unsigned N : { 1u, 3u, 4u, 64u })
        for (unsigned L : { 3u, 8u, 40u })
            for (bool sc16 : { false, true })
                for (bool dev : { false, true }) {
                    channels_case<cf, float> t{
                        L,         N,
                        7 * L + 5, N == 64 ? size_t(3001) : size_t(12000),
                        sc16,      backend::cuda
                    };
                    std::vector<gr::gpuinterp::kernel::sc16_counts> k;
                    const auto got = t.multi(dev, &k);
                    for (unsigned c = 0; c < N; c++) {
                        gr::gpuinterp::kernel::sc16_counts k1;
                        EXPECT_EQ(got[c], t.single(c, backend::cuda, &k1))
                            << "N=" << N << " L=" << L << " sc16=" << sc16
                            << " dev=" << dev << " channel " << c;
                        EXPECT_EQ(k[c].saturated, k1.saturated) << c;
                        if (!sc16)
                            EXPECT_TRUE(all_close(as<cf>(got[c]), t.ref(c), 2e-5, 1e-6))
                                << "N=" << N << " L=" << L << " dev=" << dev
                                << " channel " << c;
                    }
                }
    check_tap_variants(backend::cuda, true);
}
#endif
