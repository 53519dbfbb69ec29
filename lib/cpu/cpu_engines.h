/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_CPU_ENGINES_H
#define INCLUDED_GPUINTERP_CPU_ENGINES_H

// The CPU engines, one per kernel class. Only lib/engine_factory.cc (and tests that compare an
// engine with its reference directly) construct them; kernels go through the factory.

#include "../kernel/capture_engine.h"
#include "../kernel/dpd_engine.h"
#include "../kernel/fir_engine.h"
#include "../kernel/gmp_engine.h"
#include "../kernel/gram_engine.h"
#include "../kernel/neural_engine.h"
#include "../kernel/resamp_engines.h"
#include "../kernel/resize_engine.h"
#include <memory>

namespace gr {
namespace gpuinterp {
namespace kernel {

template <typename T, typename TAP>
std::unique_ptr<fir_engine<T, TAP>> make_cpu_fir_engine(unsigned channels);
template <typename T>
std::unique_ptr<lookup_engine<T>> make_cpu_lookup_engine();
//! Every channel's window in turn (run_window() for one window: the tests' reference).
template <typename T>
std::unique_ptr<resamp_window_engine<T>> make_cpu_resamp_engine();
template <typename T>
std::unique_ptr<resize_engine<T>> make_cpu_resize_engine();
std::unique_ptr<dpd_engine> make_cpu_dpd_engine();
std::unique_ptr<gmp_engine> make_cpu_gmp_engine();
std::unique_ptr<neural_engine> make_cpu_neural_engine();
std::unique_ptr<gram_engine> make_cpu_gram_engine();
std::unique_ptr<capture_engine> make_cpu_capture_engine();

//! Test hook: false forces the CPU engines' portable (non-AVX2) code paths.
void set_cpu_simd(bool allow);

} // namespace kernel
} // namespace gpuinterp
} // namespace gr

#endif
