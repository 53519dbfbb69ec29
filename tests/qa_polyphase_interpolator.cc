/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Kernel tests of the polyphase interpolator against a naive double-precision reference:
// y[n*L + p] = sum_k h[p + k*L] x[n - k] (zero history), on the CPU and, when present, the GPU,
// and on the lab's build constants (bench/fir_lab.h) launched without an engine.
#include "test_util.h"
#include <gnuradio/gpuinterp/kernel/polyphase_interpolator.h>
#ifdef GPUINTERP_FIR_LAB
#include "../bench/fir_lab.h" // the kernel with other (R, threads): bench/fir_lab.cu
#endif

using namespace gpuinterp_test;
using gr::gpuinterp::kernel::polyphase_interpolator;

namespace {

template <typename T, typename TAP>
std::vector<decltype(to_d(T()) * to_d(TAP()))>
reference(const std::vector<T>& x, const std::vector<TAP>& h, unsigned L)
{
    using D = decltype(to_d(T()) * to_d(TAP()));
    std::vector<D> y(x.size() * L, D(0));
    for (size_t n = 0; n < x.size(); n++)
        for (unsigned p = 0; p < L; p++) {
            D acc = 0;
            for (size_t k = 0; p + k * L < h.size() && k <= n; k++)
                acc += to_d(h[p + k * L]) * to_d(x[n - k]);
            y[n * L + p] = acc;
        }
    return y;
}

// float accumulation of M products of O(1) values: relative error ~ M * 2^-24 in the worst case,
// ~sqrt(M) * 2^-24 typically; 2e-5 relative to the peak leaves room for M up to 16384.
constexpr double rtol = 2e-5;
constexpr double atol = 1e-6;

class Interp : public ::testing::TestWithParam<backend>
{
protected:
    void SetUp() override { GPUINTERP_SKIP_WITHOUT_DEVICE(GetParam()); }

    template <typename T, typename TAP>
    void check(unsigned L, size_t ntaps, size_t n, bool chunked)
    {
        auto h = random_vector<TAP>(ntaps);
        auto x = random_vector<T>(n);
        polyphase_interpolator<T, TAP> k(L, h, GetParam());
        ASSERT_EQ(k.active_backend(), GetParam());
        std::vector<T> y(n * L);
        poison(y);
        size_t pos = 0;
        while (pos < n) {
            const size_t c =
                chunked ? std::min(n - pos, random_size(0, 3 * ntaps / L + 5)) : n;
            filter_one(k, y.data() + pos * L, x.data() + pos, c);
            pos += c;
        }
        EXPECT_TRUE(all_close(y, reference(x, h, L), rtol, atol))
            << "L=" << L << " ntaps=" << ntaps << " n=" << n;
    }
};

TEST_P(Interp, TapCountsAroundL)
{
    for (unsigned L : { 1u, 2u, 3u, 7u, 64u }) {
        for (size_t nt : { size_t(1),
                           size_t(L > 1 ? L - 1 : 1),
                           size_t(L),
                           size_t(L + 1),
                           size_t(3 * L + 2) }) {
            check<cf, float>(L, nt, 300, false);
            check<float, float>(L, nt, 300, true);
            check<cf, cf>(L, nt, 300, true);
        }
    }
}

TEST_P(Interp, RandomChunkingEqualsOneCall)
{
    for (int trial = 0; trial < 10; trial++) {
        const unsigned L = unsigned(random_size(1, 20));
        const size_t nt = random_size(1, 200);
        check<cf, float>(L, nt, random_size(1, 3000), true);
    }
}

TEST_P(Interp, LargeL) { check<cf, float>(1024, 4096, 100, true); }

TEST_P(Interp, Taps16384)
{
    check<cf, float>(1, 16384, 20000, true);
    check<float, float>(8, 16384, 5000, false);
    check<cf, cf>(16, 16384, 3000, true);
}

TEST_P(Interp, LongStreamManyLaunches)
{
    // Longer than one GPU launch (the batch) so the double-buffered pipeline wraps several times.
    auto h = random_vector<float>(64);
    auto x = random_vector<cf>(50000);
    polyphase_interpolator<cf, float> k(4, h, GetParam(), 0, 4096);
    std::vector<cf> y(x.size() * 4);
    poison(y);
    filter_one(k, y.data(), x.data(), x.size());
    EXPECT_TRUE(all_close(y, reference(x, h, 4), rtol, atol));
}

TEST_P(Interp, SetTapsMidStream)
{
    const unsigned L = 3;
    auto h1 = random_vector<float>(10), h2 = random_vector<float>(10);
    auto x = random_vector<cf>(400);
    polyphase_interpolator<cf, float> k(L, h1, GetParam());
    std::vector<cf> y(x.size() * L);
    filter_one(k, y.data(), x.data(), 150);
    k.set_taps(h2);
    filter_one(k, y.data() + 150 * L, x.data() + 150, 250);
    auto r1 = reference(x, h1, L), r2 = reference(x, h2, L);
    std::vector<cd> want(r1.begin(), r1.begin() + 150 * L);
    want.insert(
        want.end(), r2.begin() + 150 * L, r2.end()); // same tap count: history carries
    EXPECT_TRUE(all_close(y, want, rtol, atol));
    EXPECT_EQ(k.taps(), h2);
}

TEST_P(Interp, SetTapsLongerZeroFillsOlderHistory)
{
    auto h1 = random_vector<float>(4), h2 = random_vector<float>(12);
    auto x = random_vector<float>(100);
    polyphase_interpolator<float, float> k(2, h1, GetParam());
    std::vector<float> y(200);
    filter_one(k, y.data(), x.data(), 50);
    k.set_taps(
        h2); // 6 taps per arm now: x[49] (the old history) is kept, older inputs read as 0
    filter_one(k, y.data() + 100, x.data() + 50, 50);
    std::vector<float> x2(x.begin() + 49, x.end());
    x2.insert(x2.begin(), 0.f); // history of 1 sample (M-1 with M=2) then zeros before it
    auto r = reference(x2, h2, 2);
    std::vector<double> want(r.begin() + 4, r.end());
    std::vector<float> got(y.begin() + 100, y.end());
    EXPECT_TRUE(all_close(got, want, rtol, atol));
}

TEST_P(Interp, ResetRestartsFromZeroHistory)
{
    auto h = random_vector<float>(20);
    auto x = random_vector<cf>(100);
    polyphase_interpolator<cf, float> k(2, h, GetParam());
    auto a = k.filter(x);
    k.reset();
    auto b = k.filter(x);
    EXPECT_EQ(a, b);
}

TEST_P(Interp, EmptyInputIsANoOp)
{
    polyphase_interpolator<cf, float> k(4, random_vector<float>(9), GetParam());
    filter_one(k, static_cast<cf*>(nullptr), static_cast<const cf*>(nullptr), 0);
    auto x = random_vector<cf>(10);
    auto y = k.filter(x);
    EXPECT_TRUE(all_close(y, reference(x, k.taps(), 4), rtol, atol));
}

TEST_P(Interp, NonFiniteSamplesPassThrough)
{
    auto h = random_vector<float>(6);
    auto x = random_vector<float>(40);
    x[10] = std::numeric_limits<float>::infinity();
    x[20] = std::numeric_limits<float>::quiet_NaN();
    polyphase_interpolator<float, float> k(2, h, GetParam());
    auto y = k.filter(x);
    ASSERT_EQ(y.size(), 80u);
    EXPECT_TRUE(std::isfinite(y[0]) && std::isfinite(y[19]));
    EXPECT_FALSE(std::isfinite(y[20])); // Inf enters at output 20
    EXPECT_TRUE(std::isfinite(y[79]));  // and leaves after 3 taps per arm
}

GPUINTERP_BACKEND_SUITE(Interp);

#ifdef GPUINTERP_FIR_LAB
namespace gpu = gr::gpuinterp::gpu;

// The complex float, float taps kernel compiled with one of the lab's (R, threads) pairs, one
// launch per chunk with the chunk's M - 1 history inputs in front (zeros before the stream), as
// the engine's pipeline stages it. The library's pair runs the library's plan and launch.
class InterpLab : public ::testing::TestWithParam<gpu::fir_lab_shape>
{
protected:
    void SetUp() override { GPUINTERP_SKIP_WITHOUT_DEVICE(backend::cuda); }

    void check(unsigned L, size_t ntaps, size_t n, bool chunked)
    {
        const auto h = random_vector<float>(ntaps);
        const gpu::fir_lab_problem lab{ GetParam(), L, h };
        const auto x = random_vector<cf>(n);
        const size_t H = (ntaps + L - 1) / L - 1; // history: taps per arm - 1
        std::vector<cf> y(n * L), window;
        poison(y);
        size_t pos = 0;
        while (pos < n) {
            const size_t c =
                chunked ? std::min(n - pos, random_size(1, 3 * ntaps / L + 5)) : n;
            window.assign(H + c, cf(0));
            for (size_t i = 0; i < window.size(); i++)
                if (pos + i >= H)
                    window[i] = x[pos + i - H];
            gpu::run_fir_lab(0, lab, window.data(), y.data() + pos * L, c);
            pos += c;
        }
        EXPECT_TRUE(all_close(y, reference(x, h, L), rtol, atol))
            << gpu::to_string(GetParam()) << " L=" << L << " ntaps=" << ntaps
            << " n=" << n;
    }
};

TEST_P(InterpLab, TapCountsAroundL)
{
    // 16 arms: the first that writes unstaged (fir_tuning::stage_below_arms).
    for (unsigned L : { 1u, 2u, 3u, 7u, 16u, 64u })
        for (size_t nt : { size_t(1),
                           size_t(L > 1 ? L - 1 : 1),
                           size_t(L),
                           size_t(L + 1),
                           size_t(3 * L + 2),
                           size_t(23 * L + 5) })
            check(L, nt, 300, nt % 2 == 1);
}

TEST_P(InterpLab, ProductionShapes)
{
    // The benchmark's (L, taps), over several tiles.
    for (auto [L, nt] : std::vector<std::pair<unsigned, size_t>>{
             { 2, 12 }, { 4, 64 }, { 8, 128 }, { 16, 256 } })
        check(L, nt, 20000, false);
}

TEST_P(InterpLab, RandomChunking)
{
    for (int trial = 0; trial < 10; trial++)
        check(unsigned(random_size(1, 20)),
              random_size(1, 200),
              random_size(1, 3000),
              true);
}

TEST_P(InterpLab, LargeL) { check(1024, 4096, 100, true); }

TEST_P(InterpLab, TapsOutsideSharedMemory)
{
    // Too many taps for shared memory, so they are read from global memory: 16384 on one arm
    // (outputs staged, but in the larger tile of 512 threads) and 4096 on each of 16 arms.
    check(1, 16384, 20000, false);
    check(16, 16 * 4096, 3000, true);
}

INSTANTIATE_TEST_SUITE_P(Lab,
                         InterpLab,
                         ::testing::ValuesIn(gpu::fir_lab_shapes()),
                         [](const ::testing::TestParamInfo<gpu::fir_lab_shape>& i) {
                             return gpu::to_string(i.param);
                         });

TEST(InterpLabShapes, PairOutsideTheLabIsRefused)
{
    const gpu::fir_lab_problem outside{ { 3, 64 }, 2, std::vector<float>(8, 1.f) };
    const std::string e = invalid_argument_message(
        [&] { gpu::run_fir_lab(0, outside, nullptr, nullptr, 0); });
    EXPECT_EQ(e.rfind("shape:", 0), 0u) << e;
}
#endif

TEST(InterpParams, BadParametersThrowNamingTheParameter)
{
    using K = polyphase_interpolator<cf, float>;
    const auto msg = invalid_argument_message;
    EXPECT_EQ(msg([] { K(0, { 1.f }); }).rfind("interpolation:", 0), 0u);
    EXPECT_EQ(msg([] { K(2, {}); }).rfind("taps:", 0), 0u);
    EXPECT_EQ(msg([] { K(2, { 1.f, NAN }); }).rfind("taps:", 0), 0u);
    EXPECT_EQ(msg([] { K(2, { 1.f, INFINITY }); }).rfind("taps:", 0), 0u);
    EXPECT_EQ(msg([] { K(2, { 1.f }, backend::cpu, -1); }).rfind("device:", 0), 0u);
    EXPECT_EQ(
        msg([] { gr::gpuinterp::backend_from_string("opencl"); }).rfind("backend:", 0),
        0u);
    K k(2, { 1.f });
    EXPECT_EQ(msg([&] { k.set_taps({}); }).rfind("taps:", 0), 0u);
    EXPECT_EQ(k.taps(), std::vector<float>{ 1.f }); // unchanged after a refused update
}

TEST(InterpParams, CudaWithoutDeviceFailsClearly)
{
    if (gr::gpuinterp::cuda_device_count() > 0) {
        // With a device, an out-of-range index must name the parameter.
        try {
            polyphase_interpolator<cf, float> k(2, { 1.f }, backend::cuda, 1000);
            FAIL() << "no exception";
        } catch (const std::invalid_argument& e) {
            EXPECT_EQ(std::string(e.what()).rfind("device:", 0), 0u);
        }
        return;
    }
    EXPECT_THROW((polyphase_interpolator<cf, float>(2, { 1.f }, backend::cuda)),
                 std::runtime_error);
    polyphase_interpolator<cf, float> k(2, { 1.f }, backend::automatic);
    EXPECT_EQ(k.active_backend(), backend::cpu);
    EXPECT_FALSE(k.backend_note().empty());
}

} // namespace
