/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "channel_counts.h"
#include "int_arg.h"
#include "kernel_guard.h"
#include "numpy_util.h"
#include <gnuradio/gpuinterp/dpd_predistorter_cc.h>
#include <gnuradio/gpuinterp/kernel/dpd_bank.h>
#include <gnuradio/gpuinterp/kernel/dpd_model.h>
#include <gnuradio/gpuinterp/kernel/dpd_predistorter.h>
#include <pybind11/complex.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <algorithm>
#include <climits>
#include <optional>
#include <tuple>

namespace py = pybind11;
using namespace gr::gpuinterp;
using cf = std::complex<float>;
using pyutil::int_arg;

namespace {

const char* model_doc = R"doc(
Model (parallel Hammerstein / memory polynomial with conjugate branches):

    z[n] =   sum_{p=1,3,..,P} sum_{k=0}^{Lp-1} h[p,k] * psi_p(x[n-k])
           + sum_{q=1,3,..,Q} sum_{k=0}^{Lq-1} g[q,k] * conj(psi_q(x[n-k]))
           + c
    psi_p(x) = x * |x|**(p-1)

P odd 1..15; Q odd 1..15 or 0 (no conjugate branches); Lp, Lq >= 1.
Coefficient layout: one flat complex vector; main branches p = 1, 3, .., P each with its Lp
taps (k = 0 first), then conjugate branches q = 1, 3, .., Q each with its Lq taps:
    h[p,k] at ((p-1)//2)*Lp + k,   g[q,k] at ((P+1)//2)*Lp + ((q-1)//2)*Lq + k
length (P+1)//2*Lp + (Q+1)//2*Lq (the conjugate part is absent when Q = 0).
Example P=3, Q=1, Lp=2, Lq=3: [h10, h11, h30, h31, g10, g11, g12].
The stream starts from zero history (x[n] = 0 for n < 0).)doc";

std::string block_doc()
{
    return std::string(
               "Digital predistorter block (complex in, complex out), GPU or CPU.\n") +
           model_doc +
           R"doc(

Args:
    P, Q, Lp, Lq: model structure (fixed for the block's life)
    coefficients: complex vector in the layout above
    lo_leakage: the constant c
    backend: "automatic" (CUDA when usable, else CPU with a log line), "cpu" or "cuda"
    device: CUDA device index
    batch: most samples per GPU launch (0 = default 262144); ignored on the CPU
    mapped: CUDA only, zero-copy mapped host staging instead of pinned staging + copies
    device_buffers: keep the stream in device memory
    model: a model spec ("mp:K=9,M=20", "gmp:Ka=..,..."); empty = ph from P, Q, Lp, Lq (then
        ignored). A gmp with leading terms delays the output by delay() = Mc samples; tags and
        'dpd_coeffs' switches move with it (a tag on input n lands on output n + delay()).

Runtime updates (same structure): set_coefficients(coefficients, lo_leakage=None) between two
work() calls; message port 'coeffs' (c32vector, pair (c32vector . c), or dict with
'coefficients' and 'lo_leakage') at a chunk boundary; stream tag 'dpd_coeffs' (same value
formats) at exactly the tagged sample. Malformed messages/tags are logged and ignored.)doc";
}

std::string kernel_doc()
{
    return std::string("Streaming predistorter kernel for numpy (no flowgraph).\n") +
           model_doc +
           R"doc(

dpd_predistorter(P, Q, Lp, Lq, coefficients, lo_leakage=0, backend="cpu", device=0, batch=0,
                 mapped=False)
process(x) -> complex64 array of len(x); the last max(Lp, Lq)-1 inputs (Lq only when Q > 0)
carry to the next call, so processing a signal chunk by chunk equals one call. reset() zeroes
the history. set_coefficients(c, lo_leakage=None) replaces the set from the next sample on (None
keeps the current c). Invalid parameters raise ValueError with the parameter's name first.)doc" +
           std::string(pyutil::thread_safety_doc());
}

// Index helpers: the branch and tap are checked here against the structure (ph_params checks
// the structure itself).
unsigned order_arg(const int_arg& v, const char* name, unsigned hi)
{
    const unsigned o = v.get<unsigned>(name, 1, pyutil::max_order);
    if (o % 2 == 0 || o > hi)
        throw py::value_error(std::string(name) + ": must be odd and lie in 1.." +
                              std::to_string(hi) + ", got " + std::to_string(o));
    return o;
}

// (P, Q, Lp, Lq) as integers within the model's bounds (so an out-of-range value's message names
// them); dpd_model::ph_params() checks the rest (odd orders, at least one tap) when a ph model is
// built from them.
struct ph_args {
    unsigned P, Q, Lp, Lq;
    ph_args(const int_arg& P_, const int_arg& Q_, const int_arg& Lp_, const int_arg& Lq_)
        : P(P_.get<unsigned>("P", 0, pyutil::max_order)),
          Q(Q_.get<unsigned>("Q", 0, pyutil::max_order)),
          Lp(Lp_.get<unsigned>("Lp", 0, pyutil::max_lag)),
          Lq(Lq_.get<unsigned>("Lq", 0, pyutil::max_lag))
    {
    }
    kernel::dpd_model model() const { return kernel::dpd_model::ph_params(P, Q, Lp, Lq); }
};

kernel::dpd_model
ph_model(const int_arg& P, const int_arg& Q, const int_arg& Lp, const int_arg& Lq)
{
    return ph_args(P, Q, Lp, Lq).model();
}

//! Where a ph model's h[p,k] (conjugate: g[p,k]) sits in its coefficient vector: read from the
//! model's terms(), which hold the layout.
size_t ph_term_index(const kernel::dpd_model& m, unsigned p, unsigned k, bool conjugate)
{
    const auto t = m.terms();
    for (size_t i = 0; i < t.size(); i++)
        if (t[i].conjugate == conjugate && t[i].power == p - 1 && t[i].signal_lag == k)
            return i;
    throw std::logic_error(
        "ph_term_index: no such term"); // the callers' checks exclude it
}

using K = kernel::dpd_predistorter;
using G = pyutil::guarded<K>;

// The kernel takes its structure as a dpd_model; Python may give it as (P, Q, Lp, Lq), a spec
// string or a dpd_model_spec: `structure` turns those arguments into that model; the coefficients, c and the backend arguments that follow, with their keywords and
// defaults, are the same for all three.
template <typename Structure, typename... S, typename... Extra>
void def_kernel_init(py::class_<G>& cls,
                     Structure (*structure)(S...),
                     const Extra&... structure_args)
{
    cls.def(py::init([structure](S... s,
                                 const std::vector<cf>& co,
                                 cf c,
                                 const std::string& b,
                                 int_arg device,
                                 int_arg batch,
                                 bool mapped) {
                return std::apply(
                    [&](auto&&... leading) {
                        return pyutil::make_guarded<K>(
                            std::forward<decltype(leading)>(leading)...,
                            co,
                            c,
                            backend_from_string(b),
                            device.get<int>("device", 0),
                            batch.get<size_t>("batch", 0, pyutil::max_batch),
                            mapped);
                    },
                    structure(s...));
            }),
            structure_args...,
            py::arg("coefficients"),
            py::arg("lo_leakage") = cf(0),
            py::arg("backend") = "cpu",
            py::arg("device") = 0,
            py::arg("batch") = 0,
            py::arg("mapped") = false);
}

// The channel argument of the block's per-channel methods, checked against its channel count.
unsigned channel_arg(const dpd_predistorter_cc& b, const int_arg& ch)
{
    return ch.get<unsigned>("channel", 0, b.channels() - 1);
}

} // namespace

void bind_dpd_model(py::module& m)
{
    using D = kernel::dpd_model;
    // Bound as dpd_model_spec: the name dpd_model belongs to the Python module of the same grammar
    // (numpy basis, fitting), which the package exposes as gnuradio.gpuinterp.dpd_model.
    py::class_<D>(m, "dpd_model_spec", R"doc(
The C++ model description (kernel::dpd_model) behind the predistorter; the same grammar and
coefficient order as the Python module gnuradio.gpuinterp.dpd_model.
Structure of a predistorter / PA model, as the spec string "family:key=value,...":
  "ph:P=5,Q=3,Lp=4,Lq=2"   parallel Hammerstein (the P, Q, Lp, Lq model)
  "mp:K=9,M=20"            all-order memory polynomial, a[k,m] at (k-1)*M + m
  "gmp:Ka=5,La=30,Kb=4,Lb=30,Mb=5,Kc=4,Lc=30,Mc=5"   generalised memory polynomial (Morgan 2006):
      a[k,l] (k=0..Ka-1) at k*La + l, then b[k,l,m] (k=1..Kb, m=1..Mb) at Na + ((k-1)*Lb + l)*Mb + m-1,
      then c[k,l,m] likewise; b and c keys default to 0.
  "gru:H=8,C=4,D=2"   GRU over amplitude features with a dilated convolutional skip (neural)
  "tdnn:M=4,H=16,N=2" feedforward time-delay network (neural)
      real float32 weights, num_weights() of them, layout of docs/neural_models.md
lookahead() = Mc when the gmp's leading group has terms, max(1, D if C > 0) for a gru: a streaming
predistorter delays its output by it.
Bad specs raise ValueError("model: <key>: ...").)doc")
        .def_static("parse", &D::parse, py::arg("spec"), "Parse a spec string.")
        // The bounds live here only; Python, GRC and the command lines read them from the class.
        .def_property_readonly_static("MAX_ORDER",
                                      [](py::object) { return D::max_order; })
        .def_property_readonly_static("MAX_LAG", [](py::object) { return D::max_lag; })
        .def_property_readonly_static("MAX_COEFFICIENTS",
                                      [](py::object) { return D::max_coefficients; })
        .def("to_string",
             &D::to_string,
             "Canonical spec: every key of the family, in order.")
        .def("__str__", &D::to_string)
        .def("__repr__",
             [](const D& d) { return "dpd_model_spec('" + d.to_string() + "')"; })
        .def("__eq__", [](const D& a, const D& b) { return a == b; })
        .def("num_coefficients",
             &D::num_coefficients,
             "Complex coefficients of a polynomial family (0 for gru, tdnn).")
        .def("num_weights",
             &D::num_weights,
             "Real weights of a neural family (0 for ph, mp, gmp).")
        .def("is_neural", &D::is_neural, "True for gru and tdnn.")
        .def("lookahead",
             &D::lookahead,
             "Output delay of a streaming predistorter (samples).")
        .def("history",
             &D::history,
             "Input samples a streaming predistorter carries between calls.")
        .def(
            "usable_rows",
            [](const D& d, size_t n, const py::object& bad) {
                std::vector<uint8_t> flags;
                if (!bad.is_none()) {
                    auto a =
                        py::array_t<uint8_t, py::array::c_style | py::array::forcecast>::
                            ensure(
                                py::module::import("numpy").attr("asarray")(bad, "bool"));
                    if (!a || a.ndim() != 1 || size_t(a.shape(0)) != n)
                        throw py::value_error("bad: expected " + std::to_string(n) +
                                              " flags (one per sample)");
                    flags.assign(a.data(), a.data() + n);
                }
                const auto ok = d.usable_rows(n, flags.empty() ? nullptr : flags.data());
                py::array_t<bool> out{ py::ssize_t(n) };
                std::copy(ok.begin(), ok.end(), out.mutable_data());
                return out;
            },
            py::arg("n"),
            py::arg("bad") = py::none(),
            "The rows of an n-sample capture a fit may use (their window inside it, no "
            "flagged sample read): a boolean array.")
        .def(
            "family",
            [](const D& d) { return kernel::to_string(d.family); },
            "'ph', 'mp', 'gmp', 'gru' or 'tdnn'.")
        .def("as_gmp", &D::as_gmp, "An mp as the equivalent gmp (others unchanged).")
        .def("keys", &D::keys, "[(key, value)] of the family, in the spec's order.")
        .def(
            "terms",
            [](const D& d) {
                std::vector<std::tuple<unsigned, int, unsigned, bool>> t;
                for (const auto& e : d.terms())
                    t.emplace_back(e.signal_lag, e.envelope_lag, e.power, e.conjugate);
                return t;
            },
            "Per coefficient, in layout order, "
            "(signal lag l, envelope lag j, power k, conjugate): the basis function "
            "x[n-l] |x[n-j]|^k, conjugated for ph's conjugate branches.")
        // The family's keys as attributes (m.K of an mp), read from keys(): a key added to the
        // model needs nothing here. A key of another family is an AttributeError, not a 0.
        .def("__getattr__", [](const D& d, const std::string& name) {
            for (const auto& [k, v] : d.keys())
                if (k == name)
                    return v;
            throw py::attribute_error(name + ": not a key of " + d.to_string());
        });
}

void bind_dpd_predistorter(py::module& m)
{
    bind_dpd_model(m);
    static const std::string kdoc = kernel_doc();
    py::class_<G> cls(m, "dpd_predistorter", kdoc.c_str());
    def_kernel_init(
        cls,
        +[](int_arg P, int_arg Q, int_arg Lp, int_arg Lq) {
            return std::make_tuple(ph_model(P, Q, Lp, Lq));
        },
        py::arg("P"),
        py::arg("Q"),
        py::arg("Lp"),
        py::arg("Lq"));
    def_kernel_init(
        cls,
        +[](const std::string& model) {
            return std::make_tuple(kernel::dpd_model::parse(model));
        },
        py::arg("model"),
        "From a model spec (gnuradio.gpuinterp.dpd_model grammar): ph, mp or gmp; "
        "output delayed by delay() samples.");
    def_kernel_init(
        cls,
        +[](const kernel::dpd_model& model) { return std::make_tuple(model); },
        py::arg("model"));
    // Neural families: real weights instead of coefficients and c. `weights` is a keyword: a
    // positional second argument stays the coefficients, whose error for a neural model says so.
    const auto neural_init = [](const kernel::dpd_model& model,
                                const std::vector<float>& w,
                                const std::string& b,
                                const int_arg& device,
                                const int_arg& batch) {
        return pyutil::make_guarded<K>(model,
                                       w,
                                       backend_from_string(b),
                                       device.get<int>("device", 0),
                                       batch.get<size_t>("batch", 0, pyutil::max_batch));
    };
    cls.def(py::init([neural_init](const std::string& model,
                                   const std::vector<float>& w,
                                   const std::string& b,
                                   int_arg device,
                                   int_arg batch) {
                return neural_init(kernel::dpd_model::parse(model), w, b, device, batch);
            }),
            py::arg("model"),
            py::kw_only(),
            py::arg("weights"),
            py::arg("backend") = "cpu",
            py::arg("device") = 0,
            py::arg("batch") = 0,
            "A neural model (gru, tdnn) from its spec and its real weights "
            "(docs/neural_models.md layout).");
    cls.def(py::init([neural_init](const kernel::dpd_model& model,
                                   const std::vector<float>& w,
                                   const std::string& b,
                                   int_arg device,
                                   int_arg batch) {
                return neural_init(model, w, b, device, batch);
            }),
            py::arg("model"),
            py::kw_only(),
            py::arg("weights"),
            py::arg("backend") = "cpu",
            py::arg("device") = 0,
            py::arg("batch") = 0);
    cls.def("model",
            pyutil::method<K>(&K::model),
            "The model (a dpd_model_spec; str() gives the canonical spec).")
        .def("delay",
             pyutil::method<K>(&K::delay),
             "Output delay in samples: out[i] = y[i - delay()].")
        .def(
            "process",
            [](G& g, const pyutil::carray<cf>& x) {
                if (x.ndim() != 1)
                    throw std::invalid_argument("x: expected a one-dimensional array");
                const size_t n = static_cast<size_t>(x.shape(0));
                py::array_t<cf> out(static_cast<py::ssize_t>(n));
                cf* o = out.mutable_data();
                const cf* i = x.data();
                g.run([&](K& k) { k.process(o, i, n); });
                return out;
            },
            py::arg("x"),
            "Predistort x (complex64; other dtypes are converted); returns len(x) "
            "samples.")
        .def(
            "set_coefficients",
            [](G& g, const std::vector<cf>& co, std::optional<cf> c) {
                // One locked section: the kept c is read and the new set stored atomically.
                g.run([&](K& k) { k.set_coefficients(co, c ? *c : k.lo_leakage()); });
            },
            py::arg("coefficients"),
            py::arg("lo_leakage") = py::none(),
            "Replace the coefficient set from the next sample on (lo_leakage None keeps "
            "c).")
        .def("coefficients",
             [](G& g) {
                 const std::vector<cf> co = g.run([](K& k) { return k.coefficients(); });
                 return pyutil::to_array<cf>(co);
             })
        .def("lo_leakage", pyutil::method<K>(&K::lo_leakage))
        .def(
            "set_weights",
            [](G& g, const std::vector<float>& w) {
                g.run([&](K& k) { k.set_weights(w); });
            },
            py::arg("weights"),
            "Neural models: replace the weights from the next sample on (the state "
            "stays).")
        .def("weights",
             [](G& g) {
                 const std::vector<float> w = g.run([](K& k) { return k.weights(); });
                 return pyutil::to_array<float>(w);
             })
        .def(
            "set_warmup",
            [](G& g, int_arg samples) {
                const size_t w = samples.get<size_t>("samples", 0, 1u << 30);
                g.run([&](K& k) { k.set_warmup(w); });
            },
            py::arg("samples"),
            "gru on CUDA: warm-up steps of every chunk after the first (0: one exact "
            "sequential chunk).")
        .def("warmup", pyutil::method<K>(&K::warmup))
        .def("reset",
             pyutil::method<K>(&K::reset),
             "Zero the history, as at construction.")
        .def("history",
             pyutil::method<K>(&K::history),
             "Input samples carried between calls (ph: max(Lp, Lq) - 1).")
        .def_static(
            "num_coefficients",
            [](int_arg P, int_arg Q, int_arg Lp, int_arg Lq) {
                return ph_model(P, Q, Lp, Lq).num_coefficients();
            },
            py::arg("P"),
            py::arg("Q"),
            py::arg("Lp"),
            py::arg("Lq"))
        .def_static(
            "main_index",
            [](int_arg P_, int_arg Lp_, int_arg p_, int_arg k_) {
                const auto m = ph_model(P_, 0, Lp_, 1);
                return ph_term_index(m,
                                     order_arg(p_, "p", m.P),
                                     k_.get<unsigned>("k", 0, m.Lp - 1),
                                     false);
            },
            py::arg("P"),
            py::arg("Lp"),
            py::arg("p"),
            py::arg("k"),
            "Index of h[p,k] in the flat vector.")
        .def_static(
            "conj_index",
            [](int_arg P_, int_arg Lp_, int_arg Lq_, int_arg q_, int_arg k_) {
                const unsigned q = order_arg(q_, "q", pyutil::max_order);
                const auto m = ph_model(P_, q, Lp_, Lq_);
                return ph_term_index(m, q, k_.get<unsigned>("k", 0, m.Lq - 1), true);
            },
            py::arg("P"),
            py::arg("Lp"),
            py::arg("Lq"),
            py::arg("q"),
            py::arg("k"),
            "Index of g[q,k] in the flat vector.")
        .def(
            "set_batch",
            [](G& g, int_arg batch) {
                const size_t b = batch.get<size_t>("batch", 0, pyutil::max_batch);
                g.run([&](K& k) { k.set_batch(b); });
            },
            py::arg("batch"))
        .def("batch", pyutil::method<K>(&K::batch))
        .def(
            "set_cuda_variant",
            [](G& g, const std::string& v) {
                g.run([&](K& k) {
                    k.set_cuda_variant(kernel::dpd_cuda_variant_from_string(v));
                });
            },
            py::arg("variant"),
            "CUDA kernel variant (ignored on the CPU). ph: 'automatic', 'smem' or "
            "'tiled'; mp/gmp: 'automatic', 'compiled' (generated for the model's "
            "structure, NVRTC) or 'interpreted'. A variant of the other family is "
            "ignored; an unknown name raises ValueError.")
        .def("cuda_variant",
             [](G& g) {
                 return g.run([](K& k) { return kernel::to_string(k.cuda_variant()); });
             })
        .def(
            "active_cuda_variant",
            [](G& g) {
                return g.run(
                    [](K& k) { return kernel::to_string(k.active_cuda_variant()); });
            },
            "The CUDA kernel that runs now ('automatic' on the CPU).");
    pyutil::def_backend_queries(cls);

    using B = dpd_predistorter_cc;
    static const std::string bdoc = block_doc();
    py::class_<B, gr::sync_block, gr::block, gr::basic_block, std::shared_ptr<B>>
        block_cls(m, "dpd_predistorter_cc", bdoc.c_str());
    block_cls
        .def(py::init([](int_arg P,
                         int_arg Q,
                         int_arg Lp,
                         int_arg Lq,
                         const py::object& co_,
                         const py::object& c_,
                         const py::object& b_,
                         int_arg device,
                         int_arg batch,
                         const py::object& mapped_,
                         const py::object& device_buffers_,
                         const py::object& model_,
                         int_arg channels,
                         const py::object& output_format_,
                         const py::object& full_scale_,
                         const py::object& input_format_,
                         const py::object& weights_) {
                 // Every argument is converted here, so a wrong type is a ValueError naming it
                 // (bound as C++ types, pybind11 would answer "incompatible constructor
                 // arguments" and take True or None for numbers and flags).
                 const auto co = pyutil::vector_arg<gr_complex>(
                     co_, "coefficients", "a sequence of complex numbers");
                 const auto c = gr_complex(pyutil::complex_arg(c_, "lo_leakage"));
                 const auto b =
                     pyutil::str_arg(b_, "backend", "'automatic', 'cpu' or 'cuda'");
                 const bool mapped = pyutil::bool_arg(mapped_, "mapped");
                 const bool device_buffers =
                     pyutil::bool_arg(device_buffers_, "device_buffers");
                 const auto model =
                     pyutil::str_arg(model_, "model", "a model spec string");
                 const auto output_format =
                     pyutil::str_arg(output_format_, "output_format", "'fc32' or 'sc16'");
                 const float full_scale =
                     float(pyutil::float_arg(full_scale_, "full_scale", "a number > 0"));
                 const auto input_format =
                     pyutil::str_arg(input_format_, "input_format", "'fc32' or 'sc16'");
                 const auto weights = pyutil::vector_arg<float>(
                     weights_, "weights", "a sequence of real numbers");
                 // make() builds the ph model from P..Lq (and checks them) when the spec is
                 // blank, and ignores them otherwise.
                 const ph_args ph(P, Q, Lp, Lq);
                 return B::make(
                     ph.P,
                     ph.Q,
                     ph.Lp,
                     ph.Lq,
                     co,
                     c,
                     b,
                     device.get<int>("device", 0),
                     batch.get<int>("batch", 0, pyutil::max_batch),
                     mapped,
                     device_buffers,
                     model,
                     channels.get<int>("channels", 1, kernel::dpd_bank::max_channels),
                     output_format,
                     full_scale,
                     input_format,
                     weights);
             }),
             // A model spec (mp, gmp, a neural one with weights) needs no P..Lq; the ph
             // parameters without one still refuse 0 with their own messages.
             py::arg("P") = 0,
             py::arg("Q") = 0,
             py::arg("Lp") = 0,
             py::arg("Lq") = 0,
             py::arg("coefficients") = py::list(),
             py::arg("lo_leakage") = py::cast(std::complex<double>(0, 0)),
             py::arg("backend") = py::str("automatic"),
             py::arg("device") = 0,
             py::arg("batch") = 0,
             py::arg("mapped") = py::bool_(false),
             py::arg("device_buffers") = py::bool_(false),
             py::arg("model") = py::str(""),
             py::arg("channels") = 1,
             py::arg("output_format") = py::str("fc32"),
             py::arg("full_scale") = py::float_(1.0),
             py::arg("input_format") = py::str("fc32"),
             py::arg("weights") = py::list(),
             bdoc.c_str())
        .def("model", &B::model, "The model's canonical spec.")
        .def(
            "set_weights",
            [](B& b, const py::object& w) {
                b.set_weights(pyutil::vector_arg<float>(
                    w, "weights", "a sequence of real numbers"));
            },
            py::arg("weights"),
            "Neural models: replace every channel's weights between two work() calls.")
        .def(
            "set_channel_weights",
            [](B& b, int_arg ch, const py::object& w) {
                b.set_channel_weights(channel_arg(b, ch),
                                      pyutil::vector_arg<float>(
                                          w, "weights", "a sequence of real numbers"));
            },
            py::arg("channel"),
            py::arg("weights"))
        .def("weights", [](const B& b) { return pyutil::to_array<float>(b.weights()); })
        .def(
            "channel_weights",
            [](const B& b, int_arg ch) {
                return pyutil::to_array<float>(b.channel_weights(channel_arg(b, ch)));
            },
            py::arg("channel"))
        .def("delay",
             &B::delay,
             "Output delay in samples (gmp look-ahead; 0 for ph and mp).")
        .def(
            "set_coefficients",
            [](B& b, const py::object& co, const py::object& c) {
                b.set_coefficients(
                    pyutil::vector_arg<gr_complex>(
                        co, "coefficients", "a sequence of complex numbers"),
                    c.is_none() ? b.lo_leakage()
                                : gr_complex(pyutil::complex_arg(c, "lo_leakage")));
            },
            py::arg("coefficients"),
            py::arg("lo_leakage") = py::none(),
            "Replace the coefficient set between two work() calls (lo_leakage None keeps "
            "c).")
        .def("coefficients",
             [](const B& b) { return pyutil::to_array<cf>(b.coefficients()); })
        .def(
            "set_channel_coefficients",
            [](B& b, int_arg ch, const py::object& co, const py::object& c) {
                const unsigned k = channel_arg(b, ch);
                b.set_channel_coefficients(
                    k,
                    pyutil::vector_arg<gr_complex>(
                        co, "coefficients", "a sequence of complex numbers"),
                    c.is_none() ? b.channel_lo_leakage(k)
                                : gr_complex(pyutil::complex_arg(c, "lo_leakage")));
            },
            py::arg("channel"),
            py::arg("coefficients"),
            py::arg("lo_leakage") = py::none(),
            "Replace one channel's set between two work() calls (lo_leakage None keeps "
            "c).")
        .def(
            "channel_coefficients",
            [](const B& b, int_arg ch) {
                return pyutil::to_array<cf>(b.channel_coefficients(channel_arg(b, ch)));
            },
            py::arg("channel"))
        .def(
            "channel_lo_leakage",
            [](const B& b, int_arg ch) {
                return b.channel_lo_leakage(channel_arg(b, ch));
            },
            py::arg("channel"))
        .def("channels", &B::channels)
        .def("output_format", &B::output_format, "'fc32' or 'sc16'.")
        .def("input_format", &B::input_format, "'fc32' or 'sc16'.")
        .def("full_scale", &B::full_scale)
        .def(
            "saturated",
            [](const B& b, int_arg ch) { return b.saturated(channel_arg(b, ch)); },
            py::arg("channel") = 0,
            "sc16: output samples of the channel clipped to int16, since start.")
        .def(
            "invalid",
            [](const B& b, int_arg ch) { return b.invalid(channel_arg(b, ch)); },
            py::arg("channel") = 0,
            "sc16: output samples of the channel with a NaN component (written as 0), "
            "since start.")
        .def("lo_leakage", &B::lo_leakage)
        .def("P", &B::P)
        .def("Q", &B::Q)
        .def("Lp", &B::Lp)
        .def("Lq", &B::Lq)
        .def(
            "set_batch",
            [](B& b, int_arg batch) {
                b.set_batch(batch.get<int>("batch", 0, pyutil::max_batch));
            },
            py::arg("batch"))
        .def("batch", &B::batch)
        .def(
            "set_cuda_variant",
            [](B& b, const py::object& v) {
                b.set_cuda_variant(pyutil::str_arg(
                    v,
                    "variant",
                    "'automatic', 'smem', 'tiled', 'compiled' or 'interpreted'"));
            },
            py::arg("variant"));
    pyutil::def_block_queries(block_cls);
}
