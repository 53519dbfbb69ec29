/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// sc16 input on the FIR interpolator and the resampler in flowgraphs: GNU Radio's default
// buffers and random tiny ones (history seams at every call), host and device buffers, one and
// two channels. Reference: the same backend's complex float block, host buffers, fed the values
// the int16 pairs stand for (converted here in double: exact product, one rounding to float).
// Everything after the conversion is the complex float arithmetic, so the outputs are equal bit
// for bit. And a receive-side chain in sc16: resampler (sc16 in, sc16 out) -> FIR (sc16 in).
#include "fg_util.h"
#include <gnuradio/blocks/copy.h>
#include <gnuradio/blocks/vector_sink.h>
#include <gnuradio/blocks/vector_source.h>
#include <gnuradio/gpuinterp/interp_fir.h>
#include <gnuradio/gpuinterp/kernel/backend.h>
#include <gnuradio/gpuinterp/resampler.h>
#include <gnuradio/top_block.h>
#include <gtest/gtest.h>
#include <complex>
#include <random>

using cf = std::complex<float>;
namespace gi = gr::gpuinterp;

namespace {

constexpr float fs = 0.8f;

std::vector<int16_t> iq_stream(size_t n, unsigned seed)
{
    std::mt19937 g(seed);
    std::uniform_int_distribution<int> d(-32768, 32767);
    std::vector<int16_t> v(2 * n);
    for (auto& s : v)
        s = int16_t(d(g));
    return v;
}

std::vector<cf> expanded(const std::vector<int16_t>& q)
{
    const double inv = double(fs / 32767.0f);
    std::vector<cf> z(q.size() / 2);
    for (size_t i = 0; i < z.size(); i++)
        z[i] = cf(float(double(q[2 * i]) * inv), float(double(q[2 * i + 1]) * inv));
    return z;
}

// Each input through a copy with a tiny buffer when `small`, into `blk`'s port c; each output
// into a sink of `out_items` (complex, or int16 pairs).
template <typename In, typename Out>
std::vector<std::vector<Out>> run(gr::basic_block_sptr blk,
                                  const std::vector<std::vector<In>>& x,
                                  unsigned in_vlen,
                                  bool small,
                                  unsigned seed)
{
    std::mt19937 g(seed);
    std::uniform_int_distribution<int> bs(64, 3000), calls(1, 1500);
    auto tb = gr::make_top_block("sc16 in");
    std::vector<typename gr::blocks::vector_sink<Out>::sptr> sinks;
    for (size_t c = 0; c < x.size(); c++) {
        auto src = gr::blocks::vector_source<In>::make(x[c], false, in_vlen);
        auto snk = gr::blocks::vector_sink<Out>::make(sizeof(Out) == 2 ? 2 : 1);
        if (small) {
            auto cp = gr::blocks::copy::make(sizeof(In) * in_vlen);
            cp->set_max_output_buffer(bs(g));
            cp->set_max_noutput_items(calls(g));
            tb->connect(src, 0, cp, 0);
            tb->connect(cp, 0, blk, int(c));
        } else {
            tb->connect(src, 0, blk, int(c));
        }
        tb->connect(blk, int(c), snk, 0);
        sinks.push_back(snk);
    }
    tb->run();
    std::vector<std::vector<Out>> y;
    for (auto& s : sinks)
        y.push_back(s->data());
    return y;
}

class FgSc16In : public ::testing::TestWithParam<std::string>
{
protected:
    void SetUp() override
    {
        if (GetParam() == "cuda" && gi::cuda_device_count() == 0)
            GTEST_SKIP() << "no usable CUDA device";
    }
};

} // namespace

TEST_P(FgSc16In, FirReadsTheFloatItsSamplesStandFor)
{
    const std::vector<float> h{
        0.1f, -0.4f, 1.3f, 0.7f, -0.2f, 0.05f, 0.9f, -1.1f, 0.3f
    };
    for (unsigned N : { 1u, 2u }) {
        std::vector<std::vector<int16_t>> q;
        std::vector<std::vector<cf>> z;
        for (unsigned c = 0; c < N; c++) {
            q.push_back(iq_stream(12000 + 333 * c, 7 + c));
            z.push_back(expanded(q.back()));
        }
        for (const char* out : { "fc32", "sc16" }) {
            const bool sc16_out = std::string(out) == "sc16";
            for (bool dev : { false, true }) {
                for (bool small : { false, true }) {
                    auto blk = gi::interp_fir_ccf::make(
                        3, h, GetParam(), 0, 0, dev, out, fs, N, "sc16");
                    const std::string what =
                        std::string(out) + " N=" + std::to_string(N) +
                        " dev=" + std::to_string(dev) + " small=" + std::to_string(small);
                    if (sc16_out) {
                        const auto want = run<cf, int16_t>(
                            gi::interp_fir_ccf::make(
                                3, h, GetParam(), 0, 0, false, out, fs, N),
                            z,
                            1,
                            false,
                            1);
                        EXPECT_EQ((run<int16_t, int16_t>(blk, q, 2, small, N + dev)),
                                  want)
                            << what;
                    } else {
                        const auto want =
                            run<cf, cf>(gi::interp_fir_ccf::make(
                                            3, h, GetParam(), 0, 0, false, out, fs, N),
                                        z,
                                        1,
                                        false,
                                        1);
                        EXPECT_EQ((run<int16_t, cf>(blk, q, 2, small, N + dev)), want)
                            << what;
                    }
                }
            }
        }
    }
}

TEST_P(FgSc16In, ResamplerThenFirInSc16)
{
    // Host buffers: the resampler's output feeds a device-buffer block and a plain sink (GNU
    // Radio refuses that mix with device buffers).
    const bool dev = false;
    const auto q = iq_stream(20000, 3);
    const std::vector<float> h{ 0.5f, 1.0f, 0.5f, 0.25f };
    auto rs = gi::resampler_cc::make(
        0.8, "polyphase", 32, 32, 80.0, GetParam(), 0, dev, "sc16", fs, 1, "sc16");
    auto fir =
        gi::interp_fir_ccf::make(2, h, GetParam(), 0, 0, dev, "fc32", fs, 1, "sc16");
    auto tb = gr::make_top_block("sc16 rx");
    auto src = gr::blocks::vector_source<int16_t>::make(q, false, 2);
    auto mid = gr::blocks::vector_sink<int16_t>::make(2);
    auto snk = gr::blocks::vector_sink<cf>::make();
    tb->connect(src, 0, rs, 0);
    tb->connect(rs, 0, fir, 0);
    tb->connect(rs, 0, mid, 0);
    tb->connect(fir, 0, snk, 0);
    tb->run();
    // Reference: the resampler's sc16 output as the floats it stands for, through the float FIR.
    const auto want = run<cf, cf>(gi::interp_fir_ccf::make(2, h, GetParam(), 0, 0, false),
                                  { expanded(mid->data()) },
                                  1,
                                  false,
                                  1);
    ASSERT_GT(want[0].size(), 30000u);
    EXPECT_EQ(snk->data(), want[0]);
}

TEST_P(FgSc16In, ResamplerReadsSc16InDeviceBuffers)
{
    // Device buffers: on CUDA the engine expands the int16 pairs in device memory; the outputs
    // are the host-buffer complex float resampler's fed the expanded values, bit for bit, for
    // one and two channels, both output formats, default and tiny buffers.
    for (unsigned N : { 1u, 2u })
        for (const char* out : { "fc32", "sc16" })
            for (bool small : { false, true }) {
                std::vector<std::vector<int16_t>> q;
                std::vector<std::vector<cf>> z;
                for (unsigned c = 0; c < N; c++) {
                    q.push_back(iq_stream(30000, 11 + c));
                    z.push_back(expanded(q.back()));
                }
                const std::string what = std::string(GetParam()) +
                                         " N=" + std::to_string(N) + " " + out +
                                         (small ? " tiny buffers" : "");
                for (const char* method : { "polyphase", "linear" }) {
                    auto make = [&](bool dev, const char* in) {
                        return gpuinterp_fg::resampler_default_filter(
                            1.25, method, GetParam(), dev, out, fs, N, in);
                    };
                    auto check = [&](const auto& got, const auto& want) {
                        ASSERT_EQ(got.size(), want.size()) << what;
                        for (unsigned c = 0; c < N; c++) {
                            ASSERT_GT(want[c].size(), 30000u) << what;
                            EXPECT_EQ(got[c], want[c])
                                << what << " " << method << " ch " << c;
                        }
                    };
                    if (std::string(out) == "fc32")
                        check(run<int16_t, cf>(make(true, "sc16"), q, 2, small, 3),
                              run<cf, cf>(make(false, "fc32"), z, 1, false, 4));
                    else
                        check(run<int16_t, int16_t>(make(true, "sc16"), q, 2, small, 3),
                              run<cf, int16_t>(make(false, "fc32"), z, 1, false, 4));
                }
            }
}

INSTANTIATE_TEST_SUITE_P(Backends, FgSc16In, ::testing::Values("cpu", "cuda"));
