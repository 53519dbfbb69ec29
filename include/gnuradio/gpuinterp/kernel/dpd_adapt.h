/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_KERNEL_DPD_ADAPT_H
#define INCLUDED_GPUINTERP_KERNEL_DPD_ADAPT_H

#include <gnuradio/gpuinterp/kernel/backend.h>
#include <gnuradio/gpuinterp/kernel/dpd_capture.h>
#include <gnuradio/gpuinterp/kernel/dpd_gram.h>
#include <gnuradio/gpuinterp/kernel/dpd_model.h>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace kernel {

//! The loop's policy and its fit (Python's Adaptation arguments; dpd_adapt checks them).
struct dpd_adapt_options {
    double damping = 0.8; //!< w <- w + damping (w_est - w), in (0, 1]
    double min_damping =
        0.1; //!< a rollback halves the damping down to this, (0, damping]
    double rollback_tolerance_db =
        0.5; //!< loop NMSE worse than the best by more: roll back
    double max_gain_db =
        10; //!< an update's predistorter gain on y/G beyond +-this: refused
    double gain_tolerance_db = 1; //!< a loop-gain move beyond this waits or is followed
    double aclr_tolerance_db =
        1; //!< observation ACLR worse than the best by more: roll back
    //! |G| fixed to |target_gain| (0: measured, confirmed by a second capture and latched)
    std::complex<double> target_gain = 0;
    //! The observation's ACLR band (sample rate, channel bandwidth, channel spacing, Hz);
    //! all 0: no ACLR rollback.
    double aclr_rate = 0, aclr_bandwidth = 0, aclr_spacing = 0;
    //! The conditioning: full_scale, rx_correction, track_frequency, max_delay (the delay hint
    //! is the loop's own: the delay found on the previous capture).
    dpd_capture_options capture;
    bool lo_leakage = true; //!< fit the LO-leakage constant
    //! lambda relative to the largest eigenvalue; NaN: K-fold cross-validation
    //! (dpd_gram::fit_kfold)
    double regularization = std::numeric_limits<double>::quiet_NaN();
    //! a fit whose condition number is not below this is refused (inf: never)
    double max_condition = std::numeric_limits<double>::infinity();
    double min_samples_per_coefficient = 10; //!< usable rows per unknown a capture needs
    backend requested = backend::automatic;  //!< the capture kernel's and the Gram's
    int device = 0;
};

//! One step's outcome (Python's StepResult).
struct dpd_step_result {
    static constexpr double unset = std::numeric_limits<double>::quiet_NaN();
    size_t iteration = 0;
    //! "updated", "rolled back", "calibrating" (the loop gain waits for the next capture to
    //! confirm it; nothing is sent) or "refused" (reason says why)
    std::string status;
    std::vector<std::complex<double>>
        coefficients; //!< what the predistorter should use now
    std::complex<double> lo_leakage = 0;
    double loop_nmse_db = unset; //!< NMSE of x against f_current(y/G) on this capture
    double fit_nmse_db = unset;
    double delay = unset;
    std::complex<double> gain =
        0; //!< the G this capture was normalised by, its phase turned
    double condition = unset;
    double damping = unset;
    std::string reason;
    bool has_capture = false; //!< false: refused before the conditioning reported
    dpd_capture_report capture;
    double aclr_db = unset; //!< worse-side ACLR of the observation, dBc
};

//! What a fit other than least squares returns (direct learning through a surrogate).
struct dpd_direct_fit {
    std::vector<std::complex<double>> coefficients;
    std::complex<double> lo_leakage = 0;
    double fit_nmse_db = std::numeric_limits<double>::quiet_NaN();
};

/*!
 * \brief Closed-loop DPD adaptation: one learning step per capture, with the loop gain latched
 * and followed, damping and rollback, on captures a real receiver took.
 *
 * \details step(x, y) with x the predistorter's output (the PA input) and y the PA's output
 * through the observation receiver, captured while the predistorter ran with coefficients():
 *  1. the capture is conditioned and aligned (dpd_capture: clipping, delay, frequency offset
 *     and drift, phase, the receiver's DC and IQ image), the delay found the next capture's
 *     hint;
 *  2. the loop gain. Only what is stable across captures is held: |G|. Its phase is the
 *     loop's LO phase, which a retune or a second radio changes at will, so every capture is
 *     normalised by its own phase. The first |G| is confirmed by a second capture (within
 *     gain_tolerance_db) before it is latched ("calibrating": a glitch in the first capture
 *     cannot set the PA's output level). A latched |G| follows the loop's linear part on
 *     every capture: the gain of y on x over the capture's quieter half (|x| at most its
 *     median), where neither the PA's compression nor the predistorter's expansion reaches,
 *     scaled from its value at the latch, so an RX gain or attenuator move keeps the PA's
 *     output power. (Measured through the predistorter in use instead, its expansion read a
 *     3 dB step of the RX gain as 4 dB, and the loop then drove the PA harder.) A jump of
 *     more than gain_tolerance_db from the previous capture is followed at once when both
 *     halves of the capture measure it alike (within a quarter of the tolerance) and it is
 *     at most max_follow_db: a gain slider or an attenuator moved before the capture. Waiting
 *     after a TX move would leave the PA, driven at its new level by a predistorter fitted for
 *     the old one, worse than without DPD until the next capture. Other jumps are refused
 *     (a glitch), and when the next capture agrees the loop gain has moved. Either way |G|
 *     follows, the best-so-far records (which belong to the old gain) are dropped, and that
 *     capture's estimate replaces the set in use instead of being blended into it;
 *  3. the loop NMSE of the coefficients in use (x against f_current(y/G)) and its standard
 *     error from the spread over 1024-sample blocks (a receiver's phase noise is slow, so one
 *     capture measures it to a few tenths of a dB only). Worse than the best set's by more
 *     than rollback_tolerance_db plus three standard errors: roll back to the best set and
 *     halve the damping (down to min_damping). The set rolled back to is measured again on the
 *     next capture (the record was a minimum of noisy measurements);
 *  4. with an ACLR band, the worse-side ACLR of the observation (Welch PSD): worse than the best
 *     set's by more than aclr_tolerance_db, roll back to that set (the loop NMSE alone can sit
 *     at the receiver's floor while the ACLR drifts);
 *  5. the post-inverse w_est fitted on this capture (dpd_gram: K-fold lambda unless one is
 *     given; or the direct fit given to the constructor) and w <- w + damping (w_est - w).
 *     When TX and RX share the LO (less than two turns of frequency offset in the capture)
 *     the LO-leakage term fits the capture's finite-sample mean, not the transmitter's
 *     leakage (the receiver's DC correction removed that), and is left as it was;
 *  6. an update that is not finite, or whose predistorter gain on y/G passes +-max_gain_db,
 *     is refused; the coefficients stay.
 *
 * A neural predistorter (gru, tdnn) is trained by a direct fit only; its set is its real
 * weights, held as the real parts of the coefficient vector (damping, rollback and the gain
 * check treat it as they treat coefficients).
 *
 * Everything from the capture to the result is one call: the capture is conditioned on the
 * backend's capture kernel and fitted on its Gram engine.
 */
class dpd_adapt
{
public:
    using cd = std::complex<double>;
    //! A fit other than least squares: (xa, yn, usable rows, coefficients in use, LO leakage
    //! in use) -> the estimate. An exception it throws refuses the step with its message.
    using direct_fitter =
        std::function<dpd_direct_fit(const std::vector<cd>& xa,
                                     const std::vector<cd>& yn,
                                     const std::vector<uint8_t>& rows,
                                     const std::vector<cd>& coefficients,
                                     cd lo_leakage)>;

    /*!
     * \param model the predistorter's structure
     * \param options checked here (std::invalid_argument naming the option)
     * \param initial the set to start from (empty: the identity, x[n], for the polynomial
     *        families; a neural model needs its identity weights given)
     * \param direct a direct fit (required for a neural model), or empty: least squares
     */
    dpd_adapt(const dpd_model& model,
              const dpd_adapt_options& options,
              const std::vector<cd>& initial = {},
              cd initial_lo_leakage = 0,
              direct_fitter direct = {});
    ~dpd_adapt();
    dpd_adapt(const dpd_adapt&) = delete;
    dpd_adapt& operator=(const dpd_adapt&) = delete;

    //! One step on a capture (x, y of equal lengths, finite, neither all zeros: a pair that
    //! is not is refused).
    dpd_step_result step(const cd* x, size_t nx, const cd* y, size_t ny);
    //! Forget the latched |G| (the next two captures measure and confirm it again) and the
    //! best records; nothing with a target gain.
    void reset_gain();

    const dpd_model& model() const { return d_model; }
    const dpd_adapt_options& options() const { return d_opt; }
    const std::vector<cd>& coefficients() const { return d_w; }
    //! Replace the set in use (an operator's, or a test's): its size and finiteness checked,
    //! unchanged on error; the records stay, so a worse set is rolled back from.
    void set_coefficients(const std::vector<cd>& coefficients, cd lo_leakage);
    cd lo_leakage() const { return d_c; }
    size_t iteration() const { return d_iteration; }
    const std::vector<dpd_step_result>& history() const { return d_history; }
    double damping() const { return d_damping; }
    double min_damping() const { return d_min_damping; }
    //! A new damping in (0, 1]; min_damping becomes min(min_damping, damping).
    void set_damping(double damping);
    //! The latched |G| (NaN before it is latched).
    double gain() const { return d_gain; }
    //! A |G| measured and waiting for the next capture to confirm it (NaN: none).
    double candidate_gain() const { return d_candidate; }
    //! The G the last normalised capture was divided by, its phase turned to the capture's
    //! centre (0 before one).
    cd last_gain() const { return d_last_gain; }
    //! The delay found on the last capture that was estimated (NaN before).
    double delay() const { return d_delay; }
    //! The best loop NMSE on record (NaN: none).
    double best_loop_nmse_db() const { return d_best ? d_best->nmse : unset(); }

    //! A jump of the loop gain beyond gain_tolerance_db is followed on its own capture when
    //! both halves of it agree and it is at most this large (see the class comment).
    static constexpr double max_follow_db = 12.0;
    //! The block over which the loop NMSE's standard error is measured.
    static constexpr size_t nmse_block = 1024;

private:
    static double unset() { return std::numeric_limits<double>::quiet_NaN(); }
    void set_coefficients(const std::vector<cd>& w, cd c, const std::string& prefix);
    struct record {
        double nmse; //!< loop NMSE dB, or observation ACLR dBc
        std::vector<cd> w;
        cd c;
        double se; //!< the NMSE's standard error, dB
    };
    dpd_step_result
    result(const std::string& status, const std::string& reason, dpd_step_result r);
    std::vector<cd> apply(const std::vector<cd>& y, const std::vector<cd>& w, cd c) const;
    double observed_aclr(const dpd_aligned_capture& a) const;

    dpd_model d_model;
    dpd_adapt_options d_opt;
    direct_fitter d_direct;
    std::unique_ptr<dpd_capture> d_capture;
    std::unique_ptr<dpd_gram> d_gram; //!< the least-squares fit (none with a direct fit)
    std::vector<cd> d_w;
    cd d_c = 0;
    double d_damping, d_min_damping;
    bool d_gain_fixed;
    double d_gain = unset();      //!< the latched |G|
    double d_candidate = unset(); //!< an unconfirmed |G| (first capture, or a moved gain)
    double d_ref_gain = unset();  //!< the linear gain of the last trusted capture
    double d_anchor_G = unset(),
           d_anchor_gain = unset(); //!< |G| and linear gain at the latch
    cd d_last_gain = 0;
    double d_delay = unset();
    std::unique_ptr<record> d_best, d_best_aclr;
    bool d_restored = false, d_aclr_restored = false;
    size_t d_iteration = 0;
    std::vector<dpd_step_result> d_history;
};

} // namespace kernel
} // namespace gpuinterp
} // namespace gr

#endif
