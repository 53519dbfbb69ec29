/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_STREAM_OPTIONS_H
#define INCLUDED_GPUINTERP_STREAM_OPTIONS_H

#include <gnuradio/gpuinterp/api.h>
#include <cstdint>
#include <string>

namespace gr {
namespace gpuinterp {

/*!
 * \brief The options every streaming block shares, in one order and one type: where it runs, its
 * launches, buffers and channels, and its ports' sample formats.
 *
 * interp_fir, resampler and dpd_predistorter_cc each have a make(own parameters, stream_options);
 * their positional make()s (what GRC and the Python bindings call) build one of these and call it.
 * make() checks every field once, naming it in the std::invalid_argument, before a kernel exists.
 * \code
 *   gr::gpuinterp::stream_options o;
 *   o.backend = "cuda";
 *   o.device_buffers = true;
 *   o.channels = 4;
 *   o.output_format = "sc16";
 *   auto fir = gr::gpuinterp::interp_fir_ccf::make(8, taps, o);
 * \endcode
 */
struct stream_options {
    std::string backend = "automatic"; //!< "automatic", "cpu" or "cuda"
    int device = 0;                    //!< CUDA device index (>= 0)
    //! Most items per GPU launch (>= 0; 0: the block's default). Ignored on the CPU.
    int batch = 0;
    //! Ports in device memory (GRC: "Keep data on GPU"; docs/device_buffers.md).
    bool device_buffers = false;
    int channels = 1;                   //!< 1 .. 64 inputs and as many outputs
    std::string input_format = "fc32";  //!< "fc32" or, for complex samples, "sc16"
    std::string output_format = "fc32"; //!< "fc32" or, for complex samples, "sc16"
    float full_scale = 1.0f; //!< the magnitude that maps to 32767 on every sc16 port
};

/*!
 * \brief What a running block's stream options became, read back: the queries interp_fir,
 * resampler and dpd_predistorter_cc share (each derives from this beside its GNU Radio block).
 */
class GPUINTERP_API stream_queries
{
public:
    virtual ~stream_queries() = default;
    //! The backend actually in use: "cpu" or "cuda".
    virtual std::string active_backend() const = 0;
    //! True when the ports use device buffers (fixed at construction).
    virtual bool device_buffers() const = 0;
    //! The number of channels (inputs = outputs).
    virtual unsigned channels() const = 0;
    //! "fc32" or "sc16".
    virtual std::string output_format() const = 0;
    //! "fc32" or "sc16".
    virtual std::string input_format() const = 0;
    //! The magnitude that maps to 32767 on the sc16 ports.
    virtual float full_scale() const = 0;
    //! sc16: outputs of `channel` clipped to int16 / with a NaN component, since start.
    virtual uint64_t saturated(unsigned channel = 0) const = 0;
    virtual uint64_t invalid(unsigned channel = 0) const = 0;
};

} // namespace gpuinterp
} // namespace gr

#endif
