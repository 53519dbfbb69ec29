/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_KERNEL_POLYPHASE_INTERPOLATOR_H
#define INCLUDED_GPUINTERP_KERNEL_POLYPHASE_INTERPOLATOR_H

#include <gnuradio/gpuinterp/kernel/backend.h>
#include <gnuradio/gpuinterp/kernel/sample_format.h>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace kernel {

template <typename T, typename TAP>
class fir_engine;

/*!
 * \brief Streaming polyphase FIR interpolator by an integer factor L (upsample + low-pass).
 *
 * \details Conventions (identical to GNU Radio's `interp_fir_filter_xxx` and to
 * `scipy.signal.upfirdn(h, x, L)[:N*L]`):
 *  - taps h (length K) are zero-padded at the end to M*L, M = ceil(K/L) taps per arm;
 *  - output y[n*L + p] = sum_{k=0}^{M-1} h[p + k*L] * x[n - k], p = 0..L-1;
 *  - filter(out, in, N) writes exactly N*L outputs; the stream starts from zero history
 *    (x[n] = 0 for n < 0) and the last M-1 inputs carry to the next call, so any chunking of a
 *    stream gives the same output as one call;
 *  - group delay (K-1)/2 output samples; no gain is applied: like GNU Radio, the taps carry the
 *    interpolation gain (design them with gain L), scipy's upfirdn leaves them raw;
 *  - set_taps() takes effect at the next filter() call. With more taps than before, the samples
 *    older than the previous history are taken as zero.
 *
 * Backends: `cpu` (VOLK dot products over reversed arms, OpenMP threads for large calls) and
 * `cuda` (a polyphase kernel with taps in shared memory and a pinned, double-buffered pipeline).
 * Precision: float accumulation on both; outputs match a double reference to float rounding.
 *
 * Channels: with `channels` = N > 1 the kernel filters N streams (filter_items()), each
 * with its own history, all with the same taps: an interpolator's filter belongs to the rate
 * change, not to the signal, so set_taps() changes every channel at the same sample. Channel c
 * is exactly a single-channel kernel fed channel c's inputs: on the CPU bit for bit; on CUDA
 * every channel runs in one launch (gridDim.y = channel) of the single-channel kernel's body.
 * With N = 1 the kernel is the single-channel one (filter() and friends).
 *
 * Input format (complex samples): a kernel made with `input_format` sc16 reads I/Q int16 pairs
 * (filter_items()), each component times full_scale / 32767 (kernel/sample_format.h): on CUDA in
 * the kernel's window load, the history and host staging kept in sc16 (4 bytes a sample); on the
 * CPU a cache-resident chunk at a time, then the complex float filter. It equals the complex
 * float kernel fed the expanded values: on the CPU bit for bit.
 */
template <typename T, typename TAP>
class polyphase_interpolator
{
public:
    /*!
     * \param interpolation L >= 1
     * \param taps non-empty, finite
     * \param requested backend (automatic falls back to the CPU, see backend_note())
     * \param device CUDA device index
     * \param batch most input items one GPU launch takes (0: default); larger trades latency for
     *        throughput. Ignored by the CPU backend.
     * \param channels 1 .. max_channels (kernel/channels.h) streams sharing the taps
     * \param input_format fc32 (the sample type T), or sc16 for complex samples: then only
     *        filter_items() takes inputs (std::invalid_argument naming `input_format` otherwise)
     */
    polyphase_interpolator(unsigned interpolation,
                           const std::vector<TAP>& taps,
                           backend requested = backend::cpu,
                           int device = 0,
                           size_t batch = 0,
                           unsigned channels = 1,
                           sample_format input_format = sample_format::fc32);
    ~polyphase_interpolator();
    polyphase_interpolator(const polyphase_interpolator&) = delete;
    polyphase_interpolator& operator=(const polyphase_interpolator&) = delete;

    /*!
     * \brief The one streaming call: interpolate n_in inputs of every channel into exactly
     * n_in * interpolation() outputs each. in[c] holds channel c's inputs in the kernel's input
     * format (T, or I/Q int16 pairs when input_format() is sc16); out[c] receives its outputs in
     * `output` (T, or I/Q int16 pairs for sc16).
     *
     * sc16 output (complex samples only; kernel/sample_format.h): CUDA converts inside the
     * interpolation kernel's store, the CPU a cache-resident chunk at a time; saturated and
     * invalid outputs of channel c add to counts(c). full_scale: every sc16 side's, input and
     * output (unused when neither is sc16); std::invalid_argument naming `full_scale`, or
     * `output_format` for real samples.
     *
     * `device`: `in` and `out` are device memory of the active backend (CUDA device memory of
     * `device` for cuda; host memory for cpu), as blocks whose ports use device buffers pass
     * them. Returns when `out` is complete. Host and device calls share the stream state and may
     * be mixed (the history moves between host and device when they are).
     */
    void filter_items(void* const* out,
                      const void* const* in,
                      size_t n_in,
                      sample_format output = sample_format::fc32,
                      float full_scale = 1.0f,
                      bool device = false);
    //! Convenience for bindings and tests (T input and output): `in` holds every channel's
    //! inputs channel-major (equal lengths), the outputs come channel-major.
    std::vector<T> filter(const std::vector<T>& in);
    sample_format input_format() const { return d_in_format; }
    //! sc16 outputs of `channel` counted since construction or reset_counts().
    const sc16_counts& counts(unsigned channel = 0) const;
    void reset_counts();
    unsigned channels() const { return d_channels; }
    void set_taps(const std::vector<TAP>& taps);
    const std::vector<TAP>& taps() const { return d_taps; }
    unsigned interpolation() const { return d_L; }
    size_t taps_per_arm() const { return d_M; }
    //! Zero the history, as at construction.
    void reset();

    void set_batch(size_t batch);
    size_t batch() const { return d_batch; }

    backend active_backend() const { return d_backend; }
    //! Why `automatic` chose the CPU (empty otherwise).
    const std::string& backend_note() const { return d_note; }

    static constexpr size_t default_batch = 1 << 18;

private:
    void check_fc32_input(const char* what) const;

    unsigned d_L;
    unsigned d_channels;
    sample_format d_in_format;
    size_t d_M = 0;
    size_t d_batch;
    std::vector<TAP> d_taps;
    backend d_backend;
    std::string d_note;
    std::unique_ptr<fir_engine<T, TAP>> d_engine; //!< every channel
    std::vector<sc16_counts> d_counts;
};

using polyphase_interpolator_ccf = polyphase_interpolator<std::complex<float>, float>;
using polyphase_interpolator_fff = polyphase_interpolator<float, float>;
using polyphase_interpolator_ccc =
    polyphase_interpolator<std::complex<float>, std::complex<float>>;

} // namespace kernel
} // namespace gpuinterp
} // namespace gr

#endif
