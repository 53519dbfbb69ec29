/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "../common/sc16.h"
#include "channel_major.h"
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
// The CPU's sc16: a chunk of about 4096 outputs at a time, its inputs expanded (sc16 in) and its
// outputs converted (sc16 out) while they are in cache; the complex float filter in between.
template <typename T, typename TAP>
void sc16_on_cpu(fir_engine<T, TAP>& e,
                 std::vector<T>& in_scratch,
                 std::vector<T>& out_scratch,
                 unsigned L,
                 void* out,
                 const void* in,
                 size_t n_in,
                 const float* in_scale, // sc16 in: full scale / 32767
                 const float* scale,    // sc16 out: 32767 / full scale
                 sc16_counts& counts)
{
    const size_t chunk = std::max<size_t>(1, 4096 / L);
    for (size_t pos = 0; pos < n_in; pos += chunk) {
        const size_t m = std::min(chunk, n_in - pos);
        const T* x = static_cast<const T*>(in) + pos;
        if (in_scale) {
            in_scratch.resize(chunk);
            sc16_expand(in_scratch.data(),
                        static_cast<const int16_t*>(in) + 2 * pos,
                        m,
                        *in_scale);
            x = in_scratch.data();
        }
        if (!scale) {
            e.filter(static_cast<T*>(out) + pos * L, x, m);
            continue;
        }
        out_scratch.resize(chunk * L);
        e.filter(out_scratch.data(), x, m);
        sc16_convert(static_cast<int16_t*>(out) + 2 * pos * L,
                     out_scratch.data(),
                     m * L,
                     *scale,
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
                                                       unsigned channels,
                                                       sample_format input_format)
    : d_L(interpolation),
      d_channels(check_channels(channels)), // before anything is sized by it
      d_in_format(input_format),
      d_batch(batch ? batch : default_batch),
      d_counts(d_channels)
{
    check_interpolation(interpolation);
    require_nonempty_finite("taps", taps);
    const bool sc16_in = input_format == sample_format::sc16;
    if (sc16_in && !std::is_same_v<T, std::complex<float>>)
        invalid_parameter("input_format", "sc16 needs complex samples");
    const backend_choice choice = select_backend(requested, device);
    d_backend = choice.selected;
    d_note = choice.reason;
    if (d_backend == backend::cuda && channels > 1)
        d_channels_engine = make_fir_channels_engine<T, TAP>(
            d_backend, device, d_batch, channels, sc16_in);
    else
        for (unsigned c = 0; c < channels; c++)
            d_engines.push_back(
                make_fir_engine<T, TAP>(d_backend, device, d_batch, sc16_in));
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
void polyphase_interpolator<T, TAP>::check_fc32_input(const char* what) const
{
    if (d_in_format != sample_format::fc32)
        invalid_parameter("input_format",
                          std::string(what) + " takes complex float, this kernel reads " +
                              to_string(d_in_format) + ": use filter_items()");
}

template <typename T, typename TAP>
void polyphase_interpolator<T, TAP>::run_fc32(T* const* out,
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
    check_channel_index(channel, d_channels);
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
    check_fc32_input("filter()");
    const unsigned N = d_channels;
    const size_t n = channel_run(in.size(), N);
    std::vector<T> out(in.size() * d_L);
    std::vector<void*> o(N);
    std::vector<const void*> i(N);
    for (unsigned c = 0; c < N; c++) {
        o[c] = out.data() + c * n * d_L;
        i[c] = in.data() + c * n;
    }
    filter_items(o.data(), i.data(), n);
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
void polyphase_interpolator<T, TAP>::filter_items(void* const* out,
                                                  const void* const* in,
                                                  size_t n_in,
                                                  sample_format output,
                                                  float full_scale,
                                                  bool device)
{
    const bool sc16_in = d_in_format == sample_format::sc16;
    const bool sc16_out = output == sample_format::sc16;
    if (!sc16_in && !sc16_out)
        return run_fc32(reinterpret_cast<T* const*>(out),
                        reinterpret_cast<const T* const*>(in),
                        n_in,
                        device);
    validate_full_scale(full_scale);
    if constexpr (!std::is_same_v<T, std::complex<float>>) {
        (void)n_in;
        (void)device;
        invalid_parameter("output_format", "sc16 needs complex samples");
    } else {
        const float in_scale = sc16_inverse_scale(full_scale);
        const float scale = sc16_scale(full_scale);
        if (n_in == 0)
            return;
        sc16_counts* counts = sc16_out ? d_counts.data() : nullptr;
        const auto in16 = reinterpret_cast<const int16_t* const*>(in);
        const auto inT = reinterpret_cast<const T* const*>(in);
        if (d_channels_engine) {
            if (sc16_in)
                return d_channels_engine->filter_from_sc16(
                    out, in16, n_in, in_scale, scale, counts, device);
            return d_channels_engine->filter_sc16(
                reinterpret_cast<int16_t* const*>(out), inT, n_in, scale, counts, device);
        }
        for (unsigned c = 0; c < d_channels; c++) {
            sc16_counts* k = counts ? &d_counts[c] : nullptr;
            const bool fused =
                sc16_in ? d_engines[c]->filter_from_sc16(
                              out[c], in16[c], n_in, in_scale, scale, k, device)
                        : d_engines[c]->filter_sc16(static_cast<int16_t*>(out[c]),
                                                    inT[c],
                                                    n_in,
                                                    scale,
                                                    d_counts[c],
                                                    device);
            if (!fused)
                sc16_on_cpu(*d_engines[c],
                            d_in_scratch,
                            d_scratch,
                            d_L,
                            out[c],
                            in[c],
                            n_in,
                            sc16_in ? &in_scale : nullptr,
                            sc16_out ? &scale : nullptr,
                            d_counts[c]);
        }
    }
}

template class polyphase_interpolator<std::complex<float>, float>;
template class polyphase_interpolator<float, float>;
template class polyphase_interpolator<std::complex<float>, std::complex<float>>;

} // namespace kernel
} // namespace gpuinterp
} // namespace gr
