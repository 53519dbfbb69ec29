/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The CPU emulation of CUDA texture fetches against the values the CUDA Handbook
// (ch. 10.5) prints for real hardware. The same checks against a real GPU live in
// qa_table_lookup.cc (TableLookup/cuda).
#include "test_util.h"
#include <gnuradio/gpuinterp/kernel/texture_emulation.h>
#include <cstring>
#include <set>

namespace te = gr::gpuinterp::kernel::texemu;
using gpuinterp_test::bits;
using gpuinterp_test::identity_table;

namespace {

std::vector<float> tenths()
{
    std::vector<float> t(10);
    for (int i = 0; i < 10; i++)
        t[i] = float(i) / 10.0f; // as the Handbook: (float) i / 10.0f
    return t;
}

} // namespace

// Handbook, tex1d_unnormalized with the tenths texture, base 1.5, increment 0.1, linear
// filtering: the hardware column. The coordinates are formed as the kernel forms them,
// base + i*increment, which nvcc contracts into one fmaf.
TEST(TextureEmulation, HandbookTenthsAllTenHardwareValues)
{
    const auto t = tenths();
    const uint32_t hw[10] = {
        0x3dcccccd, 0x3de1999a, 0x3df5999a, 0x3e053333, 0x3e0f3333,
        0x3e19999a, 0x3e240000, 0x3e2e0000, 0x3e386667, 0x3e426667
    };
    for (int i = 0; i < 10; i++) {
        const float x = std::fma(float(i), 0.1f, 1.5f);
        const float v =
            te::fetch_linear(t.data(), t.size(), x, false, te::address::clamp);
        EXPECT_EQ(bits(v), hw[i]) << "x=" << x << std::hex << " got 0x" << bits(v);
    }
}

TEST(TextureEmulation, SeedWorkedValuesWithPlainLiterals)
{
    const auto t = tenths();
    const std::pair<float, uint32_t> want[] = {
        { 1.5f, 0x3dcccccd },
        { 1.6f, 0x3de1999a },
        { 1.7f, 0x3df5999a },
        { 1.8f, 0x3e053333 },
        // fetches at 1.5, 1.75, 2.0, 2.25 are exact (a in {0, .25, .5, .75})
        { 1.75f, 0x3e000000 },
        { 2.0f, 0x3e19999a },
        { 2.25f, 0x3e333333 },
    };
    for (auto [x, b] : want) {
        const float v =
            te::fetch_linear(t.data(), t.size(), x, false, te::address::clamp);
        EXPECT_EQ(bits(v), b) << "x=" << x << std::hex << " got 0x" << bits(v);
    }
}

TEST(TextureEmulation, EveryCandidateOrderThatMatchesTheSeed)
{
    // The three single-rounding orders all reproduce the printed hardware values; the
    // Handbook's own listing, evaluated in IEEE single precision (both products rounded),
    // does not.
    const auto t = tenths();
    for (auto how : { te::lerp_rounding::fused_exact,
                      te::lerp_rounding::fused_ties_away,
                      te::lerp_rounding::fma_second,
                      te::lerp_rounding::lerp_fma }) {
        te::model m;
        m.lerp = how;
        EXPECT_EQ(
            bits(te::fetch_linear(t.data(), 10, 2.3f, false, te::address::clamp, m)),
            0x3e386667u);
        EXPECT_EQ(
            bits(te::fetch_linear(t.data(), 10, 2.25f, false, te::address::clamp, m)),
            0x3e333333u);
    }
    te::model book;
    book.lerp = te::lerp_rounding::separate;
    EXPECT_EQ(bits(te::fetch_linear(t.data(), 10, 2.3f, false, te::address::clamp, book)),
              0x3e386666u);
    EXPECT_EQ(
        bits(te::fetch_linear(t.data(), 10, 2.25f, false, te::address::clamp, book)),
        0x3e333334u);
}

TEST(TextureEmulation, WeightsAreNineBit)
{
    // k/256 with round-half-up of frac*256: x_B = 1.1 -> frac 0.1000000238 -> 25.6 -> 26.
    int64_t i;
    int k;
    te::linear_index(1.6f, te::tie_rule::half_up, i, k);
    EXPECT_EQ(i, 1);
    EXPECT_EQ(k, 26);
    // Two texels {0, 1}, 4096 coordinates across the interval: 257 distinct outputs,
    // error <= 1/512.
    const float t[2] = { 0.f, 1.f };
    std::set<float> distinct;
    double max_err = 0;
    for (int j = 0; j < 4096; j++) {
        const double a = j / 4095.0;
        const float v = te::fetch_linear(t, 2, float(0.5 + a), false, te::address::clamp);
        distinct.insert(v);
        max_err = std::max(max_err, std::abs(double(v) - double(float(0.5 + a)) + 0.5));
    }
    EXPECT_EQ(distinct.size(), 257u);
    EXPECT_LE(max_err, 1.0 / 512 + 1e-7);
    EXPECT_GT(max_err,
              1.0 / 512 - 1e-3); // the bound is reached: weights really are quantised
}

TEST(TextureEmulation, PointSwitchesAtExactlyOne)
{
    // Handbook: 8-texel identity texture, 0.90 .. 1.09 in steps of 0.01, point filtering.
    const auto t = identity_table(8);
    for (int i = 0; i < 20; i++) {
        const float x = std::fma(float(i), 0.01f, 0.9f);
        const float v = te::fetch_point(t.data(), 8, x, false, te::address::clamp);
        EXPECT_EQ(v, x < 1.0f ? 0.f : 1.f) << "x=" << x;
    }
    EXPECT_EQ(te::fetch_point(
                  t.data(), 8, std::nextafter(1.0f, 0.f), false, te::address::clamp),
              0.f);
    EXPECT_EQ(te::fetch_point(t.data(), 8, 1.0f, false, te::address::clamp), 1.f);
}

TEST(TextureEmulation, LinearIdentityNeedsHalfTexelOffset)
{
    // Handbook: 8-texel identity, linear, x = 0..7 prints 0, 0.5, 1.5, ..., 6.5.
    const auto t = identity_table(8);
    EXPECT_EQ(te::fetch_linear(t.data(), 8, 0.f, false, te::address::clamp), 0.f);
    for (int i = 1; i < 8; i++)
        EXPECT_EQ(te::fetch_linear(t.data(), 8, float(i), false, te::address::clamp),
                  i - 0.5f);
    for (int i = 0; i < 8; i++) // adding 0.5 gives the identity element
        EXPECT_EQ(te::fetch_linear(t.data(), 8, i + 0.5f, false, te::address::clamp),
                  float(i));
}

TEST(TextureEmulation, ClampAndBorder)
{
    const auto t = identity_table(16);
    // Point: 16.0 is out of range, clamp reads texel 15, border reads zero.
    EXPECT_EQ(te::fetch_point(t.data(), 16, 16.0f, false, te::address::clamp), 15.f);
    EXPECT_EQ(te::fetch_point(t.data(), 16, 16.0f, false, te::address::border), 0.f);
    EXPECT_EQ(te::fetch_point(t.data(), 16, -0.25f, false, te::address::clamp), 0.f);
    EXPECT_EQ(te::fetch_point(t.data(), 16, -0.25f, false, te::address::border), 0.f);
    EXPECT_EQ(te::fetch_point(t.data(), 16, 1e30f, false, te::address::clamp), 15.f);
    // Linear: texel 16 (border) is zero, so 16.0 interpolates half way between 15 and 0.
    EXPECT_EQ(te::fetch_linear(t.data(), 16, 16.0f, false, te::address::clamp), 15.f);
    EXPECT_EQ(te::fetch_linear(t.data(), 16, 16.0f, false, te::address::border), 7.5f);
    EXPECT_EQ(te::fetch_linear(t.data(), 16, 17.0f, false, te::address::border), 0.f);
    EXPECT_EQ(te::fetch_linear(t.data(), 16, 0.25f, false, te::address::border),
              0.f); // 0.75*0 + 0.25*0
    std::vector<float> ones(16, 3.f);
    EXPECT_EQ(te::fetch_linear(ones.data(), 16, 0.25f, false, te::address::border),
              0.75f * 3.f);
    EXPECT_EQ(te::fetch_linear(ones.data(), 16, -7.f, false, te::address::clamp), 3.f);
}

TEST(TextureEmulation, NormalisedCoordinates)
{
    const auto t = identity_table(16);
    // x * 16: 0.5 -> 8.0 (point: texel 8; linear: 7.5)
    EXPECT_EQ(te::fetch_point(t.data(), 16, 0.5f, true, te::address::clamp), 8.f);
    EXPECT_EQ(te::fetch_linear(t.data(), 16, 0.5f, true, te::address::clamp), 7.5f);
    EXPECT_EQ(te::fetch_point(t.data(), 16, 1.0f, true, te::address::clamp), 15.f);
    EXPECT_EQ(te::fetch_point(t.data(), 16, 1.0f, true, te::address::border), 0.f);
}

// The precision steps of normalised coordinates (measured on the H200, texture_emulation.h): the
// coordinate keeps 21 fractional bits up to 8192 texels, 22 up to 65536, 23 above. So a coordinate
// already truncated to those bits reads the same value, and one truncated a bit further does not
// (on some coordinates). A 0,1,0,1 table makes a linear fetch return its weight directly.
TEST(TextureEmulation, NormalisedCoordinatePrecisionDependsOnWidth)
{
    std::mt19937 g(4);
    std::uniform_real_distribution<float> U(0.f, 1.f);
    for (auto [n, bits] : std::vector<std::pair<size_t, int>>{ { 1000, 21 },
                                                               { 8192, 21 },
                                                               { 8193, 22 },
                                                               { 65536, 22 },
                                                               { 65537, 23 },
                                                               { 131072, 23 } }) {
        std::vector<float> alt(n);
        for (size_t j = 0; j < n; j++)
            alt[j] = float(j & 1);
        auto trunc = [](float u, int b) {
            return float(std::ldexp(std::floor(std::ldexp(double(u), b)), -b));
        };
        size_t same = 0, coarser_differs = 0;
        const int m = 4000;
        for (int i = 0; i < m; i++) {
            const float u = U(g);
            const float w = te::fetch_linear(alt.data(), n, u, true, te::address::clamp);
            same += te::fetch_linear(
                        alt.data(), n, trunc(u, bits), true, te::address::clamp) == w;
            coarser_differs +=
                te::fetch_linear(
                    alt.data(), n, trunc(u, bits - 1), true, te::address::clamp) != w;
        }
        EXPECT_EQ(same, size_t(m)) << "n=" << n;
        EXPECT_GT(coarser_differs, size_t(m / 20)) << "n=" << n;
    }
}

TEST(TextureEmulation, FusedSumIsCorrectlyRounded)
{
    // Against the exact sum on random operands: the 33-bit products are exact in double,
    // and so is their sum when the exponents differ by at most 20 (33 + 20 <= 53 bits):
    // then one rounding of that double to float is the correctly rounded result.
    for (int n = 0; n < 200000; n++) {
        const float t0 = gpuinterp_test::random_value<float>(4.f);
        const float t1 = gpuinterp_test::random_value<float>(4.f);
        const int k = int(gpuinterp_test::random_size(0, 256));
        if (k == 0 || k == 256 || std::abs(std::ilogb(t0) - std::ilogb(t1)) > 18)
            continue;
        const double exact = double(256 - k) / 256 * t0 + double(k) / 256 * t1;
        const float want = float(exact);
        ASSERT_EQ(bits(te::lerp9(t0, t1, k, te::lerp_rounding::fused_exact)), bits(want))
            << t0 << " " << t1 << " " << k;
    }
    // A forced midpoint: s exactly half way between floats, the tiny second term decides.
    const float big = 1.0f, tiny = 1e-30f;
    const double mid = 1.0 + std::ldexp(1.0, -24); // half an ulp above 1
    EXPECT_EQ(te::round_sum_to_float(mid, double(tiny)), std::nextafter(big, 2.f));
    EXPECT_EQ(te::round_sum_to_float(mid, -double(tiny)), big);
    EXPECT_EQ(te::round_sum_to_float(mid, 0.0), big); // tie to even
    // The hardware's rule: an exact tie goes away from zero, on both signs.
    EXPECT_EQ(te::round_sum_to_float(mid, 0.0, true), std::nextafter(big, 2.f));
    EXPECT_EQ(te::round_sum_to_float(-mid, 0.0, true), -std::nextafter(big, 2.f));
    EXPECT_EQ(te::round_sum_to_float(mid, double(tiny), true), std::nextafter(big, 2.f));
    // Values measured on the H200 (texdiag, tables T1 = 0x1.fd1e04p-1, T2 = 0x1.c3398p-2,
    // T3 = 0x1.baf05p-1): exact ties where round-half-even gives one ulp less.
    const float T1 = 0x1.fd1e04p-1f, T2 = 0x1.c3398p-2f, T3 = 0x1.baf05p-1f;
    EXPECT_EQ(te::lerp9(T1, T2, 192, te::hardware_model.lerp), 0x1.287d12p-1f);
    EXPECT_EQ(te::lerp9(T2, T3, 8, te::hardware_model.lerp), 0x1.d0cebap-2f);
    EXPECT_EQ(te::lerp9(T2, T3, 80, te::hardware_model.lerp), 0x1.2586dep-1f);
}

TEST(TextureEmulation, DenormalCoordinateReadsTexelZero)
{
    // Measured: point filtering with border addressing at x = -1.4e-45 returns texel 0.
    const std::vector<float> t{ 3.f, 5.f };
    EXPECT_EQ(te::fetch_point(t.data(), 2, -1.4013e-45f, false, te::address::border),
              3.f);
    EXPECT_EQ(te::fetch_point(t.data(), 2, -1e-30f, false, te::address::border), 0.f);
}
