/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "int_arg.h"
#include "kernel_guard.h"
#include "numpy_util.h"
#include <gnuradio/gpuinterp/kernel/dpd_capture.h>
#include <pybind11/complex.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <cmath>

namespace py = pybind11;
using namespace gr::gpuinterp;
using cd = std::complex<double>;
using pyutil::int_arg;

namespace {

const char* capture_doc = R"doc(
Loopback capture conditioning and alignment (the C++ kernel behind dpd_capture.prepare).

dpd_capture_kernel(backend="cpu", device=0)
align(x, y, full_scale=None, rx_correction=True, track_frequency=True, max_delay=None,
      delay=None, condition=True, gain=None, exclude=None) -> (xa, yn, delay, gain, bad, report)
    What dpd_capture.condition followed by the estimator's alignment does: clipping and
    outlier checks, the envelope delay search (around `delay` first when given), frequency
    offset and drift, the fractional delay, the receiver's DC and IQ image, the fractional
    shift onto x's grid and the least-squares gain. xa[i] ~ gain * ya[i], yn = ya / gain;
    bad: the rows an outlier or clipped sample touches; report: a CaptureReport. A capture
    that cannot be used raises ValueError with the estimator's message (naming x, y or
    target_gain).
    condition=False: the estimator's alignment alone: outliers, the complex
    cross-correlation's peak within +-max_delay and its fraction (or `delay` itself when
    given), the shift and the gain; full_scale, rx_correction and track_frequency are not used.
    gain: normalise by this gain instead of the least-squares one (dpd.estimate's target_gain).
    exclude: one flag per sample of y; flagged samples are zeroed and the rows they reach are
    bad, as a clipped sample's are.)doc";

const char* report_doc = R"doc(
What a capture's conditioning and alignment found (kernel::dpd_capture_report; the estimator's
StepResult.capture). CaptureReport() is a report no step has filled.
rx_peak_dbfs: peak |I|, |Q| of y against the full scale (nan without one); clipped: samples at
full scale; delay: y's lag in samples; envelope_correlation: at that lag; widened: the delay was
found outside max_delay; freq_offset: cycles per sample at the capture's centre; freq_drift:
cycles per sample^2; phase: the loop phase at the capture's centre (radians); rx_dc: the
receiver DC removed (units of y); rx_image_db: the receiver image removed, |nu/conj(mu)| in dB
(-inf without one); correlation: of the aligned x and y; first: where the aligned capture
starts in x (xa[i] = x[first + i]).)doc";

} // namespace

void bind_dpd_capture(py::module& m)
{
    using R = kernel::dpd_capture_report;
    py::class_<R>(m, "CaptureReport", report_doc)
        .def(py::init<>())
        .def_readwrite("rx_peak_dbfs", &R::rx_peak_dbfs)
        .def_readwrite("clipped", &R::clipped)
        .def_readwrite("delay", &R::delay)
        .def_readwrite("envelope_correlation", &R::envelope_correlation)
        .def_readwrite("widened", &R::widened)
        .def_readwrite("freq_offset", &R::freq_offset)
        .def_readwrite("freq_drift", &R::freq_drift)
        .def_readwrite("phase", &R::phase)
        .def_readwrite("rx_dc", &R::rx_dc)
        .def_readwrite("rx_image_db", &R::rx_image_db)
        .def_readwrite("correlation", &R::correlation)
        .def_readwrite("first", &R::first)
        .def("__repr__", [](const R& r) {
            return py::str("CaptureReport(delay={}, clipped={}, widened={}, "
                           "envelope_correlation={}, correlation={}, freq_offset={}, "
                           "freq_drift={}, phase={}, rx_dc={}, rx_image_db={}, "
                           "rx_peak_dbfs={}, first={})")
                .format(r.delay,
                        r.clipped,
                        r.widened,
                        r.envelope_correlation,
                        r.correlation,
                        r.freq_offset,
                        r.freq_drift,
                        r.phase,
                        r.rx_dc,
                        r.rx_image_db,
                        r.rx_peak_dbfs,
                        r.first);
        });
    using K = kernel::dpd_capture;
    using G = pyutil::guarded<K>;
    static const std::string doc = std::string(capture_doc) + pyutil::thread_safety_doc();
    py::class_<G> cls(m, "dpd_capture_kernel", doc.c_str());
    cls.def(py::init([](const py::object& b, int_arg device) {
                return pyutil::make_guarded<K>(
                    backend_from_string(
                        pyutil::str_arg(b, "backend", "'automatic', 'cpu' or 'cuda'")),
                    device.get<int>("device", 0));
            }),
            py::arg("backend") = "cpu",
            py::arg("device") = 0)
        .def(
            "align",
            [](G& g,
               const py::object& x,
               const py::object& y,
               const py::object& full_scale,
               const py::object& rx_correction_arg,
               const py::object& track_frequency_arg,
               const py::object& max_delay,
               const py::object& delay,
               const py::object& condition_arg,
               const py::object& gain,
               const py::object& exclude) {
                const bool rx_correction =
                    pyutil::bool_arg(rx_correction_arg, "rx_correction");
                const bool track_frequency =
                    pyutil::bool_arg(track_frequency_arg, "track_frequency");
                const bool condition = pyutil::bool_arg(condition_arg, "condition");
                auto xa = pyutil::input_array<cd>(x, "x");
                auto ya = pyutil::input_array<cd>(y, "y");
                if (xa.ndim() != 1 || ya.ndim() != 1 || xa.shape(0) != ya.shape(0))
                    throw py::value_error(
                        "x, y: expected two one-dimensional captures of "
                        "equal length");
                kernel::dpd_capture_options o;
                o.full_scale = full_scale.is_none()
                                   ? 0.0
                                   : pyutil::float_arg(full_scale,
                                                       "full_scale",
                                                       "a number > 0 or None");
                if (!full_scale.is_none() &&
                    !(o.full_scale > 0 && std::isfinite(o.full_scale)))
                    throw py::value_error(
                        "full_scale: must be a number > 0 or None, got " +
                        std::to_string(o.full_scale));
                o.rx_correction = rx_correction;
                o.track_frequency = track_frequency;
                o.max_delay =
                    pyutil::optional_int<int64_t>(max_delay, "max_delay", o.max_delay, 0);
                o.condition = condition;
                if (!delay.is_none()) {
                    o.has_delay_hint = true;
                    o.delay_hint = pyutil::float_arg(delay, "delay", "a number or None");
                }
                if (!gain.is_none()) {
                    o.has_gain = true;
                    o.gain =
                        pyutil::complex_arg(gain, "gain", "a complex number or None");
                }
                const size_t n = size_t(xa.shape(0));
                std::vector<uint8_t> ex;
                if (!exclude.is_none()) {
                    auto e = pyutil::input_array<bool>(exclude, "exclude");
                    if (e.ndim() != 1 || size_t(e.shape(0)) != n)
                        throw py::value_error(
                            "exclude: expected one flag per sample of y (" +
                            std::to_string(n) + "), got " + std::to_string(e.size()));
                    ex.assign(e.data(), e.data() + n);
                }
                const cd* xp = xa.data();
                const cd* yp = ya.data();
                const uint8_t* exp = ex.empty() ? nullptr : ex.data();
                kernel::dpd_aligned_capture r =
                    g.run([&](K& k) { return k.align(xp, yp, n, o, exp); });
                return py::make_tuple(pyutil::to_array<cd>(r.xa),
                                      pyutil::to_array<cd>(r.yn),
                                      r.delay,
                                      r.gain,
                                      pyutil::to_array<bool>(r.bad),
                                      r.report);
            },
            py::arg("x"),
            py::arg("y"),
            py::arg("full_scale") = py::none(),
            py::arg("rx_correction") = true,
            py::arg("track_frequency") = true,
            py::arg("max_delay") = py::none(),
            py::arg("delay") = py::none(),
            py::arg("condition") = true,
            py::arg("gain") = py::none(),
            py::arg("exclude") = py::none())
        .def("backend",
             [](G& g) {
                 return g.run([](K& k) { return to_string(k.active_backend()); });
             })
        .def("backend_note",
             [](G& g) { return g.run([](K& k) { return k.backend_note(); }); });
    // The thresholds the kernel applies, read by the Python modules instead of restated.
    cls.attr("clip_level") = K::clip_level;
    cls.attr("max_clip_fraction") = K::max_clip_fraction;
    cls.attr("clip_headroom_db") = K::clip_headroom_db;
    cls.attr("min_envelope_correlation") = K::min_envelope_correlation;
    cls.attr("min_correlation") = K::min_correlation;
    cls.attr("phase_block") = K::phase_block;
    cls.attr("outlier_factor") = K::outlier_factor;
    cls.attr("max_outlier_fraction") = K::max_outlier_fraction;
    cls.attr("min_gain") = K::min_gain;
    cls.attr("shift_half_length") = K::shift_half_length;
    cls.attr("min_capture_length") = K::min_capture_length;
}
