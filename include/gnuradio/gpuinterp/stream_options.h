/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_STREAM_OPTIONS_H
#define INCLUDED_GPUINTERP_STREAM_OPTIONS_H

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

} // namespace gpuinterp
} // namespace gr

#endif
