/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_INT_ARG_H
#define INCLUDED_GPUINTERP_INT_ARG_H

// Integer (and real) parameters from Python. Bound as plain unsigned/int/size_t, an out-of-range value (-1 for
// an unsigned, 2**31 for an int, 2**64, NaN) never reaches our checks: pybind11 rejects the whole
// call with "TypeError: incompatible constructor arguments", which does not say which argument is
// wrong. Binding int_arg instead accepts any object, and int_arg::get() converts it with a
// ValueError that names the parameter and the accepted range.

#include <gnuradio/gpuinterp/kernel/dpd_model.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <type_traits>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace pyutil {

namespace py = pybind11;

namespace detail {
inline std::string repr_or(const py::handle& obj)
{
    try {
        return py::repr(obj).cast<std::string>();
    } catch (...) {
        return "?";
    }
}
} // namespace detail

//! ValueError "<name>: must be <what>, got <repr of obj>": how every parameter here is refused.
[[noreturn]] inline void
refuse(const py::handle& obj, const char* name, const std::string& what)
{
    throw py::value_error(std::string(name) + ": must be " + what + ", got " +
                          detail::repr_or(obj));
}

struct int_arg {
    py::object obj;

    int_arg() = default;
    int_arg(long long v) : obj(py::int_(v)) {} // defaults in py::arg(...) = 0

    //! The value as T, or ValueError "<name>: must be an integer in [lo, hi], got <repr>".
    //! Integral floats (3.0) are accepted as GRC and numpy hand them over; bool is not a count.
    template <typename T>
    T get(const char* name,
          long long lo = static_cast<long long>(std::numeric_limits<T>::min()),
          long long hi = max_of<T>()) const
    {
        auto fail = [&]() -> T {
            // Both ends, always: "must be an integer >= 0" for 2**31 named a bound the value met.
            // Callers pass the semantic bounds where the kernel has them, so this is the range
            // the later checks accept, not just the C type's.
            refuse(obj,
                   name,
                   "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                       "]");
        };
        PyObject* o = obj.ptr();
        if (!o || PyBool_Check(o))
            return fail();
        py::object as_int;
        if (PyFloat_Check(o)) {
            const double d = PyFloat_AsDouble(o);
            if (!std::isfinite(d) || d != std::floor(d))
                return fail();
            as_int = py::reinterpret_steal<py::object>(PyLong_FromDouble(d));
        } else {
            as_int = py::reinterpret_steal<py::object>(PyNumber_Index(o));
        }
        if (!as_int) {
            PyErr_Clear();
            return fail();
        }
        int overflow = 0;
        const long long v = PyLong_AsLongLongAndOverflow(as_int.ptr(), &overflow);
        if (overflow || (v == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            return fail();
        }
        if (v < lo || v > hi)
            return fail();
        return static_cast<T>(v);
    }

    template <typename T>
    static constexpr long long max_of()
    {
        // size_t and uint64 values beyond 2^63 - 1 are never meaningful counts here.
        return std::numeric_limits<T>::max() > static_cast<unsigned long long>(
                                                   std::numeric_limits<long long>::max())
                   ? std::numeric_limits<long long>::max()
                   : static_cast<long long>(std::numeric_limits<T>::max());
    }
};

//! An optional integer parameter: `none` when obj is None, else int_arg::get<T>(name, lo).
template <typename T>
T optional_int(const py::object& obj, const char* name, T none, long long lo)
{
    if (obj.is_none())
        return none;
    int_arg a;
    a.obj = obj;
    return a.get<T>(name, lo);
}

//! A real-valued parameter: `obj` as a double, or ValueError "<name>: must be <what>, got <repr>".
//! Bound as double, a list or a string would fail in pybind11's own cast ("Unable to cast Python
//! instance to C++ type") or as "incompatible function arguments", naming no parameter. bool and
//! complex values are refused rather than read as 1.0 or their real part.
inline double
float_arg(const py::handle& obj, const char* name, const char* what = "a number")
{
    PyObject* o = obj.ptr();
    if (o && !PyBool_Check(o) && !PyComplex_Check(o) && PyNumber_Check(o)) {
        const double d = PyFloat_AsDouble(o);
        if (!(d == -1.0 && PyErr_Occurred()))
            return d;
        PyErr_Clear();
    }
    refuse(obj, name, what);
}

//! A True/False parameter: bound as bool, pybind11 refuses "no" with "incompatible function
//! arguments" (naming no parameter) and takes None as False; numpy's bool is accepted.
inline bool bool_arg(const py::handle& obj, const char* name)
{
    if (obj.ptr() == Py_True || obj.ptr() == Py_False)
        return obj.ptr() == Py_True;
    if (py::hasattr(obj, "dtype") &&
        py::str(obj.attr("dtype")).cast<std::string>() == "bool")
        return obj.cast<bool>();
    refuse(obj, name, "True or False");
}

//! A string parameter (a backend name): anything else is a ValueError naming it.
inline std::string str_arg(const py::handle& obj, const char* name, const char* what)
{
    if (py::isinstance<py::str>(obj))
        return obj.cast<std::string>();
    refuse(obj, name, what);
}

//! A complex parameter: any Python or numpy number but a bool (read as 1 otherwise), or ValueError
//! "<name>: must be <what>, got <repr>" (bound as std::complex, a string fails as "incompatible
//! function arguments", naming no parameter).
inline std::complex<double> complex_arg(const py::handle& obj,
                                        const char* name,
                                        const char* what = "a complex number")
{
    PyObject* o = obj.ptr();
    if (o && !PyBool_Check(o) && (PyComplex_Check(o) || PyNumber_Check(o)) &&
        !py::isinstance<py::str>(obj)) {
        const Py_complex c = PyComplex_AsCComplex(o);
        if (!(c.real == -1.0 && PyErr_Occurred()))
            return { c.real, c.imag };
        PyErr_Clear();
    }
    refuse(obj, name, what);
}

//! A one-dimensional sequence or array of numbers as a vector of T (std::complex<float>,
//! std::complex<double> or float): booleans, strings, nested lists and (for real T) complex values are a ValueError
//! naming the parameter, where a bound std::vector would fail as "incompatible function
//! arguments" or read True as 1.
template <typename T>
std::vector<T> vector_arg(const py::handle& obj, const char* name, const char* what)
{
    constexpr bool cplx = !std::is_floating_point_v<T>;
    auto fail = [&]() -> std::vector<T> {
        throw py::value_error(std::string(name) + ": must be " + what + ", got " +
                              detail::repr_or(obj).substr(0, 80));
    };
    if (py::isinstance<py::str>(obj) || py::isinstance<py::bytes>(obj) ||
        !(py::isinstance<py::sequence>(obj) || py::hasattr(obj, "__array__")))
        return fail();
    auto np = py::module::import("numpy");
    py::object a;
    try {
        a = np.attr("asarray")(obj);
    } catch (const py::error_already_set&) {
        return fail();
    }
    const std::string kind = py::str(a.attr("dtype").attr("kind"));
    const bool empty = a.attr("size").cast<size_t>() == 0;
    if (a.attr("ndim").cast<int>() != 1 ||
        (!empty && kind != "i" && kind != "u" && kind != "f" && !(cplx && kind == "c")))
        return fail();
    auto arr = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(a);
    if (!arr)
        return fail();
    return std::vector<T>(arr.data(), arr.data() + arr.size());
}

//! Bounds the kernels check after conversion (lib/kernel/*.cc), used here too so that a value out
//! of range gets the same bound whether it fits the C type or not.
constexpr long long max_interpolation = 65536;         // polyphase_interpolator.cc
constexpr long long min_nfilts = 2, max_nfilts = 4096; // resampler.cc check_params
constexpr long long min_taps_per_arm = 4, max_taps_per_arm = 512;
constexpr long long max_order = gr::gpuinterp::kernel::dpd_model::max_order; // P, Q
constexpr long long max_lag = gr::gpuinterp::kernel::dpd_model::max_lag;     // Lp, Lq
constexpr long long max_device = std::numeric_limits<int>::max();

//! Largest batch (items or samples per launch) accepted from Python: beyond it a launch's buffers
//! alone would exceed any device's memory, and an int batch could not carry it anyway.
constexpr long long max_batch = std::numeric_limits<int>::max();

} // namespace pyutil
} // namespace gpuinterp
} // namespace gr

namespace pybind11 {
namespace detail {
template <>
struct type_caster<gr::gpuinterp::pyutil::int_arg> {
    PYBIND11_TYPE_CASTER(gr::gpuinterp::pyutil::int_arg, const_name("int"));

    // In the first overload pass (no conversions) only Python ints match, so an overload taking a
    // string or a model object in the same position is still chosen for those; in the second pass
    // anything is taken, and get() reports what is wrong with it.
    bool load(handle src, bool convert)
    {
        if (!src)
            return false;
        if (!convert && !PyLong_Check(src.ptr()))
            return false;
        value.obj = reinterpret_borrow<object>(src);
        return true;
    }

    static handle
    cast(const gr::gpuinterp::pyutil::int_arg& v, return_value_policy, handle)
    {
        return v.obj.inc_ref();
    }
};
} // namespace detail
} // namespace pybind11

#endif
