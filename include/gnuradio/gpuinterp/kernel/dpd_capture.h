/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_KERNEL_DPD_CAPTURE_H
#define INCLUDED_GPUINTERP_KERNEL_DPD_CAPTURE_H

#include <gnuradio/gpuinterp/kernel/backend.h>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace kernel {

class capture_engine;

//! How a loopback capture is conditioned (Python's dpd_capture.condition arguments).
struct dpd_capture_options {
    double full_scale = 0;       //!< the receiver's ADC full scale; 0: no clipping check
    bool rx_correction = true;   //!< remove the receiver's DC and IQ image
    bool track_frequency = true; //!< remove a frequency offset and drift
    int64_t max_delay = -1;      //!< delay search range; -1: min(n / 4, 8192)
    bool has_delay_hint = false; //!< search only around delay_hint while it correlates
    double delay_hint = 0;
    //! The gain y is normalised by (yn = ya / gain) instead of the least-squares one, which
    //! a caller fixes when the fit must reproduce a known loop gain (dpd_estimate's target_gain).
    bool has_gain = false;
    std::complex<double> gain = 0;
    //! false: a capture that needs no conditioning (dpd_estimate's alignment alone):
    //! outliers, the delay by the complex cross-correlation within +-max_delay (the hint,
    //! when given, is the delay itself), the shift and the gain. full_scale,
    //! rx_correction and track_frequency are not used, and the report holds the delay only.
    bool condition = true;
};

//! What conditioning found (Python's dpd_capture.CaptureReport, same fields and units).
struct dpd_capture_report {
    //! The values of a report no step has filled (Python's CaptureReport() is this struct).
    static constexpr double unset = std::numeric_limits<double>::quiet_NaN();
    double rx_peak_dbfs = unset; //!< nan without a full scale
    size_t clipped = 0;
    double delay = unset;
    double envelope_correlation = unset;
    bool widened = false;
    double freq_offset = 0; //!< cycles per sample at the capture's centre
    double freq_drift = 0;  //!< cycles per sample^2
    double phase = 0;       //!< loop phase at the capture's centre, radians
    std::complex<double> rx_dc = 0;
    double rx_image_db =
        -std::numeric_limits<double>::infinity(); //!< -inf without an image
    double correlation = unset;
    size_t first = 0; //!< where the aligned capture starts in x: xa[i] = x[first + i]
};

//! A capture ready for the fit: xa[i] ~ G ya[i] with yn = ya / G; bad marks the rows an
//! outlier or clipped sample touches (no fit may use them).
struct dpd_aligned_capture {
    std::vector<std::complex<double>> xa, yn;
    std::vector<uint8_t> bad;
    double delay = 0;
    std::complex<double> gain = 0;
    dpd_capture_report report;
};

//! Where an aligned capture lives on a CUDA device (dpd_capture::device_view()): y (y / gain
//! is its yn) and x, n samples each, in the memory of `device`; null pointers on the CPU.
struct dpd_capture_device_view {
    const std::complex<double>* y = nullptr;
    const std::complex<double>* x = nullptr;
    size_t n = 0;
    int device = -1;
};

//! A capture that cannot be used; what() starts with the parameter it blames ("x: ", "y: ",
//! "target_gain: "), as the Python estimator's DPDError does.
class dpd_capture_error : public std::invalid_argument
{
public:
    explicit dpd_capture_error(const std::string& what) : std::invalid_argument(what) {}
};

/*!
 * \brief Loopback capture conditioning and alignment, the numeric part of one DPD update
 * before the fit (Python's dpd_capture.condition followed by dpd_estimate._prepare).
 *
 * \details From the PA input x and the receiver's capture y (same length n):
 *  1. clipping against the full scale (refused beyond 1e-4 of the samples), outliers
 *     beyond 24 x the robust RMS zeroed (refused beyond 1 %);
 *  2. the integer delay maximising the correlation coefficient of the envelopes |x|^2,
 *     |y|^2 (FFT cross-correlation with running energies), around a hint first when one is
 *     given, widening to 3/4 of the capture when the correlation is poor;
 *  3. frequency offset and drift: the strongest FFT line of y x*, then a weighted quadratic
 *     fit of the unwrapped phases of 1024-sample block sums (the fit on the host, 3 x 3);
 *  4. the fractional delay: band-limited interpolation of the complex cross-correlation of
 *     the de-rotated capture (a 129-term Kaiser sinc, golden-section search on the host);
 *  5. the receiver's DC and IQ image by least squares of y on [s, conj(s), 1] (normal
 *     equations summed by the backend, solved on the host), and the complex correlation
 *     check;
 *  6. the outlier mask of the corrected capture, the fractional shift of y onto x's grid
 *     (49-tap Kaiser-windowed sinc), the bad-row map and the least-squares gain.
 *
 * Precision: double throughout. The phase model is evaluated at sample indices up to n
 * (2^19 and more) with a drift term t^2, and the delay's fraction is resolved to 1e-6
 * sample: float's 24 bits would lose both.
 *
 * With options.condition false only the alignment is done (dpd_estimate._prepare: the
 * complex cross-correlation's peak within +-max_delay and its fraction, then step 6).
 *
 * Backends: cpu (FFTW for the cross-correlations and the coarse line) and cuda (cuFFT,
 * the passes as device kernels and reductions; only small results cross the bus until
 * the aligned capture is read back). Errors are dpd_capture_error with the estimator's
 * messages.
 */
class dpd_capture
{
public:
    explicit dpd_capture(backend requested = backend::automatic, int device = 0);
    ~dpd_capture();
    dpd_capture(const dpd_capture&) = delete;
    dpd_capture& operator=(const dpd_capture&) = delete;

    /*!
     * \param x the PA input, n samples (finite; checked)
     * \param y the receiver's capture, n samples (finite; checked)
     * \param exclude null, or n flags: samples of y that no fit may use (they are zeroed and
     *        the aligned rows they reach are marked bad, as a clipped sample's are)
     */
    dpd_aligned_capture align(const std::complex<double>* x,
                              const std::complex<double>* y,
                              size_t n,
                              const dpd_capture_options& options = {},
                              const uint8_t* exclude = nullptr);

    backend active_backend() const { return d_backend; }
    //! Why automatic fell back to the CPU (empty otherwise).
    const std::string& backend_note() const { return d_note; }
    /*!
     * \brief The device copy of `a`, the capture the last align() returned, as the CUDA
     * backend left it (valid until the next align()): what dpd_gram::hold() takes so that a
     * fit reads it without a second trip over the bus. Null pointers on the CPU backend.
     */
    dpd_capture_device_view device_view(const dpd_aligned_capture& a) const;
    /*!
     * \brief Two-sided Welch PSD of `a`'s y (the capture the last align() returned; up to
     * a constant factor its yn): periodic Hann window, nfft-sample segments every nfft / 2
     * samples, |FFT|^2 averaged, fftshifted (bin k is frequency (k - nfft / 2) fs / nfft).
     * Computed where the capture lies: FFTW on the CPU, cuFFT on the device. nfft: a power
     * of two, 8 <= nfft <= a's length.
     */
    std::vector<double> aligned_psd(const dpd_aligned_capture& a, size_t nfft);

    // The estimator's constants (Python's dpd_capture and dpd_estimate modules read them).
    static constexpr double clip_level = 0.99;
    static constexpr double max_clip_fraction = 1e-4;
    //! dB below full scale a receiver's peak should stay (the clipping refusal's advice): a
    //! margin for the PA's peaks moving as the DPD expands them
    static constexpr double clip_headroom_db = 1.0;
    static constexpr double min_envelope_correlation = 0.5;
    static constexpr double min_correlation = 0.8;
    static constexpr size_t phase_block = 1024;
    static constexpr double outlier_factor = 24.0;
    static constexpr double max_outlier_fraction = 0.01;
    //! The smallest loop gain |G| a capture is normalised by (a smaller one is no loopback).
    static constexpr double min_gain = 1e-12;
    static constexpr int shift_half_length = 24;
    //! The shortest capture align() takes: the shift's two windows and as many samples again.
    static constexpr size_t min_capture_length = 4 * shift_half_length;

private:
    backend d_backend;
    int d_device;
    std::string d_note;
    std::unique_ptr<capture_engine> d_engine;
};

} // namespace kernel
} // namespace gpuinterp
} // namespace gr

#endif
