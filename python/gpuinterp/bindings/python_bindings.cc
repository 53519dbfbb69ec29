/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <gnuradio/block.h>
#include <gnuradio/block_detail.h>
#include <gnuradio/buffer_reader.h>
#include <gnuradio/gpuinterp/kernel/backend.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

// One bind_<name>() per <name>_python.cc. gr_modtool add inserts new blocks between the markers
// (keep them).
// BINDING_FUNCTION_PROTOTYPES(
void bind_coeffs_message(py::module& m);
void bind_device_buffers(py::module& m);
void bind_dpd_adapt(py::module& m);
void bind_dpd_gram(py::module& m);
void bind_dpd_capture(py::module& m);
void bind_dpd_predistorter(py::module& m);
void bind_interp_fir(py::module& m);
void bind_resamp(py::module& m);
void bind_resize_2d(py::module& m);
// ) END BINDING_FUNCTION_PROTOTYPES

PYBIND11_MODULE(gpuinterp_python, m)
{
    // gr.sync_block and friends must be registered before our classes derive from them.
    py::module::import("gnuradio.gr");
    using namespace gr::gpuinterp;
    m.def("built_with_cuda",
          &built_with_cuda,
          "True when this build contains the CUDA backend.");
    m.def("cuda_device_count",
          &cuda_device_count,
          "Number of usable CUDA devices (0 without one).");
    m.def(
        "select_backend",
        [](const std::string& b, int device) {
            const auto c = select_backend(backend_from_string(b), device);
            return py::make_tuple(to_string(c.selected), c.reason);
        },
        py::arg("backend"),
        py::arg("device") = 0,
        "The backend a kernel built with (backend, device) runs on, and why 'automatic' "
        "fell back to the CPU: ('cpu' | 'cuda', reason). Raises as that kernel's "
        "construction would.");
    m.def(
        "cuda_unavailable_reason",
        &cuda_unavailable_reason,
        "Why no CUDA device is usable (e.g. 'no NVIDIA driver found'); '' when one is.");
    m.def(
        "cuda_device_name",
        &cuda_device_name,
        py::arg("device"),
        "Name of a CUDA device. Raises RuntimeError saying why when no device is usable, "
        "ValueError when the index is out of range.");
    m.def(
        "select_backend",
        [](const std::string& requested, int device) {
            const backend_choice c =
                select_backend(backend_from_string(requested), device);
            return py::make_tuple(to_string(c.selected), c.reason);
        },
        py::arg("backend"),
        py::arg("device") = 0,
        "Resolve a backend name: returns (selected, reason). Raises like a block's "
        "constructor would.");

    // GNU Radio's Python bindings leave buffer_reader without done(), so a Python block cannot
    // tell an input whose upstream has finished from one that is only slow; dpd_estimator_cc
    // needs to (a receiver stream that ends must not stop its transmit input).
    m.def(
        "input_ended",
        [](const gr::basic_block_sptr& b, int port) {
            const auto blk = std::dynamic_pointer_cast<gr::block>(b);
            const gr::block_detail_sptr d = blk ? blk->detail() : nullptr;
            if (!d)
                throw py::value_error("block: not running in a flowgraph");
            if (port < 0 || port >= d->ninputs())
                throw py::value_error("port: must be in [0, " +
                                      std::to_string(d->ninputs()) + "), got " +
                                      std::to_string(port));
            return d->input(unsigned(port))->done();
        },
        py::arg("block"),
        py::arg("port"),
        "True when the upstream block writing input `port` of `block` "
        "(a running block, e.g. a Python block's to_basic_block()) has finished: "
        "no more items will arrive.");

    // BINDING_FUNCTION_CALLS(
    bind_coeffs_message(m);
    bind_device_buffers(m);
    bind_dpd_adapt(m);
    bind_dpd_gram(m);
    bind_dpd_capture(m);
    bind_dpd_predistorter(m);
    bind_interp_fir(m);
    bind_resamp(m);
    bind_resize_2d(m);
    // ) END BINDING_FUNCTION_CALLS
}
