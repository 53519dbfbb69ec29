/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "channel_counts.h"
#include "int_arg.h"
#include "kernel_guard.h"
#include "numpy_util.h"
#include <gnuradio/gpuinterp/interp_fir.h>
#include <gnuradio/gpuinterp/kernel/channels.h>
#include <gnuradio/gpuinterp/kernel/polyphase_interpolator.h>
#include <pybind11/complex.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;
using namespace gr::gpuinterp;
using pyutil::int_arg;

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
           CPU backend the same buffers use host memory. Default False (plain host buffers).
    output_format: "fc32", or "sc16" (complex types: I, Q as int16) for `full_scale`
    full_scale: the magnitude that maps to 32767 on every sc16 port, input or output
    channels: 1 .. 64 inputs and as many outputs; each channel has its own history and tags,
           all share the taps (set_taps() changes every channel at the same sample).
    input_format: "fc32", or "sc16" (complex types: I, Q as int16, 4-byte items such as
           blocks.complex_to_interleaved_short(vector=False) or a UHD source with cpu_format
           sc16 give), each component times full_scale / 32767. CUDA converts in the kernel's
           window load; the CPU equals the fc32 block fed the converted samples bit for bit.)doc";

template <class T, class TAP>
void bind_block(py::module& m, const char* name)
{
    using blk = interp_fir<T, TAP>;
    auto cls = py::class_<blk,
                          gr::sync_interpolator,
                          gr::sync_block,
                          gr::block,
                          gr::basic_block,
                          std::shared_ptr<blk>>(m, name, block_doc)
                   .def(py::init([](int_arg L,
                                    const std::vector<TAP>& taps,
                                    const std::string& b,
                                    int_arg device,
                                    int_arg batch,
                                    bool device_buffers,
                                    const std::string& output_format,
                                    float full_scale,
                                    int_arg channels,
                                    const std::string& input_format) {
                            return blk::make(
                                L.get<int>("interpolation", 1, pyutil::max_interpolation),
                                taps,
                                b,
                                device.get<int>("device", 0),
                                batch.get<int>("batch", 0, pyutil::max_batch),
                                device_buffers,
                                output_format,
                                full_scale,
                                channels.get<int>("channels", 1, kernel::max_channels),
                                input_format);
                        }),
                        py::arg("interpolation"),
                        py::arg("taps"),
                        py::arg("backend") = "automatic",
                        py::arg("device") = 0,
                        py::arg("batch") = 0,
                        py::arg("device_buffers") = false,
                        py::arg("output_format") = "fc32",
                        py::arg("full_scale") = 1.0f,
                        py::arg("channels") = 1,
                        py::arg("input_format") = "fc32",
                        block_doc)
                   .def("set_taps",
                        &blk::set_taps,
                        py::arg("taps"),
                        "Replace the taps (takes effect between two work() calls).")
                   .def("taps", &blk::taps)
                   .def(
                       "set_batch",
                       [](blk& b, int_arg batch) {
                           b.set_batch(batch.get<int>("batch", 0, pyutil::max_batch));
                       },
                       py::arg("batch"))
                   .def("batch", &blk::batch);
    pyutil::def_block_queries(cls);
    pyutil::def_sample_formats(cls);
    pyutil::def_channel_counts(cls);
}

template <class T, class TAP>
void bind_kernel(py::module& m, const char* name)
{
    using K = kernel::polyphase_interpolator<T, TAP>;
    using G = pyutil::guarded<K>;
    static const std::string doc =
        std::string(
            "Streaming polyphase interpolator kernel (no flowgraph). filter(x) "
            "returns len(x)*L outputs and keeps the last ceil(len(taps)/L)-1 inputs "
            "as history, so calling it chunk by chunk equals one call. With "
            "channels = N, filter() takes an (N, n) array and returns (N, n*L): "
            "each row filtered with its own history, all with the same taps.") +
        pyutil::thread_safety_doc();
    py::class_<G> cls(m, name, doc.c_str());
    cls.def(py::init([](int_arg L,
                        const std::vector<TAP>& taps,
                        const std::string& b,
                        int_arg device,
                        int_arg batch,
                        int_arg channels) {
                return pyutil::make_guarded<K>(
                    L.get<unsigned>("interpolation", 1, pyutil::max_interpolation),
                    taps,
                    backend_from_string(b),
                    device.get<int>("device", 0),
                    batch.get<size_t>("batch", 0, pyutil::max_batch),
                    channels.get<unsigned>("channels", 1, kernel::max_channels));
            }),
            py::arg("interpolation"),
            py::arg("taps"),
            py::arg("backend") = "cpu",
            py::arg("device") = 0,
            py::arg("batch") = 0,
            py::arg("channels") = 1)
        .def(
            "filter",
            [](G& g, const py::object& x_in) {
                const auto x = pyutil::input_array<T>(x_in, "x");
                const size_t L = g.run([](K& k) { return size_t(k.interpolation()); });
                const size_t N = g.run([](K& k) { return size_t(k.channels()); });
                const size_t n = pyutil::channel_length(x, N);
                py::array_t<T> out = pyutil::channel_array<T>(N, n * L);
                std::vector<void*> o(N);
                std::vector<const void*> i(N);
                for (size_t c = 0; c < N; c++) {
                    o[c] = out.mutable_data() + c * n * L;
                    i[c] = x.data() + c * n;
                }
                g.run([&](K& k) { k.filter_items(o.data(), i.data(), n); });
                return out;
            },
            py::arg("x"))
        .def("channels", pyutil::method<K>(&K::channels))
        .def("set_taps", pyutil::method<K>(&K::set_taps), py::arg("taps"))
        .def("taps", pyutil::method<K>(&K::taps))
        .def("reset", pyutil::method<K>(&K::reset))
        .def("interpolation", pyutil::method<K>(&K::interpolation))
        .def("taps_per_arm", pyutil::method<K>(&K::taps_per_arm));
    pyutil::def_backend_queries(cls);
}

} // namespace

void bind_interp_fir(py::module& m)
{
    bind_block<std::complex<float>, float>(m, "interp_fir_ccf");
    bind_block<float, float>(m, "interp_fir_fff");
    bind_block<std::complex<float>, std::complex<float>>(m, "interp_fir_ccc");
    bind_kernel<std::complex<float>, float>(m, "polyphase_interpolator_ccf");
    bind_kernel<float, float>(m, "polyphase_interpolator_fff");
    bind_kernel<std::complex<float>, std::complex<float>>(m,
                                                          "polyphase_interpolator_ccc");
}
