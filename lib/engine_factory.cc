/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The engine factory: the only file that knows both backends. A kernel passes the backend
// that select_backend() resolved (never automatic); a CPU-only build never resolves to
// cuda, since select_backend() already refuses it there.
#include "cpu/cpu_engines.h"
#include "kernel/dpd_channel_engines.h"
#include "kernel/engine_factory.h"
#ifdef GPUINTERP_HAVE_CUDA
#include "cuda/cuda_engines.h"
#endif
#include <gnuradio/gpuinterp/kernel/validate.h>
#include <complex>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpuinterp {
namespace kernel {

namespace {
template <typename Engine, typename Cpu, typename Cuda>
std::unique_ptr<Engine> make_engine(backend selected, Cpu&& cpu, Cuda&& cuda)
{
    switch (selected) {
    case backend::cpu:
        return cpu();
    case backend::cuda:
#ifdef GPUINTERP_HAVE_CUDA
        return cuda();
#else
        (void)cuda;
        throw std::logic_error("engine factory: this build has no CUDA backend");
#endif
    default:
        throw std::logic_error("engine factory: the backend must be resolved first");
    }
}
} // namespace

#ifdef GPUINTERP_HAVE_CUDA
#define GPUINTERP_CUDA_ENGINE(expr) [&] { return expr; }
#else
#define GPUINTERP_CUDA_ENGINE(expr) [] { return nullptr; }
#endif

} // namespace kernel

// The definitions name their declarations (kernel::make_..., trailing return types): one that
// drifted from engine_factory.h is then a compile error here, not a new overload that leaves the
// kernel classes' calls unresolved at link time.

template <typename T, typename TAP>
auto kernel::make_fir_engine(backend selected,
                             [[maybe_unused]] int device,
                             [[maybe_unused]] size_t batch,
                             unsigned channels,
                             [[maybe_unused]] bool sc16_in)
    -> std::unique_ptr<fir_engine<T, TAP>>
{
    return make_engine<fir_engine<T, TAP>>(
        selected,
        [&] { return make_cpu_fir_engine<T, TAP>(channels); },
        GPUINTERP_CUDA_ENGINE(
            (gpu::make_cuda_fir_engine<T, TAP>(device, batch, channels, sc16_in))));
}

template <typename T>
auto kernel::make_lookup_engine(backend selected,
                                [[maybe_unused]] int device,
                                [[maybe_unused]] size_t batch)
    -> std::unique_ptr<lookup_engine<T>>
{
    return make_engine<lookup_engine<T>>(
        selected,
        [] { return make_cpu_lookup_engine<T>(); },
        GPUINTERP_CUDA_ENGINE(gpu::make_cuda_lookup_engine<T>(device, batch)));
}

template <typename T>
auto kernel::make_resamp_engine(backend selected,
                                [[maybe_unused]] int device,
                                [[maybe_unused]] size_t batch,
                                [[maybe_unused]] unsigned channels,
                                [[maybe_unused]] resamp_method method)
    -> std::unique_ptr<resamp_engine<T>>
{
    return make_engine<resamp_engine<T>>(
        selected,
        [] { return make_cpu_resamp_engine<T>(); },
        GPUINTERP_CUDA_ENGINE(
            gpu::make_cuda_resamp_engine<T>(device, batch, channels, method)));
}

template <typename T>
auto kernel::make_resize_engine(backend selected,
                                [[maybe_unused]] int device,
                                [[maybe_unused]] size_t batch)
    -> std::unique_ptr<resize_engine<T>>
{
    return make_engine<resize_engine<T>>(
        selected,
        [] { return make_cpu_resize_engine<T>(); },
        GPUINTERP_CUDA_ENGINE(gpu::make_cuda_resize_engine<T>(device, batch)));
}

auto kernel::make_dpd_engine(backend selected,
                             [[maybe_unused]] int device,
                             [[maybe_unused]] size_t batch,
                             [[maybe_unused]] bool mapped) -> std::unique_ptr<dpd_engine>
{
    return make_engine<dpd_engine>(
        selected,
        [] { return make_cpu_dpd_engine(); },
        GPUINTERP_CUDA_ENGINE(gpu::make_cuda_dpd_engine(device, batch, mapped)));
}

auto kernel::make_gmp_engine(backend selected,
                             [[maybe_unused]] int device,
                             [[maybe_unused]] size_t batch,
                             [[maybe_unused]] bool mapped) -> std::unique_ptr<gmp_engine>
{
    return make_engine<gmp_engine>(
        selected,
        [] { return make_cpu_gmp_engine(); },
        GPUINTERP_CUDA_ENGINE(gpu::make_cuda_gmp_engine(device, batch, mapped)));
}

auto kernel::make_neural_engine(backend selected,
                                [[maybe_unused]] int device,
                                [[maybe_unused]] size_t batch)
    -> std::unique_ptr<neural_engine>
{
    return make_engine<neural_engine>(
        selected,
        [] { return make_cpu_neural_engine(); },
        GPUINTERP_CUDA_ENGINE(gpu::make_cuda_neural_engine(device, batch)));
}

auto kernel::make_dpd_bank_engine(backend selected,
                                  const dpd_model& model,
                                  const bank_config& cfg,
                                  std::string& note) -> std::unique_ptr<dpd_bank_engine>
{
    const bank_formats& f = cfg.formats;
    const bool sc16 = f.input == sample_format::sc16 || f.output == sample_format::sc16;
    if (selected == backend::cuda) {
#ifdef GPUINTERP_HAVE_CUDA
        if (model.family == dpd_model::family_t::ph && (cfg.channels > 1 || sc16)) {
            try {
                return gpu::make_cuda_dpd_bank_engine(
                    cfg,
                    pack_dpd(model,
                             std::vector<std::complex<float>>(model.num_coefficients()),
                             {}));
            } catch (const std::invalid_argument& e) {
                if (sc16)
                    throw;
                note = std::string(e.what()) + ": one launch per channel";
            }
        }
#endif
        // sc16 on CUDA is converted inside the ph bank's kernel only; the other families would
        // need a conversion pass of their own, so the CPU runs them.
        if (sc16)
            invalid_parameter(
                f.output == sample_format::sc16 ? "output_format" : "input_format",
                "sc16 on the CUDA backend takes ph models (this is " +
                    to_string(model.family) + "); use backend 'cpu' or fc32");
    }
    return std::make_unique<dpd_channel_engines>(model, cfg, selected);
}

auto kernel::make_gram_engine(backend selected, [[maybe_unused]] int device)
    -> std::unique_ptr<gram_engine>
{
    return make_engine<gram_engine>(
        selected,
        [] { return make_cpu_gram_engine(); },
        GPUINTERP_CUDA_ENGINE(gpu::make_cuda_gram_engine(device)));
}

auto kernel::make_capture_engine(backend selected, [[maybe_unused]] int device)
    -> std::unique_ptr<capture_engine>
{
    return make_engine<capture_engine>(
        selected,
        [] { return make_cpu_capture_engine(); },
        GPUINTERP_CUDA_ENGINE(gpu::make_cuda_capture_engine(device)));
}

#undef GPUINTERP_CUDA_ENGINE

namespace kernel {
using cf = std::complex<float>;
template std::unique_ptr<fir_engine<cf, float>>
make_fir_engine<cf, float>(backend, int, size_t, unsigned, bool);
template std::unique_ptr<fir_engine<float, float>>
make_fir_engine<float, float>(backend, int, size_t, unsigned, bool);
template std::unique_ptr<fir_engine<cf, cf>>
make_fir_engine<cf, cf>(backend, int, size_t, unsigned, bool);
template std::unique_ptr<lookup_engine<float>>
make_lookup_engine<float>(backend, int, size_t);
template std::unique_ptr<lookup_engine<cf>> make_lookup_engine<cf>(backend, int, size_t);
template std::unique_ptr<resamp_engine<float>>
make_resamp_engine<float>(backend, int, size_t, unsigned, resamp_method);
template std::unique_ptr<resamp_engine<cf>>
make_resamp_engine<cf>(backend, int, size_t, unsigned, resamp_method);
template std::unique_ptr<resize_engine<float>>
make_resize_engine<float>(backend, int, size_t);
template std::unique_ptr<resize_engine<uint8_t>>
make_resize_engine<uint8_t>(backend, int, size_t);

} // namespace kernel
} // namespace gpuinterp
} // namespace gr
