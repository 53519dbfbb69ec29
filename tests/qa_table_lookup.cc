/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Table lookup kernel: the CUDA Handbook's worked values on the CPU emulation and on the
// real texture unit, CPU emulation == GPU texture bit for bit on random tables and
// coordinates, exact weights against a double reference, parameters.
#include "test_util.h"
#include <gnuradio/gpuinterp/kernel/table_lookup.h>
#include <cstring>
#include <sstream>

using namespace gpuinterp_test;
using namespace gr::gpuinterp::kernel;
namespace te = gr::gpuinterp::kernel::texemu;

namespace {

lookup_config cfg(filter_mode f,
                  te::address a,
                  lookup_precision p = lookup_precision::texture,
                  bool norm = false)
{
    lookup_config c;
    c.filter = f;
    c.addr = a;
    c.precision = p;
    c.normalized = norm;
    return c;
}

// Naive double reference of the exact-weight fetch.
double ref_linear(const std::vector<float>& t, double x, bool border)
{
    const long long n = (long long)t.size();
    auto tx = [&](long long i) -> double {
        if (i >= 0 && i < n)
            return t[i];
        return border ? 0.0 : t[i < 0 ? 0 : n - 1];
    };
    const double xb = x - 0.5;
    const long long i = (long long)std::floor(xb);
    const double a = xb - std::floor(xb);
    return (1 - a) * tx(i) + a * tx(i + 1);
}

class TableLookup : public ::testing::TestWithParam<backend>
{
protected:
    void SetUp() override { GPUINTERP_SKIP_WITHOUT_DEVICE(GetParam()); }
};

} // namespace

TEST_P(TableLookup, HandbookTenthsLinear)
{
    std::vector<float> t(10);
    for (int i = 0; i < 10; i++)
        t[i] = float(i) / 10.0f;
    table_lookup_ff k(t, cfg(filter_mode::linear, te::address::clamp), GetParam());
    ASSERT_EQ(k.active_backend(), GetParam());
    std::vector<float> x;
    for (int i = 0; i < 10; i++)
        x.push_back(std::fma(float(i), 0.1f, 1.5f));
    x.insert(x.end(), { 1.75f, 2.0f, 2.25f });
    std::vector<float> y(x.size());
    poison(y);
    k.lookup(y.data(), x.data(), x.size());
    const uint32_t want[] = { 0x3dcccccd, 0x3de1999a, 0x3df5999a, 0x3e053333, 0x3e0f3333,
                              0x3e19999a, 0x3e240000, 0x3e2e0000, 0x3e386667, 0x3e426667,
                              0x3e000000, 0x3e19999a, 0x3e333333 };
    for (size_t i = 0; i < x.size(); i++)
        EXPECT_EQ(bits(y[i]), want[i])
            << "x=" << x[i] << std::hex << " got 0x" << bits(y[i]);
}

TEST_P(TableLookup, PointSwitchesAtOneClampAndBorder)
{
    const auto t = identity_table(16);
    table_lookup_ff clamp(t, cfg(filter_mode::point, te::address::clamp), GetParam());
    table_lookup_ff border(t, cfg(filter_mode::point, te::address::border), GetParam());
    const std::vector<float> x = { 0.9f,  0.99f, std::nextafter(1.0f, 0.f),
                                   1.0f,  1.01f, 15.99f,
                                   16.0f, 20.f,  -0.5f };
    const std::vector<float> want_c = { 0, 0, 0, 1, 1, 15, 15, 15, 0 };
    const std::vector<float> want_b = { 0, 0, 0, 1, 1, 15, 0, 0, 0 };
    EXPECT_EQ(clamp.lookup(x), want_c);
    EXPECT_EQ(border.lookup(x), want_b);
    // Linear filtering through the texture path: identity + 0.5 offset gives the identity
    // back.
    table_lookup_ff lin(t, cfg(filter_mode::linear, te::address::clamp), GetParam());
    EXPECT_EQ(lin.lookup({ 0.5f, 3.5f, 16.0f, 0.0f, 8.0f }),
              (std::vector<float>{ 0, 3, 15, 0, 7.5f }));
}

TEST_P(TableLookup, ExactLinearMatchesDoubleReference)
{
    for (bool border : { false, true }) {
        const auto t = random_vector<float>(257);
        table_lookup_ff k(t,
                          cfg(filter_mode::linear,
                              border ? te::address::border : te::address::clamp,
                              lookup_precision::exact),
                          GetParam());
        std::vector<float> x(5000);
        for (auto& v : x)
            v = std::uniform_real_distribution<float>(-3.f, 260.f)(rng());
        std::vector<float> y(x.size());
        poison(y);
        k.lookup(y.data(), x.data(), x.size());
        std::vector<double> want(x.size());
        for (size_t i = 0; i < x.size(); i++)
            want[i] = ref_linear(t, x[i], border);
        EXPECT_TRUE(all_close(y, want, 2e-7, 1e-7));
    }
}

TEST_P(TableLookup, TextureErrorBoundAndComplexLanes)
{
    // 9-bit weights: |y - exact| <= |T[i+1] - T[i]| / 512 (+ float rounding).
    auto t = random_vector<cf>(1000);
    table_lookup_fc k(t, cfg(filter_mode::linear, te::address::clamp), GetParam());
    std::vector<float> x(20000);
    for (auto& v : x)
        v = std::uniform_real_distribution<float>(0.5f, 999.5f)(rng());
    std::vector<cf> y(x.size());
    poison(y);
    k.lookup(y.data(), x.data(), x.size());
    double max_rel = 0;
    for (size_t n = 0; n < x.size(); n++) {
        const long long i = (long long)std::floor(double(x[n]) - 0.5);
        const double a = double(x[n]) - 0.5 - double(i);
        const cd want = (1 - a) * to_d(t[i]) + a * to_d(t[i + 1]);
        const double d = std::max(std::abs(t[i + 1].real() - t[i].real()),
                                  std::abs(t[i + 1].imag() - t[i].imag()));
        const cd err = to_d(y[n]) - want;
        max_rel = std::max({ max_rel,
                             std::abs(err.real()) / (d / 512 + 1e-6),
                             std::abs(err.imag()) / (d / 512 + 1e-6) });
    }
    EXPECT_LE(max_rel, 1.0 + 1e-3);
    EXPECT_GT(max_rel, 0.5); // the weights are really quantised
}

TEST_P(TableLookup, NormalisedCoordinatesAndSetTable)
{
    table_lookup_ff k(
        identity_table(16),
        cfg(filter_mode::point, te::address::clamp, lookup_precision::texture, true),
        GetParam());
    EXPECT_EQ(k.lookup({ 0.f, 0.5f, 0.999f, 1.0f, 1.5f }),
              (std::vector<float>{ 0, 8, 15, 15, 15 }));
    auto t2 = identity_table(32);
    for (auto& v : t2)
        v *= 2;
    k.set_table(t2); // same normalised coordinate now spans 32 texels
    EXPECT_EQ(k.lookup({ 0.5f, 0.25f }), (std::vector<float>{ 32, 16 }));
    EXPECT_EQ(k.table(), t2);
    k.lookup(nullptr, nullptr, 0); // empty input is a no-op
}

GPUINTERP_BACKEND_SUITE(TableLookup);

// GPU host only: the CPU emulation (texture_emulation.h, hardware_model) equals the
// texture unit bit for bit. On a mismatch, every candidate model's match rate is printed
// so the right one can be made the default.
static void texture_bit_exact(bool normalized)
{
    struct caze {
        size_t n;
        bool normalized;
        filter_mode filter;
        te::address addr;
    };
    std::vector<caze> cases;
    // Widths on both sides of the normalised coordinate's precision steps (2^13, 2^16).
    for (size_t n : { size_t(16),
                      size_t(1000),
                      size_t(8192),
                      size_t(8193),
                      size_t(65536),
                      size_t(100000),
                      size_t(131072) })
        for (bool norm : { normalized })
            for (auto f : { filter_mode::linear, filter_mode::point })
                for (auto a : { te::address::clamp, te::address::border })
                    cases.push_back({ n, norm, f, a });
    size_t total_mismatch = 0;
    std::ostringstream report;
    for (const caze& c : cases) {
        auto t = random_vector<float>(c.n, 3.f);
        table_lookup_ff gpu(
            t,
            cfg(c.filter, c.addr, lookup_precision::texture, c.normalized),
            backend::cuda);
        std::vector<float> x(50000);
        const double span = c.normalized ? 1.0 : double(c.n);
        for (size_t i = 0; i < x.size(); i++) {
            const double u = std::uniform_real_distribution<double>(-0.02, 1.02)(rng());
            x[i] = float(u * span);
            if (i % 4 == 1) // exact weight ties: frac(x - 0.5) = (k + 1/2)/256
                x[i] = float(
                    (std::floor(u * span) + 0.5 + (random_size(0, 255) + 0.5) / 256.0) /
                    (c.normalized ? c.n : 1));
            if (i % 4 == 2) // near texel boundaries (point sampling)
                x[i] =
                    std::nextafter(float(std::floor(u * c.n) / (c.normalized ? c.n : 1)),
                                   i % 8 == 2 ? -1e30f : 1e30f);
        }
        std::vector<float> y(x.size());
        poison(y);
        gpu.lookup(y.data(), x.data(), x.size());
        size_t bad = 0;
        for (size_t i = 0; i < x.size(); i++) {
            const float e =
                c.filter == filter_mode::linear
                    ? te::fetch_linear(t.data(), c.n, x[i], c.normalized, c.addr)
                    : te::fetch_point(t.data(), c.n, x[i], c.normalized, c.addr);
            if (bits(e) != bits(y[i])) {
                if (bad < 3)
                    report << "  n=" << c.n << " norm=" << c.normalized << " "
                           << to_string(c.filter) << " " << to_string(c.addr)
                           << " x=" << x[i] << " gpu=" << y[i] << " cpu=" << e << "\n";
                bad++;
            }
        }
        if (bad) {
            // Which model would have matched?
            for (int l = 0; l < 5; l++)
                for (int ti = 0; ti < 2; ti++)
                    for (int pi = 0; pi < 2; pi++)
                        for (int ni = 0; ni < 4; ni++) {
                            te::model m{ te::lerp_rounding(l),
                                         te::tie_rule(ti),
                                         te::point_rule(pi),
                                         te::norm_scaling(ni) };
                            size_t ok = 0;
                            for (size_t i = 0; i < x.size(); i++) {
                                const float e = c.filter == filter_mode::linear
                                                    ? te::fetch_linear(t.data(),
                                                                       c.n,
                                                                       x[i],
                                                                       c.normalized,
                                                                       c.addr,
                                                                       m)
                                                    : te::fetch_point(t.data(),
                                                                      c.n,
                                                                      x[i],
                                                                      c.normalized,
                                                                      c.addr,
                                                                      m);
                                ok += bits(e) == bits(y[i]);
                            }
                            // every model with at least 99 % agreement, so a near miss shows too
                            if (ok * 100 >= x.size() * 99)
                                report << "  model (lerp " << l << ", tie " << ti
                                       << ", point " << pi << ", norm " << ni
                                       << ") matches " << ok << " of " << x.size()
                                       << "\n";
                        }
        }
        total_mismatch += bad;
    }
    EXPECT_EQ(total_mismatch, 0u) << report.str();
}

// Unnormalised coordinates (the resampler's texture path and table_lookup's default): bit-exact on
// the H200 (2026-11-30) once the emulation rounds ties away from zero and flushes denormals.
TEST(TextureBitExact, CpuEmulationEqualsGpuTexture)
{
    GPUINTERP_SKIP_WITHOUT_CUDA();
    texture_bit_exact(false);
}

// Normalised coordinates: bit-exact once the emulation truncates the coordinate to 21, 22 or 23
// fractional bits by table width (measured on the H200 2026-11-30, texture_emulation.h).
TEST(TextureBitExact, NormalizedCoordinatesCpuEmulationEqualsGpuTexture)
{
    GPUINTERP_SKIP_WITHOUT_CUDA();
    texture_bit_exact(true);
}
