/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The CPU engine of dpd_capture: plain loops over the capture held in double, FFTW for the
// three correlations (envelopes by r2c/c2r, the coarse frequency line and the fractional
// delay by complex transforms). Plans are made with FFTW_ESTIMATE: a capture's sizes
// change from call to call and measuring plans would cost more than the transforms.
#include "../kernel/capture_engine.h"
#include "cpu_engines.h"
#include <fftw3.h>
#include <algorithm>
#include <cmath>
#include <mutex>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpuinterp {
namespace kernel {

namespace {
using cd = std::complex<double>;
using E = kernel::capture_engine;

// FFTW's planner is not thread-safe; executing a plan is.
std::mutex& planner_mutex()
{
    static std::mutex m;
    return m;
}

struct fft_buffer {
    fftw_complex* p = nullptr;
    size_t n = 0;
    explicit fft_buffer(size_t size) : p(fftw_alloc_complex(size)), n(size)
    {
        if (!p)
            throw std::bad_alloc();
        std::fill(data(), data() + n, cd(0));
    }
    ~fft_buffer() { fftw_free(p); }
    fft_buffer(const fft_buffer&) = delete;
    fft_buffer& operator=(const fft_buffer&) = delete;
    cd* data() { return reinterpret_cast<cd*>(p); }
};

// In-place complex transform of b (sign FFTW_FORWARD or FFTW_BACKWARD, unnormalised).
void fft(fft_buffer& b, int sign)
{
    fftw_plan plan;
    {
        std::lock_guard<std::mutex> lock(planner_mutex());
        plan = fftw_plan_dft_1d(int(b.n), b.p, b.p, sign, FFTW_ESTIMATE);
    }
    fftw_execute(plan);
    std::lock_guard<std::mutex> lock(planner_mutex());
    fftw_destroy_plan(plan);
}

class capture_engine_cpu final : public E
{
public:
    std::array<size_t, 2> load(const cd* x, const cd* y, size_t n) override
    {
        d_n = n;
        for (auto& v : d_v)
            v.clear();
        for (auto& m : d_m)
            m.assign(n, 0);
        d_v[X].assign(x, x + n);
        d_v[Y].assign(y, y + n);
        d_env_ready = false;
        std::array<size_t, 2> bad{ 0, 0 };
        for (size_t i = 0; i < n; i++) {
            bad[0] += !(std::isfinite(x[i].real()) && std::isfinite(x[i].imag()));
            bad[1] += !(std::isfinite(y[i].real()) && std::isfinite(y[i].imag()));
        }
        return bad;
    }

    size_t clip(double lim, double& peak) override
    {
        size_t c = 0;
        peak = 0;
        auto& m = d_m[CLIP];
        for (size_t i = 0; i < d_n; i++) {
            const double a = std::abs(d_v[Y][i].real()), b = std::abs(d_v[Y][i].imag());
            peak = std::max(peak, std::max(a, b));
            m[i] = a >= lim || b >= lim;
            c += m[i];
        }
        return c;
    }

    size_t exclude(const uint8_t* flags) override
    {
        size_t c = 0;
        auto& m = d_m[CLIP];
        for (size_t i = 0; i < d_n; i++) {
            m[i] = m[i] || flags[i];
            c += m[i];
        }
        return c;
    }

    double abs_quantile(vec v, double q) override
    {
        std::vector<double> a(d_n);
        for (size_t i = 0; i < d_n; i++)
            a[i] = std::abs(d_v[v][i]);
        const double h = q * double(d_n - 1);
        const size_t lo = size_t(std::floor(h));
        const double t = h - double(lo);
        std::nth_element(a.begin(), a.begin() + lo, a.end());
        const double va = a[lo];
        const double vb =
            lo + 1 < d_n ? *std::min_element(a.begin() + lo + 1, a.end()) : va;
        // numpy's _lerp, both branches
        return t >= 0.5 ? vb - (vb - va) * (1 - t) : va + (vb - va) * t;
    }

    size_t zero_where(vec src, vec dst, mask out, double thr, mask with) override
    {
        auto& s = d_v[src];
        auto& d = d_v[dst];
        auto& m = d_m[out];
        d.resize(d_n);
        size_t c = 0;
        for (size_t i = 0; i < d_n; i++) {
            const bool o = std::abs(s[i]) > thr;
            c += o;
            m[i] = o || (with != num_masks && d_m[with][i]);
            d[i] = m[i] ? cd(0) : s[i];
        }
        if (src == X || src == Y || dst == XZ || dst == YS)
            d_env_ready = false;
        return c;
    }

    std::pair<int64_t, double> envelope_delay(int64_t max_delay) override
    {
        const int64_t n = int64_t(d_n);
        if (!d_env_ready)
            envelope_correlation();
        const size_t m = d_r.size();
        double best = -std::numeric_limits<double>::infinity();
        int64_t arg = -max_delay;
        for (int64_t t = -max_delay; t <= max_delay; t++) {
            double rho = 0;
            if (std::abs(t) <= 3 * n / 4) {
                const double ex =
                    t >= 0 ? d_cx[size_t(n - t)] : d_cx[size_t(n)] - d_cx[size_t(-t)];
                const double ey =
                    t >= 0 ? d_cy[size_t(n)] - d_cy[size_t(t)] : d_cy[size_t(n + t)];
                const int64_t k = ((t % int64_t(m)) + int64_t(m)) % int64_t(m);
                rho = d_r[size_t(k)] / std::sqrt(std::max(ex * ey, 1e-300));
            }
            if (rho > best) {
                best = rho;
                arg = t;
            }
        }
        return { arg, best };
    }

    cd phase_sum(int64_t d) override
    {
        cd s = 0;
        overlap(d, [&](size_t, const cd& z) { s += z; });
        return s;
    }

    size_t phase_line(int64_t d, size_t nfft) override
    {
        fft_buffer b(nfft);
        cd* p = b.data();
        overlap(d, [&](size_t i, const cd& z) { p[i] = z; });
        fft(b, FFTW_FORWARD);
        size_t arg = 0;
        double best = -1;
        for (size_t k = 0; k < nfft; k++) {
            const double a = std::abs(p[k]);
            if (a > best) {
                best = a;
                arg = k;
            }
        }
        return arg;
    }

    std::vector<cd>
    phase_blocks(int64_t d, double f0, double centre, size_t block, size_t nb) override
    {
        std::vector<cd> s(nb, cd(0));
        const int64_t lo = kernel::capture_overlap(d_n, d).lo;
        overlap(d, [&](size_t i, const cd& z) {
            if (i < nb * block) {
                const double t = double(lo + int64_t(i)) - centre;
                s[i / block] += z * std::polar(1.0, -2 * M_PI * f0 * t);
            }
        });
        return s;
    }

    void derotate(const kernel::capture_rotation& r) override
    {
        auto& o = d_v[YR];
        o.resize(d_n);
        for (size_t i = 0; i < d_n; i++)
            o[i] = d_v[YS][i] * std::conj(std::polar(1.0, r.angle(int64_t(i))));
    }

    int64_t
    xcorr_peak(int64_t d, int64_t max_lag, int half, std::vector<cd>& seg) override
    {
        const size_t m = kernel::capture_fft_size(2 * d_n);
        fft_buffer a(m), b(m);
        cd* pa = a.data();
        cd* pb = b.data();
        std::copy(d_v[YR].begin(), d_v[YR].end(), pa);
        const kernel::capture_overlap ov(d_n, d);
        for (int64_t k = ov.lo; k < ov.hi; k++)
            pb[k] = d_v[XZ][size_t(k - d)];
        fft(a, FFTW_FORWARD);
        fft(b, FFTW_FORWARD);
        for (size_t k = 0; k < m; k++)
            pa[k] *= std::conj(pb[k]);
        fft(a, FFTW_BACKWARD);
        const double scale = 1.0 / double(m);
        int64_t p = 0;
        double best = -1;
        for (int64_t i = 0; i <= 2 * max_lag; i++) {
            const int64_t l = i <= max_lag ? i : i - (2 * max_lag + 1);
            const double v = std::abs(pa[(int64_t(m) + l) % int64_t(m)] * scale);
            if (v > best) {
                best = v;
                p = l;
            }
        }
        seg.resize(size_t(2 * half + 1));
        for (int j = -half; j <= half; j++)
            seg[size_t(j + half)] = pa[size_t((int64_t(m) + p + j) % int64_t(m))] * scale;
        return p;
    }

    void shift(
        vec src, vec dst, int64_t off, const std::vector<double>& h, size_t len) override
    {
        const auto& s = d_v[src];
        auto& o = d_v[dst];
        o.assign(len, cd(0));
        for (size_t i = 0; i < len; i++) {
            cd acc = 0;
            const cd* p = &s[size_t(off) + i];
            for (size_t k = 0; k < h.size(); k++)
                acc += h[k] * p[k];
            o[i] = acc;
        }
    }

    std::array<cd, 7>
    rx_sums(const kernel::capture_rotation& r, size_t first, size_t len) override
    {
        std::array<cd, 7> a{};
        for (size_t i = 0; i < len; i++) {
            const size_t j = first + i;
            if (d_m[BY][j])
                continue;
            const cd s = std::polar(1.0, r.angle(int64_t(j))) * d_v[XS][i];
            const cd v = d_v[YS][j];
            a[0] += std::norm(s);
            a[1] += s * s;
            a[2] += s;
            a[3] += 1.0;
            a[4] += std::conj(s) * v;
            a[5] += s * v;
            a[6] += v;
        }
        return a;
    }

    void rx_apply(const kernel::capture_rotation& r, cd dc, cd kappa) override
    {
        auto& o = d_v[YC];
        o.resize(d_n);
        for (size_t i = 0; i < d_n; i++) {
            const cd v = d_v[YS][i] - dc;
            o[i] = d_m[BY][i] ? cd(0)
                              : (v - kappa * std::conj(v)) *
                                    std::conj(std::polar(1.0, r.angle(int64_t(i))));
        }
    }

    void copy(vec src, vec dst) override { d_v[dst] = d_v[src]; }

    std::array<cd, 3>
    dots(vec a, size_t a0, vec b, size_t b0, size_t len, bool skip_bad) override
    {
        std::array<cd, 3> s{};
        for (size_t i = 0; i < len; i++) {
            if (skip_bad && d_m[BAD][i])
                continue;
            const cd u = d_v[a][a0 + i], v = d_v[b][b0 + i];
            s[0] += std::norm(u);
            s[1] += std::norm(v);
            s[2] += std::conj(u) * v;
        }
        return s;
    }

    size_t bad_rows(size_t first, size_t len, int64_t shift, int half) override
    {
        std::vector<size_t> c(d_n + 1, 0);
        for (size_t i = 0; i < d_n; i++)
            c[i + 1] = c[i] + d_m[BY2][i];
        auto& bad = d_m[BAD];
        size_t count = 0;
        for (size_t i = 0; i < len; i++) {
            const int64_t j =
                std::clamp<int64_t>(int64_t(first + i) + shift, 0, int64_t(d_n) - 1);
            const size_t lo = size_t(std::max<int64_t>(0, j - half));
            const size_t hi = size_t(std::min<int64_t>(int64_t(d_n), j + half + 1));
            bad[i] = d_m[BX][first + i] || c[hi] > c[lo];
            count += bad[i];
        }
        return count;
    }

    void read(vec v, size_t v0, size_t len, cd div, cd* out) override
    {
        for (size_t i = 0; i < len; i++)
            out[i] = d_v[v][v0 + i] / div;
    }

    void read_bad(size_t len, uint8_t* out) override
    {
        std::copy(d_m[BAD].begin(), d_m[BAD].begin() + len, out);
    }

private:
    // f(i, z) for z[i] = YS[lo + i] conj(XZ[lo + i - d]) over the overlap at lag d.
    template <typename F>
    void overlap(int64_t d, F f) const
    {
        const kernel::capture_overlap ov(d_n, d);
        for (int64_t k = ov.lo; k < ov.hi; k++)
            f(size_t(k - ov.lo), d_v[YS][size_t(k)] * std::conj(d_v[XZ][size_t(k - d)]));
    }

    // r[t] = sum_k ey[k + t] ex[k] of the mean-removed envelopes (r2c/c2r of length m >= 2n,
    // so no lag wraps onto another), and the running energies of the overlaps.
    void envelope_correlation()
    {
        const size_t n = d_n, m = kernel::capture_fft_size(2 * n);
        std::vector<double> ex(n), ey(n);
        double mx = 0, my = 0;
        for (size_t i = 0; i < n; i++) {
            ex[i] = std::norm(d_v[XZ][i]);
            ey[i] = std::norm(d_v[YS][i]);
            mx += ex[i];
            my += ey[i];
        }
        mx /= double(n);
        my /= double(n);
        d_cx.assign(n + 1, 0);
        d_cy.assign(n + 1, 0);
        double* rx = fftw_alloc_real(m);
        double* ry = fftw_alloc_real(m);
        fftw_complex* X = fftw_alloc_complex(m / 2 + 1);
        fftw_complex* Yc = fftw_alloc_complex(m / 2 + 1);
        std::fill(rx, rx + m, 0.0);
        std::fill(ry, ry + m, 0.0);
        for (size_t i = 0; i < n; i++) {
            rx[i] = ex[i] - mx;
            ry[i] = ey[i] - my;
            d_cx[i + 1] = d_cx[i] + rx[i] * rx[i];
            d_cy[i + 1] = d_cy[i] + ry[i] * ry[i];
        }
        fftw_plan p1, p2, p3;
        {
            std::lock_guard<std::mutex> lock(planner_mutex());
            p1 = fftw_plan_dft_r2c_1d(int(m), rx, X, FFTW_ESTIMATE);
            p2 = fftw_plan_dft_r2c_1d(int(m), ry, Yc, FFTW_ESTIMATE);
            p3 = fftw_plan_dft_c2r_1d(int(m), Yc, ry, FFTW_ESTIMATE);
        }
        fftw_execute(p1);
        fftw_execute(p2);
        cd* xs = reinterpret_cast<cd*>(X);
        cd* ys = reinterpret_cast<cd*>(Yc);
        for (size_t k = 0; k <= m / 2; k++)
            ys[k] *= std::conj(xs[k]);
        fftw_execute(p3);
        d_r.assign(ry, ry + m);
        for (auto& v : d_r)
            v /= double(m);
        {
            std::lock_guard<std::mutex> lock(planner_mutex());
            fftw_destroy_plan(p1);
            fftw_destroy_plan(p2);
            fftw_destroy_plan(p3);
        }
        fftw_free(rx);
        fftw_free(ry);
        fftw_free(X);
        fftw_free(Yc);
        d_env_ready = true;
    }

public:
    // scipy.signal.welch's two-sided density with a periodic Hann window and half-overlapping
    // segments, up to its constant scale.
    std::vector<double> welch_psd(vec src, size_t len, size_t nfft) override
    {
        const cd* x = d_v[src].data();
        const double pi = std::acos(-1.0);
        std::vector<double> win(nfft);
        for (size_t i = 0; i < nfft; i++)
            win[i] = 0.5 - 0.5 * std::cos(2 * pi * double(i) / double(nfft));
        const size_t step = nfft / 2;
        std::vector<double> psd(nfft, 0.0);
        fft_buffer b(nfft);
        size_t segments = 0;
        for (size_t s0 = 0; s0 + nfft <= len; s0 += step, segments++) {
            for (size_t i = 0; i < nfft; i++)
                b.data()[i] = x[s0 + i] * win[i];
            fft(b, FFTW_FORWARD);
            for (size_t k = 0; k < nfft;
                 k++) // fftshifted: bin k holds frequency k - nfft / 2
                psd[k] += std::norm(b.data()[(k + nfft / 2) % nfft]);
        }
        for (double& v : psd)
            v /= double(segments);
        return psd;
    }

private:
    size_t d_n = 0;
    std::vector<cd> d_v[num_vecs];
    std::vector<uint8_t> d_m[num_masks];
    bool d_env_ready = false;
    std::vector<double> d_r, d_cx, d_cy;
};
} // namespace

std::unique_ptr<kernel::capture_engine> make_cpu_capture_engine()
{
    return std::make_unique<capture_engine_cpu>();
}

} // namespace kernel
} // namespace gpuinterp
} // namespace gr
