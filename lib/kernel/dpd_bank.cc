/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "channel_major.h"
#include "dpd_bank_engine.h"
#include "engine_factory.h"
#include <gnuradio/gpuinterp/kernel/dpd_bank.h>
#include <gnuradio/gpuinterp/kernel/validate.h>
#include <type_traits>
#include <algorithm>
#include <stdexcept>
#include <utility>

namespace gr {
namespace gpuinterp {
namespace kernel {

dpd_bank::dpd_bank(const dpd_model& model, unsigned channels, const options& o)
    : d_model(model), d_channels(channels), d_o(o)
{
    check_channels(channels);
    validate_full_scale(o.full_scale);
    if (!d_o.batch)
        d_o.batch = dpd_predistorter::default_batch;
}

dpd_packed pack_dpd(const dpd_model& model,
                    const std::vector<std::complex<float>>& co,
                    std::complex<float> c)
{
    const unsigned P = model.P, Q = model.Q, Lp = model.Lp, Lq = model.Lq;
    dpd_packed m;
    const unsigned Mp = (P + 1) / 2, Mq = Q ? (Q + 1) / 2 : 0;
    m.M = std::max(Mp, Mq);
    m.Lmax = std::max(Lp, Mq ? Lq : 1u);
    m.H = m.Lmax - 1;
    m.taps.assign(m.M, 0);
    m.abcd.assign(size_t(m.M) * m.Lmax * 4, 0.f);
    for (unsigned o = 0; o < m.M; o++) {
        if (o < Mp) {
            m.taps[o] = std::max(m.taps[o], Lp);
            for (unsigned k = 0; k < Lp; k++) {
                const auto h = co[size_t(o) * Lp + k];
                float* f = &m.abcd[(size_t(o) * m.Lmax + k) * 4];
                f[0] += h.real();
                f[1] -= h.imag();
                f[2] += h.imag();
                f[3] += h.real();
            }
        }
        if (o < Mq) {
            m.taps[o] = std::max(m.taps[o], Lq);
            for (unsigned k = 0; k < Lq; k++) {
                const auto g = co[size_t(Mp) * Lp + size_t(o) * Lq + k];
                float* f = &m.abcd[(size_t(o) * m.Lmax + k) * 4];
                f[0] += g.real();
                f[1] += g.imag();
                f[2] += g.imag();
                f[3] -= g.real();
            }
        }
    }
    m.cr = c.real();
    m.ci = c.imag();
    return m;
}

template <typename Values>
void dpd_bank::make_engine(Values&& set_values)
{
    const backend_choice choice = select_backend(d_o.requested, d_o.device);
    d_backend = choice.selected;
    d_note = choice.reason;
    std::string fallback;
    d_engine =
        make_dpd_bank_engine(d_backend,
                             d_model,
                             { d_o.device,
                               d_channels,
                               { d_o.input_format, d_o.output_format, d_o.full_scale },
                               d_o.batch,
                               d_o.mapped },
                             fallback);
    set_values();
    // e.g. the structure does not fit the one-launch kernel, no NVRTC for the compiled kernel
    for (const std::string& why : { fallback, d_engine->variant_note() })
        if (!why.empty())
            d_note += (d_note.empty() ? "" : "; ") + why;
}

dpd_bank::dpd_bank(const dpd_model& model,
                   unsigned channels,
                   const std::vector<complex>& coefficients,
                   complex lo_leakage,
                   const options& o)
    : dpd_bank(model, channels, o)
{
    model.check_coefficients(coefficients, lo_leakage);
    d_coeffs.assign(channels, coefficients);
    d_c.assign(channels, lo_leakage);
    d_weights.assign(channels, {});
    make_engine([&] { apply_values(0, channels - 1, coefficients, lo_leakage); });
}

dpd_bank::dpd_bank(const dpd_model& model,
                   unsigned channels,
                   const std::vector<float>& weights,
                   const options& o)
    : dpd_bank(model, channels, o)
{
    model.check_weights(weights);
    d_coeffs.assign(channels, {});
    d_c.assign(channels, complex(0));
    d_weights.assign(channels, weights);
    make_engine([&] {
        for (unsigned c = 0; c < channels; c++)
            d_engine->set_weights(c, model, weights);
    });
}

dpd_bank::~dpd_bank() = default;

void dpd_bank::check_channel(unsigned channel) const
{
    check_channel_index(channel, d_channels);
}

void dpd_bank::process(void* const* out, const void* const* in, size_t n)
{
    if (n > 0)
        d_engine->process(out, in, n, false);
}

void dpd_bank::process_device(void* const* out, const void* const* in, size_t n)
{
    if (n > 0)
        d_engine->process(out, in, n, true);
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
    const size_t n = channel_run(in.size(), N, in_per);
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

void dpd_bank::check_range(unsigned first, unsigned last) const
{
    check_channel(last);
    if (first > last)
        invalid_parameter("channel",
                          "first " + std::to_string(first) + " is after last " +
                              std::to_string(last));
}

void dpd_bank::set_coefficients(unsigned first,
                                unsigned last,
                                const std::vector<complex>& coefficients,
                                std::optional<complex> lo_leakage)
{
    check_range(first, last);
    // Once for the range: a kept c was checked when it entered.
    d_model.check_coefficients(coefficients, lo_leakage.value_or(d_c[first]));
    apply_values(first, last, coefficients, lo_leakage);
}

void dpd_bank::apply_values(unsigned first,
                            unsigned last,
                            const std::vector<complex>& coefficients,
                            std::optional<complex> lo_leakage)
{
    // The engines' form of the set is built once and handed to every channel with the same c.
    const bool gmp = d_model.family != dpd_model::family_t::ph;
    std::optional<complex> built;
    dpd_packed packed;
    gmp_program program;
    for (unsigned c = first; c <= last; c++) {
        const complex lo = lo_leakage.value_or(d_c[c]);
        if (built != lo) {
            if (gmp)
                program = make_gmp_program(d_model, coefficients, lo);
            else
                packed = pack_dpd(d_model, coefficients, lo);
            built = lo;
        }
        if (gmp)
            d_engine->set_program(c, program);
        else
            d_engine->set_model(c, packed);
        d_coeffs[c] = coefficients;
        d_c[c] = lo;
    }
}

void dpd_bank::set_coefficients(unsigned channel,
                                const std::vector<complex>& coefficients,
                                complex lo_leakage)
{
    set_coefficients(channel, channel, coefficients, lo_leakage);
}

void dpd_bank::set_weights(unsigned first,
                           unsigned last,
                           const std::vector<float>& weights)
{
    check_range(first, last);
    d_model.check_weights(weights);
    for (unsigned c = first; c <= last; c++) {
        d_engine->set_weights(c, d_model, weights);
        d_weights[c] = weights;
    }
}

void dpd_bank::set_weights(unsigned channel, const std::vector<float>& weights)
{
    set_weights(channel, channel, weights);
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
    return d_engine->counts(channel);
}

void dpd_bank::reset_counts() { d_engine->reset_counts(); }

void dpd_bank::reset() { d_engine->reset(); }

void dpd_bank::set_batch(size_t batch)
{
    d_o.batch = batch ? batch : dpd_predistorter::default_batch;
    d_engine->set_batch(d_o.batch);
}

void dpd_bank::set_cuda_variant(dpd_cuda_variant v)
{
    d_engine->set_variant(v);
    d_variant = v;
}

dpd_cuda_variant dpd_bank::active_cuda_variant() const
{
    return d_engine->active_variant();
}

void dpd_bank::set_warmup(size_t samples) { d_engine->set_warmup(samples); }

size_t dpd_bank::warmup() const { return d_engine->warmup(); }

bool dpd_bank::one_launch() const { return d_engine->one_launch(); }

} // namespace kernel
} // namespace gpuinterp
} // namespace gr
