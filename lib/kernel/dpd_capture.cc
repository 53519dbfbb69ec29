/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The decision logic of dpd_capture (the class comment of dpd_capture.h lists the steps).
// Each step mirrors the Python reference (dpd_capture.condition, dpd_align and
// dpd_estimate._prepare) line for line, so that the tests can hold the two to the same
// numbers and a change to one is visibly a change to the other.
#include "capture_engine.h"
#include "engine_factory.h"
#include <gnuradio/gpuinterp/kernel/dpd_capture.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

namespace gr {
namespace gpuinterp {
namespace kernel {

namespace {
using cd = std::complex<double>;
using E = capture_engine;
constexpr double pi = 3.141592653589793;

std::string fmt(const char* f, double v)
{
    char b[64];
    std::snprintf(b, sizeof b, f, v);
    return b;
}

[[noreturn]] void refuse(const std::string& what) { throw dpd_capture_error(what); }

// _outlier_mask's threshold: 24 x the RMS estimated from the 90th percentile of |v|
// (inf: nothing is an outlier of an all-zero capture).
double outlier_threshold(E& e, E::vec v)
{
    const double rms = e.abs_quantile(v, 0.9) / std::sqrt(std::log(10.0));
    return rms > 0 ? dpd_capture::outlier_factor * rms
                   : std::numeric_limits<double>::infinity();
}

void check_outliers(const char* name, size_t count, size_t n)
{
    if (double(count) > dpd_capture::max_outlier_fraction * double(n)) {
        std::ostringstream os;
        os << name << ": " << count << " of " << n << " samples exceed "
           << dpd_capture::outlier_factor
           << " x the capture's robust RMS: the capture is clipped, corrupted "
              "or not a PA signal";
        refuse(os.str());
    }
}

// The Kaiser-windowed sinc (beta 8) of both band-limited interpolations, at offset t from the
// centre of a window reaching +-(half + 1): np.sinc(t) * np.i0(8 sqrt(1 - (t / (half + 1))^2)).
// (Python's taps also divide by i0(8), which their normalisation cancels.)
double kaiser_sinc(double t, int half)
{
    const double u = t / (half + 1);
    const double w = std::cyl_bessel_i(0.0, 8.0 * std::sqrt(std::max(1 - u * u, 0.0)));
    return (t == 0 ? 1.0 : std::sin(pi * t) / (pi * t)) * w;
}

// Python's _sinc_taps: a Kaiser-windowed sinc (beta 8) centred on frac, normalised to sum 1.
std::vector<double> sinc_taps(double frac, int half)
{
    std::vector<double> h(size_t(2 * half + 1));
    double s = 0;
    for (int k = -half; k <= half; k++)
        s += h[size_t(k + half)] = kaiser_sinc(k - frac, half);
    for (auto& v : h)
        v /= s;
    return h;
}

// Python's fractional_shift(src, delay): dst[i] = src(first + i + delay); returns (first,
// length). An integer delay is a plain copy of the overlap.
std::pair<size_t, size_t>
fractional_shift(E& e, E::vec src, E::vec dst, size_t n, double delay)
{
    const int half = dpd_capture::shift_half_length;
    const int64_t N = int64_t(n);
    const int64_t d = int64_t(std::floor(delay));
    const double frac = delay - double(d);
    if (frac < 1e-9) {
        const int64_t first = std::max<int64_t>(0, -d);
        const int64_t last = std::min(N, N - d);
        const size_t len = last > first ? size_t(last - first) : 0;
        if (len)
            e.shift(src, dst, first + d, { 1.0 }, len);
        return { size_t(first), len };
    }
    const int64_t first = std::max<int64_t>(0, half - d);
    const int64_t last = std::min(N, N - half - d);
    if (last <= first)
        return { size_t(first), 0 };
    e.shift(src, dst, first + d - half, sinc_taps(frac, half), size_t(last - first));
    return { size_t(first), size_t(last - first) };
}

// estimate_delay's fraction: the peak of the Kaiser-sinc interpolant of the correlation
// magnitudes seg (lags p - 64 .. p + 64) within +-1 of p, by golden-section search.
double golden_peak(const std::vector<cd>& seg, int64_t p, int half)
{
    auto mag = [&](double t) {
        cd s = 0;
        for (int j = -half; j <= half; j++)
            s += seg[size_t(j + half)] * kaiser_sinc(j - (t - double(p)), half);
        return std::abs(s);
    };
    double a = p - 1.0, b = p + 1.0;
    const double g = (std::sqrt(5.0) - 1) / 2;
    double c1 = b - g * (b - a), c2 = a + g * (b - a);
    double f1 = mag(c1), f2 = mag(c2);
    for (int i = 0; i < 30; i++) {
        if (f1 > f2) {
            b = c2;
            c2 = c1;
            f2 = f1;
            c1 = b - g * (b - a);
            f1 = mag(c1);
        } else {
            a = c1;
            c1 = c2;
            f1 = f2;
            c2 = a + g * (b - a);
            f2 = mag(c2);
        }
    }
    return 0.5 * (a + b);
}

// Solve the small dense system A w = b (n <= 3) by Gaussian elimination with partial
// pivoting; the systems here are 3 x 3 normal equations of well-conditioned columns.
template <typename T>
std::array<T, 3> solve3(std::array<std::array<T, 3>, 3> A, std::array<T, 3> b)
{
    for (int c = 0; c < 3; c++) {
        int p = c;
        for (int r = c + 1; r < 3; r++)
            if (std::abs(A[r][c]) > std::abs(A[p][c]))
                p = r;
        std::swap(A[c], A[p]);
        std::swap(b[c], b[p]);
        if (std::abs(A[c][c]) == 0)
            return { T(0), T(0), T(0) };
        for (int r = c + 1; r < 3; r++) {
            const T f = A[r][c] / A[c][c];
            for (int k = c; k < 3; k++)
                A[r][k] -= f * A[c][k];
            b[r] -= f * b[c];
        }
    }
    std::array<T, 3> w{};
    for (int c = 2; c >= 0; c--) {
        T s = b[c];
        for (int k = c + 1; k < 3; k++)
            s -= A[c][k] * w[k];
        w[c] = s / A[c][c];
    }
    return w;
}

// _phase_track: the rotation of y against x at integer lag d.
capture_rotation
phase_track(E& e, size_t n, int64_t d, bool track, dpd_capture_report& rep)
{
    const capture_overlap ov(n, d);
    const int64_t lo = ov.lo;
    capture_rotation r;
    r.centre = 0.5 * double(ov.lo + ov.hi - 1);
    const size_t len = ov.size();
    if (!track || len == 0) {
        r.ph0 = std::arg(e.phase_sum(d));
        rep.freq_offset = rep.freq_drift = 0;
        rep.phase = r.ph0;
        return r;
    }
    // Coarse: the strongest line of z (|x|^2 has a large mean, so g |x|^2 e^{j w m} is a line).
    const size_t nfft = capture_fft_size(4 * len);
    double f0 = double(e.phase_line(d, nfft)) / double(nfft);
    if (f0 >= 0.5)
        f0 -= 1.0;
    r.f0 = f0;
    // Fine: a weighted quadratic fit to the unwrapped phases of block sums. The coarse line
    // leaves under half a bin, a small fraction of a turn per block, so unwrapping cannot slip.
    const size_t B = dpd_capture::phase_block, nb = len / B;
    if (nb >= 4) {
        const std::vector<cd> zb = e.phase_blocks(d, f0, r.centre, B, nb);
        // Columns 1, t, t^2 with t scaled to about [-1, 1]: the normal equations then have a
        // condition number near 10, where the raw t^2 (up to 1e11) would square 1e10.
        const double ts = std::max(1.0, 0.5 * double(nb * B));
        std::array<std::array<double, 3>, 3> A{};
        std::array<double, 3> rhs{};
        double prev = 0, fix = 0;
        for (size_t b = 0; b < nb; b++) {
            const double a = std::arg(zb[b]);
            // np.unwrap: a step of pi or more is corrected by the multiple of 2 pi that
            // brings it within +-pi (a step of exactly -pi stays -pi only when it was one)
            if (b > 0) {
                const double dd = a - prev;
                if (std::abs(dd) >= pi) {
                    double m = std::fmod(dd + pi, 2 * pi);
                    if (m < 0)
                        m += 2 * pi;
                    m -= pi;
                    if (m == -pi && dd > 0)
                        m = pi;
                    fix += m - dd;
                }
            }
            prev = a;
            const double ph = a + fix;
            const double w = std::abs(zb[b]);
            const double tb =
                (double(lo) + double(b * B) + 0.5 * double(B - 1) - r.centre) / ts;
            const double col[3] = { 1.0, tb, tb * tb };
            for (int i = 0; i < 3; i++) {
                for (int k = 0; k < 3; k++)
                    A[i][k] += w * w * col[i] * col[k];
                rhs[i] += w * w * col[i] * ph;
            }
        }
        const auto c = solve3<double>(A, rhs);
        r.ph0 = c[0];
        r.w1 = c[1] / ts;
        r.w2 = c[2] / (ts * ts);
    } else {
        r.ph0 = std::arg(e.phase_blocks(d, f0, r.centre, len, 1)[0]);
    }
    rep.freq_offset = f0 + r.w1 / (2 * pi);
    rep.freq_drift = r.w2 / pi;
    rep.phase = r.ph0;
    return r;
}

// The end of _prepare, on the capture src (the conditioned one, or y as loaded): its
// outliers zeroed, the delay searched when max_delay >= 0 (else report.delay is the delay),
// y shifted onto x's grid, the bad rows, the gain and the copies out.
void align_tail(E& e,
                size_t n,
                E::vec src,
                int64_t max_delay,
                const dpd_capture_options& o,
                dpd_aligned_capture& out)
{
    const size_t by2 =
        e.zero_where(src, E::YZ, E::BY2, outlier_threshold(e, src), E::CLIP);
    check_outliers("y", by2, n);
    {
        const auto z = e.dots(E::XZ, 0, E::YZ, 0, n, false);
        if (!(z[0].real() > 0))
            refuse("x: all zeros (no PA input captured)");
        if (!(z[1].real() > 0))
            refuse("y: all zeros (no PA output captured: check the loopback path and RX "
                   "gain)");
    }
    dpd_capture_report& rep = out.report;
    if (max_delay >= 0) {
        // estimate_delay: the peak of the complex cross-correlation within +-max_delay, its
        // fraction by band-limited interpolation
        e.copy(E::YZ, E::YR);
        const int half = 64;
        std::vector<cd> seg;
        const int64_t p = e.xcorr_peak(0, max_delay, half, seg);
        rep.delay = golden_peak(seg, p, half);
    }
    const auto [first2, len2] = fractional_shift(e, E::YZ, E::YA, n, rep.delay);
    const auto xy = e.dots(E::XZ, first2, E::YA, 0, len2, false);
    if (len2 == 0 || !(xy[0].real() > 0) || !(xy[1].real() > 0))
        refuse("x: capture too short: no usable overlap of x and y after aligning by " +
               fmt("%.3f", rep.delay) + " samples");
    // Glitches on the aligned grid, widened by the interpolation window of the shift.
    e.bad_rows(
        first2, len2, int64_t(std::floor(rep.delay)), dpd_capture::shift_half_length + 1);
    const auto g = e.dots(E::XZ, first2, E::YA, 0, len2, true);
    const cd G = o.has_gain ? o.gain : g[0].real() > 0 ? g[2] / g[0].real() : cd(0);
    if (!std::isfinite(G.real()) || !std::isfinite(G.imag()) ||
        std::abs(G) < dpd_capture::min_gain) {
        std::ostringstream os;
        os << "target_gain: gain (" << G.real() << (G.imag() < 0 ? "" : "+") << G.imag()
           << "j) is zero or not finite (y uncorrelated with x? "
              "check the delay range and the loopback)";
        refuse(os.str());
    }
    out.report.first = first2;
    out.delay = rep.delay;
    out.gain = G;
    out.xa.resize(len2);
    out.yn.resize(len2);
    out.bad.resize(len2);
    e.read(E::XZ, first2, len2, 1.0, out.xa.data());
    e.read(E::YA, 0, len2, G, out.yn.data());
    e.read_bad(len2, out.bad.data());
}

// How far to lower the RX gain after a clipped capture. The clipped peak itself says nothing of
// how far beyond full scale the signal went; the transmit signal does: the envelope quantile of
// y half-way through its unclipped samples is below the clipping, so x's peak times the gain at
// that quantile (|y| over |x| at the same quantile: the PA's gain is monotone) is where
// y's peak would be without the ADC, a bound from above since a compressing PA holds its peaks
// lower. Then clip_headroom_db more, and never less than what the clipped peak itself shows.
double clip_gain_step_db(
    double x_peak, double x_q, double y_q, double full_scale, double peak_dbfs)
{
    double over = peak_dbfs;
    if (x_peak > 0 && x_q > 0 && y_q > 0)
        over = std::max(over, 20 * std::log10(x_peak * (y_q / x_q) / full_scale));
    return std::max(0.0, over) + dpd_capture::clip_headroom_db;
}
} // namespace

dpd_capture::dpd_capture(backend requested, int device) : d_device(device)
{
    const backend_choice c = select_backend(requested, device);
    d_backend = c.selected;
    d_note = c.reason;
    d_engine = make_capture_engine(d_backend, device);
}

dpd_capture::~dpd_capture() = default;

std::vector<double> dpd_capture::aligned_psd(const dpd_aligned_capture& a, size_t nfft)
{
    const size_t n = a.xa.size();
    if (nfft < 8 || nfft > n || (nfft & (nfft - 1)))
        throw std::invalid_argument("nfft: must be a power of two in [8, " +
                                    std::to_string(n) + "], got " + std::to_string(nfft));
    return d_engine->welch_psd(E::YA, n, nfft);
}

dpd_capture_device_view dpd_capture::device_view(const dpd_aligned_capture& a) const
{
    dpd_capture_device_view v;
    const cd* y = d_engine->device_data(E::YA);
    const cd* x = d_engine->device_data(E::XZ);
    if (!y || !x)
        return v;
    v.y = y; // YA[0 .. len): the aligned y before its division by the gain
    v.x = x + a.report.first;
    v.n = a.xa.size();
    v.device = d_device;
    return v;
}

dpd_aligned_capture dpd_capture::align(const cd* x,
                                       const cd* y,
                                       size_t n,
                                       const dpd_capture_options& o,
                                       const uint8_t* exclude)
{
    if (n == 0)
        refuse("x: empty capture");
    if (o.full_scale < 0 || !std::isfinite(o.full_scale))
        refuse("full_scale: must be a finite number >= 0 (0: no clipping check), got " +
               fmt("%g", o.full_scale));
    // A given delay is used as is when the capture is not conditioned: a non-finite one or one
    // past the capture's length would index outside it.
    if (o.has_delay_hint &&
        !(std::isfinite(o.delay_hint) && std::fabs(o.delay_hint) < double(n)))
        refuse("delay: must be a finite number of samples, |delay| < the capture's " +
               std::to_string(n) + ", got " + fmt("%g", o.delay_hint));
    E& e = *d_engine;
    const auto nonfinite = e.load(x, y, n);
    if (nonfinite[0])
        refuse("x: contains NaN or infinity");
    if (nonfinite[1])
        refuse("y: contains NaN or infinity");
    // Shorter than this, the fractional shift's window (shift_half_length each side) leaves too
    // little overlap for any correlation to mean something, and a 10-sample capture would be
    // called "buried in noise" instead of too short.
    if (n < min_capture_length)
        refuse("x: capture too short: " + std::to_string(n) +
               " samples; aligning x and y needs at least " +
               std::to_string(min_capture_length));
    // The caller's exclusions, then x's glitches (beyond the estimator's outlier level), which
    // would dominate every correlation below.
    auto exclude_and_check_x = [&] {
        if (exclude)
            e.exclude(exclude);
        check_outliers(
            "x",
            e.zero_where(E::X, E::XZ, E::BX, outlier_threshold(e, E::X), E::num_masks),
            n);
    };
    dpd_aligned_capture out;
    dpd_capture_report& rep = out.report;
    rep.rx_peak_dbfs = std::numeric_limits<double>::quiet_NaN();
    rep.rx_image_db = -std::numeric_limits<double>::infinity();
    double peak = 0;
    if (!o.condition) {
        // dpd_estimate._prepare on a capture that needs no conditioning: outliers, the
        // delay (the hint, or estimate_delay's search), the shift and the gain.
        e.clip(std::numeric_limits<double>::infinity(), peak);
        exclude_and_check_x();
        int64_t max_delay = -1;
        if (o.has_delay_hint) {
            rep.delay = o.delay_hint;
        } else {
            max_delay =
                o.max_delay < 0 ? std::min<int64_t>(int64_t(n) / 4, 8192) : o.max_delay;
            if (max_delay >= int64_t(n))
                refuse("max_delay: must be in [0, " + std::to_string(n - 1) +
                       "] for a capture of " + std::to_string(n) + " samples, got " +
                       std::to_string(max_delay));
        }
        align_tail(e, n, E::Y, max_delay, o, out);
        return out;
    }
    if (o.full_scale > 0) {
        rep.clipped = e.clip(clip_level * o.full_scale, peak);
        rep.rx_peak_dbfs = peak > 0 ? 20 * std::log10(peak / o.full_scale)
                                    : -std::numeric_limits<double>::infinity();
        if (double(rep.clipped) > max_clip_fraction * double(n)) {
            std::ostringstream os;
            // The gain is read at the middle of the samples the ADC did not clip.
            const double q = 0.5 * (1 - double(rep.clipped) / double(n));
            const double lower = clip_gain_step_db(e.abs_quantile(E::X, 1.0),
                                                   e.abs_quantile(E::X, q),
                                                   e.abs_quantile(E::Y, q),
                                                   o.full_scale,
                                                   rep.rx_peak_dbfs);
            os << "y: receiver clipping: " << rep.clipped << " of " << n << " samples ("
               << fmt("%.2g", 100.0 * double(rep.clipped) / double(n))
               << " %) at the ADC full scale " << fmt("%g", o.full_scale) << " (peak "
               << fmt("%+.1f", rep.rx_peak_dbfs) << " dBFS); lower the RX gain by "
               << fmt("%.1f", lower)
               << " dB (or add that attenuation): "
                  "x's peak at the loop's gain would reach "
               << fmt("%+.1f", lower - clip_headroom_db)
               << " dBFS, and the peak must stay below " << fmt("%g", -clip_headroom_db)
               << " dBFS";
            refuse(os.str());
        }
    } else {
        e.clip(std::numeric_limits<double>::infinity(), peak);
    }
    exclude_and_check_x();
    check_outliers(
        "y", e.zero_where(E::Y, E::YS, E::BY, outlier_threshold(e, E::Y), E::CLIP), n);

    const int64_t N = int64_t(n);
    int64_t max_delay = o.max_delay < 0 ? std::min<int64_t>(N / 4, 8192) : o.max_delay;
    max_delay = std::min(max_delay, N - 1);
    const int64_t wide = std::min(std::max(max_delay, 3 * N / 4), N - 1);
    int64_t d;
    double rho;
    if (o.has_delay_hint) {
        // Only the hint's neighbourhood while it still correlates; the fraction is always
        // measured again (a clock offset moves it).
        const int64_t hint = int64_t(std::llround(o.delay_hint));
        std::tie(d, rho) = e.envelope_delay(std::min(std::abs(hint) + 2, N - 1));
        if (std::abs(d - hint) > 1 || rho < min_envelope_correlation) {
            std::tie(d, rho) = e.envelope_delay(wide);
            rep.widened = true;
        }
    } else {
        std::tie(d, rho) = e.envelope_delay(max_delay);
        if (rho < min_envelope_correlation && max_delay < 3 * N / 4) {
            std::tie(d, rho) = e.envelope_delay(3 * N / 4);
            rep.widened = true;
        }
    }
    rep.envelope_correlation = rho;
    if (rho < min_envelope_correlation) {
        std::ostringstream os;
        os << "y: no lag of y within the capture matches "
              "the envelope of x (best correlation "
           << fmt("%.2f", rho) << " at lag " << d
           << "): the capture is not this PA input's output (no loopback signal, the "
              "wrong RX channel, or a delay beyond 3/4 of the capture)";
        refuse(os.str());
    }
    const capture_rotation r = phase_track(e, n, d, o.track_frequency, rep);
    e.derotate(r);
    // Fractional part on the de-rotated capture (the complex correlation is coherent now).
    {
        // estimate_delay's own checks, on the delayed x and the de-rotated y it correlates
        const capture_overlap ov(n, d);
        const size_t x0 = size_t(ov.lo - d);
        if (!(e.dots(E::XZ, x0, E::XZ, x0, ov.size(), false)[0].real() > 0))
            refuse("x: all zeros (no PA input captured)");
        if (!(e.dots(E::YR, 0, E::YR, 0, n, false)[0].real() > 0))
            refuse("y: all zeros (no PA output captured: check the loopback path and RX "
                   "gain)");
        const int half = 64;
        std::vector<cd> seg;
        const int64_t p = e.xcorr_peak(d, 1, half, seg);
        rep.delay = double(d) + golden_peak(seg, p, half);
    }
    const auto [first, len] = fractional_shift(e, E::XZ, E::XS, n, -rep.delay);
    if (o.rx_correction && len) {
        const auto s = e.rx_sums(r, first, len);
        // Normal equations of y ~ a s + b conj(s) + dc over the rows the masks keep.
        const cd S11 = s[0], S2 = s[1], S1 = s[2], cnt = s[3];
        std::array<std::array<cd, 3>, 3> A{ { { S11, std::conj(S2), std::conj(S1) },
                                              { S2, S11, S1 },
                                              { S1, std::conj(S1), cnt } } };
        const auto w = solve3<cd>(A, { s[4], s[5], s[6] });
        const cd a = w[0], b = w[1], dc = w[2];
        const cd kappa = std::abs(a) > 0 ? b / std::conj(a) : cd(0);
        e.rx_apply(r, dc, kappa);
        rep.rx_dc = dc;
        rep.rx_image_db = std::abs(kappa) > 0 ? 20 * std::log10(std::abs(kappa))
                                              : -std::numeric_limits<double>::infinity();
    } else {
        e.copy(E::YR, E::YC);
    }
    {
        const auto c = e.dots(E::XS, 0, E::YC, first, len, false);
        const double den = std::sqrt(c[0].real() * c[1].real());
        rep.correlation = den > 0 ? std::abs(c[2]) / den : 0.0;
    }
    if (rep.correlation < min_correlation) {
        std::ostringstream os;
        os << "y: after alignment (delay " << fmt("%.2f", rep.delay)
           << ") and frequency correction (" << fmt("%+.3g", rep.freq_offset)
           << " cycles/sample) y correlates with x only " << fmt("%.2f", rep.correlation)
           << ": the PA output is buried in noise or interference, "
              "or the frequency offset changes faster than a linear drift";
        refuse(os.str());
    }

    // _prepare: the corrected capture's own outliers, the shift onto x's grid, the gain.
    align_tail(e, n, E::YC, -1, o, out);
    return out;
}

} // namespace kernel
} // namespace gpuinterp
} // namespace gr
