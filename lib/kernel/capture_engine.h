/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_KERNEL_CAPTURE_ENGINE_H
#define INCLUDED_GPUINTERP_KERNEL_CAPTURE_ENGINE_H

// Internal: what a backend implements for dpd_capture. The front end (dpd_capture.cc) holds
// the whole decision logic (search ranges, refusals, the small fits); an engine holds the
// capture's vectors and masks and runs the O(n) and O(n log n) passes over them, handing
// back only scalars and short vectors.

#include <array>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace kernel {

//! The loop's rotation r[m] = exp(j (2 pi f0 t + ph0 + w1 t + w2 t^2)), t = m - centre
//! (Python's _phase_track). One definition for both backends' per-sample evaluation.
struct capture_rotation {
    double f0 = 0, ph0 = 0, w1 = 0, w2 = 0, centre = 0;
#if defined(__CUDACC__)
    __host__ __device__
#endif
        double
        angle(int64_t m) const
    {
        const double t = double(m) - centre;
        return 2 * 3.141592653589793 * f0 * t + ph0 + w1 * t + w2 * t * t;
    }
};

//! The overlap of y with x delayed by d, y[m] ~ x[m - d]: m in [lo, hi) (empty when hi <= lo).
struct capture_overlap {
    int64_t lo, hi;
    capture_overlap(size_t n, int64_t d)
        : lo(d > 0 ? d : 0), hi(d < 0 ? int64_t(n) + d : int64_t(n))
    {
    }
    size_t size() const { return hi > lo ? size_t(hi - lo) : 0; }
};

//! The FFT length of a correlation: the smallest power of two >= v (v >= 2n leaves no lag
//! wrapping onto another).
inline size_t capture_fft_size(size_t v)
{
    size_t m = 1;
    while (m < v)
        m <<= 1;
    return m;
}

class capture_engine
{
public:
    using cd = std::complex<double>;
    //! The capture's vectors, each n long unless noted.
    enum vec {
        X,  //!< x as loaded
        Y,  //!< y as loaded
        XZ, //!< x, outliers zeroed
        YS, //!< y, outliers and clipped samples zeroed
        YR, //!< YS de-rotated
        XS, //!< XZ shifted onto y's grid (shift() length)
        YC, //!< YS corrected and de-rotated
        YZ, //!< YC, its own outliers zeroed
        YA, //!< YZ shifted onto x's grid (shift() length)
        num_vecs
    };
    //! Flags per sample of the capture (BAD: per row of the aligned capture).
    enum mask { CLIP, BX, BY, BY2, BAD, num_masks };

    virtual ~capture_engine() = default;

    //! Copy the capture in; returns the count of non-finite values of x and y.
    virtual std::array<size_t, 2> load(const cd* x, const cd* y, size_t n) = 0;
    //! CLIP = |Re y| >= lim or |Im y| >= lim; peak = the largest |Re y|, |Im y|. Returns the
    //! count. lim = inf leaves CLIP all clear.
    virtual size_t clip(double lim, double& peak) = 0;
    //! CLIP |= flags (n host bytes, nonzero: a sample of y no fit may use). Returns the count
    //! set in CLIP afterwards.
    virtual size_t exclude(const uint8_t* flags) = 0;
    //! The q-quantile of |v| (linear interpolation between order statistics, numpy's
    //! default).
    virtual double abs_quantile(vec v, double q) = 0;
    //! out = |src| > thr, or'ed with `with` when with != num_masks; dst = src zeroed where
    //! out is set. Returns the count of |src| > thr alone.
    virtual size_t zero_where(vec src, vec dst, mask out, double thr, mask with) = 0;
    //! The envelope correlation coefficient of XZ, YS at every lag |t| <= max_delay (0
    //! beyond 3n/4); returns the first lag of the largest and its coefficient.
    virtual std::pair<int64_t, double> envelope_delay(int64_t max_delay) = 0;
    //! z[i] = YS[lo + i] conj(XZ[lo + i - d]) over the overlap at lag d: its sum.
    virtual cd phase_sum(int64_t d) = 0;
    //! The first index of the largest |FFT_nfft(z)| (z zero-padded to nfft).
    virtual size_t phase_line(int64_t d, size_t nfft) = 0;
    //! nb sums of `block` consecutive z[i] exp(-2 pi j f0 (lo + i - centre)).
    virtual std::vector<cd>
    phase_blocks(int64_t d, double f0, double centre, size_t block, size_t nb) = 0;
    //! YR = YS conj(r).
    virtual void derotate(const capture_rotation& r) = 0;
    /*!
     * \brief The cross-correlation c[t] = sum_k YR[k + t] conj(s[k]) of s (XZ delayed by
     * d: s[k] = XZ[k - d] on the overlap, 0 elsewhere) and YR.
     * \details Returns the lag p, |p| <= max_lag, of the largest |c| (the first in the
     * order 0, 1, .., max_lag, -max_lag, .., -1, as Python's estimate_delay searches) and
     * fills seg with c[p - half .. p + half] (cyclic in the FFT length, as estimate_delay
     * reads them).
     */
    virtual int64_t
    xcorr_peak(int64_t d, int64_t max_lag, int half, std::vector<cd>& seg) = 0;
    //! dst[i] = sum_k h[k] src[off + i + k], i < len (off + len - 1 + h.size() - 1 < n).
    virtual void
    shift(vec src, vec dst, int64_t off, const std::vector<double>& h, size_t len) = 0;
    /*!
     * \brief The receiver fit's sums over i < len with !BY[first + i]: s = r[first + i]
     * XS[i], v = YS[first + i]: { sum |s|^2, sum s^2, sum s, count, sum conj(s) v,
     * sum s v, sum v } (count in the real part).
     */
    virtual std::array<cd, 7>
    rx_sums(const capture_rotation& r, size_t first, size_t len) = 0;
    //! YC = ((YS - dc) - kappa conj(YS - dc)) conj(r), 0 where BY is set.
    virtual void rx_apply(const capture_rotation& r, cd dc, cd kappa) = 0;
    //! dst = src.
    virtual void copy(vec src, vec dst) = 0;
    /*!
     * \brief { sum |a|^2, sum |b|^2, sum conj(a) b } over i < len of a[a0 + i], b[b0 + i],
     * leaving out the rows where BAD is set when skip_bad.
     */
    virtual std::array<cd, 3>
    dots(vec a, size_t a0, vec b, size_t b0, size_t len, bool skip_bad) = 0;
    //! BAD[i] = BX[first + i] or any BY2 within +-half of clamp(first + i + shift), i < len.
    //! Returns the count.
    virtual size_t bad_rows(size_t first, size_t len, int64_t shift, int half) = 0;
    //! Host copies: v[v0 .. v0 + len) divided by div, and BAD[0 .. len).
    virtual void read(vec v, size_t v0, size_t len, cd div, cd* out) = 0;
    virtual void read_bad(size_t len, uint8_t* out) = 0;
    //! Two-sided Welch PSD of v[0 .. len) (len >= nfft, nfft a power of two >= 8): periodic
    //! Hann window, nfft-sample segments every nfft / 2 samples, |FFT|^2 averaged (relative
    //! units), fftshifted: bin k is frequency (k - nfft / 2) fs / nfft.
    virtual std::vector<double> welch_psd(vec v, size_t len, size_t nfft) = 0;
    //! Where v lives in the memory of the engine's CUDA device (valid until the next load()),
    //! or null for an engine on the host.
    virtual const cd* device_data(vec /*v*/) const { return nullptr; }
};

} // namespace kernel
} // namespace gpuinterp
} // namespace gr

#endif
