/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_KERNEL_GUARD_H
#define INCLUDED_GPUINTERP_KERNEL_GUARD_H

// The Python kernel classes release the GIL while they compute, so two Python threads can be
// inside one kernel object at once. The C++ kernels are not thread-safe (a setter rebuilds tables,
// engines and device buffers that a running call reads), and the blocks serialise them with their
// own setter lock. The Python kernel classes get the same guarantee here: each Python object owns
// its kernel and one mutex, and every bound method that touches the kernel (compute calls, setters
// and getters) holds that mutex for the whole call. Calls on one object are thereby serialised;
// calls on different objects still run in parallel.
//
// Lock order: the GIL is released first, then the mutex is taken, and the GIL is never taken back
// while the mutex is held. A thread waiting for the mutex therefore never holds the GIL that the
// thread inside the kernel could need, so the two locks cannot deadlock.

#include <gnuradio/gpuinterp/kernel/backend.h>
#include <pybind11/pybind11.h>
#include <type_traits>
#include <memory>
#include <mutex>
#include <utility>

namespace gr {
namespace gpuinterp {
namespace pyutil {

namespace py = pybind11;

template <typename K>
class guarded
{
public:
    explicit guarded(std::unique_ptr<K> k) : d_kernel(std::move(k)) {}

    //! f(kernel) with the GIL released and this object's mutex held. Whatever f needs from
    //! Python (argument conversion, output allocation) must be done by the caller beforehand.
    template <typename F>
    decltype(auto) run(F&& f)
    {
        py::gil_scoped_release release;
        std::lock_guard<std::mutex> lock(d_mutex);
        return f(*d_kernel);
    }

private:
    std::unique_ptr<K> d_kernel;
    std::mutex d_mutex;
};

//! A bound method that calls member function f of the guarded kernel under its lock. A reference
//! result is copied while the lock is held, so Python never sees state a later setter changes.
template <typename K, typename C, typename R, typename... A>
auto method(R (C::*f)(A...))
{
    return [f](guarded<K>& g, A... a) -> std::decay_t<R> {
        return g.run(
            [&](K& k) -> std::decay_t<R> { return (k.*f)(std::forward<A>(a)...); });
    };
}

template <typename K, typename C, typename R, typename... A>
auto method(R (C::*f)(A...) const)
{
    return [f](guarded<K>& g, A... a) -> std::decay_t<R> {
        return g.run(
            [&](K& k) -> std::decay_t<R> { return (k.*f)(std::forward<A>(a)...); });
    };
}

//! Construct the guarded kernel (for py::init): the kernel is built with the GIL held, as before.
template <typename K, typename... A>
std::unique_ptr<guarded<K>> make_guarded(A&&... a)
{
    return std::make_unique<guarded<K>>(std::make_unique<K>(std::forward<A>(a)...));
}

//! active_backend() ('cpu' or 'cuda') and backend_note() (why `automatic` chose the CPU), which
//! the kernel classes that fall back from CUDA to the CPU share.
template <typename K, typename... Options>
void def_backend_queries(py::class_<guarded<K>, Options...>& cls)
{
    cls.def("active_backend",
            [](guarded<K>& g) {
                return g.run([](K& k) { return to_string(k.active_backend()); });
            })
        .def("backend_note", method<K>(&K::backend_note));
}

//! Docstring sentence shared by every kernel class.
inline const char* thread_safety_doc()
{
    return "\n\nThread safety: an object may be used from several Python threads; its "
           "methods "
           "(compute calls, setters, getters) are serialised by a per-object lock, and "
           "each call "
           "sees the settings of the calls completed before it. Separate objects run in "
           "parallel "
           "(the GIL is released while computing).";
}

} // namespace pyutil
} // namespace gpuinterp
} // namespace gr

#endif
