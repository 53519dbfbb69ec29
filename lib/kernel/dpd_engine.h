/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_KERNEL_DPD_ENGINE_H
#define INCLUDED_GPUINTERP_KERNEL_DPD_ENGINE_H

// Internal: what a backend implements for dpd_predistorter, and the coefficient form the backends
// share. The kernel (dpd_bank.cc) validates and packs; the engines own the history and the compute.
//
// Packed form. A main tap h and a conjugate tap g that act on the same order and delay combine
// into one real 2x2 map of the basis value psi = (pr, pi):
//     h*psi + g*conj(psi) = (A pr + B pi) + i (C pr + D pi)
//     A = hr + gr,  B = gi - hi,  C = hi + gi,  D = hr - gr
// so every (order, delay) pair costs 4 fused multiply-adds whether one or both branches use it,
// and conj(psi_q) is never formed: the conjugate branches reuse the main branches' basis values.

#include <gnuradio/gpuinterp/kernel/dpd_predistorter.h>
#include <complex>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace kernel {

struct dpd_packed {
    unsigned M = 1;             //!< orders 1, 3, .., 2M-1 (M = (max(P,Q)+1)/2)
    unsigned Lmax = 1;          //!< max over orders of the taps used
    unsigned H = 0;             //!< history: Lmax - 1
    std::vector<unsigned> taps; //!< taps used by order m (M values)
    std::vector<float> abcd; //!< M*Lmax*4 floats: pair (m, k) at (m*Lmax + k)*4: A B C D
    float cr = 0, ci = 0;    //!< LO leakage
};

//! A ph model's coefficients in the engines' packed form (the model's sizes and layout).
dpd_packed pack_dpd(const dpd_model& model,
                    const std::vector<std::complex<float>>& coefficients,
                    std::complex<float> c);

/*!
 * What every predistorter engine does with the stream, whatever the model family: the history
 * carries across calls, reset() clears it. Each family adds how it takes its coefficients
 * (dpd_engine: the packed ph form; gmp_engine, gmp_engine.h: a program).
 */
class dpd_stream_engine
{
public:
    virtual ~dpd_stream_engine() = default;
    virtual void
    process(std::complex<float>* out, const std::complex<float>* in, size_t n) = 0;
    //! Pointers in the backend's own memory (device buffers); the CPU's memory is the host's.
    virtual void
    process_device(std::complex<float>* out, const std::complex<float>* in, size_t n)
    {
        process(out, in, n);
    }
    virtual void reset() = 0;
    virtual void set_batch(size_t) {}
    //! The CUDA engines' kernel choice (dpd_cuda_variant: each family takes its own variants, the
    //! front end hands over only those); the CPU engines have one kernel each.
    virtual void set_variant(dpd_cuda_variant) {}
    virtual dpd_cuda_variant active_variant() const
    {
        return dpd_cuda_variant::automatic;
    }
    //! Why the kernel asked for is not the one running (empty when it is).
    virtual std::string variant_note() const { return {}; }
};

class dpd_engine : public dpd_stream_engine
{
public:
    //! The structure (M, Lmax, taps) never changes after the first call; only the values do.
    virtual void set_model(const dpd_packed& m) = 0;
};

} // namespace kernel
} // namespace gpuinterp
} // namespace gr

#endif
