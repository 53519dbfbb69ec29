/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "int_arg.h"
#include "kernel_guard.h"
#include "numpy_util.h"
#include <gnuradio/gpuinterp/coeffs_message.h>
#include <gnuradio/gpuinterp/kernel/dpd_adapt.h>
#include <pybind11/complex.h>
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <type_traits>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>

namespace py = pybind11;
using namespace gr::gpuinterp;
using cd = std::complex<double>;

namespace {

const char* adapt_doc = R"doc(
Closed-loop DPD adaptation, one step per capture (kernel::dpd_adapt; dpd_adapt.Adaptation is its
Python face, which docs/dpd_loop.md describes).

dpd_adapt(model, damping=0.8, min_damping=0.1, rollback_tolerance_db=0.5, max_gain_db=10.0,
          gain_tolerance_db=1.0, aclr_tolerance_db=1.0, target_gain=None, aclr_band=None,
          rx_full_scale=None, rx_correction=True, track_frequency=True, max_delay=None,
          lo_leakage=True, regularization=None, max_condition=None,
          min_samples_per_coefficient=10, backend="automatic", device=0,
          initial_coefficients=None, initial_lo_leakage=0j, direct=None)
message(result=None, channel=None) -> the `coeffs` message sending a result's set (None: the
    set in use) to the predistorter (encode_coeffs_message() for this model's family).
step(x, y) -> StepResult: the capture conditioned, the loop gain latched or followed, the loop
    NMSE (and the observation's ACLR with aclr_band) against the best records, the fit and the
    damped update, in one call. direct: a callable (xa, yn, rows, coefficients, lo_leakage) ->
    (coefficients, lo_leakage, fit_nmse_db) fitting in place of least squares (direct learning);
    an exception it raises refuses the step with its message.)doc";

const char* result_doc = R"doc(
One adaptation step (kernel::dpd_step_result). coefficients/lo_leakage: what the predistorter
should use now. loop_nmse_db: NMSE of x against f_current(y/G) on this capture, the
indirect-learning error of the coefficients in use while it was captured. status: "updated",
"rolled back", "calibrating" (the loop gain waits for the next capture to confirm it; nothing is
sent) or "refused" (reason says why). gain: the complex G this capture was normalised by (|G|
held, its phase this capture's); capture: the CaptureReport, None when the capture was refused
before its conditioning; aclr_db: worse-side ACLR of the observation (dBc; nan without a band).
StepResult(iteration, status, coefficients, lo_leakage, reason="") builds one (a refusal the
caller makes itself).)doc";

double
optional_float(const py::object& v, const char* name, double none, const char* what)
{
    return v.is_none() ? none : pyutil::float_arg(v, name, what);
}

// A getter whose "not yet" value (NaN, or a zero gain) reads as None in Python.
template <typename T>
auto unset_is_none(T (kernel::dpd_adapt::*f)() const)
{
    return [f](pyutil::guarded<kernel::dpd_adapt>& g) -> py::object {
        const T v = g.run([&](kernel::dpd_adapt& k) { return (k.*f)(); });
        if constexpr (std::is_same_v<T, double>)
            return std::isnan(v) ? py::object(py::none()) : py::object(py::float_(v));
        else
            return v == T(0) ? py::object(py::none()) : py::cast(v);
    };
}

} // namespace

void bind_dpd_adapt(py::module& m)
{
    using R = kernel::dpd_step_result;
    py::class_<R> result(m, "StepResult", result_doc);
    result
        .def(py::init([](size_t iteration,
                         std::string status,
                         const py::object& w,
                         const py::object& lo,
                         std::string reason) {
                 R r;
                 r.iteration = iteration;
                 r.status = std::move(status);
                 r.coefficients = pyutil::vector_arg<cd>(
                     w, "coefficients", "a one-dimensional array of numbers");
                 r.lo_leakage = pyutil::complex_arg(lo, "lo_leakage");
                 r.reason = std::move(reason);
                 return r;
             }),
             py::arg("iteration"),
             py::arg("status"),
             py::arg("coefficients"),
             py::arg("lo_leakage"),
             py::arg("reason") = "")
        .def_readonly("iteration", &R::iteration)
        .def_readonly("status", &R::status)
        .def_property_readonly(
            "coefficients",
            [](const R& r) { return pyutil::to_array<cd>(r.coefficients); },
            "What the predistorter should use now (a copy).")
        .def_readonly("lo_leakage", &R::lo_leakage)
        .def_readonly("gain", &R::gain)
        .def_readonly("reason", &R::reason)
        .def_property_readonly("capture",
                               [](const R& r) -> py::object {
                                   if (!r.has_capture)
                                       return py::none();
                                   return py::cast(r.capture);
                               })
        .def_property_readonly("accepted",
                               [](const R& r) { return r.status == "updated"; })
        .def("__repr__", [](const R& r) {
            const char* f =
                "StepResult(iteration={}, status='{}', loop_nmse_db={}, reason='{}')";
            return py::str(f).format(r.iteration, r.status, r.loop_nmse_db, r.reason);
        });
    // The figures: NaN where the step did not reach them.
    for (const auto& [name, field] : { std::pair{ "loop_nmse_db", &R::loop_nmse_db },
                                       std::pair{ "fit_nmse_db", &R::fit_nmse_db },
                                       std::pair{ "delay", &R::delay },
                                       std::pair{ "condition", &R::condition },
                                       std::pair{ "damping", &R::damping },
                                       std::pair{ "aclr_db", &R::aclr_db } })
        result.def_readonly(name, field);

    using K = kernel::dpd_adapt;
    using G = pyutil::guarded<K>;
    static const std::string doc = std::string(adapt_doc) + pyutil::thread_safety_doc();
    py::class_<G>(m, "dpd_adapt", doc.c_str())
        .def(
            py::init([](const kernel::dpd_model& model,
                        const py::object& damping,
                        const py::object& min_damping,
                        const py::object& rollback_tolerance_db,
                        const py::object& max_gain_db,
                        const py::object& gain_tolerance_db,
                        const py::object& aclr_tolerance_db,
                        const py::object& target_gain,
                        const py::object& aclr_band,
                        const py::object& rx_full_scale,
                        const py::object& rx_correction,
                        const py::object& track_frequency,
                        const py::object& max_delay,
                        const py::object& lo_leakage,
                        const py::object& regularization,
                        const py::object& max_condition,
                        const py::object& min_samples,
                        const py::object& backend_name,
                        pyutil::int_arg device,
                        const py::object& initial,
                        const py::object& initial_lo,
                        const py::object& direct) {
                kernel::dpd_adapt_options o;
                const char* num = "a number";
                o.damping = pyutil::float_arg(damping, "damping", "a number in (0, 1]");
                o.min_damping = pyutil::float_arg(min_damping, "min_damping", num);
                o.rollback_tolerance_db = pyutil::float_arg(
                    rollback_tolerance_db, "rollback_tolerance_db", num);
                o.max_gain_db = pyutil::float_arg(max_gain_db, "max_gain_db", num);
                o.gain_tolerance_db =
                    pyutil::float_arg(gain_tolerance_db, "gain_tolerance_db", num);
                o.aclr_tolerance_db =
                    pyutil::float_arg(aclr_tolerance_db, "aclr_tolerance_db", num);
                if (!target_gain.is_none())
                    o.target_gain =
                        pyutil::complex_arg(target_gain,
                                            "target_gain",
                                            "a finite number (0 or None: measure it)");
                if (!aclr_band.is_none()) {
                    const char* what =
                        "None or (sample_rate, channel_bandwidth, channel_spacing) in Hz";
                    if (!py::isinstance<py::sequence>(aclr_band) ||
                        py::isinstance<py::str>(aclr_band) || py::len(aclr_band) != 3)
                        throw py::value_error(std::string("aclr_band: must be ") + what +
                                              ", got " +
                                              py::repr(aclr_band).cast<std::string>());
                    py::sequence b = aclr_band;
                    o.aclr_rate = pyutil::float_arg(b[0], "aclr_band", what);
                    o.aclr_bandwidth = pyutil::float_arg(b[1], "aclr_band", what);
                    o.aclr_spacing = pyutil::float_arg(b[2], "aclr_band", what);
                }
                if (!rx_full_scale.is_none()) {
                    o.capture.full_scale =
                        pyutil::float_arg(rx_full_scale,
                                          "rx_full_scale",
                                          "finite and > 0 (None: no clipping check)");
                    if (!(o.capture.full_scale > 0 &&
                          std::isfinite(o.capture.full_scale)))
                        throw py::value_error(
                            "rx_full_scale: must be finite and > 0 (None: no clipping "
                            "check), got " +
                            py::repr(rx_full_scale).cast<std::string>());
                }
                o.capture.rx_correction =
                    pyutil::bool_arg(rx_correction, "rx_correction");
                o.capture.track_frequency =
                    pyutil::bool_arg(track_frequency, "track_frequency");
                o.capture.max_delay = pyutil::optional_int<int64_t>(
                    max_delay, "max_delay", o.capture.max_delay, 0);
                o.lo_leakage = pyutil::bool_arg(lo_leakage, "lo_leakage");
                o.regularization =
                    optional_float(regularization,
                                   "regularization",
                                   std::numeric_limits<double>::quiet_NaN(),
                                   "None or a finite value >= 0");
                o.max_condition = optional_float(max_condition,
                                                 "max_condition",
                                                 std::numeric_limits<double>::infinity(),
                                                 "None or a number > 0");
                o.min_samples_per_coefficient =
                    pyutil::float_arg(min_samples, "min_samples_per_coefficient", num);
                o.requested = backend_from_string(pyutil::str_arg(
                    backend_name, "backend", "'automatic', 'cpu' or 'cuda'"));
                o.device = device.get<int>("device", 0);
                std::vector<cd> w0;
                if (!initial.is_none())
                    w0 = pyutil::vector_arg<cd>(initial,
                                                "initial_coefficients",
                                                "a one-dimensional array of numbers");
                const cd c0 = pyutil::complex_arg(initial_lo, "initial_lo_leakage");
                K::direct_fitter fit;
                if (!direct.is_none()) {
                    // Called from step() with this object's lock held and the GIL taken back:
                    // safe, as every other caller releases the GIL before it waits for the lock
                    // (kernel_guard.h).
                    py::function f = direct;
                    fit = [f](const std::vector<cd>& xa,
                              const std::vector<cd>& yn,
                              const std::vector<uint8_t>& rows,
                              const std::vector<cd>& w,
                              cd c) {
                        py::gil_scoped_acquire gil;
                        py::tuple t = f(
                            pyutil::to_array<cd>(xa),
                            pyutil::to_array<cd>(yn),
                            py::array_t<bool>(py::ssize_t(rows.size()),
                                              reinterpret_cast<const bool*>(rows.data())),
                            pyutil::to_array<cd>(w),
                            c);
                        kernel::dpd_direct_fit r;
                        r.coefficients = pyutil::vector_arg<cd>(
                            t[0], "coefficients", "a one-dimensional array of numbers");
                        r.lo_leakage = pyutil::complex_arg(t[1], "lo_leakage");
                        r.fit_nmse_db = pyutil::float_arg(t[2], "fit_nmse_db");
                        return r;
                    };
                }
                return pyutil::make_guarded<K>(model, o, w0, c0, std::move(fit));
            }),
            py::arg("model"),
            py::arg("damping") = 0.8,
            py::arg("min_damping") = 0.1,
            py::arg("rollback_tolerance_db") = 0.5,
            py::arg("max_gain_db") = 10.0,
            py::arg("gain_tolerance_db") = 1.0,
            py::arg("aclr_tolerance_db") = 1.0,
            py::arg("target_gain") = py::none(),
            py::arg("aclr_band") = py::none(),
            py::arg("rx_full_scale") = py::none(),
            py::arg("rx_correction") = true,
            py::arg("track_frequency") = true,
            py::arg("max_delay") = py::none(),
            py::arg("lo_leakage") = true,
            py::arg("regularization") = py::none(),
            py::arg("max_condition") = py::none(),
            py::arg("min_samples_per_coefficient") = 10,
            py::arg("backend") = "automatic",
            py::arg("device") = 0,
            py::arg("initial_coefficients") = py::none(),
            py::arg("initial_lo_leakage") = cd(0),
            py::arg("direct") = py::none())
        .def(
            "step",
            [](G& g, const py::object& x, const py::object& y) {
                auto xa = pyutil::input_array<cd>(x, "x");
                auto ya = pyutil::input_array<cd>(y, "y");
                if (xa.ndim() != 1 || ya.ndim() != 1)
                    throw py::value_error(std::string(xa.ndim() != 1 ? "x" : "y") +
                                          ": expected a one-dimensional array");
                const cd* xp = xa.data();
                const cd* yp = ya.data();
                const size_t nx = size_t(xa.shape(0)), ny = size_t(ya.shape(0));
                return g.run([&](K& k) { return k.step(xp, nx, yp, ny); });
            },
            py::arg("x"),
            py::arg("y"))
        .def(
            "message",
            [](G& g, const std::optional<R>& r, const py::object& channel) {
                // The set as the predistorter's `coeffs` port takes it, for this loop's model:
                // a neural model's weights (the real parts), else the coefficients and c.
                bool neural = false;
                std::vector<cd> w;
                cd c;
                g.run([&](K& k) {
                    neural = k.model().is_neural();
                    w = r ? r->coefficients : k.coefficients();
                    c = r ? r->lo_leakage : k.lo_leakage();
                });
                coeffs_update u;
                if (neural) {
                    for (const cd& v : w)
                        u.weights.push_back(float(v.real()));
                } else {
                    u.coefficients.assign(w.begin(), w.end());
                    u.lo_leakage = gr_complex(c);
                    u.has_lo_leakage = true;
                }
                u.channel = pyutil::optional_int<int>(channel, "channel", -1, 0);
                return encode_coeffs_message(u); // std::invalid_argument: a ValueError
            },
            py::arg("result") = py::none(),
            py::arg("channel") = py::none(),
            "The `coeffs` message that sends a StepResult's set (None: the set in use) "
            "to the predistorter (to one channel with channel); "
            "ValueError when a value is not finite.")
        .def("reset_gain", [](G& g) { g.run([](K& k) { k.reset_gain(); }); })
        .def_property("damping",
                      pyutil::method<K>(&K::damping),
                      [](G& g, const py::object& v) {
                          const double d =
                              pyutil::float_arg(v, "damping", "a number in (0, 1]");
                          g.run([&](K& k) { k.set_damping(d); });
                      })
        .def_property_readonly("min_damping", pyutil::method<K>(&K::min_damping))
        .def_property(
            "coefficients",
            [](G& g) {
                return pyutil::to_array<cd>(g.run([](K& k) { return k.coefficients(); }));
            },
            [](G& g, const py::object& w) {
                const auto v = pyutil::vector_arg<cd>(
                    w, "coefficients", "a one-dimensional array of numbers");
                g.run([&](K& k) { k.set_coefficients(v, k.lo_leakage()); });
            },
            "The set in use (a copy); assigning replaces it (the LO leakage stays).")
        .def_property_readonly("lo_leakage", pyutil::method<K>(&K::lo_leakage))
        .def_property_readonly("iteration", pyutil::method<K>(&K::iteration))
        .def_property_readonly("history", pyutil::method<K>(&K::history))
        .def_property_readonly("gain", unset_is_none(&K::gain))
        .def_property_readonly("candidate_gain", unset_is_none(&K::candidate_gain))
        .def_property_readonly("last_gain", unset_is_none(&K::last_gain))
        .def_property_readonly("delay", unset_is_none(&K::delay))
        .def_property_readonly("best_loop_nmse_db", unset_is_none(&K::best_loop_nmse_db))
        .def_property_readonly("model", pyutil::method<K>(&K::model))
        .def_property_readonly_static("max_follow_db",
                                      [](py::object) { return K::max_follow_db; });
}
