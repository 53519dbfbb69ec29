/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Arbitrary-rate resampler kernel against naive double-precision references written here:
// positions t_k = k / r (per rate segment), nearest = x[floor(t + 1/2)], linear, 9-bit
// texture weights, Catmull-Rom, and the windowed-sinc sum for polyphase. CPU and (on the
// GPU host) CUDA.
#include "../lib/cpu/cpu_engines.h"
#include "../lib/kernel/poly_tiles.h"
#ifdef GPUINTERP_RESAMP_LAB
#include "../bench/resamp_lab.h" // the tiled kernel on other blocks: bench/resamp_lab.cu
#include "../lib/cuda/cuda_engines.h"
#endif
#include "test_util.h"
#include <gnuradio/gpuinterp/kernel/resampler.h>
#include <gnuradio/gpuinterp/kernel/texture_emulation.h>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>

using namespace gpuinterp_test;
using namespace gr::gpuinterp::kernel;

namespace {

template <typename T>
double sample(const std::vector<T>& x, long long n, int lane)
{
    if (n < 0 || n >= (long long)x.size())
        return 0;
    if constexpr (std::is_same_v<T, float>)
        return lane ? 0.0 : double(x[n]);
    else
        return lane ? double(x[n].imag()) : double(x[n].real());
}

//! Reference output at time t (input samples) for one lane.
template <typename T>
double ref_lane(const std::vector<T>& x,
                long double t,
                resamp_method m,
                const polyphase_params& pp,
                double r,
                int lane)
{
    const long long i = (long long)std::floor(t);
    const double mu = double(t - (long double)i);
    auto X = [&](long long n) { return sample(x, n, lane); };
    switch (m) {
    case resamp_method::nearest:
        return X((long long)std::floor(t + 0.5L));
    case resamp_method::linear:
        return (1 - mu) * X(i) + mu * X(i + 1);
    case resamp_method::texture: {
        const double q = std::floor(mu * 256 + 0.5); // round half up, 0..256
        return (1 - q / 256) * X(i) + q / 256 * X(i + 1);
    }
    case resamp_method::cubic: {
        const double xm = X(i - 1), x0 = X(i), x1 = X(i + 1), x2 = X(i + 2);
        // Catmull-Rom: Keys kernel with a = -1/2 (independent spelling of the polynomial)
        auto keys = [](double d) {
            d = std::abs(d);
            if (d < 1)
                return 1.5 * d * d * d - 2.5 * d * d + 1;
            if (d < 2)
                return -0.5 * d * d * d + 2.5 * d * d - 4 * d + 2;
            return 0.0;
        };
        return xm * keys(mu + 1) + x0 * keys(mu) + x1 * keys(1 - mu) + x2 * keys(2 - mu);
    }
    case resamp_method::polyphase: {
        const double s = std::min(1.0, r);
        const double half = pp.taps_per_arm / 2.0;
        double acc = 0;
        for (long long n = (long long)std::floor(t - half / s) - 1;
             n <= (long long)std::ceil(t + half / s) + 1;
             n++)
            acc += X(n) * s * polyphase_h(pp, s * double(t - (long double)n));
        return acc;
    }
    }
    return 0;
}

template <typename T>
auto reference(const std::vector<T>& x,
               const std::vector<long double>& t,
               resamp_method m,
               const polyphase_params& pp,
               double r)
{
    using D = std::conditional_t<std::is_same_v<T, float>, double, cd>;
    std::vector<D> y(t.size());
    for (size_t k = 0; k < t.size(); k++) {
        if constexpr (std::is_same_v<T, float>)
            y[k] = ref_lane(x, t[k], m, pp, r, 0);
        else
            y[k] = { ref_lane(x, t[k], m, pp, r, 0), ref_lane(x, t[k], m, pp, r, 1) };
    }
    return y;
}

//! t_k = k * D with D = 1/r rounded to double (the documented convention), k < n.
std::vector<long double> times(size_t n, double r, long double t0 = 0)
{
    std::vector<long double> t(n);
    const long double D = 1.0 / r;
    for (size_t k = 0; k < n; k++)
        t[k] = t0 + (long double)k * D;
    return t;
}

//! Outputs a stream of n inputs allows: floor(t_k) + ahead <= n - 1.
size_t expected_count(size_t n, double r, size_t ahead)
{
    const long double D = 1.0 / r;
    size_t k = 0;
    while ((long long)std::floor((long double)k * D) + (long long)ahead <=
           (long long)n - 1)
        k++;
    return k;
}

template <typename T>
std::vector<T> run_chunked(resampler<T>& k,
                           const std::vector<T>& x,
                           bool chunked,
                           size_t max_out_cap = 0)
{
    std::vector<T> y;
    size_t pos = 0;
    int idle = 0;
    while (idle < 3) {
        const size_t avail = x.size() - pos;
        const size_t n_in = chunked ? std::min(avail, random_size(0, 700)) : avail;
        size_t cap = k.outputs_possible(n_in);
        if (max_out_cap)
            cap = std::min(cap, random_size(0, max_out_cap));
        std::vector<T> o(cap);
        poison(o);
        size_t used = 0;
        const size_t got = resample_one(k, o.data(), cap, x.data() + pos, n_in, used);
        EXPECT_EQ(got, cap); // outputs_possible() is exact
        y.insert(y.end(), o.begin(), o.begin() + got);
        pos += used;
        idle = (got == 0 && used == 0 && (n_in == avail)) ? idle + 1 : 0;
    }
    EXPECT_EQ(pos, x.size());
    return y;
}

double rtol_for(resamp_method m) { return m == resamp_method::polyphase ? 3e-4 : 3e-6; }

struct Case {
    resamp_method m;
    double r;
};

class Resampler : public ::testing::TestWithParam<backend>
{
protected:
    void SetUp() override { GPUINTERP_SKIP_WITHOUT_DEVICE(GetParam()); }

    template <typename T>
    void check(resamp_method m, double r, size_t n, bool chunked, size_t max_out_cap = 0)
    {
        auto x = random_vector<T>(n);
        resampler<T> k(r, m, GetParam());
        ASSERT_EQ(k.active_backend(), GetParam());
        auto y = run_chunked(k, x, chunked, max_out_cap);
        ASSERT_EQ(y.size(), expected_count(n, r, k.lookahead()))
            << to_string(m) << " r=" << r;
        EXPECT_EQ(k.outputs_produced(), y.size());
        // polyphase: the table + arm interpolation, not float rounding, sets the error
        // (see below)
        const double rtol = m == resamp_method::polyphase ? 2e-3 : 3e-6;
        EXPECT_TRUE(all_close(
            y, reference(x, times(y.size(), r), m, polyphase_params{}, r), rtol, 1e-6))
            << to_string(m) << " r=" << r << " n=" << n << " chunked=" << chunked;
    }
};

const resamp_method all_methods[] = { resamp_method::nearest,
                                      resamp_method::linear,
                                      resamp_method::texture,
                                      resamp_method::cubic,
                                      resamp_method::polyphase };

} // namespace

TEST_P(Resampler, EveryMethodAgainstReference)
{
    for (auto m : all_methods)
        for (double r : { 1.37, 0.73, 1.0, 2.0, 0.5, 3.0 / 7.0 }) {
            check<cf>(m, r, 1500, false);
            check<float>(m, r, 700, true);
        }
}

TEST_P(Resampler, RandomChunkingAndOutputLimitsEqualOneCall)
{
    for (auto m : all_methods) {
        const double r = std::uniform_real_distribution<double>(0.2, 5.0)(rng());
        auto x = random_vector<cf>(4000);
        resampler<cf> a(r, m, GetParam()), b(r, m, GetParam());
        auto ya = run_chunked(a, x, false);
        auto yb =
            run_chunked(b, x, true, 300); // random input chunks and random output space
        ASSERT_EQ(ya.size(), yb.size()) << to_string(m);
        EXPECT_EQ(ya, yb) << to_string(m) << " r=" << r; // bit for bit
    }
}

TEST_P(Resampler, RateChangeMidStream)
{
    for (auto m : all_methods) {
        const double r1 = 1.37, r2 = m == resamp_method::polyphase ? 2.9 : 0.61;
        auto x = random_vector<cf>(3000);
        resampler<cf> k(r1, m, GetParam());
        size_t used = 0;
        std::vector<cf> y1(k.outputs_possible(1200));
        y1.resize(resample_one(k, y1.data(), y1.size(), x.data(), 1200, used));
        const long double t_next = (long double)y1.size() * (long double)(1.0 / r1);
        k.set_rate(r2);
        EXPECT_EQ(k.rate(), r2);
        std::vector<cf> rest(x.begin() + used, x.end());
        auto y2 = run_chunked(k, rest, true);
        // expected: segment 1 at k/r1, then t_next + j/r2, until the stream runs out
        std::vector<long double> t = times(y1.size(), r1);
        auto t2 = times(y2.size(), r2, t_next);
        EXPECT_LE((long long)std::floor(t2.back()) + (long long)k.lookahead(), 2999);
        EXPECT_GT((long long)std::floor(t_next + (long double)y2.size() / r2) +
                      (long long)k.lookahead(),
                  2999);
        t.insert(t.end(), t2.begin(), t2.end());
        std::vector<cf> y = y1;
        y.insert(y.end(), y2.begin(), y2.end());
        const double rtol = m == resamp_method::polyphase ? 2e-3 : 3e-6;
        EXPECT_TRUE(all_close(y, reference(x, t, m, polyphase_params{}, r1), rtol, 1e-6))
            << to_string(m);
    }
}

TEST_P(Resampler, RateDecreaseKeepsAConstantConstant)
{
    // A large rate decrease stretches the polyphase filter further back than the history kept.
    // The missing samples are the stream's edge continued, not zeros: a constant stays constant
    // from the first output after set_rate (with zeros: 0.4 %, 4.4 % and 36 % errors at 0.5,
    // 0.05 and 0.01).
    const cf c(0.7f, -0.2f);
    for (double r2 : { 0.5, 0.05, 0.01 }) {
        resampler<cf> k(1.37, resamp_method::polyphase, GetParam());
        std::vector<cf> x(3000, c);
        size_t used = 0;
        std::vector<cf> y1(k.outputs_possible(x.size()));
        y1.resize(resample_one(k, y1.data(), y1.size(), x.data(), x.size(), used));
        k.set_rate(r2);
        std::vector<cf> rest(size_t(40.0 / r2) + 4000, c);
        auto y2 = run_chunked(k, rest, true);
        ASSERT_GT(y2.size(), 10u) << r2;
        double worst = 0;
        for (const cf& v : y2)
            worst = std::max(worst, double(std::abs(v - c) / std::abs(c)));
        EXPECT_LT(worst, 2e-3) << "rate 1.37 -> " << r2;
    }
}

TEST_P(Resampler, ExtremeRates)
{
    check<cf>(resamp_method::linear, 1000.0, 40, true);
    check<cf>(resamp_method::texture, 1000.0, 30, false);
    check<float>(resamp_method::cubic, 1000.0, 30, true);
    check<cf>(resamp_method::polyphase, 1000.0, 60, false);
    check<cf>(resamp_method::linear, 1.0 / 1000, 20000, true);
    check<cf>(resamp_method::nearest, 1.0 / 1000, 20000, false);
    check<float>(
        resamp_method::polyphase, 1.0 / 1000, 60000, false); // 32000 taps per output
}

TEST_P(Resampler, PolyphaseErrorAgainstDoubleWindowedSinc)
{
    // The float table sampled at nfilts = 32 points per unit, interpolated linearly
    // between arms, against the continuous double-precision windowed sinc. Reported in dB
    // below the signal.
    for (double r : { 1.37, 0.73 }) {
        auto x = random_vector<cf>(4000);
        resampler<cf> k(r, resamp_method::polyphase, GetParam());
        auto y = k.resample(x);
        auto want = reference(
            x, times(y.size(), r), resamp_method::polyphase, polyphase_params{}, r);
        double e2 = 0, s2 = 0;
        for (size_t i = 100; i < y.size(); i++) {
            e2 += std::norm(to_d(y[i]) - want[i]);
            s2 += std::norm(want[i]);
        }
        const double db = 10 * std::log10(e2 / s2);
        std::cout << "[ polyphase vs double windowed sinc, r=" << r << " ] " << db
                  << " dB\n";
        EXPECT_LT(db, -60.0);
    }
}

TEST_P(Resampler, PolyphaseReproducesBandLimitedTone)
{
    // A tone inside the pass band must come out as the same tone at the output times:
    // this checks pass-band gain, phase alignment (no delay) and stop-band leakage
    // together.
    for (double r : { 1.37, 0.73, 4.0 }) {
        const double f = 0.11; // cycles per input sample: inside both rates' pass bands
        std::vector<cf> x(6000);
        for (size_t n = 0; n < x.size(); n++)
            x[n] = std::polar(1.0f, float(2 * M_PI * f * n));
        resampler<cf> k(r, resamp_method::polyphase, GetParam());
        auto y = k.resample(x);
        auto t = times(y.size(), r);
        double e2 = 0;
        size_t cnt = 0;
        for (size_t i = 0; i < y.size(); i++) {
            if (t[i] < 200)
                continue; // zero history before the stream: start-up transient
            e2 += std::norm(to_d(y[i]) - std::polar(1.0, double(2 * M_PI * f * t[i])));
            cnt++;
        }
        const double db = 10 * std::log10(e2 / cnt);
        std::cout << "[ polyphase tone error, r=" << r << " ] " << db << " dB\n";
        EXPECT_LT(db, -60.0);
    }
}

TEST_P(Resampler, InputsNeededIsExact)
{
    for (auto m : all_methods) {
        resampler<cf> k(0.77, m, GetParam());
        auto x = random_vector<cf>(500);
        size_t used;
        std::vector<cf> y(1000);
        resample_one(
            k, y.data(), 37, x.data(), 500, used); // some state: partial consumption
        EXPECT_GE(k.inputs_needed(1), 1u); // the next output always waits for a new input
        for (size_t n : { size_t(1), size_t(5), size_t(100) }) {
            const size_t need = k.inputs_needed(n);
            EXPECT_GE(k.outputs_possible(need), n) << to_string(m);
            if (need > 0)
                EXPECT_LT(k.outputs_possible(need - 1), n) << to_string(m);
        }
    }
}

TEST_P(Resampler, EmptyInputAndReset)
{
    resampler<cf> k(1.5, resamp_method::cubic, GetParam());
    size_t used = 7;
    EXPECT_EQ(
        resample_one(
            k, static_cast<cf*>(nullptr), 0, static_cast<const cf*>(nullptr), 0, used),
        0u);
    EXPECT_EQ(used, 0u);
    auto x = random_vector<cf>(300);
    auto a = k.resample(x);
    k.reset();
    auto b = k.resample(x);
    EXPECT_EQ(a, b);
}

TEST_P(Resampler, AccuracyTableOnBandLimitedMultitone)
{
    // The speed/accuracy table's error column, measured on this backend: 8 tones in |f| < 0.2
    // cycles/input (fixed seed), error against the exact signal at t_k = k/r, dB below the signal,
    // after the first 200 input samples (zero-history transient). The same kind of signal as
    // bench/bench_resamp_gr.py (not the same draw).
    std::mt19937 g(77);
    std::uniform_real_distribution<double> fu(-0.2, 0.2), pu(0, 2 * M_PI);
    double f[8], ph[8];
    for (int j = 0; j < 8; j++) {
        f[j] = fu(g);
        ph[j] = pu(g);
    }
    auto sig = [&](long double t) {
        cd v = 0;
        for (int j = 0; j < 8; j++)
            v += std::polar(1.0, double(2 * M_PI * f[j] * t + ph[j])) / 8.0;
        return v;
    };
    std::vector<cf> x(30000);
    for (size_t n = 0; n < x.size(); n++) {
        const cd v = sig((long double)n);
        x[n] = cf(float(v.real()), float(v.imag()));
    }
    const double limit[] = { -10, -20, -20, -33, -75 };
    for (double r : { 1.37, 0.73 }) {
        for (int mi = 0; mi < 5; mi++) {
            resampler<cf> k(r, all_methods[mi], GetParam());
            auto y = k.resample(x);
            double e2 = 0, s2 = 0;
            for (size_t i = 0; i < y.size(); i++) {
                const long double t = (long double)i * (long double)(1.0 / r);
                if (t < 200)
                    continue;
                const cd w = sig(t);
                e2 += std::norm(to_d(y[i]) - w);
                s2 += std::norm(w);
            }
            const double db = 10 * std::log10(e2 / s2);
            std::cout << "[ accuracy " << gr::gpuinterp::to_string(GetParam())
                      << " r=" << r << " " << to_string(all_methods[mi]) << " ] " << db
                      << " dB\n";
            EXPECT_LT(db, limit[mi]) << to_string(all_methods[mi]) << " r=" << r;
        }
    }
}

GPUINTERP_BACKEND_SUITE(Resampler);

// GPU host only: the texture method on the GPU's texture unit equals the CPU emulation
// bit for bit.
TEST(TextureBitExact, ResamplerCpuEqualsGpu)
{
    GPUINTERP_SKIP_WITHOUT_CUDA();
    for (double r : { 1.37, 0.73, 7.0, 0.01 }) {
        auto x = random_vector<cf>(300000, 5.f); // > 65536 samples: several texture rows
        resampler<cf> c(r, resamp_method::texture, backend::cpu),
            g(r, resamp_method::texture, backend::cuda);
        auto yc = c.resample(x);
        auto yg = g.resample(x);
        ASSERT_EQ(yc.size(), yg.size());
        size_t bad = 0;
        std::ostringstream where; // the first outputs that differ, as hex floats
        for (size_t i = 0; i < yc.size(); i++) {
            if (std::memcmp(&yc[i], &yg[i], sizeof(cf)) == 0)
                continue;
            if (bad++ < 4)
                where << "\n  output " << i << " (input ~" << double(i) / r
                      << "): " << std::hexfloat << "cpu " << yc[i] << ", cuda " << yg[i]
                      << std::defaultfloat;
        }
        EXPECT_EQ(bad, 0u) << "r=" << r << ": " << bad << " of " << yc.size()
                           << " outputs differ" << where.str();
    }
}

TEST(ResamplerParams, BadParametersThrowNamingTheParameter)
{
    const auto msg = invalid_argument_message;
    for (double r : { 0.0, -1.0, double(NAN), double(INFINITY), 1e-9, 1e9 })
        EXPECT_EQ(msg([&] { resampler_cc k(r); }).rfind("rate:", 0), 0u) << r;
    EXPECT_EQ(msg([] { method_from_string("sinc"); }).rfind("method:", 0), 0u);
    // One polyphase parameter out of range at a time; they are checked whatever the method.
    struct bad_params {
        polyphase_params p;
        resamp_method method;
        const char* name;
    };
    std::vector<bad_params> bad(4);
    bad[0] = { {}, resamp_method::polyphase, "nfilts:" };
    bad[0].p.nfilts = 1;
    bad[1] = { {}, resamp_method::polyphase, "taps_per_arm:" };
    bad[1].p.taps_per_arm = 31;
    bad[2] = { {}, resamp_method::polyphase, "attenuation_db:" };
    bad[2].p.attenuation_db = 5;
    bad[3] = { {}, resamp_method::linear, "nfilts:" };
    bad[3].p.nfilts = 0;
    for (const bad_params& b : bad)
        EXPECT_EQ(msg([&] {
                      resampler_cc k(1.5, b.method, backend::cpu, 0, b.p);
                  }).rfind(b.name, 0),
                  0u)
            << b.name << " " << to_string(b.method);
    resampler_cc k(1.5);
    EXPECT_EQ(msg([&] { k.set_rate(-2); }).rfind("rate:", 0), 0u);
    EXPECT_EQ(k.rate(), 1.5);
    EXPECT_EQ(msg([] {
                  resampler_cc k(1.5, resamp_method::linear, backend::cpu, -1);
              }).rfind("device:", 0),
              0u);
}

// ---- Tiled CUDA polyphase kernel (lib/cuda/resampler.cu): its index arithmetic and data
// layout run here on the CPU; the kernel itself on the GPU host.

namespace {

fx_step step_of(double rate)
{
    const double d = 1.0 / rate;
    return { uint64_t(std::floor(d)), uint64_t(std::ldexp(d - std::floor(d), 64)) };
}

//! A polyphase window plan at rate r over an n_win-sample window (K taps per arm, P arms):
//! the first output at half + 3 with a fractional start, as many outputs as the window holds.
resamp_plan polyphase_window_plan(double r, double scale, int K, int P, size_t n_win)
{
    const int half = K / 2;
    resamp_plan plan;
    plan.method = resamp_method::polyphase;
    plan.step = step_of(r);
    plan.pos0 = { half + 3, 0x9e3779b97f4a7c15ull };
    plan.hist = size_t(half);
    plan.scale = scale;
    plan.half_span = half;
    plan.nfilts = P;
    plan.back = size_t(half - 1);
    plan.ahead = size_t(half);
    plan.n_out = size_t(double(n_win - 2 * K - 8) * r);
    return plan;
}

//! all_close wants the reference in double.
std::vector<double> widen(const std::vector<float>& v) { return { v.begin(), v.end() }; }
std::vector<std::complex<double>> widen(const std::vector<cf>& v)
{
    return { v.begin(), v.end() };
}

} // namespace

// Every output of every tile reads only staged samples, and no tile stages more than the
// capacity the host sizes shared memory for (so the kernel's global-memory fallback is
// never needed). Rates include exact integers and steps just below an integer.
TEST(PolyTiles, EveryTapOfEveryTileIsStagedAndTilesFitTheCapacity)
{
    std::mt19937_64 g(7);
    for (double r : { 1.37, 0.73, 1.0, 0.5, 1.0 / 3, 2.0, 0.999999, 7.0, 0.05, 0.01 }) {
        for (size_t tile : { 1024, 256, 64, 1 }) {
            for (int K : { 4, 32, 44, 640 }) {
                const int half = K / 2;
                const fx_step s = step_of(r);
                const fx_pos pos0{ int64_t(half + g() % 5), g() };
                const size_t cap = poly_tile_cap(s, tile, K);
                const size_t n_out = 5 * tile + g() % tile + 1; // last tile partial
                long long worst = 0;
                for (size_t k0 = 0; k0 < n_out; k0 += tile) {
                    const size_t cnt = std::min(tile, n_out - k0);
                    const poly_tile tr = poly_tile_range(pos0, s, k0, cnt, half, K);
                    ASSERT_LE(tr.n_load, (long long)cap) << "r=" << r << " tile=" << tile;
                    worst = std::max<long long>(worst, tr.n_load);
                    const long long ip0 = tr.lo + (half - 1);
                    for (size_t j = 0; j < cnt; j++) {
                        const fx_pos p = fx_advance(pos0, s, k0 + j);
                        // independent spelling of the position: t_k = t_0 + k / r
                        const long double t = (long double)pos0.ip +
                                              std::ldexp((long double)pos0.fp, -64) +
                                              (long double)(k0 + j) / r;
                        ASSERT_NEAR(double(p.ip), double(std::floor(t)), 1.0);
                        const long long off = p.ip - ip0;
                        ASSERT_GE(off, 0);
                        ASSERT_LE(off + K, tr.n_load);
                        // the taps the CPU engine reads: window index ip - (half-1) + m
                        ASSERT_EQ(tr.lo + off, p.ip - (half - 1));
                    }
                }
                // the bound is tight enough to matter: within 3 samples of the worst tile
                if (tile > 1)
                    EXPECT_LE((long long)cap - worst, 3) << "r=" << r << " tile=" << tile;
            }
        }
    }
}

// The tap-major arm columns hold the CPU engine's P+1 arms: entry (m, p) = arm p tap m =
// table[(K-1-m) P + p]; shared memory after them stays 8-byte aligned.
TEST(PolyTiles, ArmColumnsAreTheCpuArms)
{
    const unsigned K = 6, P = 4;
    std::vector<float> table(K * P + 1);
    for (size_t i = 0; i < table.size(); i++)
        table[i] = float(i) + 0.25f;
    const auto cols = poly_arm_columns(table, K, P);
    ASSERT_EQ(cols.size(), size_t(K * (P + 1)));
    for (unsigned m = 0; m < K; m++)
        for (unsigned p = 0; p <= P; p++)
            EXPECT_EQ(cols[m * (P + 1) + p], float((K - 1 - m) * P + p) + 0.25f);
    EXPECT_EQ(poly_arm_columns_floats(K, P), 30u);
    EXPECT_EQ(poly_arm_columns_floats(5, 4), 26u); // 25 rounded up to even
}

// A CPU emulation of the tiled kernel (tiles staged into a scratch array, arm columns,
// lanes j, j+256, ...) equals the CPU engine on a long stream: the GPU kernel's data flow
// with the host's arithmetic.
TEST(PolyTiles, EmulatedTiledKernelEqualsCpuEngine)
{
    for (double r : { 1.37, 0.73, 0.2 }) {
        const polyphase_params pp;
        const double scale = std::min(1.0, r);
        const auto table = polyphase_prototype(pp, scale);
        const int K = int(polyphase_taps(pp, scale)), P = int(pp.nfilts), half = K / 2;
        const size_t n_win = 40000;
        const auto w = random_vector<cf>(n_win);
        const resamp_plan plan = polyphase_window_plan(r, scale, K, P, n_win);
        auto cpu = make_cpu_resamp_engine<cf>();
        cpu->set_prototype(table, unsigned(K), unsigned(P));
        std::vector<cf> want(plan.n_out);
        cpu->run_window(want.data(), w.data(), n_win, plan);

        const auto cols = poly_arm_columns(table, unsigned(K), unsigned(P));
        const size_t tile = 1024, cap = poly_tile_cap(plan.step, tile, K);
        std::vector<cf> sx(cap), got(plan.n_out, cf(NAN, NAN));
        for (size_t k0 = 0; k0 < plan.n_out; k0 += tile) {
            const size_t cnt = std::min(tile, plan.n_out - k0);
            const poly_tile tr = poly_tile_range(plan.pos0, plan.step, k0, cnt, half, K);
            ASSERT_LE(tr.n_load, (long long)cap);
            std::fill(sx.begin(), sx.end(), cf(NAN, NAN)); // unstaged reads show
            for (long long i = 0; i < tr.n_load; i++)
                sx[i] = w[tr.lo + i];
            const long long ip0 = tr.lo + (half - 1);
            for (size_t lane = 0; lane < 256; lane++)
                for (size_t j = lane; j < cnt; j += 256) {
                    const fx_pos p = fx_advance(plan.pos0, plan.step, k0 + j);
                    const uint64_t arm = fx_mulhi(p.fp, uint64_t(P));
                    const float f = fx_frac_f(p.fp * uint64_t(P));
                    const cf* x = sx.data() + (p.ip - ip0);
                    cf a0 = 0, a1 = 0;
                    for (int m = 0; m < K; m++) {
                        a0 += cols[size_t(m) * (P + 1) + arm] * x[m];
                        a1 += cols[size_t(m) * (P + 1) + arm + 1] * x[m];
                    }
                    got[k0 + j] = (1.0f - f) * a0 + f * a1;
                }
        }
        EXPECT_TRUE(all_close(got, widen(want), 1e-5, 1e-6)) << "r=" << r;
    }
}

// GPU host only: the tiled kernel (default) equals the untiled kernel
// (resamp_cuda_variant::untiled; same taps, same order, same mac) and the CPU backend, on a
// stream of many tiles and persistent-block iterations, complex and real, for rates that
// use 1024- and 256-output tiles and one (r = 0.01: 3200 taps) that falls back to the old
// kernel.
TEST(PolyTiles, GpuTiledKernelEqualsUntiledKernelAndCpu)
{
    GPUINTERP_SKIP_WITHOUT_CUDA();
    auto run = [](auto x, double r, backend b, bool untiled) {
        using T = typename decltype(x)::value_type;
        resampler<T> k(r, resamp_method::polyphase, b);
        if (untiled)
            k.set_cuda_variant(resamp_cuda_variant::untiled);
        return k.resample(x);
    };
    for (double r : { 1.37, 0.73, 3.1, 0.2, 0.05, 0.01 }) {
        const auto xc = random_vector<cf>(400000, 2.f);
        const auto yn = run(xc, r, backend::cuda, false);
        const auto yo = run(xc, r, backend::cuda, true);
        const auto yc = run(xc, r, backend::cpu, false);
        ASSERT_EQ(yn.size(), yc.size());
        size_t same = 0;
        for (size_t i = 0; i < yn.size(); i++)
            same += std::memcmp(&yn[i], &yo[i], sizeof(cf)) == 0;
        std::cout << "[ tiled vs untiled kernel, r=" << r << " ] " << same << " of "
                  << yn.size() << " outputs bit-identical\n";
        EXPECT_TRUE(all_close(yn, widen(yo), 1e-6, 1e-7)) << "r=" << r;
        EXPECT_TRUE(all_close(yn, widen(yc), 1e-5, 1e-6)) << "r=" << r;
        const auto xf = random_vector<float>(200000, 2.f);
        const auto fn = run(xf, r, backend::cuda, false);
        EXPECT_TRUE(all_close(fn, widen(run(xf, r, backend::cuda, true)), 1e-6, 1e-7))
            << "r=" << r;
        EXPECT_TRUE(all_close(fn, widen(run(xf, r, backend::cpu, false)), 1e-5, 1e-6))
            << "r=" << r;
    }
}

#ifdef GPUINTERP_RESAMP_LAB
// GPU host only: the tiled polyphase kernel compiled for each block of the lab
// (resamp_lab_tiled_threads, the library's resamp_build.tiled_threads among them) equals the CPU
// engine, as the library's tiled kernel does above, and the library's CUDA engine, on windows of
// many tiles and persistent-block iterations, complex and real, for rates that use 1024- and
// 256-output tiles and one (r = 0.01) that falls back to the untiled kernel.
class PolyTilesLab : public ::testing::TestWithParam<int>
{
};

TEST_P(PolyTilesLab, TiledKernelOnEveryBlockEqualsCpuEngineAndLibrary)
{
    GPUINTERP_SKIP_WITHOUT_CUDA();
    auto run = [](auto x, double r, auto&& engine) {
        using T = typename decltype(x)::value_type;
        const polyphase_params pp;
        const double scale = std::min(1.0, r);
        const int K = int(polyphase_taps(pp, scale)), P = int(pp.nfilts);
        engine->set_prototype(polyphase_prototype(pp, scale), unsigned(K), unsigned(P));
        const resamp_plan plan = polyphase_window_plan(r, scale, K, P, x.size());
        std::vector<T> y(plan.n_out, T(NAN));
        engine->run_window(y.data(), x.data(), x.size(), plan);
        return y;
    };
    const int threads = GetParam();
    for (double r : { 1.37, 0.73, 1.25, 3.1, 0.2, 0.01 }) {
        const size_t n = r < 0.1 ? 200000 : 1 << 21;
        const auto xc = random_vector<cf>(n, 2.f);
        const auto yl =
            run(xc, r, gr::gpuinterp::gpu::make_resamp_lab_engine<cf>(0, n, threads));
        const auto yp =
            run(xc, r, gr::gpuinterp::gpu::make_resamp_library_engine<cf>(0, n));
        const auto yc = run(xc, r, make_cpu_resamp_engine<cf>());
        ASSERT_EQ(yl.size(), yc.size());
        size_t same = 0;
        for (size_t i = 0; i < yl.size(); i++)
            same += std::memcmp(&yl[i], &yp[i], sizeof(cf)) == 0;
        std::cout << "[ tiled kernel on " << threads
                  << " threads vs the library's, r=" << r << " ] " << same << " of "
                  << yl.size() << " outputs bit-identical\n";
        EXPECT_TRUE(all_close(yl, widen(yp), 1e-6, 1e-7)) << "r=" << r;
        EXPECT_TRUE(all_close(yl, widen(yc), 1e-5, 1e-6)) << "r=" << r;
        const auto xf = random_vector<float>(n / 2, 2.f);
        const auto fl =
            run(xf, r, gr::gpuinterp::gpu::make_resamp_lab_engine<float>(0, n, threads));
        EXPECT_TRUE(all_close(
            fl,
            widen(
                run(xf, r, gr::gpuinterp::gpu::make_resamp_library_engine<float>(0, n))),
            1e-6,
            1e-7))
            << "r=" << r;
        EXPECT_TRUE(
            all_close(fl, widen(run(xf, r, make_cpu_resamp_engine<float>())), 1e-5, 1e-6))
            << "r=" << r;
    }
}

INSTANTIATE_TEST_SUITE_P(
    TiledThreads,
    PolyTilesLab,
    ::testing::ValuesIn(gr::gpuinterp::gpu::resamp_lab_tiled_threads),
    [](const testing::TestParamInfo<int>& i) { return "nt" + std::to_string(i.param); });
#endif

// GPU host only: two live CUDA resamplers whose tiled kernels need different shared memory
// (r = 0.05: 640-tap arms, ~130 KB; r = 1.37: ~10 KB) take turns; each still equals the CPU
// (the kernel's shared-memory limit is a per-kernel attribute both engines set).
TEST(PolyTiles, GpuEnginesWithDifferentSharedMemoryTakeTurns)
{
    GPUINTERP_SKIP_WITHOUT_CUDA();
    const auto x = random_vector<cf>(100000, 2.f);
    resampler<cf> big(0.05, resamp_method::polyphase, backend::cuda),
        small(1.37, resamp_method::polyphase, backend::cuda);
    resampler<cf> big_cpu(0.05, resamp_method::polyphase, backend::cpu),
        small_cpu(1.37, resamp_method::polyphase, backend::cpu);
    for (int round = 0; round < 2; round++) {
        const std::vector<cf> part(x.begin() + round * 50000,
                                   x.begin() + (round + 1) * 50000);
        const auto yb = big.resample(part);
        const auto ys = small.resample(part);
        EXPECT_TRUE(all_close(yb, widen(big_cpu.resample(part)), 1e-5, 1e-6)) << round;
        EXPECT_TRUE(all_close(ys, widen(small_cpu.resample(part)), 1e-5, 1e-6)) << round;
    }
}

TEST(ResamplerParams, CudaVariantNames)
{
    EXPECT_EQ(resamp_cuda_variant_from_string("automatic"),
              resamp_cuda_variant::automatic);
    EXPECT_EQ(resamp_cuda_variant_from_string("untiled"), resamp_cuda_variant::untiled);
    EXPECT_EQ(to_string(resamp_cuda_variant::untiled), "untiled");
    try {
        resamp_cuda_variant_from_string("old");
        FAIL() << "accepted an unknown variant";
    } catch (const std::invalid_argument& e) {
        EXPECT_EQ(std::string(e.what()).rfind("variant", 0), 0u) << e.what();
    }
    // The CPU backend has one kernel: the option must not change its output.
    const auto x = random_vector<cf>(4000, 1.f);
    resampler<cf> a(0.73, resamp_method::polyphase, backend::cpu),
        b(0.73, resamp_method::polyphase, backend::cpu);
    b.set_cuda_variant(resamp_cuda_variant::untiled);
    EXPECT_EQ(b.cuda_variant(), resamp_cuda_variant::untiled);
    EXPECT_EQ(a.resample(x), b.resample(x));
}
