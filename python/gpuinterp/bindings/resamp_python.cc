/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Bindings of the resampler and table-lookup blocks, their kernels (numpy in, numpy out)
// and the texture-unit emulation.
#include "channel_counts.h"
#include "int_arg.h"
#include "kernel_guard.h"
#include "numpy_util.h"
#include <gnuradio/gpuinterp/kernel/channels.h>
#include <gnuradio/gpuinterp/kernel/resampler.h>
#include <gnuradio/gpuinterp/kernel/table_lookup.h>
#include <gnuradio/gpuinterp/kernel/texture_emulation.h>
#include <gnuradio/gpuinterp/kernel/validate.h>
#include <gnuradio/gpuinterp/resampler.h>
#include <gnuradio/gpuinterp/table_lookup.h>
#include <pybind11/complex.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <algorithm>

namespace py = pybind11;
using namespace gr::gpuinterp;
using pyutil::int_arg;

namespace {

const char* resampler_doc =
    R"doc(Arbitrary-rate resampler, r = output rate / input rate, on a GPU or the CPU.

Output k is the input interpolated at time t_k = k / r (input samples): the first output coincides
with input 0, the stream starts from zero history, there is no delay. Methods: 'nearest',
'linear', 'texture' (linear with the GPU texture unit's 9-bit weights, emulated bit for bit on the
CPU), 'cubic' (Catmull-Rom) and 'polyphase' (Kaiser-windowed sinc with nfilts arms and linear
interpolation between adjacent arms; stretched by 1/r when r < 1). set_rate() works while running
and keeps the phase. Tags move to the first output at or after their input time.

Args:
    rate: output/input rate, 1e-4 .. 1e4
    method: 'nearest', 'linear', 'texture', 'cubic' or 'polyphase'
    nfilts: polyphase arms (>= 2)
    taps_per_arm: polyphase length K in input samples (even, 4..512)
    attenuation_db: polyphase Kaiser design attenuation (20..150)
    backend: 'automatic', 'cpu' or 'cuda'
    device: CUDA device index
    device_buffers: keep the stream in device memory (docs/device_buffers.md)
    output_format: 'fc32' (the sample type) or, for complex samples, 'sc16': I and Q as int16
           (4-byte items, what gr-uhd's usrp_sink takes with cpu_format 'sc16'), converted in the
           resampling kernel's own store: rint(y * 32767 / full_scale), saturated, NaN as 0;
           saturated() and invalid() count those outputs, and a warning is logged at most once
           a second while they grow
    full_scale: the magnitude that maps to 32767 on every sc16 port, input or output (> 0, finite)
    channels: 1 .. 64 inputs and as many outputs; each channel has its own history and tags,
           all share the rate (one clock: the same inputs taken and outputs given per call)
    input_format: 'fc32', or 'sc16' (complex samples: I, Q as int16, 4-byte items), each
           component times full_scale / 32767; each call's inputs are expanded in host memory
           and resampled as complex float, so the outputs equal the fc32 block fed the expanded
           samples bit for bit. CUDA with device_buffers refuses sc16 input.)doc";

const char* lookup_doc =
    R"doc(Interpolated table lookup: float coordinates in, table values out (CUDA 1D texture rules).

Texel k's centre is at k + 0.5 (normalized: (k + 0.5)/N). 'point': T[floor(x)]; 'linear':
(1-a) T[i] + a T[i+1] with x - 0.5 = i + a. 'clamp' reads the edge texel outside the table,
'border' reads 0. precision 'texture' rounds a to k/256 as the GPU texture unit does (CUDA: the
texture unit; CPU: bit-exact emulation); 'exact' keeps a unrounded.

Args:
    table: non-empty finite table (<= 131072 entries on CUDA)
    normalized: coordinates in [0, 1] instead of texels
    filter: 'point' or 'linear'
    address: 'clamp' or 'border'
    precision: 'texture' or 'exact'
    backend: 'automatic', 'cpu' or 'cuda'
    device: CUDA device index
    device_buffers: keep the stream in device memory (docs/device_buffers.md))doc";

//! The polyphase design of the kernel and polyphase_prototype() from their Python arguments, the
//! arm count and length checked against the kernel's bounds.
kernel::polyphase_params
polyphase_arg(const int_arg& nfilts, const int_arg& taps_per_arm, double attenuation_db)
{
    kernel::polyphase_params p;
    p.nfilts = nfilts.get<unsigned>("nfilts", pyutil::min_nfilts, pyutil::max_nfilts);
    p.taps_per_arm = taps_per_arm.get<unsigned>(
        "taps_per_arm", pyutil::min_taps_per_arm, pyutil::max_taps_per_arm);
    p.attenuation_db = attenuation_db;
    return p;
}

template <class T>
void bind_resampler_block(py::module& m, const char* name)
{
    using blk = resampler<T>;
    auto cls = py::class_<blk, gr::block, gr::basic_block, std::shared_ptr<blk>>(
                   m, name, resampler_doc)
                   .def(py::init([](double rate,
                                    const std::string& method,
                                    int_arg nfilts,
                                    int_arg taps_per_arm,
                                    double att,
                                    const std::string& b,
                                    int_arg device,
                                    bool device_buffers,
                                    const std::string& output_format,
                                    float full_scale,
                                    int_arg channels,
                                    const std::string& input_format) {
                            return blk::make(
                                rate,
                                method,
                                nfilts.get<unsigned>(
                                    "nfilts", pyutil::min_nfilts, pyutil::max_nfilts),
                                taps_per_arm.get<unsigned>("taps_per_arm",
                                                           pyutil::min_taps_per_arm,
                                                           pyutil::max_taps_per_arm),
                                att,
                                b,
                                device.get<int>("device", 0),
                                device_buffers,
                                output_format,
                                full_scale,
                                channels.get<int>("channels", 1, kernel::max_channels),
                                input_format);
                        }),
                        py::arg("rate"),
                        py::arg("method") = "polyphase",
                        py::arg("nfilts") = 32,
                        py::arg("taps_per_arm") = 32,
                        py::arg("attenuation_db") = 80.0,
                        py::arg("backend") = "automatic",
                        py::arg("device") = 0,
                        py::arg("device_buffers") = false,
                        py::arg("output_format") = "fc32",
                        py::arg("full_scale") = 1.0f,
                        py::arg("channels") = 1,
                        py::arg("input_format") = "fc32",
                        resampler_doc)
                   .def("set_rate",
                        &blk::set_rate,
                        py::arg("rate"),
                        "Change the rate (lands between two work() calls).")
                   .def("rate", &blk::rate)
                   .def("set_cuda_variant",
                        &blk::set_cuda_variant,
                        py::arg("variant"),
                        "CUDA polyphase kernel: 'automatic' (tiled where it fits in "
                        "shared memory) or 'untiled' "
                        "(for comparison); ignored on the CPU and by the other methods.")
                   .def("method", &blk::method);
    pyutil::def_block_queries(cls);
    pyutil::def_sample_formats(cls);
    pyutil::def_channel_counts(cls);
}

template <class T>
void bind_lookup_block(py::module& m, const char* name)
{
    using blk = table_lookup<T>;
    py::class_<blk, gr::sync_block, gr::block, gr::basic_block, std::shared_ptr<blk>> cls(
        m, name, lookup_doc);
    cls.def(py::init([](const std::vector<T>& table,
                        bool normalized,
                        const std::string& f,
                        const std::string& a,
                        const std::string& p,
                        const std::string& b,
                        int_arg device,
                        bool device_buffers) {
                return blk::make(table,
                                 normalized,
                                 f,
                                 a,
                                 p,
                                 b,
                                 device.get<int>("device", 0),
                                 device_buffers);
            }),
            py::arg("table"),
            py::arg("normalized") = false,
            py::arg("filter") = "linear",
            py::arg("address") = "clamp",
            py::arg("precision") = "texture",
            py::arg("backend") = "automatic",
            py::arg("device") = 0,
            py::arg("device_buffers") = false,
            lookup_doc)
        .def("set_table",
             &blk::set_table,
             py::arg("table"),
             "Replace the table (lands between two work() calls).")
        .def("table", &blk::table);
    pyutil::def_block_queries(cls);
}

template <class T>
void bind_resampler_kernel(py::module& m, const char* name)
{
    using K = kernel::resampler<T>;
    using G = pyutil::guarded<K>;
    static const std::string doc =
        std::string("Streaming resampler kernel (no flowgraph). resample(x) consumes x "
                    "and returns every output it allows; calling it chunk by chunk "
                    "equals one call. With channels = N, x is an (N, n) array and the "
                    "result (N, m): each row with its own history, "
                    "all at the same rate.") +
        pyutil::thread_safety_doc();
    py::class_<G> cls(m, name, doc.c_str());
    cls.def(py::init([](double rate,
                        const std::string& method,
                        int_arg nfilts,
                        int_arg K_,
                        double att,
                        const std::string& b,
                        int_arg device,
                        int_arg batch,
                        int_arg channels) {
                const kernel::polyphase_params p = polyphase_arg(nfilts, K_, att);
                return pyutil::make_guarded<K>(
                    rate,
                    kernel::method_from_string(method),
                    backend_from_string(b),
                    device.get<int>("device", 0),
                    p,
                    batch.get<size_t>("batch", 0, pyutil::max_batch),
                    channels.get<unsigned>("channels", 1, kernel::max_channels));
            }),
            py::arg("rate"),
            py::arg("method") = "polyphase",
            py::arg("nfilts") = 32,
            py::arg("taps_per_arm") = 32,
            py::arg("attenuation_db") = 80.0,
            py::arg("backend") = "cpu",
            py::arg("device") = 0,
            py::arg("batch") = 0,
            py::arg("channels") = 1)
        .def(
            "resample",
            [](G& g, const py::object& x_in) {
                const auto x = pyutil::input_array<T>(x_in, "x");
                const size_t N = g.run([](K& k) { return size_t(k.channels()); });
                pyutil::channel_length(x, N);
                std::vector<T> in(x.data(), x.data() + x.size());
                std::vector<T> out = g.run([&](K& k) { return k.resample(in); });
                py::array_t<T> a = pyutil::channel_array<T>(N, out.size() / N);
                std::copy(out.begin(), out.end(), a.mutable_data());
                return a;
            },
            py::arg("x"))
        .def("channels", pyutil::method<K>(&K::channels))
        .def("set_rate", pyutil::method<K>(&K::set_rate), py::arg("rate"))
        .def("rate", pyutil::method<K>(&K::rate))
        .def(
            "set_cuda_variant",
            [](G& g, const std::string& v) {
                const auto variant =
                    gr::gpuinterp::kernel::resamp_cuda_variant_from_string(v);
                g.run([&](K& k) { k.set_cuda_variant(variant); });
            },
            py::arg("variant"),
            "CUDA polyphase kernel: 'automatic' or 'untiled' (see the block's "
            "set_cuda_variant).")
        .def("cuda_variant",
             [](G& g) { return g.run([](K& k) { return to_string(k.cuda_variant()); }); })
        .def("reset", pyutil::method<K>(&K::reset))
        .def("lookahead", pyutil::method<K>(&K::lookahead))
        .def("reach_back", pyutil::method<K>(&K::reach_back))
        .def(
            "inputs_needed",
            [](G& g, int_arg n_out) {
                // The answer is about n_out / rate input positions in int64 arithmetic; up to 2^62
                // positions leave room for the stream's own position. Beyond, it would wrap.
                const double r = g.run([](K& k) { return k.rate(); });
                const long long hi =
                    std::min(double(std::numeric_limits<long long>::max()),
                             std::floor(std::ldexp(1.0, 62) * std::min(r, 1.0)));
                const size_t n = n_out.get<size_t>("n_out", 0, hi);
                return g.run([&](K& k) { return k.inputs_needed(n); });
            },
            py::arg("n_out"))
        .def("inputs_consumed", pyutil::method<K>(&K::inputs_consumed))
        .def("outputs_produced", pyutil::method<K>(&K::outputs_produced))
        .def(
            "output_time",
            [](G& g, int_arg k_) {
                const uint64_t k = k_.get<uint64_t>("k", 0);
                return g.run([&](K& k2) { return k2.output_time(k); });
            },
            py::arg("k"))
        .def("prototype", pyutil::method<K>(&K::prototype));
    pyutil::def_backend_queries(cls);
}

template <class T>
void bind_lookup_kernel(py::module& m, const char* name)
{
    using K = kernel::table_lookup<T>;
    using G = pyutil::guarded<K>;
    static const std::string doc =
        std::string("Table lookup kernel (no flowgraph): lookup(x) returns T(x) for a "
                    "float array x.") +
        pyutil::thread_safety_doc();
    py::class_<G>(m, name, doc.c_str())
        .def(py::init([](const std::vector<T>& table,
                         bool normalized,
                         const std::string& f,
                         const std::string& a,
                         const std::string& p,
                         const std::string& b,
                         int_arg device) {
                 kernel::lookup_config c;
                 c.normalized = normalized;
                 c.filter = kernel::filter_from_string(f);
                 c.addr = kernel::address_from_string(a);
                 c.precision = kernel::precision_from_string(p);
                 return pyutil::make_guarded<K>(
                     table, c, backend_from_string(b), device.get<int>("device", 0));
             }),
             py::arg("table"),
             py::arg("normalized") = false,
             py::arg("filter") = "linear",
             py::arg("address") = "clamp",
             py::arg("precision") = "texture",
             py::arg("backend") = "cpu",
             py::arg("device") = 0)
        .def(
            "lookup",
            [](G& g, const py::object& x_in) {
                const auto x = pyutil::input_array<float>(x_in, "x");
                if (x.ndim() != 1)
                    throw std::invalid_argument("x: expected a one-dimensional array");
                const size_t n = size_t(x.shape(0));
                py::array_t<T> out(static_cast<py::ssize_t>(n));
                T* o = out.mutable_data();
                const float* i = x.data();
                g.run([&](K& k) { k.lookup(o, i, n); });
                return out;
            },
            py::arg("x"))
        .def("set_table", pyutil::method<K>(&K::set_table), py::arg("table"))
        .def("table", pyutil::method<K>(&K::table))
        .def("active_backend", [](G& g) {
            return g.run([](K& k) { return to_string(k.active_backend()); });
        });
}

} // namespace

void bind_resamp(py::module& m)
{
    bind_resampler_block<std::complex<float>>(m, "resampler_cc");
    bind_resampler_block<float>(m, "resampler_ff");
    bind_lookup_block<float>(m, "table_lookup_ff");
    bind_lookup_block<std::complex<float>>(m, "table_lookup_fc");
    bind_resampler_kernel<std::complex<float>>(m, "resampler_kernel_cc");
    bind_resampler_kernel<float>(m, "resampler_kernel_ff");
    bind_lookup_kernel<float>(m, "table_lookup_kernel_ff");
    bind_lookup_kernel<std::complex<float>>(m, "table_lookup_kernel_fc");
    m.def(
        "polyphase_prototype",
        [](int_arg nfilts, int_arg K, double att) {
            return kernel::polyphase_prototype(polyphase_arg(nfilts, K, att));
        },
        py::arg("nfilts") = 32,
        py::arg("taps_per_arm") = 32,
        py::arg("attenuation_db") = 80.0,
        "The polyphase method's Kaiser-windowed sinc, K*nfilts+1 samples at nfilts per "
        "input sample.");
    m.def(
        "texture_fetch",
        [](const std::vector<float>& table,
           const std::vector<float>& x,
           bool linear,
           const std::string& address,
           bool normalized) {
            require_nonempty_finite("table", table);
            const auto a = kernel::address_from_string(address);
            std::vector<float> y(x.size());
            for (size_t i = 0; i < x.size(); i++)
                y[i] = linear ? kernel::texemu::fetch_linear(
                                    table.data(), table.size(), x[i], normalized, a)
                              : kernel::texemu::fetch_point(
                                    table.data(), table.size(), x[i], normalized, a);
            return y;
        },
        py::arg("table"),
        py::arg("x"),
        py::arg("linear") = true,
        py::arg("address") = "clamp",
        py::arg("normalized") = false,
        "CPU emulation of tex1D on a float texture (9-bit weights), bit-exact with the "
        "GPU.");
}
