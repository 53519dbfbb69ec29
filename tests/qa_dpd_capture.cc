/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// dpd_capture on emulated loopback captures built here in plain double arithmetic: the
// delay, frequency offset, drift and receiver image it reports against the values put in,
// and the CUDA backend against the CPU backend (which python/gpuinterp/qa_dpd_capture.py
// holds to the numpy reference). The captures are band-limited by a long windowed sinc, so
// the fractional delay put in is a true band-limited delay.
#include "test_util.h"
#include <gnuradio/gpuinterp/kernel/dpd_capture.h>
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <random>
#include <vector>

using namespace gr::gpuinterp;
using namespace gr::gpuinterp::kernel;
using cd = std::complex<double>;

namespace {
constexpr double pi = 3.141592653589793;

struct loop_params {
    double delay = 37.3, freq = 2e-5, drift = 1e-10, snr_db = 45;
    cd dc = { 0.02, -0.01 }, image = { 0.0, 0.03 };
    int glitches = 0;
    unsigned seed = 1;
};

// A windowed-sinc low-pass of cutoff fc (cycles/sample) delayed by frac (Blackman window).
std::vector<double> sinc_filter(double fc, double frac, int half)
{
    std::vector<double> h;
    for (int k = -half; k <= half; k++) {
        const double t = k - frac;
        const double w = 0.42 + 0.5 * std::cos(pi * t / (half + 1)) +
                         0.08 * std::cos(2 * pi * t / (half + 1));
        h.push_back((t == 0 ? 2 * fc : std::sin(2 * pi * fc * t) / (pi * t)) * w);
    }
    return h;
}

std::vector<cd> filter(const std::vector<cd>& x, const std::vector<double>& h, long shift)
{
    const long half = long(h.size() / 2), n = long(x.size());
    std::vector<cd> y(x.size(), 0.0);
    for (long i = 0; i < n; i++)
        for (long k = 0; k < long(h.size()); k++) {
            const long j = i - shift - (k - half);
            if (j >= 0 && j < n)
                y[size_t(i)] += h[size_t(k)] * x[size_t(j)];
        }
    return y;
}

void loopback(size_t n, const loop_params& p, std::vector<cd>& x, std::vector<cd>& y)
{
    std::mt19937 g(p.seed);
    std::normal_distribution<double> nd;
    std::vector<cd> w(n);
    for (auto& v : w)
        v = cd(nd(g), nd(g));
    x = filter(w, sinc_filter(0.2, 0.0, 64), 0);
    for (auto& v : x)
        v *= 0.4;
    std::vector<cd> pa(n);
    for (size_t i = 0; i < n; i++) {
        const cd q = x[i] + (i ? 0.05 * x[i - 1] : cd(0));
        pa[i] = 0.7 * q * (1.0 - 0.15 * std::norm(q));
    }
    const long d = long(std::floor(p.delay));
    y = filter(pa, sinc_filter(0.45, p.delay - double(d), 64), d);
    double e = 0;
    for (size_t i = 0; i < n; i++) {
        const double t = double(i);
        y[i] *= std::polar(1.0, 2 * pi * (p.freq * t + 0.5 * p.drift * t * t) + 0.4);
        y[i] += p.image * std::conj(y[i]) + p.dc;
        e += std::norm(y[i]);
    }
    const double rms = std::sqrt(e / double(n));
    const double s = rms * std::pow(10.0, -p.snr_db / 20) / std::sqrt(2.0);
    for (auto& v : y)
        v += s * cd(nd(g), nd(g));
    for (int k = 0; k < p.glitches; k++)
        y[100 + size_t(g() % (n - 200))] += 50 * rms;
}

double max_diff(const std::vector<cd>& a, const std::vector<cd>& b)
{
    double m = 0;
    for (size_t i = 0; i < a.size(); i++)
        m = std::max(m, std::abs(a[i] - b[i]));
    return m;
}

using DpdCapture = gpuinterp_test::backend_param;

// The loopback of p, n samples, aligned by k searching +-400 samples.
dpd_aligned_capture align_loop(dpd_capture& k, size_t n, const loop_params& p)
{
    std::vector<cd> x, y;
    loopback(n, p, x, y);
    dpd_capture_options o;
    o.max_delay = 400;
    return k.align(x.data(), y.data(), n, o);
}

TEST_P(DpdCapture, FindsTheImpairmentsPutIn)
{
    loop_params p;
    p.delay = -123.37;
    const size_t n = 1 << 15;
    dpd_capture k(GetParam());
    const auto r = align_loop(k, n, p);
    // The PA's memory term (0.05 x[n-1]) adds about 0.05 sample of group delay.
    EXPECT_NEAR(r.delay, p.delay + 0.05, 0.02);
    const double centre_freq = p.freq + p.drift * double(n) / 2;
    EXPECT_NEAR(r.report.freq_offset, centre_freq, 2e-7);
    EXPECT_NEAR(r.report.freq_drift, p.drift, 2e-11);
    EXPECT_NEAR(r.report.rx_image_db, 20 * std::log10(std::abs(p.image)), 0.5);
    EXPECT_GT(r.report.correlation, 0.99);
    EXPECT_NEAR(std::abs(r.gain), 0.7, 0.1);
    // What comes out is aligned: xa ~ yn up to the PA's compression and memory.
    double e = 0, ee = 0;
    for (size_t i = 0; i < r.xa.size(); i++) {
        e += std::norm(r.xa[i] - r.yn[i]);
        ee += std::norm(r.xa[i]);
    }
    EXPECT_LT(10 * std::log10(e / ee), -15.0);
}

TEST_P(DpdCapture, AlignedPsdIsTheWelchAverageOfTheAlignedY)
{
    // The spectrum the loop's ACLR reads, against Welch's average written out here: periodic
    // Hann segments of nfft every nfft / 2, a direct DFT of each in double, |.|^2 averaged,
    // bin k at frequency k - nfft / 2. Both sum the same products in double; the FFT's
    // rounding is about log2(nfft) eps of the largest bin.
    dpd_capture k(GetParam());
    const auto r = align_loop(k, 1 << 13, loop_params());
    const size_t nfft = 256, step = nfft / 2;
    const std::vector<double> got = k.aligned_psd(r, nfft);
    ASSERT_EQ(got.size(), nfft);
    std::vector<double> want(nfft, 0.0);
    size_t segs = 0;
    for (size_t s0 = 0; s0 + nfft <= r.yn.size(); s0 += step, segs++)
        for (size_t k2 = 0; k2 < nfft; k2++) {
            const double f = double(k2) - double(nfft / 2);
            cd acc = 0;
            for (size_t i = 0; i < nfft; i++) {
                const double w = 0.5 - 0.5 * std::cos(2 * pi * double(i) / double(nfft));
                // yn times the gain: the aligned y before its division
                acc += r.yn[s0 + i] * r.gain * w *
                       std::polar(1.0, -2 * pi * f * double(i) / double(nfft));
            }
            want[k2] += std::norm(acc);
        }
    double top = 0;
    for (auto& v : want) {
        v /= double(segs);
        top = std::max(top, v);
    }
    for (size_t k2 = 0; k2 < nfft; k2++)
        EXPECT_NEAR(got[k2], want[k2], 1e-9 * top) << k2;
    EXPECT_THROW(k.aligned_psd(r, 100), std::invalid_argument); // not a power of two
}

TEST_P(DpdCapture, RefusesWithTheEstimatorsMessages)
{
    std::vector<cd> x, y;
    loopback(1 << 13, {}, x, y);
    dpd_capture k(GetParam());
    std::mt19937 g(5);
    std::normal_distribution<double> nd;
    std::vector<cd> noise(x.size());
    for (auto& v : noise)
        v = cd(nd(g), nd(g));
    auto message = [&](const std::vector<cd>& yy,
                       const dpd_capture_options& o) -> std::string {
        try {
            k.align(x.data(), yy.data(), x.size(), o);
        } catch (const dpd_capture_error& e) {
            return e.what();
        }
        return "";
    };
    EXPECT_EQ(message(noise, {}).rfind("y: no lag of y", 0), 0u);
    dpd_capture_options clip;
    clip.full_scale = 0.05;
    EXPECT_EQ(message(y, clip).rfind("y: receiver clipping:", 0), 0u);
    EXPECT_EQ(message(std::vector<cd>(x.size(), 0.0), {}).rfind("y: no lag", 0), 0u);
    std::vector<cd> bad = y;
    bad[7] = cd(NAN, 0);
    EXPECT_EQ(message(bad, {}).rfind("y: contains NaN", 0), 0u);
    dpd_capture_options fs;
    fs.full_scale = -1;
    EXPECT_EQ(message(y, fs).rfind("full_scale:", 0), 0u);
    // A given delay that no capture can have is refused by name, conditioned or not (a non-finite
    // one used to index outside the capture).
    for (const bool condition : { false, true })
        for (const double d : { -double(INFINITY),
                                double(INFINITY),
                                double(NAN),
                                1e300,
                                double(x.size()) }) {
            dpd_capture_options o;
            o.condition = condition;
            o.has_delay_hint = true;
            o.delay_hint = d;
            EXPECT_EQ(message(y, o).rfind("delay:", 0), 0u) << d << " " << condition;
        }
}

GPUINTERP_BACKEND_SUITE(DpdCapture);

// The CUDA backend against the CPU backend on the hardware example's setting scaled down
// (delay near 3/4 of the search range, glitches, a clipped peak, a delay hint that holds
// and one that does not, no correction, and no tracking on a capture without a frequency
// offset).
TEST(DpdCaptureCuda, EqualsTheCpuBackend)
{
    GPUINTERP_SKIP_WITHOUT_CUDA();
    loop_params p;
    p.delay = 15000.4;
    p.glitches = 4;
    std::vector<cd> x, y, xl, yl;
    loopback(1 << 16, p, x, y);
    p.freq = p.drift = 0; // one LO: nothing to track
    loopback(1 << 16, p, xl, yl);
    double peak = 0;
    for (auto& v : y)
        if (std::abs(v) < 1) // not a glitch
            peak = std::max(peak, std::max(std::abs(v.real()), std::abs(v.imag())));
    struct variant {
        double full_scale;
        bool rx, track, hint;
        double hint_value;
    };
    const variant vs[] = {
        { 0, true, true, false, 0 },    { peak / 0.99 * 0.999, true, true, false, 0 },
        { 0, true, true, true, 15000 }, { 0, true, true, true, 300 },
        { 0, false, true, false, 0 },   { 0, true, false, false, 0 }
    };
    dpd_capture c(backend::cpu), g(backend::cuda);
    for (const auto& v : vs) {
        dpd_capture_options o;
        o.max_delay = 20000;
        o.full_scale = v.full_scale;
        o.rx_correction = v.rx;
        o.track_frequency = v.track;
        o.has_delay_hint = v.hint;
        o.delay_hint = v.hint_value;
        SCOPED_TRACE(testing::Message()
                     << "full scale " << v.full_scale << " rx " << v.rx << " track "
                     << v.track << " hint " << v.hint << " " << v.hint_value);
        const auto& xx = v.track ? x : xl;
        const auto& yy = v.track ? y : yl;
        const auto a = c.align(xx.data(), yy.data(), xx.size(), o);
        const auto b = g.align(xx.data(), yy.data(), xx.size(), o);
        EXPECT_NEAR(b.delay, a.delay, 1e-9);
        ASSERT_EQ(b.xa.size(), a.xa.size());
        EXPECT_LT(max_diff(b.xa, a.xa), 1e-12);
        EXPECT_LT(max_diff(b.yn, a.yn), 1e-9);
        EXPECT_EQ(b.bad, a.bad);
        EXPECT_LT(std::abs(b.gain - a.gain), 1e-9 * std::abs(a.gain));
        EXPECT_EQ(b.report.widened, a.report.widened);
        EXPECT_EQ(b.report.clipped, a.report.clipped);
        EXPECT_NEAR(b.report.freq_offset, a.report.freq_offset, 1e-12);
        EXPECT_NEAR(b.report.freq_drift, a.report.freq_drift, 1e-18);
        EXPECT_NEAR(b.report.phase, a.report.phase, 1e-9);
        EXPECT_NEAR(b.report.envelope_correlation, a.report.envelope_correlation, 1e-9);
        EXPECT_NEAR(b.report.correlation, a.report.correlation, 1e-9);
        EXPECT_LT(std::abs(b.report.rx_dc - a.report.rx_dc), 1e-9);
    }
}

// The alignment alone (options.condition false, dpd.estimate's search): CUDA against CPU.
TEST(DpdCaptureCuda, AlignmentAloneEqualsTheCpuBackend)
{
    GPUINTERP_SKIP_WITHOUT_CUDA();
    loop_params p;
    p.freq = p.drift = 0;
    p.dc = p.image = 0;
    p.glitches = 3;
    for (double delay : { -3000.3, 41.7 }) {
        SCOPED_TRACE(delay);
        p.delay = delay;
        std::vector<cd> x, y;
        loopback(1 << 15, p, x, y);
        dpd_capture_options o;
        o.condition = false;
        o.max_delay = 4000;
        dpd_capture c(backend::cpu), g(backend::cuda);
        const auto a = c.align(x.data(), y.data(), x.size(), o);
        const auto b = g.align(x.data(), y.data(), x.size(), o);
        EXPECT_NEAR(a.delay, delay + 0.05, 0.03); // the PA memory's group delay
        EXPECT_NEAR(b.delay, a.delay, 1e-9);
        ASSERT_EQ(b.xa.size(), a.xa.size());
        EXPECT_LT(max_diff(b.yn, a.yn), 1e-9);
        EXPECT_EQ(b.bad, a.bad);
        EXPECT_LT(std::abs(b.gain - a.gain), 1e-9 * std::abs(a.gain));
    }
}

// A given gain and excluded samples of y (dpd.estimate's target_gain and exclude): the capture,
// the flags and the options of both tests below.
struct gain_and_exclusion {
    std::vector<cd> x, y;
    std::vector<uint8_t> ex;
    dpd_capture_options o;
    gain_and_exclusion()
    {
        loop_params p;
        p.freq = p.drift = 0;
        p.dc = p.image = 0;
        p.glitches = 0;
        p.delay = 12.6;
        loopback(1 << 15, p, x, y);
        ex.assign(y.size(), 0);
        for (size_t i = 5000; i < 5010; i++)
            ex[i] = 1;
        o.condition = false;
        o.max_delay = 64;
    }
};

// The gain is the one given, yn is ya over it, and the excluded samples' rows are bad (more than
// the outliers alone make).
TEST(DpdCapture, GivenGainAndExcludedSamples)
{
    gain_and_exclusion t;
    dpd_capture c(backend::cpu);
    const auto plain = c.align(t.x.data(), t.y.data(), t.x.size(), t.o);
    // The delay given (zeroed samples would move the search's answer slightly), so the two
    // alignments differ in the gain and the excluded rows only.
    t.o.has_delay_hint = true;
    t.o.delay_hint = plain.delay;
    t.o.has_gain = true;
    t.o.gain = cd(0.65, -0.05);
    const auto a = c.align(t.x.data(), t.y.data(), t.x.size(), t.o, t.ex.data());
    EXPECT_EQ(a.gain, t.o.gain);
    EXPECT_EQ(a.delay, plain.delay);
    ASSERT_EQ(a.yn.size(), plain.yn.size());
    for (size_t i = 0; i < a.yn.size(); i += 997)
        if (!a.bad[i])
            EXPECT_LT(std::abs(a.yn[i] * t.o.gain - plain.yn[i] * plain.gain),
                      1e-9 * std::abs(plain.yn[i] * plain.gain) + 1e-12);
    const auto count = [](const std::vector<uint8_t>& b) {
        return std::count(b.begin(), b.end(), uint8_t(1));
    };
    // ten samples, each reaching the shift's window on either side
    EXPECT_GE(count(a.bad) - count(plain.bad), 10 + 2 * dpd_capture::shift_half_length);
}

TEST(DpdCaptureCuda, GivenGainAndExcludedSamplesEqualTheCpuBackend)
{
    GPUINTERP_SKIP_WITHOUT_CUDA();
    gain_and_exclusion t;
    t.o.has_gain = true;
    t.o.gain = cd(0.65, -0.05);
    dpd_capture c(backend::cpu), g(backend::cuda);
    const auto a = c.align(t.x.data(), t.y.data(), t.x.size(), t.o, t.ex.data());
    const auto b = g.align(t.x.data(), t.y.data(), t.x.size(), t.o, t.ex.data());
    EXPECT_NEAR(b.delay, a.delay, 1e-9);
    ASSERT_EQ(b.xa.size(), a.xa.size());
    EXPECT_LT(max_diff(b.yn, a.yn), 1e-9);
    EXPECT_EQ(b.bad, a.bad);
    EXPECT_EQ(b.gain, a.gain);
    EXPECT_EQ(b.report.first, a.report.first);
}

// A capture too large for the device is refused before anything is copied, naming the
// sizes and the CPU backend (calloc: the host pages are never touched).
TEST(DpdCaptureCuda, ACaptureTooLargeForTheDeviceIsAClearError)
{
    GPUINTERP_SKIP_WITHOUT_CUDA();
    const size_t n = size_t(1) << 29; // about 175 GiB of device buffers
    cd* x = static_cast<cd*>(std::calloc(n, sizeof(cd)));
    cd* y = static_cast<cd*>(std::calloc(n, sizeof(cd)));
    ASSERT_TRUE(x && y);
    dpd_capture g(backend::cuda);
    std::string what;
    try {
        g.align(x, y, n);
    } catch (const std::exception& e) {
        what = e.what();
    }
    std::free(x);
    std::free(y);
    if (what.rfind("dpd_capture: a capture of", 0) != 0 &&
        what.find("no lag") != std::string::npos)
        GTEST_SKIP() << "this device holds a capture of 2^29 samples";
    EXPECT_NE(what.find("dpd_capture: a capture of 536870912 samples needs about"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("use backend cpu"), std::string::npos) << what;
    // The engine is still usable afterwards.
    std::vector<cd> xs, ys;
    loopback(1 << 13, {}, xs, ys);
    EXPECT_NO_THROW(g.align(xs.data(), ys.data(), xs.size()));
}

} // namespace
