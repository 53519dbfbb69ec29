/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "../common/sc16.h"
#include "engine_factory.h"
#include <gnuradio/gpuinterp/kernel/polyphase_interpolator.h>
#include <gnuradio/gpuinterp/kernel/validate.h>
#include <type_traits>
#include <algorithm>

namespace gr {
namespace gpuinterp {
namespace kernel {

namespace {
// Beyond this the zero-padded taps (a multiple of L) and every output block (n * L items) are
// gigabytes: an allocation failure deep inside would say nothing about the cause.
constexpr unsigned max_interpolation = 65536;

void check_interpolation(unsigned L)
{
    if (L < 1 || L > max_interpolation)
        invalid_parameter("interpolation",
                          "must lie in 1.." + std::to_string(max_interpolation) +
                              ", got " + std::to_string(L));
}
} // namespace

template <typename T, typename TAP>
polyphase_interpolator<T, TAP>::polyphase_interpolator(unsigned interpolation,
                                                       const std::vector<TAP>& taps,
                                                       backend requested,
                                                       int device,
                                                       size_t batch)
    : d_L(interpolation), d_batch(batch ? batch : default_batch)
{
    check_interpolation(interpolation);
    require_nonempty_finite("taps", taps);
    const backend_choice choice = select_backend(requested, device);
    d_backend = choice.selected;
    d_note = choice.reason;
    d_engine = make_fir_engine<T, TAP>(d_backend, device, d_batch);
    set_taps(taps);
}

template <typename T, typename TAP>
polyphase_interpolator<T, TAP>::~polyphase_interpolator() = default;

template <typename T, typename TAP>
void polyphase_interpolator<T, TAP>::set_taps(const std::vector<TAP>& taps)
{
    require_nonempty_finite("taps", taps);
    const size_t M = (taps.size() + d_L - 1) / d_L;
    std::vector<TAP> padded(M * d_L, TAP(0));
    std::copy(taps.begin(), taps.end(), padded.begin());
    d_engine->set_taps(padded, d_L, M);
    d_taps = taps;
    d_M = M;
}

template <typename T, typename TAP>
void polyphase_interpolator<T, TAP>::filter(T* out, const T* in, size_t n_in)
{
    if (n_in == 0)
        return;
    d_engine->filter(out, in, n_in);
}

template <typename T, typename TAP>
void polyphase_interpolator<T, TAP>::filter_device(T* out, const T* in, size_t n_in)
{
    if (n_in == 0)
        return;
    d_engine->filter_device(out, in, n_in);
}

template <typename T, typename TAP>
std::vector<T> polyphase_interpolator<T, TAP>::filter(const std::vector<T>& in)
{
    std::vector<T> out(in.size() * d_L);
    filter(out.data(), in.data(), in.size());
    return out;
}

template <typename T, typename TAP>
void polyphase_interpolator<T, TAP>::reset()
{
    d_engine->reset();
}

template <typename T, typename TAP>
void polyphase_interpolator<T, TAP>::set_batch(size_t batch)
{
    if (batch < 1)
        invalid_parameter("batch", "must be >= 1");
    d_batch = batch;
    d_engine->set_batch(batch);
}

template <typename T, typename TAP>
void polyphase_interpolator<T, TAP>::filter_sc16(
    int16_t* out, const T* in, size_t n_in, float full_scale, bool device)
{
    validate_full_scale(full_scale);
    if constexpr (!std::is_same_v<T, std::complex<float>>) {
        (void)out;
        (void)in;
        (void)n_in;
        (void)device;
        invalid_parameter("output_format", "sc16 needs complex samples");
    } else {
        const float scale = sc16_scale(full_scale);
        if (n_in == 0 || d_engine->filter_sc16(out, in, n_in, scale, d_counts, device))
            return;
        // The CPU: a chunk of about 4096 outputs at a time, converted while it is in cache.
        const size_t chunk = std::max<size_t>(1, 4096 / d_L);
        d_scratch.resize(chunk * d_L);
        for (size_t pos = 0; pos < n_in; pos += chunk) {
            const size_t m = std::min(chunk, n_in - pos);
            d_engine->filter(d_scratch.data(), in + pos, m);
            sc16_convert(out + 2 * pos * d_L,
                         d_scratch.data(),
                         m * d_L,
                         scale,
                         d_counts.saturated,
                         d_counts.invalid);
        }
    }
}

template class polyphase_interpolator<std::complex<float>, float>;
template class polyphase_interpolator<float, float>;
template class polyphase_interpolator<std::complex<float>, std::complex<float>>;

} // namespace kernel
} // namespace gpuinterp
} // namespace gr
