/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_COEFFS_MESSAGE_H
#define INCLUDED_GPUINTERP_COEFFS_MESSAGE_H

#include <gnuradio/gpuinterp/api.h>
#include <gnuradio/types.h>
#include <pmt/pmt.h>
#include <vector>

namespace gr {
namespace gpuinterp {

//! A coefficient update carried by a `coeffs` message (or a `dpd_coeffs` tag value).
struct coeffs_update {
    std::vector<gr_complex> coefficients;
    bool has_lo_leakage = false; //!< false: the message left the LO leakage c unchanged
    gr_complex lo_leakage{ 0, 0 };
    int channel = -1; //!< the dict's "channel" entry; -1: every channel of the receiver
    //! A neural model's weights (the dict's "weights" entry); empty when the message has none.
    std::vector<float> weights;
};

/*!
 * \brief Decode a `coeffs` message: the one definition every block of this module accepts.
 * \details Accepted forms (coefficient vector = c32vector, c64vector, f32vector (real values) or
 * a PMT vector of numbers):
 *  - a coefficient vector alone: the coefficients; c unchanged;
 *  - a pair (coefficient vector . number c);
 *  - a dict {"coefficients" | "coeffs": coefficient vector, optional "lo_leakage" | "c": number,
 *    optional "channel": integer >= 0 (a multi-channel receiver's channel)};
 *  - for a neural model (gru, tdnn): a dict {"weights": real vector (f32vector, f64vector or a
 *    PMT vector of reals), optional "channel"}, or the real vector alone (an f32vector, which the
 *    receiver reads as weights; see weights_of()).
 * Values are narrowed to complex float. The length and finiteness are the receiver's to check
 * (it knows its model). Throws std::invalid_argument naming what is wrong.
 * \param msg the message or tag value
 */
GPUINTERP_API coeffs_update decode_coeffs_message(const pmt::pmt_t& msg);

/*!
 * \brief The weights an update carries for a neural receiver: its "weights" entry, or a
 * coefficient vector whose values are all real (an f32vector sent alone). Throws
 * std::invalid_argument naming `weights` when it carries complex coefficients instead.
 */
GPUINTERP_API std::vector<float> weights_of(const coeffs_update& u);

/*!
 * \brief Encode an update as a `coeffs` message: the one encoder, the inverse of
 * decode_coeffs_message() in the forms senders use.
 * \details
 *  - weights (a neural model's): the dict {"weights": f32vector, "channel" when >= 0};
 *  - coefficients for every channel: the pair (c32vector . complex c), or the c32vector alone when
 *    the update leaves c unchanged;
 *  - coefficients for one channel: the dict {"coefficients", "lo_leakage" (when set), "channel"}.
 * A set that cannot be run never reaches a radio: throws std::invalid_argument naming
 * `coefficients`, `lo_leakage` or `weights` when a value is not finite, or when the update
 * carries both weights and coefficients.
 */
GPUINTERP_API pmt::pmt_t encode_coeffs_message(const coeffs_update& u);

//! The pair (c32vector . complex c) for every channel: encode_coeffs_message() of that update.
GPUINTERP_API pmt::pmt_t
encode_coeffs_message(const std::vector<gr_complex>& coefficients, gr_complex lo_leakage);

} // namespace gpuinterp
} // namespace gr

#endif
