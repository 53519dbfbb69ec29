/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "../common/sc16.h"
#include "dpd_channel_engines.h"
#include "engine_factory.h"
#include <algorithm>

namespace gr {
namespace gpuinterp {
namespace kernel {

namespace {
// sc16: inputs and outputs are converted a chunk at a time, while the chunk is still in L1/L2.
constexpr size_t sc16_chunk = 4096;
} // namespace

// One channel's engine, of the model's family. The bank validated every value before it gets
// here (where it enters: its constructors and setters).
struct dpd_channel_engines::channel {
    std::unique_ptr<dpd_engine> ph;
    std::unique_ptr<gmp_engine> gmp;
    std::unique_ptr<neural_engine> neural;
    dpd_stream_engine* stream = nullptr; //!< the one in use

    channel(const dpd_model& m, backend b, int device, size_t batch, bool mapped)
    {
        if (m.is_neural()) {
            neural = make_neural_engine(b, device, batch);
            stream = neural.get();
        } else if (m.family == dpd_model::family_t::ph) {
            ph = make_dpd_engine(b, device, batch, mapped);
            stream = ph.get();
        } else {
            gmp = make_gmp_engine(b, device, batch, mapped);
            stream = gmp.get();
        }
    }
};

dpd_channel_engines::dpd_channel_engines(const dpd_model& model,
                                         const bank_config& cfg,
                                         backend selected)
    : d_formats(cfg.formats), d_counts(cfg.channels)
{
    for (unsigned c = 0; c < cfg.channels; c++)
        d_each.push_back(std::make_unique<channel>(
            model, selected, cfg.device, cfg.batch, cfg.mapped));
}

dpd_channel_engines::~dpd_channel_engines() = default;

void dpd_channel_engines::set_model(unsigned c, const dpd_packed& m)
{
    if (!d_each[c]->ph)
        dpd_bank_engine::set_model(c, m);
    d_each[c]->ph->set_model(m);
}

void dpd_channel_engines::set_program(unsigned c, const gmp_program& p)
{
    if (!d_each[c]->gmp)
        dpd_bank_engine::set_program(c, p);
    d_each[c]->gmp->set_program(p);
}

void dpd_channel_engines::set_weights(unsigned c,
                                      const dpd_model& model,
                                      const std::vector<float>& weights)
{
    if (!d_each[c]->neural)
        dpd_bank_engine::set_weights(c, model, weights);
    d_each[c]->neural->set_weights(model, weights);
}

void dpd_channel_engines::set_warmup(size_t samples)
{
    for (auto& e : d_each)
        if (e->neural)
            e->neural->set_warmup(samples);
}

size_t dpd_channel_engines::warmup() const
{
    return d_each.front()->neural ? d_each.front()->neural->warmup() : 0;
}

void dpd_channel_engines::process(void* const* out,
                                  const void* const* in,
                                  size_t n,
                                  bool device)
{
    using complex = std::complex<float>;
    const bool sc16_in = d_formats.input == sample_format::sc16;
    const bool sc16_out = d_formats.output == sample_format::sc16;
    for (unsigned c = 0; c < d_each.size(); c++) {
        dpd_stream_engine& e = *d_each[c]->stream;
        if (!sc16_in && !sc16_out) {
            auto* o = static_cast<complex*>(out[c]);
            auto* i = static_cast<const complex*>(in[c]);
            if (device)
                e.process_device(o, i, n);
            else
                e.process(o, i, n);
            continue;
        }
        // sc16 runs on the CPU only (the factory refuses CUDA): host pointers either way.
        const float in_scale = sc16_inverse_scale(d_formats.full_scale);
        const float scale = sc16_scale(d_formats.full_scale);
        d_sc16.run(out[c],
                   in[c],
                   n,
                   1,
                   sc16_chunk,
                   sc16_in ? &in_scale : nullptr,
                   sc16_out ? &scale : nullptr,
                   d_counts[c].saturated,
                   d_counts[c].invalid,
                   [&](complex* y, const complex* x, size_t m) { e.process(y, x, m); });
    }
}

void dpd_channel_engines::reset()
{
    for (auto& e : d_each)
        e->stream->reset();
}

void dpd_channel_engines::set_batch(size_t batch)
{
    for (auto& e : d_each)
        e->stream->set_batch(batch);
}

void dpd_channel_engines::reset_counts()
{
    std::fill(d_counts.begin(), d_counts.end(), sc16_counts{});
}

void dpd_channel_engines::set_variant(dpd_cuda_variant v)
{
    // Each family takes its own variants (and automatic); another family's is kept aside.
    const bool gmp_variant =
        v == dpd_cuda_variant::compiled || v == dpd_cuda_variant::interpreted;
    for (auto& e : d_each)
        if (v == dpd_cuda_variant::automatic || gmp_variant == bool(e->gmp))
            e->stream->set_variant(v);
}

dpd_cuda_variant dpd_channel_engines::active_variant() const
{
    return d_each.front()->stream->active_variant();
}

std::string dpd_channel_engines::variant_note() const
{
    return d_each.front()->stream->variant_note();
}

} // namespace kernel
} // namespace gpuinterp
} // namespace gr
