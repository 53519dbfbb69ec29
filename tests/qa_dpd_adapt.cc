/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// dpd_adapt closed around a PA written here: a static cubic compression, five samples of loop
// delay and a loop phase. The predistorter is applied by a naive
// double-precision loop over the model's equations (dpd_model.h), so the loop's figures come
// from the kernel's conditioning, policy and fit only. The Python suites (qa_dpd,
// qa_estimator_*) check the policy's branches one by one; here the whole step on each backend.
#include "test_util.h"
#include <gnuradio/gpuinterp/kernel/dpd_adapt.h>
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <complex>
#include <random>
#include <string>
#include <vector>

namespace {
namespace gk = gr::gpuinterp::kernel;
using gk::dpd_adapt;
using gk::dpd_adapt_options;
using gk::dpd_model;
using gpuinterp_test::backend;
using cd = std::complex<double>;

constexpr size_t n = 16384;
constexpr size_t loop_delay = 5;

// Complex Gaussian noise in the middle 40 % of the band (a 63-tap Hann-windowed sinc), RMS
// about 0.25: a capture oversampled as a transmitter's is, so the fractional shift onto x's grid
// (band-limited interpolation) is exact to its window's stop band.
std::vector<cd> signal(unsigned seed)
{
    std::mt19937_64 g(seed);
    std::normal_distribution<double> d(0, 1);
    const int half = 31;
    const double fc = 0.2, pi = std::acos(-1.0);
    std::vector<double> h(2 * half + 1);
    double e = 0;
    for (int k = -half; k <= half; k++) {
        const double sinc = k ? std::sin(2 * pi * fc * k) / (pi * k) : 2 * fc;
        h[size_t(k + half)] = sinc * (0.5 + 0.5 * std::cos(pi * k / (half + 1)));
        e += h[size_t(k + half)] * h[size_t(k + half)];
    }
    std::vector<cd> w(n + h.size()), u(n, 0);
    for (auto& v : w)
        v = { d(g), d(g) };
    const double scale = 0.25 / std::sqrt(2 * e);
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < h.size(); k++)
            u[i] += h[k] * w[i + k] * scale;
    return u;
}

// The model's equations (dpd_model.h): sum of w_t y[i - l_t] |y[i - e_t]|^p_t, zeros outside.
std::vector<cd>
naive_apply(const dpd_model& m, const std::vector<cd>& y, const std::vector<cd>& w)
{
    std::vector<cd> z(y.size(), 0);
    const auto terms = m.terms();
    auto at = [&](long i) { return i >= 0 && i < long(y.size()) ? y[size_t(i)] : cd(0); };
    for (size_t i = 0; i < y.size(); i++)
        for (size_t t = 0; t < terms.size(); t++) {
            const cd v = at(long(i) - long(terms[t].signal_lag)) *
                         std::pow(std::abs(at(long(i) - terms[t].envelope_lag)),
                                  double(terms[t].power));
            z[i] += w[t] * (terms[t].conjugate ? std::conj(v) : v);
        }
    return z;
}

// The PA and the receiver: G (x - 0.1 x|x|^2), delayed and turned.
std::vector<cd> loopback(const std::vector<cd>& x, double rx_gain_db = 0)
{
    const cd G = std::polar(0.5 * std::pow(10.0, rx_gain_db / 20), 0.3);
    std::vector<cd> y(x.size(), 0);
    for (size_t i = loop_delay; i < x.size(); i++) {
        const size_t k = i - loop_delay;
        y[i] = G * (x[k] - 0.1 * x[k] * std::norm(x[k]));
    }
    return y;
}

struct run {
    std::vector<gk::dpd_step_result> steps;
    std::vector<cd> w;
};

run close_loop(backend b, const dpd_model& m, size_t count, double rx_gain_db_at_3 = 0)
{
    dpd_adapt_options o;
    o.requested = b;
    o.damping = 1.0;
    o.capture.max_delay = 64;
    dpd_adapt a(m, o);
    run r;
    for (size_t s = 0; s < count; s++) {
        const std::vector<cd> u = signal(unsigned(100 + s));
        const std::vector<cd> x = naive_apply(m, u, a.coefficients());
        const std::vector<cd> y = loopback(x, s >= 3 ? rx_gain_db_at_3 : 0);
        r.steps.push_back(a.step(x.data(), x.size(), y.data(), y.size()));
    }
    r.w = a.coefficients();
    return r;
}

class DpdAdapt : public gpuinterp_test::backend_param
{
};

TEST_P(DpdAdapt, LinearisesThePaAndFindsItsDelay)
{
    const dpd_model m = dpd_model::parse("mp:K=5,M=1");
    const run r = close_loop(GetParam(), m, 3);
    EXPECT_EQ(r.steps[0].status, "calibrating") << r.steps[0].reason;
    for (size_t s = 1; s < r.steps.size(); s++) {
        EXPECT_EQ(r.steps[s].status, "updated") << s << ": " << r.steps[s].reason;
        // An integer delay: found to the fractional search's resolution (1e-6 sample).
        EXPECT_NEAR(r.steps[s].delay, double(loop_delay), 1e-4) << s;
    }
    // The identity's loop NMSE is the PA's distortion past its linear gain: a^2 (E|x|^6 -
    // E|x|^4^2 / E|x|^2) / E|x|^2 = 2 a^2 sigma^4 for complex Gaussian x of power sigma^2 =
    // 0.0625 and a = 0.1: -41 dB.
    EXPECT_NEAR(r.steps[1].loop_nmse_db, -41.1, 1.5);
    // After one update what is left is the order-5 post-inverse's truncation of the PA's
    // inverse series y (1 + a|y|^2 + 3 a^2 |y|^4 + 12 a^3 |y|^6 + ...): its first term left
    // out, 144 a^6 E|y|^14 / E|y|^2 = 144 a^6 7! sigma^12, is -73 dB (least squares does
    // better); 8 dB allowed for a new capture's own signal.
    EXPECT_LT(r.steps.back().loop_nmse_db, -65.0);
    EXPECT_LT(r.steps.back().fit_nmse_db, -65.0);
}

TEST_P(DpdAdapt, FollowsAnRxGainStepOnItsOwnCapture)
{
    // A 3 dB RX step before capture 3: both halves of it agree, so |G| follows at once (the PA's
    // output power is kept) and the step updates instead of refusing.
    const dpd_model m = dpd_model::parse("mp:K=5,M=1");
    const run r = close_loop(GetParam(), m, 4, 3.0);
    ASSERT_EQ(r.steps[3].status, "updated") << r.steps[3].reason;
    const double move =
        20 * std::log10(std::abs(r.steps[3].gain) / std::abs(r.steps[2].gain));
    // The small-signal gain of two captures of one PA differs by what a new signal changes in
    // the quieter half's gain: a few thousandths of a dB.
    EXPECT_NEAR(move, 3.0, 0.02);
    EXPECT_LT(r.steps[3].loop_nmse_db,
              -65.0); // measured with the set fitted before the step
}

// Through a linear loop (y = G x, delayed) the aligned, normalised capture is x itself, so the
// loop NMSE of a set w is NMSE(x, f_w(x)) by the model's equations. The step evaluates f_w with
// its own row-parallel loop; here it must agree with the naive one for models with look-ahead
// (gmp's leading terms) and conjugate branches (ph's Q). The two differ only in the few edge
// rows the step leaves out: 0.05 dB bounds that on a -20 to -30 dB error.
TEST_P(DpdAdapt, LoopNmseIsTheModelsEquationsOnTheCapture)
{
    for (const char* spec :
         { "gmp:Ka=3,La=2,Kb=2,Lb=2,Mb=1,Kc=2,Lc=2,Mc=2", "ph:P=3,Q=3,Lp=2,Lq=2" }) {
        SCOPED_TRACE(spec);
        const dpd_model m = dpd_model::parse(spec);
        std::mt19937_64 g(11);
        std::normal_distribution<double> d(0, 0.05);
        std::vector<cd> w(m.num_coefficients());
        for (auto& v : w)
            v = { d(g), d(g) };
        w[0] += 1.0; // near the identity, every term present
        dpd_adapt_options o;
        o.requested = GetParam();
        o.capture.max_delay = 64;
        o.capture.rx_correction = false;
        o.capture.track_frequency = false;
        dpd_adapt a(m, o, w);
        gk::dpd_step_result r;
        std::vector<cd> x;
        for (unsigned s = 0; s < 2; s++) { // latch |G|, then measure
            x = signal(200 + s);
            std::vector<cd> y(n, 0);
            const cd G = std::polar(0.5, 0.3);
            for (size_t i = loop_delay; i < n; i++)
                y[i] = G * x[i - loop_delay];
            r = a.step(x.data(), n, y.data(), n);
        }
        ASSERT_EQ(r.status, "updated") << r.reason;
        const std::vector<cd> z = naive_apply(m, x, w);
        double num = 0, den = 0;
        for (size_t i = 64; i + 64 < n; i++) {
            num += std::norm(x[i] - z[i]);
            den += std::norm(x[i]);
        }
        const double want = 10 * std::log10(num / den);
        EXPECT_LT(want, -15.0); // the set is far enough from the identity to be measured
        EXPECT_NEAR(r.loop_nmse_db, want, 0.05);
    }
}

TEST_P(DpdAdapt, RefusesWhatItCannotUse)
{
    const dpd_model m = dpd_model::parse("mp:K=3,M=2");
    dpd_adapt_options o;
    o.requested = GetParam();
    dpd_adapt a(m, o);
    const std::vector<cd> x = signal(7), zeros(n, 0);
    auto r = a.step(x.data(), n, x.data(), n - 1);
    EXPECT_EQ(r.status, "refused");
    EXPECT_EQ(r.reason.rfind("x, y: lengths differ", 0), 0u) << r.reason;
    r = a.step(x.data(), n, zeros.data(), n);
    EXPECT_EQ(r.reason.rfind("y: all zeros", 0), 0u) << r.reason;
    EXPECT_EQ(a.iteration(), 2u);
    EXPECT_EQ(a.history().size(), 2u);
    // The set in use is untouched by refusals: still the identity.
    EXPECT_EQ(a.coefficients()[0], cd(1));
    o.damping = 0;
    try {
        dpd_adapt bad(m, o);
        ADD_FAILURE() << "damping 0 accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_EQ(std::string(e.what()).rfind("damping:", 0), 0u) << e.what();
    }
}

GPUINTERP_BACKEND_SUITE(DpdAdapt);

TEST(DpdAdaptBackends, CudaStepsEqualCpuSteps)
{
    GPUINTERP_SKIP_WITHOUT_CUDA();
    // Both backends condition and fit in double; they differ by the order of their sums, which
    // moves a coefficient by about the basis's condition number squared times n eps: with a
    // condition of about 1e2 here, 1e4 * 16384 * 1.1e-16 = 2e-8 (1e-6 allowed).
    const dpd_model m = dpd_model::parse("mp:K=5,M=1");
    const run c = close_loop(backend::cpu, m, 4), g = close_loop(backend::cuda, m, 4);
    for (size_t s = 0; s < c.steps.size(); s++)
        EXPECT_EQ(c.steps[s].status, g.steps[s].status) << s;
    ASSERT_EQ(g.w.size(), c.w.size());
    double scale = 0, err = 0;
    for (size_t i = 0; i < c.w.size(); i++) {
        scale = std::max(scale, std::abs(c.w[i]));
        err = std::max(err, std::abs(g.w[i] - c.w[i]));
    }
    EXPECT_LT(err, 1e-6 * scale);
}

} // namespace
