/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_INTERP_FIR_H
#define INCLUDED_GPUINTERP_INTERP_FIR_H

#include <gnuradio/gpuinterp/api.h>
#include <gnuradio/gpuinterp/stream_options.h>
#include <gnuradio/sync_interpolator.h>
#include <complex>
#include <string>
#include <vector>

namespace gr {
namespace gpuinterp {

/*!
 * \brief FIR interpolator by an integer factor (upsample + low-pass), polyphase, on a GPU or the CPU.
 * \ingroup gpuinterp
 *
 * \details
 * Same taps, output and alignment as GNU Radio's interp_fir_filter_xxx: taps are zero-padded to a
 * multiple of the interpolation L; output y[n*L + p] = sum_k h[p + k*L] x[n-k]; the stream starts
 * from zero history. Taps carry the interpolation gain (design them with gain L). Stream tags move
 * to offset*L. set_taps() is safe while the flowgraph runs and takes effect between two work() calls.
 *
 * The backend is "automatic" (CUDA when a usable device exists, else the CPU, with one log line
 * saying why), "cpu" or "cuda" (fails at construction when no device is usable).
 *
 * Channels: with channels = N the block has N inputs and N outputs; channel c is the filter
 * above fed input c, with its own history and its own tags (a tag on input c appears on output
 * c only, at offset*L). The taps are shared: an interpolator's filter is a property of the rate
 * change, so set_taps() changes every channel at the same sample. On CUDA every channel runs in
 * one kernel launch per work().
 *
 * Input format (complex samples): "fc32" or "sc16", I and Q as int16 (4-byte items: gr-uhd's
 * usrp_source with cpu_format sc16, or a file of radio samples), each component times
 * full_scale / 32767. CUDA converts in the interpolation kernel's window load (the history and
 * the host staging stay sc16, so the input crosses the bus at 4 bytes a sample); the CPU a
 * cache-resident chunk at a time, then the complex float filter, which makes the output equal,
 * bit for bit, to the fc32 block fed the expanded samples.
 */
template <class T, class TAP>
class GPUINTERP_API interp_fir : virtual public gr::sync_interpolator,
                                 public stream_queries
{
public:
    typedef std::shared_ptr<interp_fir<T, TAP>> sptr;

    /*!
     * \brief Make an interpolating FIR filter.
     * \param interpolation interpolation factor L >= 1
     * \param taps filter taps (non-empty, finite), carrying the gain L
     * \param backend "automatic", "cpu" or "cuda"
     * \param device CUDA device index (>= 0)
     * \param batch most input items per GPU launch (0: default 262144). A work() call is cut into
     *        launches of this size that pipeline (copy in, kernel, copy out overlap); smaller lowers
     *        latency, below ~4096 launch overhead dominates. On an H200 host 262144 measured
     *        fastest of 64Ki/256Ki/1Mi (docs/performance.md). Ignored on the CPU.
     * \param device_buffers keep the stream in device memory (GRC: "Keep data on GPU"): both ports
     *        use gpuinterp's cuda_buffer, so a chain of gpuinterp blocks passes data device to
     *        device and crosses the bus once in and once out. On the CPU backend the same buffers
     *        use host memory (a simulated device), so the flowgraph still runs without a GPU.
     *        Default false: plain host buffers, connectable to anything. See docs/device_buffers.md.
     * \param output_format "fc32" (the sample type T) or, for complex samples, "sc16": I and Q as
     *        int16 (4-byte items, what gr-uhd's usrp_sink takes with cpu_format sc16), converted in
     *        the interpolation kernel's own store: rint(y * 32767 / full_scale), saturated; NaN
     *        becomes 0. Saturated and NaN outputs are counted (saturated(), invalid()) and logged.
     * \param full_scale the magnitude that maps to 32767 on every sc16 port, input or output
     *        (> 0, finite)
     * \param channels number of channels (inputs = outputs), 1 .. 64, sharing the taps
     * \param input_format "fc32" (the sample type T) or, for complex samples, "sc16"
     */
    static sptr make(int interpolation,
                     const std::vector<TAP>& taps,
                     const std::string& backend = "automatic",
                     int device = 0,
                     int batch = 0,
                     bool device_buffers = false,
                     const std::string& output_format = "fc32",
                     float full_scale = 1.0f,
                     int channels = 1,
                     const std::string& input_format = "fc32");
    //! The same, the stream options as one list (stream_options.h).
    static sptr
    make(int interpolation, const std::vector<TAP>& taps, const stream_options& options);

    virtual void set_taps(const std::vector<TAP>& taps) = 0;
    virtual std::vector<TAP> taps() const = 0;
    virtual void set_batch(int batch) = 0;
    virtual int batch() const = 0;
};

typedef interp_fir<std::complex<float>, float> interp_fir_ccf;
typedef interp_fir<float, float> interp_fir_fff;
typedef interp_fir<std::complex<float>, std::complex<float>> interp_fir_ccc;

} // namespace gpuinterp
} // namespace gr

#endif
