/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_BENCH_RESAMP_LAB_H
#define INCLUDED_GPUINTERP_BENCH_RESAMP_LAB_H

// The resampler lab of the kernel tests (CUDA builds): the library's CUDA resampler engine
// (lib/cuda/resamp_engine.cuh) with its tiled polyphase kernel compiled for another block than
// resamp_build.tiled_threads, which the library does not build (bench/resamp_lab.cu). The
// benchmark times the same instances through time_resampler_kernel_tuned() (kernel_timing.h).
// Plain C++, so the tests include it without the CUDA headers.

#include "kernel/resamp_engines.h"
#include <cstddef>
#include <memory>

namespace gr {
namespace gpuinterp {
namespace gpu {

//! The tiled polyphase kernel's blocks the lab builds (resamp_build.tiled_threads among them).
constexpr int resamp_lab_tiled_threads[] = { 128, 256, 512 };

//! The CUDA resampler engine (device's tuning row) whose tiled polyphase kernel has
//! `tiled_threads` threads per block, one of resamp_lab_tiled_threads; T: float or
//! std::complex<float>. Throws std::invalid_argument ("tiled_threads: ...") for other values.
template <typename T>
std::unique_ptr<kernel::resamp_window_engine<T>>
make_resamp_lab_engine(int device, size_t batch, int tiled_threads);
//! The library's own CUDA window engine (its tiled kernel on resamp_build's block), which the
//! library's factory builds for one channel; T as above.
template <typename T>
std::unique_ptr<kernel::resamp_window_engine<T>> make_resamp_library_engine(int device,
                                                                            size_t batch);

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
