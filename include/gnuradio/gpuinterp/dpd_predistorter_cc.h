/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_DPD_PREDISTORTER_CC_H
#define INCLUDED_GPUINTERP_DPD_PREDISTORTER_CC_H

#include <gnuradio/gpuinterp/api.h>
#include <gnuradio/gpuinterp/stream_options.h>
#include <gnuradio/sync_block.h>
#include <complex>
#include <string>
#include <vector>

namespace gr {
namespace gpuinterp {

/*!
 * \brief Parallel-Hammerstein digital predistorter (memory polynomial with conjugate branches),
 * on a GPU or the CPU.
 * \ingroup gpuinterp
 *
 * \details
 *     z[n] =  sum_{p=1,3,..,P} sum_{k=0}^{Lp-1} h_{p,k} psi_p(x[n-k])
 *          +  sum_{q=1,3,..,Q} sum_{k=0}^{Lq-1} g_{q,k} conj(psi_q(x[n-k]))  +  c,
 *     psi_p(x) = x |x|^(p-1).
 *
 * Coefficients: one flat complex vector, the main branches p = 1, 3, .., P each with its Lp taps
 * (k = 0 first), then the conjugate branches q = 1, 3, .., Q each with its Lq taps:
 * h_{p,k} at ((p-1)/2)*Lp + k, g_{q,k} at ((P+1)/2)*Lp + ((q-1)/2)*Lq + k; length
 * (P+1)/2*Lp + (Q+1)/2*Lq (Q = 0: no conjugate branches). Example P=3, Q=1, Lp=2, Lq=3:
 * [h10, h11, h30, h31, g10, g11, g12]. The stream starts from zero history.
 *
 * Updating the coefficients, P, Q, Lp, Lq staying fixed:
 *  - set_coefficients(coefficients, lo_leakage): validated at once (bad values raise), applied
 *    between two work() calls;
 *  - message port `coeffs`: a PMT c32vector (keeps c), a pair (c32vector . complex c), or a dict
 *    {"coefficients": c32vector, "lo_leakage": complex}; applied at a chunk boundary. A
 *    malformed or invalid message is logged and ignored (the old set stays);
 *  - an input stream tag with key `dpd_coeffs` and a value in the same formats: applied at exactly
 *    the tagged sample (outputs from that sample on use the new set). Tags propagate unchanged.
 *
 * The first output of a set that arrived by setter or message carries a `dpd_switch`
 * tag (value #t), so a block downstream (dpd_estimator_cc) knows which samples each
 * set produced.
 *
 * Other model families: with a non-empty `model` spec (kernel/dpd_model.h) the block runs that
 * model instead and P, Q, Lp, Lq are ignored:
 *  - "ph:P=5,Q=3,Lp=4,Lq=2": the model above;
 *  - "mp:K=9,M=20": all-order memory polynomial, y[n] = sum_{k=1..K} sum_{m<M} a_{k,m} x[n-m] |x[n-m]|^(k-1),
 *    coefficients k outer, m inner;
 *  - "gmp:Ka=..,La=..,Kb=..,Lb=..,Mb=..,Kc=..,Lc=..,Mc=..": generalised memory polynomial (aligned,
 *    lagging-envelope and leading-envelope groups; layout in dpd_model.h; b and c keys default to 0).
 *
 *  - "gru:H=..,C=..,D=..", "tdnn:M=..,H=..,N=..": neural predistorters (docs/neural_models.md),
 *    given by their real `weights` instead of coefficients (`coefficients` empty); updated by
 *    set_weights(), a `coeffs` message or `dpd_coeffs` tag {"weights": f32vector} (or the
 *    f32vector alone), switched at a sample as coefficients are. sc16 runs on the CPU; CUDA runs
 *    fc32 (a tdnn one thread per sample, a gru chunk-parallel with a warm-up).
 * Delay: the leading-envelope terms of a gmp read x[n + Mc], so the block delays its output by
 * D = delay() = Mc samples (0 for ph, mp, and gmp without leading terms): output i is the model at
 * time i - D, the first D outputs being the model at negative times (zero input plus look-ahead).
 * The block keeps everything aligned with the delayed output: a stream tag on input sample n
 * appears on output n + D, and a `dpd_coeffs` tag on input n switches the set at output n + D
 * (the output aligned with n), also when that output falls in a later work() call. A `coeffs`
 * message still applies at the next chunk boundary. With D > 0 the last D input samples of a
 * finite stream do not reach the output.
 *
 * The backend is "automatic" (CUDA when a usable device exists, else the CPU, with one log line),
 * "cpu" or "cuda".
 *
 * Channels: with channels = N the block has N inputs and N outputs (as a usrp_sink with N
 * channels): channel c is the predistorter above fed input c, with its own coefficients, history
 * and tags. On CUDA a ph model runs every channel in one kernel launch per work(); mp/gmp run one
 * launch per channel. A `dpd_coeffs` tag on input c switches channel c only. A `coeffs` message
 * dict with an integer "channel" entry updates that channel; a message without one updates every
 * channel; a channel that does not exist is logged and ignored.
 *
 * Output format: "fc32" (complex float) or "sc16" (2 x int16 per sample, the item gr-uhd's
 * usrp_sink takes with cpu_format sc16). sc16 is converted inside the kernel's last store (CUDA,
 * ph models) or per cache-resident chunk (CPU): rint(z * 32767 / full_scale), saturated to int16;
 * NaN components become 0. Saturated and invalid samples are counted per channel (saturated(),
 * invalid()), and a work() call that saturates logs a warning, at most once a second.
 *
 * Input format: "fc32" or "sc16" (e.g. an sc16 interpolator's output or a file of radio
 * samples). sc16 inputs are scaled by full_scale / 32767 inside the kernel's window load (CUDA,
 * ph models) or per chunk (CPU), so a ph chain in sc16 moves 4-byte items in and out.
 */
class GPUINTERP_API dpd_predistorter_cc : virtual public gr::sync_block,
                                          public stream_queries
{
public:
    typedef std::shared_ptr<dpd_predistorter_cc> sptr;

    /*!
     * \brief Make a predistorter.
     * \param P highest main-branch order, odd, 1..15
     * \param Q highest conjugate-branch order, odd 1..15, or 0 for none
     * \param Lp taps per main branch (memory depth), >= 1
     * \param Lq taps per conjugate branch, >= 1
     * \param coefficients (P+1)/2*Lp + (Q+1)/2*Lq finite complex values, layout above
     * \param lo_leakage the constant c
     * \param backend "automatic", "cpu" or "cuda"
     * \param device CUDA device index (>= 0)
     * \param batch most samples per GPU launch (0: default 262144); ignored on the CPU
     * \param mapped CUDA only: zero-copy mapped host staging instead of pinned staging + copies
     * \param device_buffers keep the stream in device memory (GRC: "Keep data on GPU") so a chain of
     *        gpuinterp blocks crosses the bus once in and once out; see docs/device_buffers.md
     * \param model model spec ("ph:..", "mp:K=..,M=..", "gmp:Ka=..,.."); empty: ph from P, Q, Lp, Lq.
     *        When given, `coefficients` follows its layout and P, Q, Lp, Lq are ignored.
     * \param channels number of channels (inputs = outputs), 1 .. 64
     * \param output_format "fc32" or "sc16"
     * \param full_scale the magnitude that maps to 32767 on every sc16 port, input or output
     *        (> 0, finite)
     * \param input_format "fc32" or "sc16"
     * \param weights a neural model's real weights (docs/neural_models.md's layout); empty for
     *        the polynomial families
     */
    static sptr make(unsigned P,
                     unsigned Q,
                     unsigned Lp,
                     unsigned Lq,
                     const std::vector<gr_complex>& coefficients,
                     gr_complex lo_leakage = gr_complex(0, 0),
                     const std::string& backend = "automatic",
                     int device = 0,
                     int batch = 0,
                     bool mapped = false,
                     bool device_buffers = false,
                     const std::string& model = "",
                     int channels = 1,
                     const std::string& output_format = "fc32",
                     float full_scale = 1.0f,
                     const std::string& input_format = "fc32",
                     const std::vector<float>& weights = {});
    /*!
     * \brief The same for a model spec, the stream options as one list (stream_options.h).
     * \param model the model spec ("ph:P=5,Q=3,Lp=5,Lq=5", "gmp:..", "gru:..", ...)
     * \param coefficients the polynomial families' values (empty for gru, tdnn)
     * \param lo_leakage the constant c (0 for gru, tdnn)
     * \param weights the neural families' values (empty for the polynomial ones)
     * \param mapped as above
     * \param options backend, device, batch, device_buffers, channels, formats, full_scale
     */
    static sptr make(const std::string& model,
                     const std::vector<gr_complex>& coefficients,
                     gr_complex lo_leakage,
                     const std::vector<float>& weights,
                     bool mapped,
                     const stream_options& options);

    virtual void set_coefficients(const std::vector<gr_complex>& coefficients,
                                  gr_complex lo_leakage) = 0;
    //! Channel 0's set. set_coefficients() replaces every channel's set.
    virtual std::vector<gr_complex> coefficients() const = 0;
    //! One channel's set; raises (ValueError) naming `channel` when it does not exist.
    virtual void set_channel_coefficients(unsigned channel,
                                          const std::vector<gr_complex>& coefficients,
                                          gr_complex lo_leakage) = 0;
    virtual std::vector<gr_complex> channel_coefficients(unsigned channel) const = 0;
    //! Neural models: every channel's weights / one channel's (validated first, unchanged on
    //! error; applied between two work() calls). A polynomial model refuses them.
    virtual void set_weights(const std::vector<float>& weights) = 0;
    virtual void set_channel_weights(unsigned channel,
                                     const std::vector<float>& weights) = 0;
    //! Channel 0's / one channel's weights; empty for a polynomial model.
    virtual std::vector<float> weights() const = 0;
    virtual std::vector<float> channel_weights(unsigned channel) const = 0;
    virtual gr_complex channel_lo_leakage(unsigned channel) const = 0;
    virtual gr_complex lo_leakage() const = 0;
    //! The model as its canonical spec (e.g. "ph:P=5,Q=3,Lp=4,Lq=2").
    virtual std::string model() const = 0;
    //! Output delay in samples (the model's look-ahead; 0 for ph and mp).
    virtual unsigned delay() const = 0;
    //! ph sizes (0 for the other families).
    virtual unsigned P() const = 0;
    virtual unsigned Q() const = 0;
    virtual unsigned Lp() const = 0;
    virtual unsigned Lq() const = 0;
    virtual void set_batch(int batch) = 0;
    virtual int batch() const = 0;
    //! CUDA kernel variant (ignored on the CPU). ph: "automatic", "smem" or "tiled"; mp/gmp:
    //! "automatic", "compiled" or "interpreted" (kernel::dpd_cuda_variant). A variant of the other
    //! family is ignored; an unknown name throws std::invalid_argument naming `variant`.
    virtual void set_cuda_variant(const std::string& variant) = 0;
};

} // namespace gpuinterp
} // namespace gr

#endif
