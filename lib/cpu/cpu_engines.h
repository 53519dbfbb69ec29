/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_CPU_ENGINES_H
#define INCLUDED_GPUINTERP_CPU_ENGINES_H

// The CPU engines, one per kernel class. Only lib/engine_factory.cc (and tests that compare an
// engine with its reference directly) construct them; kernels go through the factory.

#include "../kernel/fir_engine.h"
#include "../kernel/resamp_engines.h"
#include "../kernel/resize_engine.h"
#include <memory>

namespace gr {
namespace gpuinterp {
namespace kernel {

template <typename T, typename TAP>
std::unique_ptr<fir_engine<T, TAP>> make_cpu_fir_engine();
template <typename T>
std::unique_ptr<lookup_engine<T>> make_cpu_lookup_engine();
template <typename T>
std::unique_ptr<resamp_engine<T>> make_cpu_resamp_engine();
template <typename T>
std::unique_ptr<resize_engine<T>> make_cpu_resize_engine();

} // namespace kernel
} // namespace gpuinterp
} // namespace gr

#endif
