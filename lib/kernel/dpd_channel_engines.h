/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_KERNEL_DPD_CHANNEL_ENGINES_H
#define INCLUDED_GPUINTERP_KERNEL_DPD_CHANNEL_ENGINES_H

// Internal: the bank engine that runs one channel engine of the model's family per channel, on
// either backend: the CPU always, and CUDA for the families and structures the one-launch ph bank
// does not take, and for one ph channel in complex float (its single-channel engine is faster
// there: docs/performance.md, BM_dpd_engine_n1). sc16 is converted on the host a cache-sized chunk
// at a time, so it runs on the CPU only (the factory refuses it on CUDA).

#include "../common/sc16.h"
#include "dpd_bank_engine.h"
#include <memory>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace kernel {

class dpd_channel_engines final : public dpd_bank_engine
{
public:
    //! `selected`: a resolved backend.
    dpd_channel_engines(const dpd_model& model, const bank_config& cfg, backend selected);
    ~dpd_channel_engines() override;

    void set_model(unsigned channel, const dpd_packed& m) override;
    void set_program(unsigned channel, const gmp_program& p) override;
    void set_weights(unsigned channel,
                     const dpd_model& model,
                     const std::vector<float>& weights) override;
    void set_warmup(size_t samples) override;
    size_t warmup() const override;
    void process(void* const* out, const void* const* in, size_t n, bool device) override;
    void reset() override;
    void set_batch(size_t batch) override;
    sc16_counts counts(unsigned channel) const override { return d_counts[channel]; }
    void reset_counts() override;
    void set_variant(dpd_cuda_variant v) override;
    dpd_cuda_variant active_variant() const override;
    std::string variant_note() const override;

private:
    struct channel;
    bank_formats d_formats;
    std::vector<std::unique_ptr<channel>> d_each;
    std::vector<sc16_counts> d_counts;
    sc16_chunks d_sc16; //!< sc16 either side: one chunk at a time, in cache
};

} // namespace kernel
} // namespace gpuinterp
} // namespace gr

#endif
