/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "../common/sc16.h"
#include "dpd_bank_engine.h"
#include "engine_factory.h"
#include <gnuradio/gpuinterp/kernel/dpd_bank.h>
#include <gnuradio/gpuinterp/kernel/validate.h>
#include <type_traits>
#include <algorithm>
#include <stdexcept>

namespace gr {
namespace gpuinterp {
namespace kernel {

namespace {
// CPU sc16: inputs and outputs are converted a chunk at a time, while the chunk is still in
// L1/L2.
constexpr size_t sc16_chunk = 4096;
} // namespace

dpd_bank::dpd_bank(const dpd_model& model,
                   unsigned channels,
                   size_t batch,
                   sample_format output_format,
                   float full_scale,
                   sample_format input_format)
    : d_model(model),
      d_channels(channels),
      d_format(output_format),
      d_in_format(input_format),
      d_full_scale(full_scale),
      d_batch(batch ? batch : dpd_predistorter::default_batch)
{
    check_channels(channels);
    validate_full_scale(full_scale);
}

void dpd_bank::add_engine_note()
{
    const std::string why = d_each.front()->backend_note();
    if (!why.empty() && why != d_note)
        d_note += (d_note.empty() ? "" : "; ") + why;
}

void dpd_bank::common_setup(backend requested, int device)
{
    d_counts.assign(d_channels, {});
    const backend_choice choice = select_backend(requested, device);
    d_backend = choice.selected;
    d_note = choice.reason;
    if (d_format == sample_format::sc16)
        d_scratch.resize(sc16_chunk);
    if (d_in_format == sample_format::sc16)
        d_in_scratch.resize(sc16_chunk);
}

namespace {
// sc16 on CUDA is converted inside the ph bank's kernel only; the other families would need a
// conversion pass of their own, so the CPU runs them.
void refuse_cuda_sc16(backend b, sample_format in, sample_format out, const dpd_model& m)
{
    if (b == backend::cuda && (in == sample_format::sc16 || out == sample_format::sc16))
        invalid_parameter(out == sample_format::sc16 ? "output_format" : "input_format",
                          "sc16 on the CUDA backend takes ph models (this is " +
                              to_string(m.family) + "); use backend 'cpu' or fc32");
}
} // namespace

dpd_bank::dpd_bank(const dpd_model& model,
                   unsigned channels,
                   const std::vector<complex>& coefficients,
                   complex lo_leakage,
                   backend requested,
                   int device,
                   size_t batch,
                   bool mapped,
                   sample_format output_format,
                   float full_scale,
                   sample_format input_format)
    : dpd_bank(model, channels, batch, output_format, full_scale, input_format)
{
    dpd_predistorter::validate(model, coefficients, lo_leakage);
    common_setup(requested, device);
    d_coeffs.assign(channels, coefficients);
    d_c.assign(channels, lo_leakage);
    d_weights.assign(channels, {});
    const bool sc16 =
        output_format == sample_format::sc16 || input_format == sample_format::sc16;
    const bool ph = model.family == dpd_model::family_t::ph;
    if (d_backend == backend::cuda && ph && (channels > 1 || sc16)) {
        try {
            auto e = make_dpd_bank_engine(d_backend,
                                          device,
                                          channels,
                                          { input_format, output_format, full_scale },
                                          d_batch,
                                          mapped);
            for (unsigned c = 0; c < channels; c++)
                e->set_model(c, pack_dpd(model, coefficients, lo_leakage));
            d_engine = std::move(e);
            return;
        } catch (const std::invalid_argument& e) {
            if (sc16)
                throw;
            d_note += (d_note.empty() ? "" : "; ") + std::string(e.what()) +
                      ": one launch per channel";
        }
    }
    refuse_cuda_sc16(d_backend, input_format, output_format, model);
    for (unsigned c = 0; c < channels; c++)
        d_each.push_back(std::make_unique<dpd_predistorter>(
            model, coefficients, lo_leakage, d_backend, device, d_batch, mapped));
    add_engine_note();
}

dpd_bank::dpd_bank(const dpd_model& model,
                   unsigned channels,
                   const std::vector<float>& weights,
                   backend requested,
                   int device,
                   size_t batch,
                   sample_format output_format,
                   float full_scale,
                   sample_format input_format)
    : dpd_bank(model, channels, batch, output_format, full_scale, input_format)
{
    dpd_predistorter::validate_weights(model, weights);
    common_setup(requested, device);
    d_coeffs.assign(channels, {});
    d_c.assign(channels, complex(0));
    d_weights.assign(channels, weights);
    refuse_cuda_sc16(d_backend, input_format, output_format, model);
    for (unsigned c = 0; c < channels; c++)
        d_each.push_back(std::make_unique<dpd_predistorter>(
            model, weights, d_backend, device, d_batch));
    add_engine_note();
}

dpd_bank::~dpd_bank() = default;

void dpd_bank::check_channel(unsigned channel) const
{
    if (channel >= d_channels)
        invalid_parameter("channel",
                          std::to_string(channel) + " does not exist (the bank has " +
                              std::to_string(d_channels) + " channel(s))");
}

void dpd_bank::run_channels(void* const* out,
                            const void* const* in,
                            size_t n,
                            bool device)
{
    if (n == 0)
        return;
    if (d_engine)
        return device ? d_engine->process_device(out, in, n)
                      : d_engine->process(out, in, n);
    const bool sc16_in = d_in_format == sample_format::sc16;
    const bool sc16_out = d_format == sample_format::sc16;
    for (unsigned c = 0; c < d_channels; c++) {
        if (!sc16_in && !sc16_out) {
            auto* o = static_cast<complex*>(out[c]);
            auto* i = static_cast<const complex*>(in[c]);
            if (device)
                d_each[c]->process_device(o, i, n);
            else
                d_each[c]->process(o, i, n);
            continue;
        }
        // sc16 runs on the CPU only (the constructor refuses CUDA): host pointers either way.
        sc16_counts& k = d_counts[c];
        for (size_t pos = 0; pos < n; pos += sc16_chunk) {
            const size_t m = std::min(sc16_chunk, n - pos);
            const complex* x = static_cast<const complex*>(in[c]) + pos;
            if (sc16_in) {
                sc16_expand(d_in_scratch.data(),
                            static_cast<const int16_t*>(in[c]) + 2 * pos,
                            m,
                            sc16_inverse_scale(d_full_scale));
                x = d_in_scratch.data();
            }
            if (!sc16_out) {
                d_each[c]->process(static_cast<complex*>(out[c]) + pos, x, m);
                continue;
            }
            d_each[c]->process(d_scratch.data(), x, m);
            sc16_convert(static_cast<int16_t*>(out[c]) + 2 * pos,
                         d_scratch.data(),
                         m,
                         sc16_scale(d_full_scale),
                         k.saturated,
                         k.invalid);
        }
    }
}

void dpd_bank::process(void* const* out, const void* const* in, size_t n)
{
    run_channels(out, in, n, false);
}

void dpd_bank::process_device(void* const* out, const void* const* in, size_t n)
{
    run_channels(out, in, n, true);
}

namespace {
// The vector conveniences: channel-major in, channel-major out; a sample is one In (complex) or
// two (int16 I, Q), one Out or two likewise. Out also names the call (process() returns
// complex float, process_sc16() int16 pairs), so its output format is checked here too.
template <typename Out, typename In>
std::vector<Out> channel_major(dpd_bank& b, const std::vector<In>& in)
{
    constexpr size_t in_per = std::is_same<In, int16_t>::value ? 2 : 1;
    constexpr size_t out_per = std::is_same<Out, int16_t>::value ? 2 : 1;
    if (b.output_format() != (out_per == 2 ? sample_format::sc16 : sample_format::fc32))
        invalid_parameter("output_format",
                          out_per == 1
                              ? "process() returns complex float: use process_sc16()"
                              : "process_sc16() needs an sc16 bank");
    const sample_format want = in_per == 2 ? sample_format::sc16 : sample_format::fc32;
    if (b.input_format() != want)
        invalid_parameter("input_format",
                          "this bank reads " + to_string(b.input_format()) + ", not " +
                              to_string(want));
    const unsigned N = b.channels();
    if (in.size() % (N * in_per))
        invalid_parameter("in", "length must be a multiple of the channel count");
    const size_t n = in.size() / (N * in_per);
    std::vector<Out> out(size_t(N) * n * out_per);
    std::vector<void*> o(N);
    std::vector<const void*> i(N);
    for (unsigned c = 0; c < N; c++) {
        o[c] = out.data() + c * n * out_per;
        i[c] = in.data() + c * n * in_per;
    }
    b.process(o.data(), i.data(), n);
    return out;
}
} // namespace

std::vector<dpd_bank::complex> dpd_bank::process(const std::vector<complex>& in)
{
    return channel_major<complex>(*this, in);
}

std::vector<int16_t> dpd_bank::process_sc16(const std::vector<complex>& in)
{
    return channel_major<int16_t>(*this, in);
}

std::vector<dpd_bank::complex> dpd_bank::process(const std::vector<int16_t>& in)
{
    return channel_major<complex>(*this, in);
}

std::vector<int16_t> dpd_bank::process_sc16(const std::vector<int16_t>& in)
{
    return channel_major<int16_t>(*this, in);
}

void dpd_bank::set_coefficients(unsigned channel,
                                const std::vector<complex>& coefficients,
                                complex lo_leakage)
{
    check_channel(channel);
    dpd_predistorter::validate(d_model, coefficients, lo_leakage);
    if (d_engine)
        d_engine->set_model(channel, pack_dpd(d_model, coefficients, lo_leakage));
    else
        d_each[channel]->set_coefficients(coefficients, lo_leakage);
    d_coeffs[channel] = coefficients;
    d_c[channel] = lo_leakage;
}

void dpd_bank::set_weights(unsigned channel, const std::vector<float>& weights)
{
    check_channel(channel);
    d_each[channel]->set_weights(
        weights); // validates (a polynomial model refuses weights)
    d_weights[channel] = weights;
}

const std::vector<float>& dpd_bank::weights(unsigned channel) const
{
    check_channel(channel);
    return d_weights[channel];
}

const std::vector<dpd_bank::complex>& dpd_bank::coefficients(unsigned channel) const
{
    check_channel(channel);
    return d_coeffs[channel];
}

dpd_bank::complex dpd_bank::lo_leakage(unsigned channel) const
{
    check_channel(channel);
    return d_c[channel];
}

sc16_counts dpd_bank::counts(unsigned channel) const
{
    check_channel(channel);
    return d_engine ? d_engine->counts(channel) : d_counts[channel];
}

void dpd_bank::reset_counts()
{
    if (d_engine)
        d_engine->reset_counts();
    std::fill(d_counts.begin(), d_counts.end(), sc16_counts{});
}

void dpd_bank::reset()
{
    if (d_engine)
        d_engine->reset();
    for (auto& e : d_each)
        e->reset();
}

void dpd_bank::set_batch(size_t batch)
{
    d_batch = batch ? batch : dpd_predistorter::default_batch;
    if (d_engine)
        d_engine->set_batch(d_batch);
    for (auto& e : d_each)
        e->set_batch(d_batch);
}

void dpd_bank::set_cuda_variant(dpd_cuda_variant v)
{
    // The one-launch bank has one kernel (the tiled body); the per-channel engines take it.
    for (auto& e : d_each)
        e->set_cuda_variant(v);
}

} // namespace kernel
} // namespace gpuinterp
} // namespace gr
