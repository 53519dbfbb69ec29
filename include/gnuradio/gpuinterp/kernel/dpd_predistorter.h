/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_KERNEL_DPD_PREDISTORTER_H
#define INCLUDED_GPUINTERP_KERNEL_DPD_PREDISTORTER_H

#include <gnuradio/gpuinterp/kernel/backend.h>
#include <gnuradio/gpuinterp/kernel/dpd_model.h>
#include <complex>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace kernel {

class dpd_bank;

//! Which CUDA kernel runs. Parallel Hammerstein (ph): how the kernel shares the basis values of
//! neighbouring samples (see docs/dpd_predistorter.md). mp/gmp: compiled runs the kernel compiled
//! at run time for the model's structure (NVRTC; the interpreted kernel where it cannot be
//! built), interpreted the kernel that walks the model's program, automatic the compiled one for
//! models whose entries have at most 6 coefficients and the interpreted one above (measured,
//! docs/performance.md). A variant of the other family is ignored. The values are fixed, so saved
//! settings keep their meaning; the gaps (1, 3, 5) are variants that lost the measurements and
//! left the library.
enum class dpd_cuda_variant {
    automatic = 0, //!< the fastest measured (tiled; smem where tiled does not fit)
    smem = 2,      //!< shared-memory tile with an L-1 halo (any L)
    tiled =
        4, //!< smem retuned: prefetched float4 tiles, unrolled taps, maps as a kernel parameter
    compiled =
        6, //!< mp/gmp: the kernel compiled for the model's structure (NVRTC, gmp_jit.cu)
    interpreted =
        7, //!< mp/gmp: the kernel that walks the model's program in shared memory
};
//! "automatic" | "smem" | "tiled" | "compiled" | "interpreted"; throws std::invalid_argument
//! naming `variant`.
dpd_cuda_variant dpd_cuda_variant_from_string(const std::string& name);
std::string to_string(dpd_cuda_variant v);

/*!
 * \brief Streaming parallel-Hammerstein digital predistorter (memory polynomial with conjugate branches).
 *
 * \details The model, for complex baseband input x and output z:
 *
 *     z[n] =  sum_{p in {1,3,..,P}} sum_{k=0}^{Lp-1} h_{p,k} * psi_p(x[n-k])
 *          +  sum_{q in {1,3,..,Q}} sum_{k=0}^{Lq-1} g_{q,k} * conj(psi_q(x[n-k]))
 *          +  c
 *     psi_p(x) = x * |x|^(p-1)
 *
 *  - P >= 1 odd; Q >= 0, odd or 0 (Q = 0: no conjugate branches); Lp, Lq >= 1 (Lq is still
 *    validated when Q = 0 but then has no effect); complex taps h, g; complex LO-leakage term c.
 *  - Coefficient layout, one flat complex vector of length Rp*Lp + Rq*Lq with Rp = (P+1)/2,
 *    Rq = (Q+1)/2 (0 when Q = 0): the main branches p = 1, 3, .., P, each with its Lp taps
 *    (k = 0 first), then the conjugate branches q = 1, 3, .., Q, each with its Lq taps:
 *        h_{p,k} at index ((p-1)/2)*Lp + k
 *        g_{q,k} at index Rp*Lp + ((q-1)/2)*Lq + k
 *    Example, P = 3, Q = 1, Lp = 2, Lq = 3 (7 values):
 *        [h_{1,0}, h_{1,1}, h_{3,0}, h_{3,1}, g_{1,0}, g_{1,1}, g_{1,2}]
 *    The identity predistorter is h_{1,0} = 1, everything else 0, c = 0.
 *  - Streaming: process(out, in, n) writes exactly n outputs, out[i] = z[i]. The stream starts
 *    from zero history (x[n] = 0 for n < 0); the last max(Lp, Lq) - 1 input samples (Lq counted
 *    only when Q > 0) carry to the next call, so any chunking gives the output of one call.
 *  - set_coefficients() keeps P, Q, Lp, Lq and the history: outputs of the next process() call use
 *    the new set, with memory taps reaching back into samples processed under the old one. Calling
 *    process() for the samples before index n0, then set_coefficients(), then process() for the rest
 *    switches the set at exactly sample n0 (what the block does for a `dpd_coeffs` tag).
 *  - Input samples are not checked: a non-finite sample makes the outputs that use it non-finite.
 *
 * Precision: float arithmetic (|x|^2 once, powers by multiplication, fused multiply-adds). For a
 * sample whose terms have absolute sum S = |c| + sum |coef| * |psi|, the error is at most about
 * (3*(max(P,Q)+1)/2 + 4 + number of taps) * 2^-24 * S (first-order bound), whatever the peak |x|.
 *
 * Other model families: the constructor from a dpd_model (dpd_model.h) also runs the all-order
 * memory polynomial (`mp`) and the generalised memory polynomial (`gmp`), with the coefficient
 * layouts given there. Same streaming contract as above with history() = model().history(), and
 * one addition: with leading-envelope terms the output is delayed by D = delay() = lookahead()
 * samples, out[i] = y[i - D] with x[n] = 0 for n < 0, so a set switched before input n0 applies
 * from output n0 (= model time n0 - D). A `ph` model runs exactly the (P, Q, Lp, Lq) predistorter.
 * mp/gmp precision: float, Horner's rule over the powers of |x| per envelope lag; for a sample
 * with term sum S = |c| + sum |coef| |x| |x_env|^k, the error is at most about
 * (2 * (max order + 2) + number of signal lags + 4) * 2^-24 * S (first order).
 * mp/gmp backends: `cpu` (AVX2/FMA, OpenMP threads over sample ranges; gmp_predistorter_cpu.cc) and
 * `cuda` (samples and |x| tiled in shared memory; a kernel compiled at run time for the model's
 * structure, gmp_jit.cu, or, where NVRTC is missing, the kernel that walks the model's program,
 * gmp_kernels.cu; see dpd_cuda_variant).
 *
 * Neural families (gru, tdnn; docs/neural_models.md): the constructor from a dpd_model and real
 * float32 weights runs them; set_weights() replaces the weights between calls as
 * set_coefficients() does for the polynomial families (a gru's hidden state and the history stay).
 * Same streaming contract, out[i] = y[i - delay()], with one difference: a gru's recursion starts
 * at model time 0 from h[-1] = 0, so its first delay() outputs (model times < 0) are zero.
 * Precision: float32; against the double-precision forward pass, about 1e-6 relative to the output
 * scale per layer for a tdnn, and for a gru the rounding of every step decays through the
 * recursion as the hidden state forgets (the tests bound it at 1e-5 relative to the output RMS).
 * Backends: `cpu` (gru: one sequential thread; tdnn: OpenMP over sample ranges) and `cuda`
 * (neural_engine.cu: tdnn one thread per output sample; gru chunk-parallel with a warm-up from a
 * zero state, set_warmup(), exact for one chunk and within the stated tolerance otherwise).
 *
 * Backends: `cpu` (basis computed once per sample into an L1-resident tile and reused by every tap,
 * AVX2/FMA through GCC vector code with a portable clone, OpenMP threads over sample ranges for
 * large calls) and `cuda` (one fused kernel, one thread per sample; see dpd_cuda_variant).
 *
 * This is the one-channel form of dpd_bank (dpd_bank.h), which validates, selects the backend and
 * owns the engine; the values are validated by the model (dpd_model::check_coefficients(),
 * check_weights()).
 */
class dpd_predistorter
{
public:
    using complex = std::complex<float>;

    /*!
     * \brief A predistorter of a polynomial model family (ph, mp, gmp: dpd_model.h).
     * \param model the structure (dpd_model::parse or a make_* function)
     * \param coefficients model.num_coefficients() finite values in the model's layout
     * \param lo_leakage the constant c (finite)
     * \param requested backend (automatic falls back to the CPU, see backend_note())
     * \param device CUDA device index
     * \param batch most samples one GPU launch takes (0: default); ignored by the CPU backend
     * \param mapped CUDA only: stage samples in mapped (zero-copy) pinned host memory that the
     *        kernel reads and writes over the bus, instead of copying them to device memory
     */
    dpd_predistorter(const dpd_model& model,
                     const std::vector<complex>& coefficients,
                     complex lo_leakage = complex(0),
                     backend requested = backend::cpu,
                     int device = 0,
                     size_t batch = 0,
                     bool mapped = false);
    /*!
     * \brief A neural predistorter or PA model (gru, tdnn).
     * \param model a neural model (model.is_neural())
     * \param weights model.num_weights() finite values in docs/neural_models.md's layout
     * Other parameters as above (no mapped staging for the neural engines). A gru on CUDA runs
     * batches of at least 4 warm-ups a chunk whatever `batch` says (neural_engine.cu: shorter
     * ones would spend most of their steps warming up).
     */
    dpd_predistorter(const dpd_model& model,
                     const std::vector<float>& weights,
                     backend requested = backend::cpu,
                     int device = 0,
                     size_t batch = 0);
    ~dpd_predistorter();
    dpd_predistorter(const dpd_predistorter&) = delete;
    dpd_predistorter& operator=(const dpd_predistorter&) = delete;

    //! Predistort n samples (out and in may not overlap). n = 0 is a no-op.
    void process(complex* out, const complex* in, size_t n);
    //! Convenience for bindings and tests.
    std::vector<complex> process(const std::vector<complex>& in);
    /*!
     * Like process(), but `out` and `in` live in the backend's own memory: device memory on the
     * CUDA backend (GNU Radio device buffers, docs/device_buffers.md), host memory on the CPU.
     * Returns when `out` is complete. Shares the stream state with process(), so the two may be mixed.
     */
    void process_device(complex* out, const complex* in, size_t n);

    //! Replace the coefficient set (same model); validated first, unchanged on error.
    void set_coefficients(const std::vector<complex>& coefficients, complex lo_leakage);
    const std::vector<complex>& coefficients() const;
    complex lo_leakage() const;

    //! Neural families: replace the weights (same model); validated first, unchanged on error.
    void set_weights(const std::vector<float>& weights);
    const std::vector<float>& weights() const;
    //! gru on CUDA: warm-up samples of every chunk after the first (0: one sequential chunk, exact);
    //! see neural_engine.cu. Ignored by the other families and the CPU.
    void set_warmup(size_t samples);
    size_t warmup() const;

    //! Zero the history, as at construction.
    void reset();

    //! The model it was built from.
    const dpd_model& model() const;
    //! Output delay in samples: model().lookahead() (0 for ph and mp).
    size_t delay() const { return model().lookahead(); }

    //! Input samples carried between calls: model().history() (ph: max(Lp, Lq) - 1, Lq only
    //! when Q > 0).
    size_t history() const { return model().history(); }

    void set_batch(size_t batch);
    size_t batch() const;
    //! CUDA only (ignored on the CPU): which kernel variant runs (see dpd_cuda_variant); takes
    //! effect at the next call. Benchmark-only variants throw std::invalid_argument unless
    //! registered (see above).
    void set_cuda_variant(dpd_cuda_variant v);
    dpd_cuda_variant cuda_variant() const;
    //! The CUDA kernel that runs now (automatic resolved: tiled, smem, compiled or interpreted);
    //! automatic on the CPU.
    dpd_cuda_variant active_cuda_variant() const;
    bool mapped() const;

    backend active_backend() const;
    //! Why `automatic` chose the CPU (empty otherwise).
    const std::string& backend_note() const;

    static constexpr size_t default_batch = 1 << 18;

private:
    std::unique_ptr<dpd_bank> d_bank; //!< one channel
};

} // namespace kernel
} // namespace gpuinterp
} // namespace gr

#endif
