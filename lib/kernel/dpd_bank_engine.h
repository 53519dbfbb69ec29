/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_KERNEL_DPD_BANK_ENGINE_H
#define INCLUDED_GPUINTERP_KERNEL_DPD_BANK_ENGINE_H

// Internal: the one engine a dpd_bank holds, whatever the family, the channel count and the item
// formats (fixed at construction). The channels share the model's structure; each has its own
// values and history. Two implementations: the CUDA ph bank, every channel in one launch
// (lib/cuda/dpd_bank.cu), and dpd_channel_engines (dpd_channel_engines.h), which runs one channel
// engine of the family (dpd_engine.h, gmp_engine.h, neural_engine.h) per channel and converts
// sc16 on the host; the factory (make_dpd_bank_engine) picks.

#include "gmp_engine.h"
#include "neural_engine.h"
#include <gnuradio/gpuinterp/kernel/sample_format.h>
#include <complex>
#include <cstddef>
#include <stdexcept>
#include <string>
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

//! What every bank engine is built with; `mapped`: the CUDA polynomial engines' mapped staging.
struct bank_config {
    int device = 0;
    unsigned channels = 1;
    bank_formats formats;
    size_t batch = 0;
    bool mapped = false;
};

class dpd_bank_engine
{
public:
    virtual ~dpd_bank_engine() = default;
    //! Channel c's values in the family's form: the packed maps (ph), a program (mp, gmp) or the
    //! weights (gru, tdnn). An engine takes its family's form only (std::logic_error otherwise).
    virtual void set_model(unsigned, const dpd_packed&) { refuse("packed ph maps"); }
    virtual void set_program(unsigned, const gmp_program&) { refuse("a gmp program"); }
    virtual void set_weights(unsigned, const dpd_model&, const std::vector<float>&)
    {
        refuse("neural weights");
    }
    //! The recurrent families' warm-up (neural_engine::set_warmup()); 0 for the others.
    virtual void set_warmup(size_t) {}
    virtual size_t warmup() const { return 0; }
    /*!
     * in[c]: n samples of channel c in the input format; out[c]: n in the output format.
     * `device`: the pointers are in the backend's own memory (device buffers; the CPU's is the
     * host's). Returns once the outputs are written.
     */
    virtual void
    process(void* const* out, const void* const* in, size_t n, bool device) = 0;
    virtual void reset() = 0;
    virtual void set_batch(size_t batch) = 0;
    //! Channel c's cumulative counts (sc16), current after every process call.
    virtual sc16_counts counts(unsigned channel) const = 0;
    virtual void reset_counts() = 0;
    //! The CUDA kernel choice (dpd_cuda_variant; a family ignores the others' variants).
    virtual void set_variant(dpd_cuda_variant) {}
    virtual dpd_cuda_variant active_variant() const = 0;
    //! Why the kernel asked for is not the one running (empty when it is).
    virtual std::string variant_note() const { return {}; }
    //! Every channel in one launch (the CUDA ph bank).
    virtual bool one_launch() const { return false; }

private:
    [[noreturn]] static void refuse(const char* what)
    {
        throw std::logic_error(
            std::string("dpd bank engine: this family's engine does not "
                        "take ") +
            what);
    }
};

} // namespace kernel
} // namespace gpuinterp
} // namespace gr

#endif
