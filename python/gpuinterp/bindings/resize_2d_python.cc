/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "channel_counts.h"
#include "kernel_guard.h"
#include "numpy_util.h"
#include <gnuradio/gpuinterp/kernel/resize_2d.h>
#include <gnuradio/gpuinterp/kernel/validate.h>
#include <gnuradio/gpuinterp/resize_2d.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <type_traits>
#include <cstdint>
#include <tuple>
#include <utility>

namespace py = pybind11;
using namespace gr::gpuinterp;

namespace {

// The Python constructors' keywords are expanded from GPUINTERP_RESIZE_2D_PARAMS (names and
// order; qa_resize_2d_params.py checks them against the list): each keyword is the config field it
// fills, and it has a default unless make() requires it.
template <bool Required, typename T>
struct config_keyword {
    using type = T;
    const char* name;
    T kernel::resize_config::*field;
};
#define GPUINTERP_RESIZE_2D_KEYWORD(type, name, def, required, doc) \
    , std::make_tuple(                                              \
          config_keyword<required, type>{ #name, &kernel::resize_config::name })
#define GPUINTERP_RESIZE_2D_NO_KEYWORD(type, name, def, required, doc)

template <bool Required, typename T>
auto keyword_arg(const config_keyword<Required, T>& kw,
                 const kernel::resize_config& defaults)
{
    if constexpr (Required)
        return py::arg(kw.name);
    else
        return py::arg(kw.name) = defaults.*kw.field;
}

//! cls.def(py::init(...)) taking `keywords` (defaults from `defaults`), filling a config from
//! them and returning make(config).
template <class Cls, class Make, class... Kw, class... Extra>
void def_config_init(Cls& cls,
                     const std::tuple<Kw...>& keywords,
                     const kernel::resize_config& defaults,
                     Make make,
                     const Extra&... extra)
{
    std::apply(
        [&](const Kw&... kw) {
            cls.def(py::init([make, kw...](typename Kw::type... value) {
                        kernel::resize_config config;
                        ((config.*kw.field = std::move(value)), ...);
                        return make(config);
                    }),
                    keyword_arg(kw, defaults)...,
                    extra...);
        },
        keywords);
}

// The blocks' docstring; its Args are the parameter list's own descriptions.
const char* block_doc()
{
    static const std::string doc = [] {
        std::string d =
            R"doc(Resize frames carried as vector items, fused with per-channel normalisation, GPU or CPU.

One input item is a frame of in_height x in_width pixels, row-major, `channels` interleaved
(float32 for resize_2d_ff, uint8 for resize_2d_bf); one output item is the out_height x out_width
x channels frame, float32 or IEEE binary16 (half_output, 2-byte items). Every output value is
    out = (clip(scale * v) - mean[c]) / std[c]
with v the interpolated value. backend "automatic" runs CUDA when usable, else the CPU with a log
line.

Args:
)doc";
        for (const auto& p : kernel::resize_2d_parameters)
            d += std::string("    ") + p.name + ": " + p.doc + "\n";
        return d;
    }();
    return doc.c_str();
}

template <class T>
void bind_block(py::module& m, const char* name)
{
    using blk = resize_2d<T>;
    py::class_<blk, gr::sync_block, gr::block, gr::basic_block, std::shared_ptr<blk>> cls(
        m, name, block_doc());
    // Integers arrive as int64 (the config's types), so that any Python int reaches
    // resize_config::validate() (a ValueError naming the parameter, not pybind11's "incompatible
    // constructor arguments").
    def_config_init(
        cls,
        std::tuple_cat(std::tuple<>() GPUINTERP_RESIZE_2D_PARAMS(
            GPUINTERP_RESIZE_2D_KEYWORD, GPUINTERP_RESIZE_2D_KEYWORD)),
        kernel::resize_config(),
        [](const kernel::resize_config& config) { return blk::make(config); },
        block_doc());
    cls.def("set_normalization",
            &blk::set_normalization,
            py::arg("mean"),
            py::arg("std"),
            "Replace mean and std together (takes effect between two work() calls).")
        .def("set_mean", &blk::set_mean, py::arg("mean"))
        .def("set_std", &blk::set_std, py::arg("std"))
        .def("mean", &blk::mean)
        .def("std", &blk::std)
        .def("set_scale", &blk::set_scale, py::arg("scale"))
        .def("scale", &blk::scale)
        .def("set_clip", &blk::set_clip, py::arg("clip"))
        .def("set_clip_range",
             &blk::set_clip_range,
             py::arg("clip_min"),
             py::arg("clip_max"))
        .def("clip", &blk::clip)
        .def("set_border_value", &blk::set_border_value, py::arg("value"))
        .def("border_value", &blk::border_value)
        .def("set_method", &blk::set_method, py::arg("method"))
        .def("method", &blk::method)
        .def("set_coord", &blk::set_coord, py::arg("coord"))
        .def("coord", &blk::coord)
        .def("set_border", &blk::set_border, py::arg("border"))
        .def("border", &blk::border)
        .def("set_batch", &blk::set_batch, py::arg("batch"))
        .def("batch", &blk::batch)
        .def("half_output", &blk::half_output);
    pyutil::def_block_queries(cls);
}

// The input frames as T. numpy's cast wraps what uint8 cannot hold (300 -> 44, -1 -> 255, NaN -> 0)
// and drops the imaginary part of complex values: those are refused rather than silently changed.
template <class T>
pyutil::carray<T> frames_input(const py::object& x)
{
    constexpr bool u8 = std::is_same_v<T, std::uint8_t>;
    py::module np = py::module::import("numpy");
    py::array a = pyutil::as_array(x, "x");
    const char kind = a.dtype().kind();
    if (kind != 'u' && kind != 'i' && kind != 'b' && kind != 'f' && kind != 'c')
        // None, strings, objects: numpy would turn None into NaN (float) or fail in isfinite
        // below with a ufunc message naming no argument.
        throw py::value_error(
            std::string("x: expected frames as an array of ") +
            (u8 ? "8-bit values (integers in 0..255)" : "numbers") + ", got " +
            std::string(py::str(py::type::of(x).attr("__name__"))) +
            (kind == 'O'
                 ? std::string()
                 : " of dtype " + py::str(a.dtype()).template cast<std::string>()));
    if constexpr (u8) {
        if (kind != 'u' || a.dtype().itemsize() != 1) {
            const bool integral = kind == 'u' || kind == 'i' || kind == 'b';
            const bool in_range =
                a.size() == 0 || kind == 'c' ||
                (np.attr("all")(np.attr("isfinite")(a)).template cast<bool>() &&
                 np.attr("all")(np.attr("equal")(a, np.attr("round")(a)))
                     .template cast<bool>() &&
                 np.attr("min")(a).template cast<double>() >= 0 &&
                 np.attr("max")(a).template cast<double>() <= 255);
            if (kind == 'c' || (!integral && kind != 'f') || !in_range)
                throw py::value_error(
                    "x: resize_2d_kernel_b takes 8-bit frames: values must be integers "
                    "in 0..255 (got dtype " +
                    py::str(a.dtype()).template cast<std::string>() +
                    " with values that would wrap or be truncated); convert explicitly");
        }
    }
    return pyutil::input_array<T>(a, "x");
}

// Frames from numpy: (H, W) or (N, H, W) with one channel, (H, W, C) or (N, H, W, C) with
// C > 1, or a flat array of N whole frames (as a vector stream carries them). The output
// keeps the leading shape.
template <class T>
py::array resize_array(pyutil::guarded<kernel::resize_2d<T>>& g,
                       const py::object& x_in,
                       bool half,
                       py::object out_arg)
{
    using K = kernel::resize_2d<T>;
    const pyutil::carray<T> x = frames_input<T>(x_in);
    // The frame geometry is fixed for the kernel's life, so reading it in its own locked section
    // before the output is allocated is safe.
    struct geometry {
        int C, H, W, OH, OW;
        size_t inf, outf;
    };
    const geometry k = g.run([](K& kk) {
        return geometry{ kk.channels(),      kk.in_height(), kk.in_width(),
                         kk.out_height(),    kk.out_width(), kk.in_frame_size(),
                         kk.out_frame_size() };
    });
    const int C = k.C;
    std::vector<py::ssize_t> shape(x.shape(), x.shape() + x.ndim());
    std::vector<py::ssize_t> out_shape;
    size_t frames = 0;
    const size_t inf = k.inf;
    if (x.ndim() == 1) {
        if (shape[0] % py::ssize_t(inf) != 0)
            throw std::invalid_argument("x: a flat array must hold whole frames of " +
                                        std::to_string(inf) + " items, got " +
                                        std::to_string(shape[0]));
        frames = size_t(shape[0]) / inf;
        out_shape = { py::ssize_t(frames * k.outf) };
    } else {
        const int fd = C == 1 ? 2 : 3; // dimensions of one frame
        const bool ok = x.ndim() >= fd && x.ndim() <= fd + 1 &&
                        shape[x.ndim() - fd] == k.H && shape[x.ndim() - fd + 1] == k.W &&
                        (C == 1 || shape[x.ndim() - 1] == C);
        if (!ok)
            throw std::invalid_argument(
                "x: expected frames of shape " +
                std::string(C == 1 ? "(H, W) or (N, H, W)"
                                   : "(H, W, C) or (N, H, W, C)") +
                " with H=" + std::to_string(k.H) + " W=" + std::to_string(k.W) +
                (C == 1 ? "" : " C=" + std::to_string(C)));
        frames = x.ndim() > fd ? size_t(shape[0]) : 1;
        if (x.ndim() > fd)
            out_shape.push_back(shape[0]);
        out_shape.push_back(k.OH);
        out_shape.push_back(k.OW);
        if (C > 1)
            out_shape.push_back(C);
    }
    const T* in = x.data();
    if (!out_arg.is_none()) {
        // A caller-owned output (reused between calls: no allocation, no page faults per
        // call).
        py::array out = out_arg.cast<py::array>();
        const py::dtype want = half ? py::dtype("float16") : py::dtype::of<float>();
        size_t n = 1;
        for (auto d : out_shape)
            n *= size_t(d);
        if (!out.dtype().is(want) || !(out.flags() & py::array::c_style) ||
            !out.writeable() || size_t(out.size()) != n)
            throw std::invalid_argument("out: expected a writeable C-contiguous " +
                                        std::string(half ? "float16" : "float32") +
                                        " array of " + std::to_string(n) + " elements");
        void* o = out.mutable_data();
        g.run([&](K& kk) {
            if (half)
                kk.resize_half(static_cast<uint16_t*>(o), in, frames);
            else
                kk.resize(static_cast<float*>(o), in, frames);
        });
        return out;
    }
    if (half) {
        py::array out(py::dtype("float16"), out_shape);
        auto* o = static_cast<uint16_t*>(out.mutable_data());
        g.run([&](K& kk) { kk.resize_half(o, in, frames); });
        return out;
    }
    py::array_t<float> out(out_shape);
    float* o = out.mutable_data();
    g.run([&](K& kk) { kk.resize(o, in, frames); });
    return std::move(out);
}

template <class T>
void bind_kernel(py::module& m, const char* name)
{
    using K = kernel::resize_2d<T>;
    using G = pyutil::guarded<K>;
    static const std::string doc =
        std::string(
            "Frame resize kernel (no flowgraph): resize(x) takes (H, W), "
            "(N, H, W), (H, W, C), (N, H, W, C) or flat arrays of whole frames and "
            "returns float32 (or float16 with half=True). Same conventions and "
            "parameters as the resize_2d blocks.") +
        pyutil::thread_safety_doc();
    py::class_<G> cls(m, name, doc.c_str());
    // The block's keyword list less its two block options, the backend defaulting to the CPU as
    // kernel::resize_2d's constructor does.
    kernel::resize_config defaults;
    defaults.backend = "cpu";
    def_config_init(cls,
                    std::tuple_cat(std::tuple<>() GPUINTERP_RESIZE_2D_PARAMS(
                        GPUINTERP_RESIZE_2D_KEYWORD, GPUINTERP_RESIZE_2D_NO_KEYWORD)),
                    defaults,
                    [](const kernel::resize_config& config) {
                        return std::make_unique<G>(std::make_unique<K>(config));
                    });
    cls.def("resize",
            &resize_array<T>,
            py::arg("x"),
            py::arg("half") = false,
            py::arg("out") = py::none(),
            "Resize frames; with out=, write into that array (same element count, "
            "float32 or float16 for half=True) and return it.")
        .def("set_normalization",
             pyutil::method<K>(&K::set_normalization),
             py::arg("mean"),
             py::arg("std"))
        .def("set_scale", pyutil::method<K>(&K::set_scale), py::arg("scale"))
        .def("set_clip",
             pyutil::method<K>(&K::set_clip),
             py::arg("clip"),
             py::arg("clip_min") = 0.0f,
             py::arg("clip_max") = 1.0f)
        .def(
            "set_border_value", pyutil::method<K>(&K::set_border_value), py::arg("value"))
        .def("set_method", pyutil::method<K>(&K::set_method), py::arg("method"))
        .def("set_coord", pyutil::method<K>(&K::set_coord), py::arg("coord"))
        .def("set_border", pyutil::method<K>(&K::set_border), py::arg("border"))
        .def(
            "set_batch",
            [](G& g, int64_t frames) {
                if (frames < 1)
                    invalid_parameter("batch",
                                      "must be >= 1, got " + std::to_string(frames));
                g.run([&](K& k) { k.set_batch(size_t(frames)); });
            },
            py::arg("frames"))
        .def("in_frame_size", pyutil::method<K>(&K::in_frame_size))
        .def("out_frame_size", pyutil::method<K>(&K::out_frame_size))
        .def("method", pyutil::method<K>(&K::method))
        .def("coord", pyutil::method<K>(&K::coord))
        .def("border", pyutil::method<K>(&K::border))
        .def("mean", pyutil::method<K>(&K::mean))
        .def("std", pyutil::method<K>(&K::std));
    pyutil::def_backend_queries(cls);
}

} // namespace

void bind_resize_2d(py::module& m)
{
    // The one parameter list (GPUINTERP_RESIZE_2D_PARAMS), for the checks of the keyword lists
    // and the GRC yml.
    m.def(
        "resize_2d_parameters",
        [] {
            py::list out;
            for (const auto& p : kernel::resize_2d_parameters)
                out.append(py::dict(py::arg("name") = p.name,
                                    py::arg("type") = p.type,
                                    py::arg("default") = p.default_value,
                                    py::arg("required") = p.required,
                                    py::arg("block_only") = p.block_only,
                                    py::arg("doc") = p.doc));
            return out;
        },
        "resize_2d's parameters in make() order, as C++ text: list of dicts with name, "
        "type, default, required, block_only, doc.");
    bind_block<float>(m, "resize_2d_ff");
    bind_block<std::uint8_t>(m, "resize_2d_bf");
    bind_kernel<float>(m, "resize_2d_kernel_f");
    bind_kernel<std::uint8_t>(m, "resize_2d_kernel_b");
}
