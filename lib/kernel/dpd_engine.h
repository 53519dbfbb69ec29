/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_KERNEL_DPD_ENGINE_H
#define INCLUDED_GPUINTERP_KERNEL_DPD_ENGINE_H

// Internal: what a backend implements for dpd_predistorter, and the coefficient form the backends
// share. The front end validates and packs; the engines own the history and the compute.
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
#include <vector>

namespace gr {
namespace gpuinterp {
namespace kernel {

struct dpd_packed {
    unsigned M = 1;               //!< orders 1, 3, .., 2M-1 (M = (max(P,Q)+1)/2)
    unsigned Lmax = 1;            //!< max over orders of the taps used
    unsigned H = 0;               //!< history: Lmax - 1
    std::vector<unsigned> taps;   //!< taps used by order m (M values)
    std::vector<float> abcd;      //!< M*Lmax*4 floats: pair (m, k) at (m*Lmax + k)*4: A B C D
    float cr = 0, ci = 0;         //!< LO leakage
};

dpd_packed pack_dpd(unsigned P,
                    unsigned Q,
                    unsigned Lp,
                    unsigned Lq,
                    const std::vector<std::complex<float>>& coefficients,
                    std::complex<float> c);

class dpd_engine
{
public:
    virtual ~dpd_engine() = default;
    //! The structure (M, Lmax, taps) never changes after the first call; only the values do.
    virtual void set_model(const dpd_packed& m) = 0;
    virtual void process(std::complex<float>* out, const std::complex<float>* in, size_t n) = 0;
    //! Pointers in the backend's own memory (device buffers); the CPU's memory is the host's.
    virtual void process_device(std::complex<float>* out, const std::complex<float>* in, size_t n)
    {
        process(out, in, n);
    }
    virtual void reset() = 0;
    virtual void set_batch(size_t) {}
    virtual void set_variant(dpd_cuda_variant) {}
};

std::unique_ptr<dpd_engine> make_cpu_dpd_engine();

//! Test hook: false forces the CPU backend's portable (non-AVX2) code path.
void set_dpd_cpu_simd(bool allow);

} // namespace kernel

namespace gpu {
// Defined in lib/cuda/dpd_predistorter.cu (only in CUDA builds).
std::unique_ptr<kernel::dpd_engine> make_cuda_dpd_engine(int device, size_t batch, bool mapped);

//! Benchmark hook: milliseconds per launch of the fused kernel alone on n random samples already
//! resident on the device (CUDA events, median of `iters` launches), for the given variant.
//! `used` receives the variant that ran (automatic resolves to one of the two).
double time_dpd_kernel_ms(int device,
                          const kernel::dpd_packed& model,
                          size_t n,
                          int iters,
                          kernel::dpd_cuda_variant variant,
                          kernel::dpd_cuda_variant* used = nullptr);
} // namespace gpu

} // namespace gpuinterp
} // namespace gr

#endif
