/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_NUMPY_UTIL_H
#define INCLUDED_GPUINTERP_NUMPY_UTIL_H

// Helpers shared by the kernel bindings: numpy arrays in, numpy arrays out, GIL released while the
// kernel runs.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <type_traits>
#include <algorithm>
#include <complex>
#include <string>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace pyutil {

namespace py = pybind11;

template <typename T>
using carray = py::array_t<T, py::array::c_style | py::array::forcecast>;

//! The input array x of a kernel with real samples T, converted as forcecast would, but refusing a
//! complex x: numpy's cast drops the imaginary part with only a ComplexWarning, which is a
//! wrong result, not a conversion.
template <typename T>
struct is_complex : std::false_type {
};
template <typename R>
struct is_complex<std::complex<R>> : std::true_type {
};

//! np.asarray(x), with numpy's refusal (a ragged list, an unreadable object) as a ValueError that
//! names the argument.
inline py::array as_array(const py::object& x, const char* name)
{
    try {
        return py::module::import("numpy").attr("asarray")(x);
    } catch (py::error_already_set& e) {
        if (!e.matches(PyExc_ValueError) && !e.matches(PyExc_TypeError))
            throw;
        throw py::value_error(std::string(name) + ": expected an array of numbers (" +
                              std::string(py::str(e.value())) + ")");
    }
}

template <typename T>
carray<T> input_array(const py::object& x, const char* name)
{
    bool complex_input = false;
    try {
        complex_input =
            py::module::import("numpy").attr("iscomplexobj")(x).template cast<bool>();
    } catch (py::error_already_set& e) {
        // A ragged list ([[1, 2], [3]]) or an object numpy cannot read: numpy's own message does
        // not say which argument it was.
        if (!e.matches(PyExc_ValueError) && !e.matches(PyExc_TypeError))
            throw;
        throw py::value_error(std::string(name) + ": expected an array of numbers (" +
                              std::string(py::str(e.value())) + ")");
    }
    if (!is_complex<T>::value && complex_input)
        throw py::value_error(
            std::string(name) +
            ": complex samples given to a real kernel (the imaginary part would "
            "be dropped); pass the real part explicitly or use the complex kernel");
    auto a = carray<T>::ensure(x);
    if (!a)
        throw py::value_error(std::string(name) + ": expected an array of numbers");
    return a;
}

//! out = fn(out_ptr, in_ptr, n) with an output of n * ratio items.
template <typename T, typename F>
py::array_t<T> map_1d(const carray<T>& in, size_t ratio, F&& fn)
{
    if (in.ndim() != 1)
        throw std::invalid_argument("x: expected a one-dimensional array");
    const size_t n = static_cast<size_t>(in.shape(0));
    py::array_t<T> out(static_cast<py::ssize_t>(n * ratio));
    T* o = out.mutable_data();
    const T* i = in.data();
    {
        py::gil_scoped_release release;
        fn(o, i, n);
    }
    return out;
}

//! Samples per channel of a kernel's input x for N channels: one channel takes a 1-D array, N > 1
//! an (N, n) array (channel-major, one row a channel); otherwise a ValueError naming x.
template <typename T>
size_t channel_length(const carray<T>& x, size_t N)
{
    if (N == 1 && x.ndim() != 1)
        throw std::invalid_argument("x: expected a one-dimensional array");
    if (N > 1 && (x.ndim() != 2 || size_t(x.shape(0)) != N))
        throw std::invalid_argument("x: expected an array of shape (" +
                                    std::to_string(N) + ", n)");
    return static_cast<size_t>(x.shape(x.ndim() - 1));
}

//! The output of N channels of m values each, shaped as channel_length() takes the input.
template <typename T>
py::array_t<T> channel_array(size_t N, size_t m)
{
    if (N == 1)
        return py::array_t<T>(py::ssize_t(m));
    return py::array_t<T>({ py::ssize_t(N), py::ssize_t(m) });
}

//! A one-dimensional array of T holding a copy of v (whose values convert to T).
template <typename T, typename V>
py::array_t<T> to_array(const std::vector<V>& v)
{
    py::array_t<T> a(static_cast<py::ssize_t>(v.size()));
    std::copy(v.begin(), v.end(), a.mutable_data());
    return a;
}

} // namespace pyutil
} // namespace gpuinterp
} // namespace gr

#endif
