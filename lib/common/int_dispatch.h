/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_COMMON_INT_DISPATCH_H
#define INCLUDED_GPUINTERP_COMMON_INT_DISPATCH_H

// How a run-time size picks the template instantiated for it (a kernel unrolled for an order or a
// tap count): the list of sizes that have one is written once, at the call.

#include <type_traits>

namespace gr {
namespace gpuinterp {

//! Calls f(std::integral_constant<int, V>{}) for the V of Vs that equals `v`; returns false, f not
//! called, when none does.
template <int... Vs, typename F>
bool with_int_constant(int v, F&& f)
{
    return ((v == Vs ? (f(std::integral_constant<int, Vs>{}), true) : false) || ...);
}

} // namespace gpuinterp
} // namespace gr

#endif
