/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_KERNEL_DPD_BANK_ENGINE_H
#define INCLUDED_GPUINTERP_KERNEL_DPD_BANK_ENGINE_H

// Internal: the engine of a dpd_bank that runs every channel in one launch (CUDA, ph model).
// Channels and item formats are fixed at construction; the channels share the model's structure
// (the packed form's M, Lmax and taps) and each has its own values and history.

#include "dpd_engine.h"
#include <gnuradio/gpuinterp/kernel/sample_format.h>
#include <complex>
#include <cstddef>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace kernel {

//! A bank's item formats: an sc16 side (input or output) scales by full_scale (sample_format.h).
struct bank_formats {
    sample_format input = sample_format::fc32;
    sample_format output = sample_format::fc32;
    float full_scale = 1.0f;
};

class dpd_bank_engine
{
public:
    virtual ~dpd_bank_engine() = default;
    //! Channel c's values. The first call fixes the structure; it throws std::invalid_argument
    //! when the bank's kernel cannot take it (the front end then runs one engine per channel).
    virtual void set_model(unsigned channel, const dpd_packed& m) = 0;
    //! in[c]: n samples of channel c in the input format; out[c]: n in the output format.
    virtual void process(void* const* out, const void* const* in, size_t n) = 0;
    virtual void process_device(void* const* out, const void* const* in, size_t n) = 0;
    virtual void reset() = 0;
    virtual void set_batch(size_t batch) = 0;
    //! Channel c's cumulative counts (sc16), current after every process call.
    virtual sc16_counts counts(unsigned channel) const = 0;
    virtual void reset_counts() = 0;
};

} // namespace kernel
} // namespace gpuinterp
} // namespace gr

#endif
