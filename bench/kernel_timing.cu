/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// See kernel_timing.h.
#include "cuda/cuda_common.cuh"
#include "cuda/fir_launch.h"
#include "cuda/gmp_launch.h"
#include "cuda/resamp_engine.cuh"
#include "kernel_timing.h"
#include "launch_timing.cuh"
#include <type_traits>
#include <cmath>
#include <complex>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace gpu {

double time_gmp_kernel_ms(int device,
                          const kernel::gmp_program& program,
                          size_t n,
                          int iters,
                          const gmp_kernel_choice& choice)
{
    device_guard guard(device);
    const gmp_blob b = flatten(program);
    device_buffer<float2> x = test_signal(n + program.H), y(n);
    stream s;
    if (choice.compiled) {
        const gmp_tuning& t = gmp_tuning_for(compute_capability(device));
        gmp_jit_shape shape = gmp_jit_shape_for(b, t);
        if (choice.V) {
            shape.V = choice.V;
            shape.shared = choice.shared;
            shape.constant_count = choice.constant_count;
        }
        if (choice.threads)
            shape.threads = choice.threads;
        if (choice.outputs)
            shape.outputs = choice.outputs;
        std::string why;
        gmp_jit_kernel k = compile_gmp_jit(b, device, shape, &why);
        if (!k.fn)
            throw std::runtime_error("compiled mp/gmp kernel: " + why);
        if (choice.waves) // max_blocks is gmp_jit_waves() device-fulls of blocks
            k.max_blocks = int(std::min<long long>(
                1 << 30,
                (long long)(k.max_blocks / gmp_jit_waves(t, shape)) * choice.waves));
        std::vector<char> params;
        gmp_jit_params(b, params);
        const double ms = median_launch_ms(s.get(), iters, [&] {
            launch_gmp_jit(k, params, { x.get(), y.get(), n, s.get() });
        });
        release_gmp_jit(k);
        return ms;
    }
    const gmp_plan plan = plan_gmp(b, device);
    device_buffer<int4> blob(b.words.size() / 4);
    upload(reinterpret_cast<int*>(blob.get()), b.words.data(), b.words.size());
    return median_launch_ms(s.get(), iters, [&] {
        launch_gmp(plan, b, blob.get(), { x.get(), y.get(), n, s.get() });
    });
}

namespace {

// NT: the tiled polyphase kernel's block (the engine's template argument).
template <int NT>
resamp_tuned_timing time_resampler_kernel_nt(int device,
                                             kernel::resamp_method m,
                                             double rate,
                                             size_t n_in,
                                             int iters,
                                             const resamp_tuning& t,
                                             bool untiled)
{
    using H = std::complex<float>;
    using kernel::resamp_method;
    kernel::resampler<H> front(
        rate, m, backend::cpu); // only for the reach and the prototype
    cuda_resamp_engine<float2, H, NT> e(device, n_in, t);
    e.set_cuda_variant(untiled ? kernel::resamp_cuda_variant::untiled
                               : kernel::resamp_cuda_variant::automatic);
    kernel::polyphase_params pp;
    const unsigned K = unsigned(kernel::polyphase_taps(pp, std::min(1.0, rate)));
    if (m == resamp_method::polyphase)
        e.set_prototype(front.prototype(), K, pp.nfilts);
    device_guard g(device);
    const size_t H0 = front.reach_back() + 1;
    const size_t n_win = n_in + H0 + front.lookahead();
    std::vector<H> hx(n_win);
    for (size_t i = 0; i < n_win; i++)
        hx[i] = H(float((i * 2654435761u) % 2001) * 1e-3f - 1.0005f,
                  float((i * 40503u) % 1999) * 1e-3f - 0.9995f);
    device_buffer<float2> x(n_win);
    upload(x.get(), hx.data(), n_win);
    kernel::resamp_plan plan;
    plan.method = m;
    plan.pos0 = { (long long)H0, 0 };
    const double d = 1.0 / rate;
    plan.step = { uint64_t(std::floor(d)), uint64_t(std::ldexp(d - std::floor(d), 64)) };
    plan.n_out = size_t(double(n_in) * rate);
    plan.hist = H0;
    plan.scale = std::min(1.0, rate);
    plan.half_span = int(front.lookahead());
    plan.nfilts = int(pp.nfilts);
    plan.back = front.reach_back();
    plan.ahead = front.lookahead();
    device_buffer<float2> y(plan.n_out);
    stream s;
    resamp_tuned_timing r;
    r.ms = median_launch_ms(
        s.get(), iters, [&] { e.launch(x.get(), n_win, y.get(), plan, s.get()); });
    // The engine's own choice of tile (launch_tiled()), from the same row and limit.
    if (m == resamp_method::polyphase && !untiled) {
        const int optin =
            device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
        r.tile =
            int(pick_tiled_shape<float2>(plan, int(K), int(pp.nfilts), t, optin).tile);
    }
    return r;
}

} // namespace

resamp_tuned_timing time_resampler_kernel_tuned(int device,
                                                kernel::resamp_method m,
                                                double rate,
                                                size_t n_in,
                                                int iters,
                                                const resamp_tuning& t,
                                                bool untiled,
                                                int tiled_threads)
{
    switch (tiled_threads) {
    case 128:
        return time_resampler_kernel_nt<128>(device, m, rate, n_in, iters, t, untiled);
    case 256:
        return time_resampler_kernel_nt<256>(device, m, rate, n_in, iters, t, untiled);
    case 512:
        return time_resampler_kernel_nt<512>(device, m, rate, n_in, iters, t, untiled);
    default:
        throw std::invalid_argument(
            "tiled_threads: the lab builds 128, 256 or 512, not " +
            std::to_string(tiled_threads));
    }
}

double time_resampler_kernel_ms(int device,
                                kernel::resamp_method m,
                                double rate,
                                size_t n_in,
                                int iters,
                                bool untiled)
{
    return time_resampler_kernel_tuned(device,
                                       m,
                                       rate,
                                       n_in,
                                       iters,
                                       resamp_tuning_for(compute_capability(device)),
                                       untiled)
        .ms;
}

template <typename T, typename TAP>
double time_fir_kernel_ms(
    int device, unsigned L, const std::vector<TAP>& taps, size_t n_in, int iters)
{
    return time_fir_kernel_tuned<T, TAP>(
               device, L, taps, n_in, iters, fir_tuning_for(compute_capability(device)))
        .ms;
}

template <typename T, typename TAP>
fir_tuned_timing time_fir_kernel_tuned(int device,
                                       unsigned L,
                                       const std::vector<TAP>& taps,
                                       size_t n_in,
                                       int iters,
                                       const fir_tuning& t)
{
    using DT = std::conditional_t<std::is_same_v<T, float>, float, float2>;
    using DTAP = std::conditional_t<std::is_same_v<TAP, float>, float, float2>;
    device_guard guard(device);
    const size_t M = (taps.size() + L - 1) / L;
    std::vector<TAP> padded(M * L, TAP(0));
    std::copy(taps.begin(), taps.end(), padded.begin());
    const fir_plan plan = plan_fir<DT, DTAP>(device, L, M, t);
    device_buffer<DTAP> d_taps(padded.size());
    upload(d_taps.get(), padded.data(), padded.size());
    // M - 1 samples of history ahead of the n_in inputs, deterministic.
    std::vector<T> hx(n_in + M - 1);
    for (size_t i = 0; i < hx.size(); i++)
        hx[i] = T(float((i * 2654435761u) % 1000) * 1e-3f - 0.5f);
    device_buffer<DT> x(hx.size()), y(n_in * L);
    upload(x.get(), hx.data(), hx.size());
    stream s;
    fir_tuned_timing r;
    r.ms = median_launch_ms(s.get(), iters, [&] {
        launch_fir(plan, x.get(), y.get(), d_taps.get(), int(n_in), s.get());
    });
    r.TI = plan.g.TI;
    r.stage = plan.g.stage;
    return r;
}

template double time_fir_kernel_ms<std::complex<float>, float>(
    int, unsigned, const std::vector<float>&, size_t, int);
template double
time_fir_kernel_ms<float, float>(int, unsigned, const std::vector<float>&, size_t, int);
template fir_tuned_timing time_fir_kernel_tuned<std::complex<float>, float>(
    int, unsigned, const std::vector<float>&, size_t, int, const fir_tuning&);

} // namespace gpu
} // namespace gpuinterp
} // namespace gr
