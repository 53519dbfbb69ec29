/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The resampler's sc16 output: on each backend, for every method, the converted outputs of its own
// complex float result (the conversion in the kernels' last store must not change a single value)
// under the same chunking and output limits, the exact counts of saturated and NaN samples, the
// device entry point at odd offsets, CUDA against the CPU, and the refusals.
//
// The data come from seeded_signal() (test_util.h), not test_util.h's shared generator: every
// qa_*.cc joins one program, and drawing from the shared generator would change the data of the
// tests that run after these.

#include "test_util.h"
#include <gnuradio/gpuinterp/kernel/resampler.h>
#include <cmath>
#include <cstdlib>
#include <random>
#include <stdexcept>

using namespace gpuinterp_test;
using gr::gpuinterp::kernel::resamp_method;
using gr::gpuinterp::kernel::resampler_cc;
using gr::gpuinterp::kernel::resampler_ff;

namespace {

struct expected {
    std::vector<int16_t> q;
    uint64_t saturated = 0, invalid = 0; // samples
};

expected convert(const std::vector<cf>& y, float fs)
{
    expected e;
    e.q.resize(2 * y.size());
    uint64_t sat = 0, bad = 0;
    for (size_t i = 0; i < y.size(); i++) {
        const uint64_t s0 = sat, b0 = bad;
        e.q[2 * i] = sc16_ref(y[i].real(), fs, sat, bad);
        e.q[2 * i + 1] = sc16_ref(y[i].imag(), fs, sat, bad);
        e.saturated += sat > s0;
        e.invalid += bad > b0;
    }
    return e;
}

//! Three NaN samples from `at` on: whatever the rate (D < 3), nearest picks one of them.
void poison_run(std::vector<cf>& x, size_t at, cf v)
{
    for (size_t i = at; i < at + 3; i++)
        x[i] = v;
}

const resamp_method methods[] = { resamp_method::nearest,
                                  resamp_method::linear,
                                  resamp_method::texture,
                                  resamp_method::cubic,
                                  resamp_method::polyphase };

using ResamplerSc16 = gpuinterp_test::backend_param;

} // namespace

// Two resamplers of one backend, fed the same calls (input counts and output limits that cut the
// stream at odd places, a rate change halfway): the sc16 one returns what the float one returns,
// converted, and counts exactly the saturated and NaN samples among them.
TEST_P(ResamplerSc16, ConvertsItsOwnFloatOutputAndCounts)
{
    const float fs = 0.7f;
    for (resamp_method m : methods) {
        for (double r : { 1.25, 0.73, 3.1 }) {
            // |x| up to 0.9 per component against a full scale of 0.7: a good share saturates.
            auto x = seeded_signal(30011, 0.9f, 7);
            poison_run(x, 777, cf(NAN, 0.0f));
            poison_run(x, 20000, cf(0.1f, NAN));
            resampler_cc f(r, m, GetParam()), s(r, m, GetParam());
            std::vector<cf> y;
            std::vector<int16_t> q;
            size_t pos = 0, call = 0;
            const size_t steps[] = { 1, 7, 3001, 64, 12345, 2 };
            while (pos < x.size()) {
                if (call == 6) {
                    f.set_rate(r * 0.9);
                    s.set_rate(r * 0.9);
                }
                const size_t n_in = std::min(steps[call % 6], x.size() - pos);
                const size_t limit = (call % 3 == 2) ? 5 : f.outputs_possible(n_in);
                y.resize(y.size() + limit);
                q.resize(q.size() + 2 * limit);
                size_t used_f = 0, used_s = 0;
                const size_t got_f = resample_one(
                    f, y.data() + y.size() - limit, limit, x.data() + pos, n_in, used_f);
                // The CPU's device entry point is the host one; every other call takes it.
                const size_t got_s = resample_one(s,
                                                  q.data() + q.size() - 2 * limit,
                                                  limit,
                                                  x.data() + pos,
                                                  n_in,
                                                  used_s,
                                                  sample_format::sc16,
                                                  fs,
                                                  GetParam() == backend::cpu && call % 2);
                ASSERT_EQ(got_s, got_f) << to_string(m) << " r=" << r << " call " << call;
                ASSERT_EQ(used_s, used_f)
                    << to_string(m) << " r=" << r << " call " << call;
                y.resize(y.size() - (limit - got_f));
                q.resize(q.size() - 2 * (limit - got_s));
                pos += used_f;
                call++;
                ASSERT_LT(call, 100000u) << "no progress";
            }
            const expected e = convert(y, fs);
            ASSERT_EQ(q.size(), e.q.size());
            for (size_t i = 0; i < q.size(); i++)
                ASSERT_EQ(q[i], e.q[i])
                    << to_string(m) << " r=" << r << " output " << i / 2
                    << (i % 2 ? " Q" : " I") << " of " << y[i / 2];
            EXPECT_EQ(s.counts().saturated, e.saturated) << to_string(m) << " r=" << r;
            EXPECT_EQ(s.counts().invalid, e.invalid) << to_string(m) << " r=" << r;
            EXPECT_GT(e.saturated, 0u) << to_string(m) << " r=" << r;
            EXPECT_GT(e.invalid, 0u) << to_string(m) << " r=" << r;
            EXPECT_EQ(f.counts().saturated + f.counts().invalid,
                      0u); // float calls count nothing
        }
    }
}

// The counts grow over calls and only reset_counts() clears them (reset() restarts the stream);
// the vector form returns what one call per input block would.
TEST_P(ResamplerSc16, CountsAccumulateUntilResetCounts)
{
    resampler_cc f(1.25, resamp_method::polyphase, GetParam()),
        s(1.25, resamp_method::polyphase, GetParam());
    auto x = seeded_signal(5000, 2.0f, 11);
    poison_run(x, 100, cf(NAN, NAN));
    const expected e = convert(f.resample(x), 1.0f);
    ASSERT_EQ(s.resample_sc16(x, 1.0f), e.q);
    EXPECT_EQ(s.counts().saturated, e.saturated);
    EXPECT_EQ(s.counts().invalid, e.invalid);
    s.reset();
    ASSERT_EQ(s.resample_sc16(x, 1.0f), e.q); // the same stream again
    EXPECT_EQ(s.counts().saturated, 2 * e.saturated);
    EXPECT_EQ(s.counts().invalid, 2 * e.invalid);
    s.reset_counts();
    EXPECT_EQ(s.counts().saturated + s.counts().invalid, 0u);
    // A stream inside full scale counts nothing.
    s.reset();
    const auto small = seeded_signal(5000, 0.3f, 12);
    f.reset();
    EXPECT_EQ(s.resample_sc16(small, 1.0f), convert(f.resample(small), 1.0f).q);
    EXPECT_EQ(s.counts().saturated + s.counts().invalid, 0u);
}

TEST(ResamplerSc16Params, RefusesRealSamplesAndBadFullScale)
{
    auto msg = [](auto&& fn) {
        try {
            fn();
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("no exception");
    };
    std::vector<int16_t> q(64);
    size_t used = 0;
    resampler_ff real(1.25);
    const std::vector<float> xr(16, 0.1f);
    EXPECT_EQ(msg([&] {
                  resample_one(
                      real, q.data(), 8, xr.data(), xr.size(), used, sample_format::sc16);
              }).rfind("output_format:", 0),
              0u);
    EXPECT_EQ(msg([&] { real.resample_sc16(xr, 1.0f); }).rfind("output_format:", 0), 0u);
    resampler_cc c(1.25);
    const std::vector<cf> xc(16, cf(0.1f));
    for (float fs : { 0.0f, -2.0f, NAN, INFINITY, -INFINITY }) {
        EXPECT_EQ(
            msg([&] {
                resample_one(
                    c, q.data(), 8, xc.data(), xc.size(), used, sample_format::sc16, fs);
            }).rfind("full_scale:", 0),
            0u)
            << fs;
        EXPECT_EQ(msg([&] { c.resample_sc16(xc, fs); }).rfind("full_scale:", 0), 0u)
            << fs;
    }
    // A refused call consumed nothing and left the stream where it was.
    EXPECT_EQ(c.inputs_consumed(), 0u);
    EXPECT_EQ(c.outputs_produced(), 0u);
}

#ifdef GPUINTERP_HAVE_CUDA
// GPU host only: the device entry point (the seam array, then the kernels on `in` in place) at odd
// offsets equals the host entry point bit for bit, counts included, for every method. No NaN for
// the texture method: the texture unit reads a texel of the row below with weight 0, so a NaN
// also reaches outputs of the row above, and the rows start elsewhere in the two entry points.
TEST(ResamplerSc16Cuda, DeviceEntryPointEqualsHostAtAnOddOffset)
{
    GPUINTERP_SKIP_WITHOUT_CUDA();
    const float fs = 1.0f;
    for (resamp_method m : methods) {
        for (double r : { 1.25, 0.37 }) {
            auto x = seeded_signal(50001, 1.2f, 21);
            const bool nan = m != resamp_method::texture;
            if (nan)
                poison_run(x, 30000, cf(NAN, 0.5f));
            resampler_cc host(r, m, backend::cuda), dev(r, m, backend::cuda);
            const std::vector<int16_t> want = host.resample_sc16(x, fs);
            cf* din = nullptr;
            int16_t* dout = nullptr;
            ASSERT_EQ(cudaMalloc(&din, (x.size() + 1) * sizeof(cf)), cudaSuccess);
            ASSERT_EQ(cudaMalloc(&dout, (want.size() + 2) * sizeof(int16_t)),
                      cudaSuccess);
            ASSERT_EQ(upload_waited(din + 1, x.data(), x.size() * sizeof(cf)),
                      cudaSuccess);
            size_t pos = 0, n_out = 0;
            auto call = [&](size_t n_in, size_t& got, size_t& used) {
                got = resample_one(dev,
                                   dout + 2 + 2 * n_out,
                                   dev.outputs_possible(n_in),
                                   din + 1 + pos,
                                   n_in,
                                   used,
                                   sample_format::sc16,
                                   fs,
                                   true);
                n_out += got;
                pos += used;
            };
            size_t got = 0, used = 0;
            call(20001, got, used);
            call(3, got, used);
            for (;;) { // the rest, offered as the vector form offers it
                const size_t n_in = x.size() - pos;
                call(n_in, got, used);
                if (used == n_in || (got == 0 && used == 0))
                    break;
            }
            ASSERT_EQ(2 * n_out, want.size()) << to_string(m) << " r=" << r;
            std::vector<int16_t> out(want.size());
            cudaMemcpy(out.data(),
                       dout + 2,
                       out.size() * sizeof(int16_t),
                       cudaMemcpyDeviceToHost);
            cudaFree(din);
            cudaFree(dout);
            EXPECT_EQ(out, want) << to_string(m) << " r=" << r;
            EXPECT_EQ(dev.counts().saturated, host.counts().saturated) << to_string(m);
            EXPECT_EQ(dev.counts().invalid, host.counts().invalid) << to_string(m);
            EXPECT_GT(host.counts().saturated, 0u) << to_string(m);
            if (nan)
                EXPECT_GT(host.counts().invalid, 0u) << to_string(m);
        }
    }
}

// GPU host only: CUDA's sc16 against the CPU's. nearest copies samples and texture is emulated
// bit for bit on the CPU, so those agree exactly; the arithmetic methods agree to float rounding
// (~1e-7 relative), which moves a converted value by at most one step, and a saturation count by
// at most the samples that differ. No NaN for the texture method (the texture unit also carries a
// NaN to the row above; see the test before).
TEST(ResamplerSc16Cuda, CudaAgreesWithCpu)
{
    GPUINTERP_SKIP_WITHOUT_CUDA();
    const float fs = 0.8f;
    for (resamp_method m : methods) {
        for (double r : { 1.25, 0.73, 0.05 }) {
            // 3.0 against 0.8: even the r = 0.05 low pass leaves a few percent past full scale.
            auto x = seeded_signal(200003, 3.0f, 31);
            if (m != resamp_method::texture)
                poison_run(x, 150000, cf(0.0f, NAN));
            resampler_cc c(r, m, backend::cpu), g(r, m, backend::cuda);
            const auto qc = c.resample_sc16(x, fs);
            const auto qg = g.resample_sc16(x, fs);
            ASSERT_EQ(qc.size(), qg.size()) << to_string(m) << " r=" << r;
            const bool exact = m == resamp_method::nearest || m == resamp_method::texture;
            size_t differ = 0;
            for (size_t i = 0; i < qc.size(); i += 2) {
                const int d0 = std::abs(int(qc[i]) - int(qg[i]));
                const int d1 = std::abs(int(qc[i + 1]) - int(qg[i + 1]));
                ASSERT_LE(std::max(d0, d1), exact ? 0 : 1)
                    << to_string(m) << " r=" << r << " output " << i / 2;
                differ += (d0 | d1) != 0;
            }
            EXPECT_EQ(g.counts().invalid, c.counts().invalid)
                << to_string(m) << " r=" << r;
            const uint64_t sc = c.counts().saturated, sg = g.counts().saturated;
            EXPECT_LE(sc > sg ? sc - sg : sg - sc, differ) << to_string(m) << " r=" << r;
            EXPECT_GT(sc, 0u) << to_string(m) << " r=" << r;
            std::cout << "[ sc16 CUDA vs CPU, " << to_string(m) << " r=" << r << " ] "
                      << differ << " of " << qc.size() / 2
                      << " samples differ by one step\n";
        }
    }
}
#endif

GPUINTERP_BACKEND_SUITE(ResamplerSc16);
