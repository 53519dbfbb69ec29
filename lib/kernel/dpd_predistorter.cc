/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <gnuradio/gpuinterp/kernel/dpd_bank.h>
#include <gnuradio/gpuinterp/kernel/dpd_predistorter.h>
#include <gnuradio/gpuinterp/kernel/validate.h>

namespace gr {
namespace gpuinterp {
namespace kernel {

namespace {
dpd_bank::options bank_options(backend requested, int device, size_t batch, bool mapped)
{
    dpd_bank::options o(requested);
    o.device = device;
    o.batch = batch;
    o.mapped = mapped;
    return o;
}
} // namespace

dpd_predistorter::dpd_predistorter(const dpd_model& model,
                                   const std::vector<complex>& coefficients,
                                   complex lo_leakage,
                                   backend requested,
                                   int device,
                                   size_t batch,
                                   bool mapped)
    : d_bank(std::make_unique<dpd_bank>(model,
                                        1,
                                        coefficients,
                                        lo_leakage,
                                        bank_options(requested, device, batch, mapped)))
{
}

dpd_predistorter::dpd_predistorter(const dpd_model& model,
                                   const std::vector<float>& weights,
                                   backend requested,
                                   int device,
                                   size_t batch)
    : d_bank(std::make_unique<dpd_bank>(
          model, 1, weights, bank_options(requested, device, batch, false)))
{
}

dpd_predistorter::~dpd_predistorter() = default;

void dpd_predistorter::set_coefficients(const std::vector<complex>& coefficients,
                                        complex lo_leakage)
{
    d_bank->set_coefficients(0, coefficients, lo_leakage);
}

const std::vector<dpd_predistorter::complex>& dpd_predistorter::coefficients() const
{
    return d_bank->coefficients(0);
}

dpd_predistorter::complex dpd_predistorter::lo_leakage() const
{
    return d_bank->lo_leakage(0);
}

void dpd_predistorter::set_weights(const std::vector<float>& weights)
{
    d_bank->set_weights(0, weights);
}

const std::vector<float>& dpd_predistorter::weights() const { return d_bank->weights(0); }

void dpd_predistorter::set_warmup(size_t samples) { d_bank->set_warmup(samples); }

size_t dpd_predistorter::warmup() const { return d_bank->warmup(); }

void dpd_predistorter::process(complex* out, const complex* in, size_t n)
{
    void* o[] = { out };
    const complex* i[] = { in };
    d_bank->process(o, i, n);
}

void dpd_predistorter::process_device(complex* out, const complex* in, size_t n)
{
    void* o[] = { out };
    const complex* i[] = { in };
    d_bank->process_device(o, i, n);
}

std::vector<dpd_predistorter::complex>
dpd_predistorter::process(const std::vector<complex>& in)
{
    std::vector<complex> out(in.size());
    process(out.data(), in.data(), in.size());
    return out;
}

void dpd_predistorter::reset() { d_bank->reset(); }

const dpd_model& dpd_predistorter::model() const { return d_bank->model(); }

void dpd_predistorter::set_batch(size_t batch)
{
    if (batch < 1)
        invalid_parameter("batch", "must be >= 1");
    d_bank->set_batch(batch);
}

size_t dpd_predistorter::batch() const { return d_bank->batch(); }

void dpd_predistorter::set_cuda_variant(dpd_cuda_variant v)
{
    d_bank->set_cuda_variant(v);
}

dpd_cuda_variant dpd_predistorter::cuda_variant() const { return d_bank->cuda_variant(); }

dpd_cuda_variant dpd_predistorter::active_cuda_variant() const
{
    return d_bank->active_cuda_variant();
}

bool dpd_predistorter::mapped() const { return d_bank->mapped(); }

backend dpd_predistorter::active_backend() const { return d_bank->active_backend(); }

const std::string& dpd_predistorter::backend_note() const
{
    return d_bank->backend_note();
}

} // namespace kernel
} // namespace gpuinterp
} // namespace gr
