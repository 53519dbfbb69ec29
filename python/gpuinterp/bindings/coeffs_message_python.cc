/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The `coeffs` message codec, so Python blocks decode and encode exactly what the C++ blocks do.
#include "int_arg.h"
#include "numpy_util.h"
#include <gnuradio/gpuinterp/coeffs_message.h>
#include <pybind11/complex.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

void bind_coeffs_message(py::module& m)
{
    using namespace gr::gpuinterp;
    m.def(
        "decode_coeffs_message",
        [](const pmt::pmt_t& msg) {
            coeffs_update u;
            try {
                u = decode_coeffs_message(msg);
            } catch (const std::invalid_argument& e) {
                throw py::value_error(e.what());
            }
            // The Python receivers run polynomial models; a neural model's weights go to
            // dpd_predistorter_cc, which decodes them itself.
            if (!u.weights.empty())
                throw py::value_error(
                    "weights: this receiver takes complex coefficients, "
                    "not a neural model's weights");
            auto w = pyutil::to_array<std::complex<float>>(u.coefficients);
            py::object c = py::none();
            if (u.has_lo_leakage)
                c = py::cast(std::complex<double>(u.lo_leakage));
            return py::make_tuple(w, c);
        },
        py::arg("msg"),
        "Decode a `coeffs` message: (coefficients as a complex64 array, LO leakage c "
        "or None when the message leaves c unchanged). Accepts a c32/c64/f32 vector "
        "or a PMT vector of numbers, a pair (vector . c) or a dict "
        "{'coefficients'|'coeffs': vector, 'lo_leakage'|'c': c}. Raises ValueError on "
        "anything else.");
    m.def(
        "encode_coeffs_message",
        [](const py::object& coefficients,
           const py::object& lo_leakage,
           const py::object& channel,
           const py::object& weights) {
            coeffs_update u;
            const char* vec = "a one-dimensional array of numbers";
            if (!coefficients.is_none())
                u.coefficients = pyutil::vector_arg<std::complex<float>>(
                    coefficients, "coefficients", vec);
            if (!weights.is_none())
                u.weights = pyutil::vector_arg<float>(
                    weights, "weights", "a one-dimensional array of real numbers");
            if (!lo_leakage.is_none()) {
                u.lo_leakage = gr_complex(pyutil::complex_arg(lo_leakage, "lo_leakage"));
                u.has_lo_leakage = true;
            }
            u.channel = pyutil::optional_int<int>(channel, "channel", -1, 0);
            return encode_coeffs_message(u); // std::invalid_argument: a ValueError
        },
        py::arg("coefficients") = py::none(),
        py::arg("lo_leakage") = py::none(),
        py::arg("channel") = py::none(),
        py::arg("weights") = py::none(),
        "Encode a `coeffs` message, the inverse of decode_coeffs_message(): the "
        "coefficients and lo_leakage c as the pair (c32vector . c), the vector "
        "alone when c is None, or with a channel the dict {'coefficients', "
        "'lo_leakage', 'channel'}; a neural model's weights as the dict "
        "{'weights': f32vector} (with 'channel'). Raises ValueError naming a "
        "value that is not finite: a set that cannot be run is not sent.");
}
