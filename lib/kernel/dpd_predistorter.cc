/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "engine_factory.h"
#include <gnuradio/gpuinterp/kernel/dpd_predistorter.h>
#include <gnuradio/gpuinterp/kernel/validate.h>
#include <algorithm>

namespace gr {
namespace gpuinterp {
namespace kernel {

namespace {
// The model's bounds (dpd_model.h says why), for ph_unchecked models too: one set.
constexpr unsigned max_order = dpd_model::max_order;
constexpr unsigned max_taps = dpd_model::max_lag;

void check_structure(unsigned P, unsigned Q, unsigned Lp, unsigned Lq)
{
    if (P < 1 || P % 2 == 0 || P > max_order)
        invalid_parameter("P",
                          "must be odd, 1 <= P <= " + std::to_string(max_order) +
                              ", got " + std::to_string(P));
    if ((Q != 0 && Q % 2 == 0) || Q > max_order)
        invalid_parameter("Q",
                          "must be 0 (no conjugate branches) or odd, Q <= " +
                              std::to_string(max_order) + ", got " + std::to_string(Q));
    if (Lp < 1 || Lp > max_taps)
        invalid_parameter("Lp",
                          "must be >= 1 and <= " + std::to_string(max_taps) + ", got " +
                              std::to_string(Lp));
    if (Lq < 1 || Lq > max_taps)
        invalid_parameter("Lq",
                          "must be >= 1 and <= " + std::to_string(max_taps) + ", got " +
                              std::to_string(Lq));
}
//! A model's value vector (its coefficients or weights) has the model's count and is finite.
template <typename T>
void check_values(const char* name,
                  const std::vector<T>& v,
                  const dpd_model& model,
                  size_t want)
{
    if (v.size() != want)
        invalid_parameter(name,
                          "expected " + std::to_string(want) + " values for " +
                              model.to_string() + " (got " + std::to_string(v.size()) +
                              ")");
    require_finite(name, v);
}

} // namespace

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

dpd_predistorter::dpd_predistorter(const dpd_model& model,
                                   const std::vector<complex>& coefficients,
                                   complex lo_leakage,
                                   backend requested,
                                   int device,
                                   size_t batch,
                                   bool mapped)
    : d_model(model), d_H(0), d_batch(batch ? batch : default_batch), d_mapped(mapped)
{
    validate(model, coefficients, lo_leakage);
    d_H = model.history();
    make_engine(requested, device, mapped);
    set_coefficients(coefficients, lo_leakage);
    const std::string why =
        d_stream->variant_note(); // e.g. no NVRTC for the compiled mp/gmp kernel
    if (!why.empty())
        d_note += (d_note.empty() ? "" : "; ") + why;
}

dpd_predistorter::dpd_predistorter(const dpd_model& model,
                                   const std::vector<float>& weights,
                                   backend requested,
                                   int device,
                                   size_t batch)
    : d_model(model),
      d_H(0),
      d_batch(batch ? batch : default_batch),
      d_mapped(false),
      d_c(0)
{
    validate_weights(model, weights);
    d_H = model.history();
    make_engine(requested, device, false);
    set_weights(weights);
}

void dpd_predistorter::validate_weights(const dpd_model& model,
                                        const std::vector<float>& weights)
{
    if (!model.is_neural())
        invalid_parameter("weights",
                          "a " + kernel::to_string(model.family) +
                              " model takes complex coefficients, not weights");
    model.validate();
    check_values("weights", weights, model, model.num_weights());
}

void dpd_predistorter::set_weights(const std::vector<float>& weights)
{
    validate_weights(d_model, weights);
    d_neural_engine->set_weights(d_model, weights);
    d_weights = weights;
}

void dpd_predistorter::set_warmup(size_t samples)
{
    if (d_neural_engine)
        d_neural_engine->set_warmup(samples);
}

size_t dpd_predistorter::warmup() const
{
    return d_neural_engine ? d_neural_engine->warmup() : 0;
}

void dpd_predistorter::make_engine(backend requested, int device, bool mapped)
{
    const backend_choice choice = select_backend(requested, device);
    d_backend = choice.selected;
    d_note = choice.reason;
    if (d_model.is_neural()) {
        d_neural_engine = make_neural_engine(d_backend, device, d_batch);
        d_stream = d_neural_engine.get();
    } else if (d_model.family == dpd_model::family_t::ph) {
        d_engine = make_dpd_engine(d_backend, device, d_batch, mapped);
        d_stream = d_engine.get();
    } else {
        d_gmp_engine = make_gmp_engine(d_backend, device, d_batch, mapped);
        d_stream = d_gmp_engine.get();
    }
}

void dpd_predistorter::validate(const dpd_model& model,
                                const std::vector<complex>& coefficients,
                                complex lo_leakage)
{
    if (model.is_neural())
        invalid_parameter("coefficients",
                          "a " + kernel::to_string(model.family) +
                              " model takes real weights, not complex coefficients");
    // ph: the engine's own bounds, with the (P, Q, Lp, Lq) parameters' names ("P: ...": the
    // block's sugar builds a ph_unchecked model from them), not the spec's coefficient cap.
    if (model.family == dpd_model::family_t::ph)
        check_structure(model.P, model.Q, model.Lp, model.Lq);
    else
        model.validate();
    check_values("coefficients", coefficients, model, model.num_coefficients());
    if (!is_finite_value(lo_leakage))
        invalid_parameter("lo_leakage", "is not finite");
}

dpd_predistorter::~dpd_predistorter() = default;

void dpd_predistorter::set_coefficients(const std::vector<complex>& coefficients,
                                        complex lo_leakage)
{
    validate(d_model, coefficients, lo_leakage);
    if (d_gmp_engine)
        d_gmp_engine->set_program(make_gmp_program(d_model, coefficients, lo_leakage));
    else
        d_engine->set_model(pack_dpd(d_model, coefficients, lo_leakage));
    d_coeffs = coefficients;
    d_c = lo_leakage;
}

void dpd_predistorter::process(complex* out, const complex* in, size_t n)
{
    if (n == 0)
        return;
    d_stream->process(out, in, n);
}

void dpd_predistorter::process_device(complex* out, const complex* in, size_t n)
{
    if (n == 0)
        return;
    d_stream->process_device(out, in, n);
}

std::vector<dpd_predistorter::complex>
dpd_predistorter::process(const std::vector<complex>& in)
{
    std::vector<complex> out(in.size());
    process(out.data(), in.data(), in.size());
    return out;
}

void dpd_predistorter::reset() { d_stream->reset(); }

void dpd_predistorter::set_batch(size_t batch)
{
    if (batch < 1)
        invalid_parameter("batch", "must be >= 1");
    d_batch = batch;
    d_stream->set_batch(batch);
}

void dpd_predistorter::set_cuda_variant(dpd_cuda_variant v)
{
    const bool gmp_variant =
        v == dpd_cuda_variant::compiled || v == dpd_cuda_variant::interpreted;
    if (v == dpd_cuda_variant::automatic ||
        gmp_variant == bool(d_gmp_engine)) // else: the other family's
        d_stream->set_variant(v);
    d_variant = v;
}

dpd_cuda_variant dpd_predistorter::active_cuda_variant() const
{
    return d_stream->active_variant();
}

} // namespace kernel
} // namespace gpuinterp
} // namespace gr
