/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_DPD_PREDISTORTER_CC_H
#define INCLUDED_GPUINTERP_DPD_PREDISTORTER_CC_H

#include <gnuradio/gpuinterp/api.h>
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
 * The backend is "automatic" (CUDA when a usable device exists, else the CPU, with one log line),
 * "cpu" or "cuda".
 */
class GPUINTERP_API dpd_predistorter_cc : virtual public gr::sync_block
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
                     bool device_buffers = false);

    virtual void set_coefficients(const std::vector<gr_complex>& coefficients, gr_complex lo_leakage) = 0;
    virtual std::vector<gr_complex> coefficients() const = 0;
    //! True when the ports use device buffers (the make() option).
    virtual bool device_buffers() const = 0;
    virtual gr_complex lo_leakage() const = 0;
    virtual unsigned P() const = 0;
    virtual unsigned Q() const = 0;
    virtual unsigned Lp() const = 0;
    virtual unsigned Lq() const = 0;
    virtual void set_batch(int batch) = 0;
    virtual int batch() const = 0;
    //! CUDA kernel variant: "automatic", "shuffle", "smem", "shuffle_x", "tiled" or "tiled8"
    //! (ignored on the CPU).
    virtual void set_cuda_variant(const std::string& variant) = 0;
    //! The backend actually in use: "cpu" or "cuda".
    virtual std::string active_backend() const = 0;
};

} // namespace gpuinterp
} // namespace gr

#endif
