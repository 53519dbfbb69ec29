/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "../common/sc16.h"
#include "engine_factory.h"
#include <gnuradio/gpuinterp/kernel/channels.h>
#include <gnuradio/gpuinterp/kernel/polyphase_interpolator.h>
#include <gnuradio/gpuinterp/kernel/validate.h>
#include <type_traits>
#include <algorithm>

namespace gr {
namespace gpuinterp {
namespace kernel {

namespace {
// The CPU's sc16: a chunk of about 4096 outputs at a time, converted while it is in cache.
template <typename T, typename TAP>
void sc16_on_cpu(fir_engine<T, TAP>& e,
                 std::vector<T>& scratch,
                 unsigned L,
                 int16_t* out,
                 const T* in,
                 size_t n_in,
                 float scale,
                 sc16_counts& counts)
{
    const size_t chunk = std::max<size_t>(1, 4096 / L);
    scratch.resize(chunk * L);
    for (size_t pos = 0; pos < n_in; pos += chunk) {
        const size_t m = std::min(chunk, n_in - pos);
        e.filter(scratch.data(), in + pos, m);
        sc16_convert(out + 2 * pos * L,
                     scratch.data(),
                     m * L,
                     scale,
                     counts.saturated,
                     counts.invalid);
    }
}

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
                                                       size_t batch,
                                                       unsigned channels)
    : d_L(interpolation),
      d_channels(check_channels(channels)), // before anything is sized by it
      d_batch(batch ? batch : default_batch),
      d_counts(d_channels)
{
    check_interpolation(interpolation);
    require_nonempty_finite("taps", taps);
    const backend_choice choice = select_backend(requested, device);
    d_backend = choice.selected;
    d_note = choice.reason;
    if (d_backend == backend::cuda && channels > 1)
        d_channels_engine =
            make_fir_channels_engine<T, TAP>(d_backend, device, d_batch, channels);
    else
        for (unsigned c = 0; c < channels; c++)
            d_engines.push_back(make_fir_engine<T, TAP>(d_backend, device, d_batch));
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
    if (d_channels_engine)
        d_channels_engine->set_taps(padded, d_L, M);
    for (auto& e : d_engines)
        e->set_taps(padded, d_L, M);
    d_taps = taps;
    d_M = M;
}

template <typename T, typename TAP>
void polyphase_interpolator<T, TAP>::check_one_channel(const char* what) const
{
    if (d_channels != 1)
        invalid_parameter("channels",
                          std::string(what) + " takes one channel, this kernel has " +
                              std::to_string(d_channels) + ": use filter_channels()");
}

template <typename T, typename TAP>
void polyphase_interpolator<T, TAP>::filter(T* out, const T* in, size_t n_in)
{
    check_one_channel("filter()");
    if (n_in == 0)
        return;
    d_engines[0]->filter(out, in, n_in);
}

template <typename T, typename TAP>
void polyphase_interpolator<T, TAP>::filter_device(T* out, const T* in, size_t n_in)
{
    check_one_channel("filter_device()");
    if (n_in == 0)
        return;
    d_engines[0]->filter_device(out, in, n_in);
}

template <typename T, typename TAP>
void polyphase_interpolator<T, TAP>::filter_channels(T* const* out,
                                                     const T* const* in,
                                                     size_t n_in,
                                                     bool device)
{
    if (n_in == 0)
        return;
    if (d_channels_engine)
        return d_channels_engine->filter(out, in, n_in, device);
    for (unsigned c = 0; c < d_channels; c++) {
        if (device)
            d_engines[c]->filter_device(out[c], in[c], n_in);
        else
            d_engines[c]->filter(out[c], in[c], n_in);
    }
}

template <typename T, typename TAP>
const sc16_counts& polyphase_interpolator<T, TAP>::counts(unsigned channel) const
{
    if (channel >= d_channels)
        invalid_parameter("channel",
                          std::to_string(channel) + " does not exist (the kernel has " +
                              std::to_string(d_channels) + " channel(s))");
    return d_counts[channel];
}

template <typename T, typename TAP>
void polyphase_interpolator<T, TAP>::reset_counts()
{
    std::fill(d_counts.begin(), d_counts.end(), sc16_counts{});
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
    if (d_channels_engine)
        d_channels_engine->reset();
    for (auto& e : d_engines)
        e->reset();
}

template <typename T, typename TAP>
void polyphase_interpolator<T, TAP>::set_batch(size_t batch)
{
    if (batch < 1)
        invalid_parameter("batch", "must be >= 1");
    d_batch = batch;
    if (d_channels_engine)
        d_channels_engine->set_batch(batch);
    for (auto& e : d_engines)
        e->set_batch(batch);
}

template <typename T, typename TAP>
void polyphase_interpolator<T, TAP>::filter_sc16(
    int16_t* out, const T* in, size_t n_in, float full_scale, bool device)
{
    check_one_channel("filter_sc16()");
    filter_channels_sc16(&out, &in, n_in, full_scale, device);
}

template <typename T, typename TAP>
void polyphase_interpolator<T, TAP>::filter_channels_sc16(
    int16_t* const* out, const T* const* in, size_t n_in, float full_scale, bool device)
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
        if (n_in == 0)
            return;
        if (d_channels_engine)
            return d_channels_engine->filter_sc16(
                out, in, n_in, scale, d_counts.data(), device);
        for (unsigned c = 0; c < d_channels; c++)
            if (!d_engines[c]->filter_sc16(
                    out[c], in[c], n_in, scale, d_counts[c], device))
                sc16_on_cpu(*d_engines[c],
                            d_scratch,
                            d_L,
                            out[c],
                            in[c],
                            n_in,
                            scale,
                            d_counts[c]);
    }
}

template class polyphase_interpolator<std::complex<float>, float>;
template class polyphase_interpolator<float, float>;
template class polyphase_interpolator<std::complex<float>, std::complex<float>>;

} // namespace kernel
} // namespace gpuinterp
} // namespace gr
