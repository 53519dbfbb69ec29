/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_CUDA_ENGINES_H
#define INCLUDED_GPUINTERP_CUDA_ENGINES_H

// The CUDA engines, one per kernel class, defined in lib/cuda/*.cu (CUDA builds only). Plain C++:
// lib/engine_factory.cc includes it without the CUDA toolkit's headers.

#include "../kernel/capture_engine.h"
#include "../kernel/dpd_bank_engine.h"
#include "../kernel/dpd_engine.h"
#include "../kernel/fir_engine.h"
#include "../kernel/gmp_engine.h"
#include "../kernel/gram_engine.h"
#include "../kernel/neural_engine.h"
#include "../kernel/resamp_engines.h"
#include "../kernel/resize_engine.h"
#include "table_lookup_tuning.h"
#include <cstddef>
#include <memory>

namespace gr {
namespace gpuinterp {
namespace gpu {

//! Every channel of a polyphase interpolator in one launch per call (fir_engine.cu), one channel
//! included (measured equal to a single-channel engine on the H200: docs/performance.md).
//! sc16_in: the engine reads sc16 (its history and staging stay sc16), complex samples only.
template <typename T, typename TAP>
std::unique_ptr<kernel::fir_engine<T, TAP>>
make_cuda_fir_engine(int device, size_t batch, unsigned channels, bool sc16_in);
template <typename T>
std::unique_ptr<kernel::lookup_engine<T>> make_cuda_lookup_engine(int device,
                                                                  size_t batch);
//! With the tuning row `t` instead of the device's (the benchmark's sweeps).
template <typename T>
std::unique_ptr<kernel::lookup_engine<T>>
make_cuda_lookup_engine(int device, size_t batch, const table_lookup_tuning& t);
//! Every channel of a resampler: one channel, or the texture method (a texture per channel's
//! window), on the engine of resamp_engine.cuh, channel by channel; more channels in one launch
//! per kernel (resamp_channels.cu).
template <typename T>
std::unique_ptr<kernel::resamp_engine<T>> make_cuda_resamp_engine(
    int device, size_t batch, unsigned channels, kernel::resamp_method method);
//! The one-launch engine of resamp_channels.cu, at any channel count but not for the texture
//! method.
template <typename T>
std::unique_ptr<kernel::resamp_engine<T>>
make_cuda_resamp_channels_engine(int device, size_t batch, unsigned channels);
template <typename T>
std::unique_ptr<kernel::resize_engine<T>> make_cuda_resize_engine(int device,
                                                                  size_t batch);
//! mapped: the host path reads and writes mapped pinned memory instead of copying (dpd_predistorter).
std::unique_ptr<kernel::dpd_engine>
make_cuda_dpd_engine(int device, size_t batch, bool mapped);
std::unique_ptr<kernel::gmp_engine>
make_cuda_gmp_engine(int device, size_t batch, bool mapped);
//! gru: chunk-parallel with a warm-up (neural_engine::set_warmup); tdnn: one thread per output.
std::unique_ptr<kernel::neural_engine> make_cuda_neural_engine(int device, size_t batch);
std::unique_ptr<kernel::gram_engine> make_cuda_gram_engine(int device);
std::unique_ptr<kernel::capture_engine> make_cuda_capture_engine(int device);
//! Every channel of a ph predistorter bank in one launch (dpd_bank.cu). `structure`: the model's
//! packed form (values unused); std::invalid_argument when the one-launch kernel cannot take it.
std::unique_ptr<kernel::dpd_bank_engine>
make_cuda_dpd_bank_engine(const kernel::bank_config& cfg,
                          const kernel::dpd_packed& structure);

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
