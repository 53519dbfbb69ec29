/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_KERNEL_ENGINE_FACTORY_H
#define INCLUDED_GPUINTERP_KERNEL_ENGINE_FACTORY_H

// Internal: the one place a kernel class gets its engine from. A kernel resolves the backend
// (select_backend), then asks here; lib/engine_factory.cc is the only file that knows both
// backends' engines, so kernel/ depends on engine interfaces only.

#include "capture_engine.h"
#include "dpd_bank_engine.h"
#include "dpd_engine.h"
#include "fir_engine.h"
#include "gmp_engine.h"
#include "gram_engine.h"
#include "neural_engine.h"
#include "resamp_engines.h"
#include "resize_engine.h"
#include <gnuradio/gpuinterp/kernel/backend.h>
#include <cstddef>
#include <memory>

namespace gr {
namespace gpuinterp {
namespace kernel {

//! `selected` is cpu or cuda (a select_backend() result); `batch` is the CUDA engine's most items
//! (frames for resize) per launch, ignored by the CPU engines.
//! Every channel of a polyphase_interpolator. sc16_in: the engine reads sc16
//! (fir_engine::filter_from_sc16()); complex samples only.
template <typename T, typename TAP>
std::unique_ptr<fir_engine<T, TAP>> make_fir_engine(
    backend selected, int device, size_t batch, unsigned channels, bool sc16_in = false);
template <typename T>
std::unique_ptr<lookup_engine<T>>
make_lookup_engine(backend selected, int device, size_t batch);
//! Every channel of a resampler running `method` (the texture method has its own engine).
template <typename T>
std::unique_ptr<resamp_engine<T>> make_resamp_engine(
    backend selected, int device, size_t batch, unsigned channels, resamp_method method);
template <typename T>
std::unique_ptr<resize_engine<T>>
make_resize_engine(backend selected, int device, size_t batch);
//! The predistorter engines: ph (the packed model) and mp/gmp (a program). `mapped`: CUDA only.
std::unique_ptr<dpd_engine>
make_dpd_engine(backend selected, int device, size_t batch, bool mapped);
std::unique_ptr<gmp_engine>
make_gmp_engine(backend selected, int device, size_t batch, bool mapped);
//! The neural families' engine (gru, tdnn).
std::unique_ptr<neural_engine>
make_neural_engine(backend selected, int device, size_t batch);
/*!
 * The one engine of a dpd_bank (dpd_bank_engine.h): on CUDA a ph model of several channels or an
 * sc16 side runs every channel in one launch; everything else runs one channel engine of the
 * family per channel (dpd_channel_engines). A ph structure the one-launch kernel cannot take falls
 * back to one engine per channel, and `note` says why; with an sc16 side it, and any other family
 * on CUDA with an sc16 side, is refused (std::invalid_argument naming the format).
 */
std::unique_ptr<dpd_bank_engine> make_dpd_bank_engine(backend selected,
                                                      const dpd_model& model,
                                                      const bank_config& cfg,
                                                      std::string& note);
//! The estimator's Gram accumulator and eigensolver (dpd_gram).
std::unique_ptr<gram_engine> make_gram_engine(backend selected, int device);
//! The estimator's capture conditioning and alignment (dpd_capture).
std::unique_ptr<capture_engine> make_capture_engine(backend selected, int device);

} // namespace kernel
} // namespace gpuinterp
} // namespace gr

#endif
