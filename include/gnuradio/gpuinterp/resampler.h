/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_RESAMPLER_H
#define INCLUDED_GPUINTERP_RESAMPLER_H

#include <gnuradio/block.h>
#include <gnuradio/gpuinterp/api.h>
#include <gnuradio/gpuinterp/kernel/resampler.h>
#include <gnuradio/gpuinterp/stream_options.h>
#include <complex>
#include <cstdint>
#include <string>

namespace gr {
namespace gpuinterp {

/*!
 * \brief Arbitrary-rate resampler (r = output rate / input rate) on a GPU or the CPU.
 * \ingroup gpuinterp
 *
 * \details Output k is the input interpolated at time t_k = k / r (input samples; the
 * first output coincides with input 0; zero history before the stream; no delay).
 * Methods: "nearest", "linear", "texture" (linear with the GPU texture unit's 9-bit
 * weights; the CPU emulates them bit for bit), "cubic" (Catmull-Rom) and "polyphase"
 * (Kaiser-windowed sinc, nfilts arms, linear interpolation between adjacent arms;
 * stretched by 1/r when r < 1). Stream tags move to the first output at or after their
 * input time. set_rate() is safe while the flowgraph runs and takes effect between two
 * work() calls; the phase carries over. See docs/resampler.md.
 *
 * Channels: with channels = N the block has N inputs and N outputs; channel c is the resampler
 * above fed input c, with its own history and its own tags (a tag on input c appears on output
 * c only). The rate is shared: every channel takes the same inputs and gives the same outputs
 * per call (one clock), and set_rate() changes every channel at the same output. On CUDA every
 * channel runs in one kernel launch per work(), except the texture method (one launch per
 * channel: each channel's window needs a texture of its own).
 *
 * Input format (complex samples): "fc32" or "sc16", I and Q as int16 (4-byte items: gr-uhd's
 * usrp_source with cpu_format sc16, or a file of radio samples), each component times
 * full_scale / 32767. Each work() call's inputs are expanded to complex float and resampled as
 * such: the outputs equal the fc32 block fed the expanded samples, bit for bit. With host
 * buffers the expansion is in host memory (on CUDA the staging step: the inputs cross the bus as
 * complex float); with CUDA device buffers it is a device pass ahead of the kernels (the inputs
 * cross the bus, and GNU Radio's buffers, as sc16).
 */
template <class T>
class GPUINTERP_API resampler : virtual public gr::block, public stream_queries
{
public:
    typedef std::shared_ptr<resampler<T>> sptr;

    /*!
     * \param rate output rate / input rate, 1e-4 .. 1e4
     * \param method "nearest", "linear", "texture", "cubic" or "polyphase"
     * \param nfilts polyphase arms (>= 2)
     * \param taps_per_arm polyphase filter length K in input samples (even, 4..512)
     * \param attenuation_db polyphase Kaiser design attenuation (20..150 dB)
     * \param backend "automatic", "cpu" or "cuda"
     * \param device CUDA device index
     * \param device_buffers keep the stream in device memory (GRC "Keep data on GPU";
     * docs/device_buffers.md)
     * \param output_format "fc32" (the sample type T) or, for complex samples, "sc16": I and Q
     * as int16 (4-byte items, what gr-uhd's usrp_sink takes with cpu_format sc16), converted in
     * the resampling kernel's own store: rint(y * 32767 / full_scale), saturated; NaN becomes
     * 0. Saturated and NaN outputs are counted (saturated(), invalid()) and logged.
     * \param full_scale the magnitude that maps to 32767 on every sc16 port, input or output
     *        (> 0, finite)
     * \param channels number of channels (inputs = outputs), 1 .. 64, sharing the rate
     * \param input_format "fc32" (the sample type T) or, for complex samples, "sc16"
     */
    static sptr make(double rate,
                     const std::string& method = "polyphase",
                     unsigned nfilts = 32,
                     unsigned taps_per_arm = 32,
                     double attenuation_db = 80.0,
                     const std::string& backend = "automatic",
                     int device = 0,
                     bool device_buffers = false,
                     const std::string& output_format = "fc32",
                     float full_scale = 1.0f,
                     int channels = 1,
                     const std::string& input_format = "fc32");
    //! The same, the polyphase filter's parameters as the kernel's and the stream options as
    //! one list (stream_options.h; `batch`: most outputs per GPU launch, 0 for the default).
    static sptr make(double rate,
                     const std::string& method,
                     const kernel::polyphase_params& filter,
                     const stream_options& options);

    virtual void set_rate(double rate) = 0;
    virtual double rate() const = 0;
    //! CUDA kernel of the polyphase method: "automatic" (tiled where it fits in shared memory)
    //! or "untiled" (always the one-thread-per-output kernel, for comparison); ignored on the CPU
    //! and by the other methods. Lands between two work() calls.
    virtual void set_cuda_variant(const std::string& variant) = 0;
    virtual std::string method() const = 0;
};

typedef resampler<std::complex<float>> resampler_cc;
typedef resampler<float> resampler_ff;

} // namespace gpuinterp
} // namespace gr

#endif
