/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_CHANNEL_COUNTS_H
#define INCLUDED_GPUINTERP_CHANNEL_COUNTS_H
// The queries every block shares: device_buffers() and active_backend(). Those of blocks with
// sc16 ports: output_format(), input_format() and full_scale(); and
// saturated(channel=0) and invalid(channel=0) of a block with per-channel sc16 counts and a
// channels() method, the channel checked with a ValueError naming it.
#include "int_arg.h"
#include <pybind11/pybind11.h>

namespace gr {
namespace gpuinterp {
namespace pyutil {

//! device_buffers() (whether the ports use device buffers) and active_backend() ('cpu' or 'cuda').
template <class Cls>
void def_block_queries(Cls& cls)
{
    using B = typename Cls::type;
    cls.def("device_buffers",
            &B::device_buffers,
            "True when the ports use device buffers.")
        .def(
            "active_backend", &B::active_backend, "The backend in use: 'cpu' or 'cuda'.");
}

//! output_format(), input_format() ('fc32' or 'sc16') and full_scale() (the magnitude that maps
//! to 32767 on the sc16 ports).
template <class Cls>
void def_sample_formats(Cls& cls)
{
    using B = typename Cls::type;
    cls.def("output_format", &B::output_format, "'fc32' or 'sc16'.")
        .def("input_format", &B::input_format, "'fc32' or 'sc16'.")
        .def("full_scale", &B::full_scale);
}

template <class Cls>
void def_channel_counts(Cls& cls)
{
    using B = typename Cls::type;
    cls.def(
           "saturated",
           [](const B& b, int_arg ch) {
               return b.saturated(ch.get<unsigned>("channel", 0, b.channels() - 1));
           },
           py::arg("channel") = 0,
           "sc16: outputs of `channel` clipped to int16 since start.")
        .def(
            "invalid",
            [](const B& b, int_arg ch) {
                return b.invalid(ch.get<unsigned>("channel", 0, b.channels() - 1));
            },
            py::arg("channel") = 0,
            "sc16: outputs of `channel` with a NaN component (written as 0) since start.")
        .def("channels", &B::channels, "The number of channels (inputs = outputs).");
}

} // namespace pyutil
} // namespace gpuinterp
} // namespace gr

#endif
