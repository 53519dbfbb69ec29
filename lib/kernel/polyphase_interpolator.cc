/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
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
    d_engine = make_fir_engine<T, TAP>(d_backend, device, d_batch, channels, sc16_in);
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
void polyphase_interpolator<T, TAP>::check_fc32_input(const char* what) const
{
    if (d_in_format != sample_format::fc32)
        invalid_parameter("input_format",
                          std::string(what) + " takes complex float, this kernel reads " +
                              to_string(d_in_format) + ": use filter_items()");
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
void polyphase_interpolator<T, TAP>::filter_items(void* const* out,
                                                  const void* const* in,
                                                  size_t n_in,
                                                  sample_format output,
                                                  float full_scale,
                                                  bool device)
{
    const bool sc16_in = d_in_format == sample_format::sc16;
    const bool sc16_out = output == sample_format::sc16;
    if (!sc16_in && !sc16_out) {
        if (n_in > 0)
            d_engine->filter(reinterpret_cast<T* const*>(out),
                             reinterpret_cast<const T* const*>(in),
                             n_in,
                             device);
        return;
    }
    validate_full_scale(full_scale);
    if constexpr (!std::is_same_v<T, std::complex<float>>) {
        (void)n_in;
        (void)device;
        invalid_parameter("output_format", "sc16 needs complex samples");
    } else {
        if (n_in == 0)
            return;
        const float scale = sc16_scale(full_scale);
        sc16_counts* counts = sc16_out ? d_counts.data() : nullptr;
        if (sc16_in)
            return d_engine->filter_from_sc16(out,
                                              reinterpret_cast<const int16_t* const*>(in),
                                              n_in,
                                              sc16_inverse_scale(full_scale),
                                              scale,
                                              counts,
                                              device);
        d_engine->filter_sc16(reinterpret_cast<int16_t* const*>(out),
                              reinterpret_cast<const T* const*>(in),
                              n_in,
                              scale,
                              counts,
                              device);
    }
}

template class polyphase_interpolator<std::complex<float>, float>;
template class polyphase_interpolator<float, float>;
template class polyphase_interpolator<std::complex<float>, std::complex<float>>;

} // namespace kernel
} // namespace gpuinterp
} // namespace gr
