/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "int_arg.h"
#include "kernel_guard.h"
#include "numpy_util.h"
#include <gnuradio/gpuinterp/kernel/dpd_gram.h>
#include <pybind11/complex.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <limits>
#include <tuple>

namespace py = pybind11;
using namespace gr::gpuinterp;
using cd = std::complex<double>;
using pyutil::int_arg;

namespace {

const char* gram_doc = R"doc(
Chunked least-squares estimator of a DPD / PA model (the C++ kernel behind dpd_estimate).

dpd_gram(model, lo_leakage=False, backend="cpu", device=0)
    model: a spec string ("mp:K=5,M=100", "gmp:...", "ph:...") or a dpd_model_spec;
    lo_leakage: an all-ones column last (its coefficient is the LO-leakage constant).
add(y, x, fit_mask=None, val_mask=None, history=0)
    Accumulates the rows history..len(y)-1 of dpd_model.basis(y, model) (samples before y[0] are
    zero; rows whose look-ahead lies past the end of y are skipped) with targets x into the fit
    Gram G = Phi^H Phi, b = Phi^H x, tt = x^H x (rows with fit_mask set; None = all) and the
    held-out Gram (rows with val_mask set; None = none). Memory O(K^2), never the N x K basis.
forget(factor)   multiplies every accumulated sum by factor in (0, 1].
reset()          drops everything.
solve(regularization=None, grid=None) -> Solution (w, regularization, condition, rank, dof,
    fit_nmse_db, selected_by, validation_nmse_db).
    regularization: None = chosen on the held-out rows when there are any, else by GCV; "gcv";
    "validation"; a number = lambda relative to the largest eigenvalue of the column-normalised
    Gram (lambda / s_max^2 of solve_regularized). grid: the relative lambdas tried
    (default dpd_solve.REGULARIZATION_GRID).
    The solution is solve_regularized's SVD solution, computed from one Hermitian
    eigendecomposition of the normalised Gram (LAPACK zheevd / cuSOLVER); condition numbers
    above ~1e7 are estimates limited by double precision.)doc";

using carr = pyutil::carray<cd>;
using marr = py::array_t<uint8_t, py::array::c_style | py::array::forcecast>;

marr mask_arg(const py::object& m, size_t n, const char* name)
{
    auto np = py::module::import("numpy");
    // numpy makes a flag of anything (np.asarray(['a'], bool) is [True]): only booleans and
    // integers are flags, so a list of strings or floats passed by mistake is refused.
    py::object raw = np.attr("asarray")(m);
    const std::string kind = py::str(raw.attr("dtype").attr("kind"));
    if (kind != "b" && kind != "i" && kind != "u")
        throw py::value_error(std::string(name) +
                              ": expected booleans (or 0/1 integers), one per "
                              "sample of y, got an array of dtype " +
                              py::str(raw.attr("dtype")).cast<std::string>());
    // Integers must be 0 or 1: a 2 would silently count as a flag set.
    if (kind != "b" && py::cast<bool>(np.attr("any")(np.attr("logical_and")(
                           np.attr("not_equal")(raw, 0), np.attr("not_equal")(raw, 1)))))
        throw py::value_error(
            std::string(name) +
            ": expected booleans (or 0/1 integers), one per sample of y, got an "
            "integer other than 0 and 1");
    marr a = marr::ensure(raw.attr("astype")("bool").attr("astype")("uint8"));
    if (!a || a.ndim() != 1 || size_t(a.shape(0)) != n)
        throw py::value_error(std::string(name) + ": expected " + std::to_string(n) +
                              " flags (one per sample of y)");
    return a;
}

// An optional flags argument: its array (kept alive while p is used) and data, null for None.
struct optional_mask {
    marr a;
    const uint8_t* p = nullptr;
};
optional_mask mask_or_none(const py::object& m, size_t n, const char* name)
{
    optional_mask r;
    if (!m.is_none()) {
        r.a = mask_arg(m, n, name);
        r.p = r.a.data();
    }
    return r;
}

// y and its targets x: one-dimensional, of one length (named yn and xn in the errors).
std::tuple<carr, carr, size_t> capture_arg(const py::object& y,
                                           const py::object& x,
                                           const std::string& yn = "y",
                                           const std::string& xn = "x")
{
    carr ya = pyutil::input_array<cd>(y, yn.c_str()),
         xa = pyutil::input_array<cd>(x, xn.c_str());
    if (ya.ndim() != 1)
        throw py::value_error(yn + ": expected a one-dimensional array");
    const size_t n = size_t(ya.shape(0));
    if (xa.ndim() != 1 || size_t(xa.shape(0)) != n)
        throw py::value_error(xn + ": expected " + std::to_string(n) + " targets (len(" +
                              yn + "))");
    return { ya, xa, n };
}

// A solution's w: a one-dimensional array of numbers, kept in complex128.
std::vector<cd> coefficients(const py::object& w)
{
    return pyutil::vector_arg<cd>(w, "w", "a one-dimensional array of numbers");
}

const char* solution_doc = R"doc(
A regularised least-squares solution of target ~ phi @ w (kernel::dpd_gram_solution): what
dpd_gram.solve() returns, and the reference fits (dpd_reference, dpd_folds) fill the same class.
Solution(w, regularization, condition, rank, dof, fit_nmse_db, selected_by, validation_nmse_db=nan)
w: the coefficients (complex128, the LO-leakage constant last when fitted); regularization: lambda
relative to the largest squared singular value of the column-normalised basis; condition: s_max /
s_min of that basis; rank: singular values above the regularisation (s^2 > lambda), the directions
the solution uses; dof: effective degrees of freedom sum s^2 / (s^2 + lambda); fit_nmse_db: NMSE of
the fit rows; selected_by: "fixed", "validation", "gcv" or "kfold"; validation_nmse_db: NMSE on the
held-out rows at the chosen value (nan without them).)doc";

} // namespace

void bind_dpd_gram(py::module& m)
{
    using S = kernel::dpd_gram_solution;
    py::class_<S>(m, "Solution", solution_doc)
        .def(py::init([](const py::object& w,
                         double regularization,
                         double condition,
                         size_t rank,
                         double dof,
                         double fit_nmse_db,
                         std::string selected_by,
                         double validation_nmse_db) {
                 S s;
                 s.w = coefficients(w);
                 s.lambda = regularization;
                 s.condition = condition;
                 s.rank = rank;
                 s.dof = dof;
                 s.fit_nmse_db = fit_nmse_db;
                 s.selected_by = std::move(selected_by);
                 s.validation_nmse_db = validation_nmse_db;
                 return s;
             }),
             py::arg("w"),
             py::arg("regularization"),
             py::arg("condition"),
             py::arg("rank"),
             py::arg("dof"),
             py::arg("fit_nmse_db"),
             py::arg("selected_by"),
             py::arg("validation_nmse_db") = std::numeric_limits<double>::quiet_NaN())
        .def_property(
            "w",
            [](const S& s) { return pyutil::to_array<cd>(s.w); },
            [](S& s, const py::object& w) { s.w = coefficients(w); },
            "The coefficients (a copy; assign the attribute to change them).")
        .def_readwrite("regularization", &S::lambda)
        .def_readwrite("condition", &S::condition)
        .def_readwrite("rank", &S::rank)
        .def_readwrite("dof", &S::dof)
        .def_readwrite("fit_nmse_db", &S::fit_nmse_db)
        .def_readwrite("selected_by", &S::selected_by)
        .def_readwrite("validation_nmse_db", &S::validation_nmse_db)
        .def("__repr__", [](const S& s) {
            return py::str("Solution(regularization={}, condition={}, rank={}, dof={}, "
                           "fit_nmse_db={}, selected_by='{}', validation_nmse_db={}, "
                           "{} coefficients)")
                .format(s.lambda,
                        s.condition,
                        s.rank,
                        s.dof,
                        s.fit_nmse_db,
                        s.selected_by,
                        s.validation_nmse_db,
                        s.w.size());
        });
    using K = kernel::dpd_gram;
    using G = pyutil::guarded<K>;
    static const std::string doc = std::string(gram_doc) + pyutil::thread_safety_doc();
    py::class_<G>(m, "dpd_gram", doc.c_str())
        .def(py::init([](const py::object& model,
                         const py::object& lo_arg,
                         const py::object& b_arg,
                         int_arg device) {
                 const bool lo = pyutil::bool_arg(lo_arg, "lo_leakage");
                 const std::string b =
                     pyutil::str_arg(b_arg, "backend", "'automatic', 'cpu' or 'cuda'");
                 if (!py::isinstance<py::str>(model) &&
                     !py::isinstance<kernel::dpd_model>(model))
                     throw py::value_error(
                         "model: must be a spec string like 'mp:K=5,M=8' or a "
                         "dpd_model_spec, got " +
                         py::repr(model).cast<std::string>());
                 const kernel::dpd_model spec =
                     py::isinstance<py::str>(model)
                         ? kernel::dpd_model::parse(model.cast<std::string>())
                         : model.cast<kernel::dpd_model>();
                 return pyutil::make_guarded<K>(
                     spec, lo, backend_from_string(b), device.get<int>("device", 0));
             }),
             py::arg("model"),
             py::arg("lo_leakage") = false,
             py::arg("backend") = "cpu",
             py::arg("device") = 0)
        .def(
            "add",
            [](G& g,
               const py::object& y,
               const py::object& x,
               const py::object& fit,
               const py::object& val,
               int_arg history) {
                const auto [ya, xa, n] = capture_arg(y, x);
                const size_t h = history.get<size_t>("history", 0, n);
                const optional_mask fm = mask_or_none(fit, n, "fit_mask"),
                                    vm = mask_or_none(val, n, "val_mask");
                const uint8_t* fp = fm.p;
                const uint8_t* vp = vm.p;
                const cd* yp = ya.data();
                const cd* xp = xa.data();
                g.run([&](K& k) { k.add(yp, n, xp, fp, vp, h); });
            },
            py::arg("y"),
            py::arg("x"),
            py::arg("fit_mask") = py::none(),
            py::arg("val_mask") = py::none(),
            py::arg("history") = 0)
        .def(
            "fit_kfold",
            [](G& g,
               const py::object& y,
               const py::object& x,
               const py::object& rows,
               const py::object& bad,
               const py::object& probe_y,
               const py::object& probe_x) {
                const auto [ya, xa, n] = capture_arg(y, x);
                const marr ra = mask_arg(rows, n, "rows");
                const optional_mask bm = mask_or_none(bad, n, "bad");
                if (probe_y.is_none() != probe_x.is_none())
                    throw py::value_error(
                        "probe_y: probe_y and probe_x are given together or not at all");
                std::tuple<carr, carr, size_t> probes;
                if (!probe_y.is_none()) {
                    probes = capture_arg(probe_y, probe_x, "probe_y", "probe_x");
                    if (std::get<2>(probes) != n)
                        throw py::value_error("probe_y: expected " + std::to_string(n) +
                                              " samples each in probe_y and probe_x");
                }
                const cd* yp = ya.data();
                const cd* xp = xa.data();
                const uint8_t* rp = ra.data();
                const uint8_t* bp = bm.p;
                const cd* pyp = probe_y.is_none() ? nullptr : std::get<0>(probes).data();
                const cd* pxp = probe_y.is_none() ? nullptr : std::get<1>(probes).data();
                return g.run(
                    [&](K& k) { return k.fit_kfold(yp, xp, n, rp, bp, pyp, pxp); });
            },
            py::arg("y"),
            py::arg("x"),
            py::arg("rows"),
            py::arg("bad") = py::none(),
            py::arg("probe_y") = py::none(),
            py::arg("probe_x") = py::none(),
            "The fit of one capture with lambda by K-fold cross-validation over "
            "contiguous blocks, each scored cold (kernel::dpd_gram::fit_kfold): rows "
            "flags the usable rows, bad the outlier samples, probe_y/probe_x the probe "
            "copy whose rows join every fit set. Returns a Solution (selected_by "
            "'kfold', or 'gcv' when the folds cannot fit); the accumulated sums are "
            "reset first.")
        .def(
            "forget",
            [](G& g, const py::object& factor) {
                const double f =
                    pyutil::float_arg(factor, "factor", "a number in (0, 1]");
                g.run([&](K& k) { k.forget(f); });
            },
            py::arg("factor"))
        .def("reset", [](G& g) { g.run([](K& k) { k.reset(); }); })
        .def(
            "fold_validation",
            [](G& g) { g.run([](K& k) { k.fold_validation(); }); },
            "Join the held-out rows to the fit rows (the refit at the chosen lambda) "
            "without a second pass over the capture.")
        .def(
            "solve",
            [](G& g, const py::object& reg, const py::object& grid) {
                kernel::dpd_gram_options o;
                using mode_t = kernel::dpd_gram_options::mode_t;
                if (reg.is_none())
                    o.mode = mode_t::automatic;
                else if (py::isinstance<py::str>(reg)) {
                    const std::string s = reg.cast<std::string>();
                    if (s == "gcv")
                        o.mode = mode_t::gcv;
                    else if (s == "validation")
                        o.mode = mode_t::validation;
                    else
                        throw py::value_error("regularization: None, a number, 'gcv' or "
                                              "'validation', got '" +
                                              s + "'");
                } else {
                    o.mode = mode_t::fixed;
                    o.regularization = pyutil::float_arg(
                        reg, "regularization", "None, a number, 'gcv' or 'validation'");
                }
                if (!grid.is_none()) {
                    if (py::isinstance<py::str>(grid) || !py::hasattr(grid, "__iter__"))
                        throw py::value_error(
                            "grid: must be a list of numbers > 0, got " +
                            py::repr(grid).cast<std::string>());
                    for (const py::handle v : grid)
                        o.grid.push_back(
                            pyutil::float_arg(v, "grid", "a list of numbers > 0"));
                }
                if (!grid.is_none() && o.grid.empty())
                    throw py::value_error("grid: empty");
                return g.run([&](K& k) { return k.solve(o); });
            },
            py::arg("regularization") = py::none(),
            py::arg("grid") = py::none())
        .def("num_columns",
             [](G& g) { return g.run([](K& k) { return k.num_columns(); }); })
        .def("fit_rows", [](G& g) { return g.run([](K& k) { return k.fit_rows(); }); })
        .def("validation_rows",
             [](G& g) { return g.run([](K& k) { return k.validation_rows(); }); })
        .def("backend",
             [](G& g) {
                 return g.run([](K& k) { return to_string(k.active_backend()); });
             })
        .def("backend_note",
             [](G& g) { return g.run([](K& k) { return k.backend_note(); }); })
        .def(
            "gram",
            [](G& g, int_arg set_arg) {
                const int set = set_arg.get<int>("set", 0, 1);
                std::vector<cd> v;
                size_t K_ = 0;
                g.run([&](K& k) {
                    v = k.gram(set);
                    K_ = k.num_columns();
                });
                // Column-major K x K: as a C-order array that is G^T; transpose back.
                py::array_t<cd> a({ py::ssize_t(K_), py::ssize_t(K_) });
                auto r = a.mutable_unchecked<2>();
                for (size_t j = 0; j < K_; j++)
                    for (size_t i = 0; i < K_; i++)
                        r(py::ssize_t(i), py::ssize_t(j)) = v[j * K_ + i];
                return a;
            },
            py::arg("set") = 0,
            "The accumulated Gram Phi^H Phi of the fit set (0) or held-out set (1), K x "
            "K.")
        .def(
            "rhs",
            [](G& g, int_arg set_arg) {
                const int set = set_arg.get<int>("set", 0, 1);
                return pyutil::to_array<cd>(g.run([&](K& k) { return k.rhs(set); }));
            },
            py::arg("set") = 0,
            "Phi^H x of the fit set (0) or held-out set (1).")
        .def_static(
            "require_rows",
            [](size_t usable, size_t unknowns, double per) {
                K::require_rows(usable, unknowns, per);
            },
            py::arg("usable"),
            py::arg("unknowns"),
            py::arg("min_samples_per_coefficient"),
            "Raises ValueError('x: capture too short: ...') for fewer usable rows than "
            "min_samples_per_coefficient per unknown.")
        .def_static(
            "check_condition",
            [](double condition, double max_condition) {
                try {
                    K::check_condition(condition, max_condition);
                } catch (const std::runtime_error& e) {
                    throw py::value_error(e.what());
                }
            },
            py::arg("condition"),
            py::arg("max_condition"),
            "Raises ValueError('y: basis matrix is ill-conditioned ...') for a condition "
            "number not below max_condition.")
        .def_property_readonly_static("kfold_blocks",
                                      [](py::object) { return K::kfold_blocks; })
        .def_property_readonly_static("kfold_tie_db",
                                      [](py::object) { return K::kfold_tie_db; })
        .def_property_readonly_static("kfold_max_columns",
                                      [](py::object) { return K::kfold_max_columns; })
        .def_property_readonly_static("default_grid",
                                      [](py::object) { return K::default_grid(); });
}
