/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "../common/parallel.h"
#include "engine_factory.h"
#include <gnuradio/gpuinterp/kernel/dpd_adapt.h>
#include <gnuradio/gpuinterp/kernel/dpd_predistorter.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <tuple>

namespace gr {
namespace gpuinterp {
namespace kernel {

namespace {
using cd = std::complex<double>;

std::string fmt(const char* f, double a, double b = 0, double c = 0)
{
    char buf[256];
    std::snprintf(buf, sizeof buf, f, a, b, c);
    return buf;
}

double db20(double ratio) { return 20 * std::log10(ratio); }

// sum conj(a_i) b_i over the rows
cd vdot(const std::vector<cd>& a,
        const std::vector<cd>& b,
        const std::vector<uint8_t>& rows)
{
    cd s = 0;
    for (size_t i = 0; i < a.size(); i++)
        if (rows[i])
            s += std::conj(a[i]) * b[i];
    return s;
}

// The median of v (the mean of the two middle values for an even count), as numpy's quantile
// 0.5 interpolates.
double median(std::vector<double> v)
{
    const size_t m = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + m, v.end());
    if (v.size() % 2)
        return v[m];
    const double hi = v[m];
    return 0.5 * (*std::max_element(v.begin(), v.begin() + m) + hi);
}

// z[i] += w (y[i - sl] |y[i - el]|^p, conjugated with Conj) for i in [lo, hi), env = |y|^p.
// The complex arithmetic is written out: std::complex's operator* guards against inf and NaN
// (C99 Annex G), which keeps the loop from vectorising.
template <bool Conj, bool Env>
void add_term(cd* z,
              const cd* y,
              const double* env,
              cd w,
              int64_t lo,
              int64_t hi,
              int64_t sl,
              int64_t el)
{
    const double wr = w.real(), wi = w.imag();
    for (int64_t i = lo; i < hi; i++) {
        const cd s = y[i - sl];
        const double e = Env ? env[i - el] : 1.0;
        const double vr = s.real() * e, vi = (Conj ? -s.imag() : s.imag()) * e;
        z[i] = cd(z[i].real() + wr * vr - wi * vi, z[i].imag() + wr * vi + wi * vr);
    }
}

// |gain| of y (= yn Gc) on x over the rows whose |x| is at most its median: the loop's linear
// part, where neither the PA's compression nor the predistorter's expansion reaches.
double small_signal_gain(const std::vector<cd>& xa,
                         const std::vector<cd>& yn,
                         cd Gc,
                         const std::vector<uint8_t>& ok)
{
    // On |x|^2: the same rows as on |x| (the median of the squares lies between the same two
    // middle samples), without a hypot per sample.
    std::vector<double> a;
    a.reserve(xa.size());
    for (size_t i = 0; i < xa.size(); i++)
        if (ok[i])
            a.push_back(std::norm(xa[i]));
    if (a.empty())
        return std::abs(Gc);
    const double med = median(a);
    std::vector<uint8_t> rows(xa.size());
    double den = 0;
    for (size_t i = 0; i < xa.size(); i++) {
        rows[i] = ok[i] && std::norm(xa[i]) <= med;
        if (rows[i])
            den += std::norm(xa[i]);
    }
    const double g = den > 0 ? std::abs(Gc * vdot(xa, yn, rows) / den) : 0.0;
    return std::isfinite(g) && g > 0 ? g : std::abs(Gc);
}

// Whether the capture's two halves measure the same linear gain within tol_db: a gain that
// moved before the capture began, not one that moved inside it.
bool halves_agree(const std::vector<cd>& xa,
                  const std::vector<cd>& yn,
                  cd Gc,
                  const std::vector<uint8_t>& ok,
                  double tol_db)
{
    const size_t h = xa.size() / 2;
    double g[2];
    for (int part = 0; part < 2; part++) {
        std::vector<uint8_t> rows(ok.size(), 0);
        size_t count = 0;
        for (size_t i = part ? h : 0; i < (part ? ok.size() : h); i++)
            count += (rows[i] = ok[i]);
        if (count < 64)
            return false;
        g[part] = small_signal_gain(xa, yn, Gc, rows);
    }
    return std::abs(db20(g[0] / g[1])) <= tol_db;
}

// NMSE of est against ref over the rows (dB), and its standard error (dB) from the spread of the
// error over blocks of the capture's rows.
std::pair<double, double> loop_nmse(const std::vector<cd>& ref,
                                    const std::vector<cd>& est,
                                    const std::vector<uint8_t>& ok,
                                    size_t block)
{
    std::vector<double> e;
    double den = 0, num = 0;
    for (size_t i = 0; i < ref.size(); i++)
        if (ok[i]) {
            e.push_back(std::norm(ref[i] - est[i]));
            den += std::norm(ref[i]);
            num += e.back();
        }
    const double nm = 10 * std::log10(std::max(num / den, 1e-30));
    const size_t nb = e.size() / block;
    if (nb < 4)
        return { nm, 0.0 };
    std::vector<double> pb(nb, 0.0);
    double mean = 0;
    for (size_t b = 0; b < nb; b++) {
        for (size_t i = 0; i < block; i++)
            pb[b] += e[b * block + i];
        mean += pb[b] / double(nb);
    }
    double var = 0;
    for (double v : pb)
        var += (v - mean) * (v - mean);
    const double sd = std::sqrt(var / double(nb - 1));
    const double rel = sd / std::sqrt(double(nb)) / std::max(mean, 1e-300);
    return { nm, rel > 0 ? 10 * std::log10(1 + rel) : 0.0 };
}

// Power in [lo, hi] of a PSD sampled at f_k = (k - nfft/2) df (rectangle rule; the edge bins
// weighted by the fraction of the bin inside).
double band_power(const std::vector<double>& psd, double df, double lo, double hi)
{
    const double half = double(psd.size() / 2);
    double s = 0;
    for (size_t k = 0; k < psd.size(); k++) {
        const double f = (double(k) - half) * df;
        const double a = std::clamp((f + df / 2 - lo) / df, 0.0, 1.0);
        const double b = std::clamp((hi - (f - df / 2)) / df, 0.0, 1.0);
        s += psd[k] * std::min(a, b);
    }
    return s * df;
}

void check(bool ok, const std::string& what)
{
    if (!ok)
        throw std::invalid_argument(what);
}
} // namespace

dpd_adapt::dpd_adapt(const dpd_model& model,
                     const dpd_adapt_options& o,
                     const std::vector<cd>& initial,
                     cd initial_lo,
                     direct_fitter direct)
    : d_model(model),
      d_opt(o),
      d_direct(std::move(direct)),
      d_damping(o.damping),
      d_min_damping(o.min_damping),
      d_gain_fixed(o.target_gain != cd(0))
{
    check(o.damping > 0 && o.damping <= 1,
          fmt("damping: must be in (0, 1], got %g", o.damping));
    check(o.min_damping > 0 && o.min_damping <= o.damping,
          fmt("min_damping: must be in (0, damping], got %g", o.min_damping));
    check(std::isfinite(o.rollback_tolerance_db) && o.rollback_tolerance_db >= 0,
          fmt("rollback_tolerance_db: must be finite and >= 0, got %g",
              o.rollback_tolerance_db));
    check(std::isfinite(o.max_gain_db) && o.max_gain_db > 0,
          fmt("max_gain_db: must be finite and > 0, got %g", o.max_gain_db));
    check(std::isfinite(o.gain_tolerance_db) && o.gain_tolerance_db > 0,
          fmt("gain_tolerance_db: must be finite and > 0, got %g", o.gain_tolerance_db));
    check(std::isfinite(o.aclr_tolerance_db) && o.aclr_tolerance_db > 0,
          fmt("aclr_tolerance_db: must be finite and > 0, got %g", o.aclr_tolerance_db));
    check(std::isfinite(o.target_gain.real()) && std::isfinite(o.target_gain.imag()),
          "target_gain: must be finite (0 or None: measure it)");
    const bool band = o.aclr_rate || o.aclr_bandwidth || o.aclr_spacing;
    check(!band || (o.aclr_rate > 0 && o.aclr_bandwidth > 0 && o.aclr_spacing > 0 &&
                    std::isfinite(o.aclr_rate) && std::isfinite(o.aclr_bandwidth) &&
                    std::isfinite(o.aclr_spacing) &&
                    o.aclr_rate / 2 >= o.aclr_spacing + o.aclr_bandwidth / 2),
          fmt("aclr_band: must be None or (sample_rate, channel_bandwidth, "
              "channel_spacing) in Hz, > 0, with the adjacent channel inside the "
              "sampled band, got (%g, %g, %g)",
              o.aclr_rate,
              o.aclr_bandwidth,
              o.aclr_spacing));
    check(o.regularization >= 0 || std::isnan(o.regularization),
          fmt("regularization: must be None or a finite value >= 0, got %g",
              o.regularization));
    check(o.max_condition > 0,
          fmt("max_condition: must be None or > 0, got %g", o.max_condition));
    check(std::isfinite(o.min_samples_per_coefficient) &&
              o.min_samples_per_coefficient > 0,
          fmt("min_samples_per_coefficient: must be finite and > 0, got %g",
              o.min_samples_per_coefficient));
    if (d_model.is_neural())
        check(bool(d_direct),
              "model: a neural predistorter (" + d_model.to_string() +
                  ") is trained by learning='direct' (through a surrogate of the PA); "
                  "indirect learning fits the polynomial families");
    d_capture = std::make_unique<dpd_capture>(o.requested, o.device);
    if (!d_direct)
        d_gram = std::make_unique<dpd_gram>(d_model, o.lo_leakage, o.requested, o.device);
    if (d_gain_fixed)
        d_gain = std::abs(o.target_gain);
    std::vector<cd> w0 = initial;
    if (w0.empty() && !d_model.is_neural()) {
        w0.assign(d_model.num_coefficients(), cd(0));
        w0[0] = 1.0; // the first term of every polynomial family is x[n]
    }
    set_coefficients(w0, initial_lo, "initial_");
}

void dpd_adapt::set_coefficients(const std::vector<cd>& w, cd c)
{
    set_coefficients(w, c, "");
}

void dpd_adapt::set_coefficients(const std::vector<cd>& w,
                                 cd c,
                                 const std::string& prefix)
{
    const size_t K =
        d_model.is_neural() ? d_model.num_weights() : d_model.num_coefficients();
    size_t bad = 0;
    for (const cd& v : w)
        bad += !(std::isfinite(v.real()) && std::isfinite(v.imag()));
    check(w.size() == K && !bad,
          prefix + "coefficients: expected " + std::to_string(K) + " finite values for " +
              d_model.to_string() + ", got " + std::to_string(w.size()) +
              (bad ? ", " + std::to_string(bad) + " of them NaN or infinite" : ""));
    check(std::isfinite(c.real()) && std::isfinite(c.imag()),
          prefix + "lo_leakage: must be finite");
    d_w = w;
    d_c = c;
}

dpd_adapt::~dpd_adapt() = default;

void dpd_adapt::set_damping(double damping)
{
    check(damping > 0 && damping <= 1,
          fmt("damping: must be in (0, 1], got %g", damping));
    d_damping = damping;
    d_min_damping = std::min(d_min_damping, damping);
}

void dpd_adapt::reset_gain()
{
    if (d_gain_fixed)
        return;
    d_gain = d_candidate = d_ref_gain = unset();
    d_best.reset();
    d_best_aclr.reset();
}

dpd_step_result
dpd_adapt::result(const std::string& status, const std::string& reason, dpd_step_result r)
{
    std::tie(r.iteration, r.status, r.reason) = std::tie(d_iteration, status, reason);
    std::tie(r.coefficients, r.lo_leakage, r.damping) = std::tie(d_w, d_c, d_damping);
    d_history.push_back(r);
    return r;
}

std::vector<cd>
dpd_adapt::apply(const std::vector<cd>& y, const std::vector<cd>& w, cd c) const
{
    const size_t n = y.size();
    if (d_model.is_neural()) {
        // The C++ kernel from the start of the stream, zeros after y for its look-ahead.
        std::vector<float> wf(w.size());
        for (size_t i = 0; i < w.size(); i++)
            wf[i] = float(w[i].real());
        dpd_predistorter k(d_model, wf, backend::cpu);
        const size_t la = k.delay();
        std::vector<std::complex<float>> in(n + la, 0), out(n + la);
        for (size_t i = 0; i < n; i++)
            in[i] = std::complex<float>(y[i]);
        k.process(out.data(), in.data(), in.size());
        std::vector<cd> z(n);
        for (size_t i = 0; i < n; i++)
            z[i] = cd(out[i + la]);
        return z;
    }
    // The model's terms in double (dpd_model.h's basis: zeros before y[0] and after its end).
    std::vector<cd> z(n, c);
    const auto terms = d_model.terms();
    unsigned top = 0;
    for (const auto& d : terms)
        top = std::max(top, d.power);
    // |y|^k, k = 1..top, from |y| taken once as the square root of the norm: the samples are
    // O(1), so std::abs's overflow-safe (and several times slower) hypot buys nothing.
    std::vector<std::vector<double>> pw(top + 1);
    for (unsigned k = 1; k <= top; k++)
        pw[k].resize(n);
    if (top)
        cpu::parallel_ranges(n, 4096, double(n) * top, [&](int, size_t r0, size_t r1) {
            for (size_t i = r0; i < r1; i++) {
                pw[1][i] = std::sqrt(std::norm(y[i]));
                for (unsigned k = 2; k <= top; k++)
                    pw[k][i] = pw[k - 1][i] * pw[1][i];
            }
        });
    // Each thread owns a range of rows and adds every term to a tile of them at a time (the
    // tile's z, y and |y|^k stay in cache across the terms), over the rows whose signal (and
    // envelope) sample lies inside y.
    constexpr size_t tile = 1024;
    cpu::parallel_ranges(
        n, tile, double(n) * double(terms.size()), [&](int, size_t r0, size_t r1) {
            for (size_t b0 = r0; b0 < r1; b0 += tile) {
                const int64_t t0 = int64_t(b0), t1 = int64_t(std::min(r1, b0 + tile));
                for (size_t t = 0; t < terms.size(); t++) {
                    const auto& d = terms[t];
                    const int64_t sl = d.signal_lag, el = d.envelope_lag,
                                  len = int64_t(n);
                    int64_t lo = std::max(t0, sl), hi = std::min(t1, len + sl);
                    if (d.power) {
                        lo = std::max(lo, el);
                        hi = std::min(hi, len + el);
                    }
                    const double* env = d.power ? pw[d.power].data() : nullptr;
                    const auto add =
                        d.conjugate
                            ? (env ? add_term<true, true> : add_term<true, false>)
                            : (env ? add_term<false, true> : add_term<false, false>);
                    add(z.data(), y.data(), env, w[t], lo, hi, sl, el);
                }
            }
        });
    return z;
}

double dpd_adapt::observed_aclr(const dpd_aligned_capture& a) const
{
    const double nan = unset();
    if (!d_opt.aclr_rate || a.xa.size() < 8)
        return nan;
    size_t nfft = 1;
    while (nfft * 2 <= a.xa.size() && nfft < 8192)
        nfft *= 2;
    // The spectrum of the aligned y where the capture kernel holds it; a ratio of its bands,
    // so its scale (yn is y divided by the loop gain) does not matter.
    const std::vector<double> psd = d_capture->aligned_psd(a, nfft);
    const double df = d_opt.aclr_rate / double(nfft), bw = d_opt.aclr_bandwidth;
    const double main = band_power(psd, df, -bw / 2, bw / 2);
    if (!(main > 0))
        return nan;
    double worst = -std::numeric_limits<double>::infinity();
    for (int side : { -1, 1 }) {
        const double f0 = side * d_opt.aclr_spacing;
        worst = std::max(
            worst,
            10 * std::log10(
                     std::max(band_power(psd, df, f0 - bw / 2, f0 + bw / 2), 1e-300) /
                     main));
    }
    return worst;
}

dpd_step_result dpd_adapt::step(const cd* x, size_t nx, const cd* y, size_t ny)
{
    d_iteration++;
    dpd_step_result info;
    // The pair as one capture: equal lengths, neither empty nor all zeros.
    if (nx != ny)
        return result(
            "refused",
            "x, y: lengths differ (" + std::to_string(nx) + " vs " + std::to_string(ny) +
                "); pass the PA input and output captures of equal length (trim "
                "them to the same span)",
            info);
    const size_t n = nx;
    if (!n)
        return result("refused", "x: empty capture", info);
    // Non-finite samples are the conditioning's refusal (dpd_capture::align); all-zero ones
    // are refused here first, before any search could fail on them with a vaguer reason.
    bool any[2] = { false, false };
    for (size_t i = 0; i < n && !(any[0] && any[1]); i++) {
        any[0] = any[0] || x[i] != cd(0);
        any[1] = any[1] || y[i] != cd(0);
    }
    if (!any[0])
        return result("refused", "x: all zeros (no PA input captured)", info);
    if (!any[1])
        return result(
            "refused",
            "y: all zeros (no PA output captured: check the loopback path and RX gain)",
            info);
    dpd_capture_options co = d_opt.capture;
    co.condition = true;
    co.has_delay_hint = std::isfinite(d_delay);
    co.delay_hint = co.has_delay_hint ? d_delay : 0;
    co.has_gain = false;
    dpd_aligned_capture a;
    try {
        a = d_capture->align(x, y, n, co);
    } catch (const dpd_capture_error& e) {
        return result("refused", e.what(), info);
    }
    info.delay = a.delay;
    info.has_capture = true;
    info.capture = a.report;
    std::vector<cd>&xa = a.xa, &yn = a.yn;
    const size_t m = xa.size();
    const std::vector<uint8_t> ok =
        d_model.usable_rows(m, a.bad.empty() ? nullptr : a.bad.data());
    size_t usable = 0;
    for (uint8_t v : ok)
        usable += v;
    try {
        dpd_gram::require_rows(usable,
                               d_model.num_coefficients() + (d_opt.lo_leakage ? 1 : 0),
                               d_opt.min_samples_per_coefficient);
    } catch (const std::invalid_argument& e) {
        return result("refused", e.what(), info);
    }
    d_delay = a.delay;
    const double tol = d_opt.gain_tolerance_db;
    const cd Gc = a.gain;
    const double gs = small_signal_gain(xa, yn, Gc, ok);
    // The loop gain moved beyond the tolerance and |G| follows it on this capture.
    bool moved = false;
    if (std::isnan(d_gain)) {
        // First |G|, or a moved one: latch it once a second capture agrees.
        if (std::isnan(d_candidate) || std::abs(db20(std::abs(Gc) / d_candidate)) > tol) {
            d_candidate = std::abs(Gc);
            info.gain = Gc * std::polar(1.0, a.report.phase);
            return result(
                "calibrating",
                fmt("gain: |G| %.2f dB measured; confirming it on the next capture "
                    "before latching",
                    db20(std::abs(Gc))),
                info);
        }
        d_gain = std::abs(Gc);
        d_candidate = unset();
        d_ref_gain = gs;
        d_anchor_G = std::abs(Gc);
        d_anchor_gain = gs;
    } else if (!d_gain_fixed) {
        const double move_db = db20(gs / d_ref_gain);
        const double follow = d_anchor_G * gs / d_anchor_gain;
        if (std::abs(move_db) > tol) {
            const bool confirmed =
                !std::isnan(d_candidate) && std::abs(db20(follow / d_candidate)) <= tol;
            if (confirmed || (std::abs(move_db) <= max_follow_db &&
                              halves_agree(xa, yn, Gc, ok, tol / 4))) {
                // Both best records belong to the old gain (the observation's noise floor
                // moves with the RX gain, and the ACLR with it).
                d_candidate = unset();
                d_best.reset();
                d_best_aclr.reset();
                moved = true;
            } else {
                d_candidate = follow;
                return result("refused",
                              fmt("gain: the loop gain moved %+.2f dB since the last "
                                  "capture (beyond +-%g dB): a glitch in this capture, "
                                  "or the gain moved (TX/RX gain, attenuator); |G| "
                                  "follows it if the next capture agrees",
                                  move_db,
                                  tol),
                              info);
            }
        } else {
            d_candidate = unset();
        }
        d_gain = follow;
        d_ref_gain = gs;
    }
    // y normalised by the held |G| and this capture's own phase
    const cd G = d_gain * Gc / std::abs(Gc);
    for (cd& v : yn)
        v *= Gc / G;
    const std::vector<cd> f_cur = apply(yn, d_w, d_c);
    // The loop gain as the caller sees it (y against x at the capture's centre): the phase
    // taken out with the frequency offset belongs to it.
    info.gain = d_last_gain = G * std::polar(1.0, a.report.phase);
    const auto [loop, se] = loop_nmse(xa, f_cur, ok, nmse_block);
    info.loop_nmse_db = loop;
    if (d_best && d_restored)
        // The set rolled back to is measured again: the record was the minimum of noisy
        // measurements, and holding it would roll back every later update by its noise.
        *d_best = { loop, d_best->w, d_best->c, se };
    d_restored = false;
    // Worse by more than the tolerance and three standard errors of the two measurements.
    const double margin =
        d_opt.rollback_tolerance_db + (d_best ? 3 * std::hypot(se, d_best->se) : 0.0);
    if (d_best && loop > d_best->nmse + margin) {
        const double best_nmse = d_best->nmse;
        d_w = d_best->w;
        d_c = d_best->c;
        d_damping = std::max(d_min_damping, d_damping / 2);
        d_restored = true;
        if (d_best_aclr) {
            // The set restored is the ACLR record's too, measured again on the next capture: a
            // record of another set would take the restored one for a loss and roll back again.
            *d_best_aclr = { std::numeric_limits<double>::infinity(), d_w, d_c, 0 };
            d_aclr_restored = true;
        }
        return result(
            "rolled back",
            fmt("loop NMSE %.2f dB is worse than the best %.2f dB by more than %.2f "
                "dB (tolerance + 3 standard errors)",
                loop,
                best_nmse,
                margin),
            info);
    }
    if (!d_best || loop < d_best->nmse)
        d_best = std::make_unique<record>(record{ loop, d_w, d_c, se });
    // The quantity the operator cares about: the ACLR of the observation. On a receiver whose
    // phase noise floors the loop NMSE, updates can cost ACLR that the NMSE never shows.
    const double aclr = observed_aclr(a);
    info.aclr_db = aclr;
    if (std::isfinite(aclr)) {
        if (d_best_aclr &&
            d_aclr_restored) // measured again, as the NMSE's best record is
            d_best_aclr->nmse = aclr;
        d_aclr_restored = false;
        if (d_best_aclr && aclr > d_best_aclr->nmse + d_opt.aclr_tolerance_db) {
            const double best_aclr = d_best_aclr->nmse;
            d_w = d_best_aclr->w;
            d_c = d_best_aclr->c;
            d_damping = std::max(d_min_damping, d_damping / 2);
            d_aclr_restored = true;
            d_best.reset(); // the NMSE record starts again from the set restored
            return result(
                "rolled back",
                fmt("observation ACLR %.2f dBc is worse than the best %.2f dBc by "
                    "more than aclr_tolerance_db %g dB",
                    aclr,
                    best_aclr,
                    d_opt.aclr_tolerance_db),
                info);
        }
        if (!d_best_aclr || aclr < d_best_aclr->nmse)
            d_best_aclr = std::make_unique<record>(record{ aclr, d_w, d_c, 0 });
    }
    std::vector<cd> w_est;
    cd c_est = 0;
    try {
        if (d_direct) {
            dpd_direct_fit f = d_direct(xa, yn, ok, d_w, d_c);
            check(f.coefficients.size() == d_w.size(),
                  "coefficients: the direct fit returned " +
                      std::to_string(f.coefficients.size()) + " values for " +
                      std::to_string(d_w.size()));
            w_est = std::move(f.coefficients);
            c_est = f.lo_leakage;
            info.fit_nmse_db = f.fit_nmse_db;
        } else {
            // The fit's passes read the capture where the capture kernel left it (on a GPU:
            // on the device, so the capture crosses the bus once per step).
            const dpd_capture_device_view dev = d_capture->device_view(a);
            d_gram->hold(0, yn.data(), xa.data(), m, dev.y, dev.x, G, dev.device);
            struct releaser {
                dpd_gram* g;
                ~releaser() { g->release(); }
            } const releasing{ d_gram.get() };
            dpd_gram_solution s;
            if (std::isnan(d_opt.regularization)) {
                s = d_gram->fit_kfold(yn.data(),
                                      xa.data(),
                                      m,
                                      ok.data(),
                                      a.bad.empty() ? nullptr : a.bad.data());
            } else {
                d_gram->reset();
                d_gram->add(yn.data(), m, xa.data(), ok.data());
                dpd_gram_options go;
                go.mode = dpd_gram_options::mode_t::fixed;
                go.regularization = d_opt.regularization;
                s = d_gram->solve(go);
            }
            dpd_gram::check_condition(s.condition, d_opt.max_condition);
            w_est = s.w;
            if (d_opt.lo_leakage) {
                c_est = w_est.back();
                w_est.pop_back();
            }
            info.fit_nmse_db = s.fit_nmse_db;
            info.condition = s.condition;
        }
    } catch (const std::exception& e) {
        return result("refused", e.what(), info);
    }
    // After a gain move the set in use was fitted at another operating point (a TX step moves
    // the PA's drive): this capture's estimate replaces it instead of being blended into it.
    const double mu = moved ? 1.0 : d_damping;
    std::vector<cd> w_new(d_w.size());
    for (size_t i = 0; i < d_w.size(); i++)
        w_new[i] = d_w[i] + mu * (w_est[i] - d_w[i]);
    cd c_new = d_c + mu * (c_est - d_c);
    if (d_opt.capture.rx_correction && std::abs(a.report.freq_offset) * double(m) < 2)
        // TX and RX share the LO: the transmitter's carrier leakage lands on the receiver's
        // DC, which the correction removed; what the LO-leakage term fits then is the
        // capture's finite-sample mean, not the transmitter's leakage, and is not applied.
        // (With two turns or more of frequency offset in the capture the two DCs separate.)
        c_new = d_c;
    bool finite = std::isfinite(c_new.real()) && std::isfinite(c_new.imag());
    for (const cd& v : w_new)
        finite = finite && std::isfinite(v.real()) && std::isfinite(v.imag());
    if (!finite)
        return result("refused", "coefficients: update is not finite", info);
    const std::vector<cd> z = apply(yn, w_new, c_new);
    double pz = 0, py = 0;
    for (size_t i = 0; i < m; i++)
        if (ok[i]) {
            pz += std::norm(z[i]);
            py += std::norm(yn[i]);
        }
    const double g_db = 10 * std::log10(std::max(pz, 1e-300) / py);
    if (std::abs(g_db) > d_opt.max_gain_db)
        return result(
            "refused",
            fmt("coefficients: predistorter gain %.1f dB on the capture exceeds "
                "+-max_gain_db %g dB",
                g_db,
                d_opt.max_gain_db),
            info);
    d_w = std::move(w_new);
    d_c = c_new;
    return result("updated", "", info);
}

} // namespace kernel
} // namespace gpuinterp
} // namespace gr
