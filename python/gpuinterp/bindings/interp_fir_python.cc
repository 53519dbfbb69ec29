/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "numpy_util.h"
#include <gnuradio/gpuinterp/interp_fir.h>
#include <gnuradio/gpuinterp/kernel/polyphase_interpolator.h>
#include <pybind11/complex.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;
using namespace gr::gpuinterp;

namespace {

const char* block_doc =
    R"doc(FIR interpolator by an integer factor L (upsample + low-pass), polyphase, GPU or CPU.

Same taps, output and alignment as GNU Radio's interp_fir_filter_xxx and
scipy.signal.upfirdn(taps, x, L)[:len(x)*L]: taps are zero-padded to a multiple of L, arm p uses
taps[p + k*L], the stream starts from zero history. Taps carry the interpolation gain.

Args:
    interpolation: L >= 1
    taps: non-empty, finite filter taps
    backend: "automatic" (CUDA when usable, else CPU with a log line), "cpu" or "cuda"
    device: CUDA device index
    batch: most input items per GPU launch (0 = default 262144). A work() call is cut into
           launches of this size that pipeline (copy in / kernel / copy out overlap); smaller
           lowers latency, but below ~4096 launch overhead dominates. Ignored on the CPU.
    device_buffers: keep the stream in device memory ("Keep data on GPU"): a chain of gpuinterp
           blocks passes data device to device and crosses the bus once in and once out. On the
           CPU backend the same buffers use host memory. Default False (plain host buffers).)doc";

template <class T, class TAP>
void bind_block(py::module& m, const char* name)
{
    using blk = interp_fir<T, TAP>;
    py::class_<blk, gr::sync_interpolator, gr::sync_block, gr::block, gr::basic_block, std::shared_ptr<blk>>(
        m, name, block_doc)
        .def(py::init(&blk::make),
             py::arg("interpolation"),
             py::arg("taps"),
             py::arg("backend") = "automatic",
             py::arg("device") = 0,
             py::arg("batch") = 0,
             py::arg("device_buffers") = false,
             block_doc)
        .def("set_taps", &blk::set_taps, py::arg("taps"), "Replace the taps (takes effect between two work() calls).")
        .def("taps", &blk::taps)
        .def("set_batch", &blk::set_batch, py::arg("batch"))
        .def("batch", &blk::batch)
        .def("active_backend", &blk::active_backend, "The backend in use: 'cpu' or 'cuda'.")
        .def("device_buffers", &blk::device_buffers, "Whether the ports use device buffers.");
}

template <class T, class TAP>
void bind_kernel(py::module& m, const char* name)
{
    using K = kernel::polyphase_interpolator<T, TAP>;
    py::class_<K>(m,
                  name,
                  "Streaming polyphase interpolator kernel (no flowgraph). filter(x) returns "
                  "len(x)*L outputs and keeps the last ceil(len(taps)/L)-1 inputs as history, so "
                  "calling it chunk by chunk equals one call.")
        .def(py::init([](unsigned L, const std::vector<TAP>& taps, const std::string& b, int device, size_t batch) {
                 return std::make_unique<K>(L, taps, backend_from_string(b), device, batch);
             }),
             py::arg("interpolation"),
             py::arg("taps"),
             py::arg("backend") = "cpu",
             py::arg("device") = 0,
             py::arg("batch") = 0)
        .def(
            "filter",
            [](K& k, const pyutil::carray<T>& x) {
                return pyutil::map_1d<T>(x, k.interpolation(), [&](T* o, const T* i, size_t n) {
                    k.filter(o, i, n);
                });
            },
            py::arg("x"))
        .def("set_taps", &K::set_taps, py::arg("taps"))
        .def("taps", &K::taps)
        .def("reset", &K::reset)
        .def("interpolation", &K::interpolation)
        .def("taps_per_arm", &K::taps_per_arm)
        .def("active_backend", [](const K& k) { return to_string(k.active_backend()); })
        .def("backend_note", &K::backend_note);
}

} // namespace

void bind_interp_fir(py::module& m)
{
    bind_block<std::complex<float>, float>(m, "interp_fir_ccf");
    bind_block<float, float>(m, "interp_fir_fff");
    bind_block<std::complex<float>, std::complex<float>>(m, "interp_fir_ccc");
    bind_kernel<std::complex<float>, float>(m, "polyphase_interpolator_ccf");
    bind_kernel<float, float>(m, "polyphase_interpolator_fff");
    bind_kernel<std::complex<float>, std::complex<float>>(m, "polyphase_interpolator_ccc");
}
