/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The polyphase interpolator's CUDA engine (kernel/polyphase_interpolator.h), for one channel
// or many: every channel in one launch per call, complex float or float; complex samples
// also sc16 in and out (an sc16 input is staged and kept as sc16, widened in the kernel's window
// load). The channels share the taps (one upload, one launch plan) and each has its own history.
//
// Host buffers: the channels are staged channel-major through the two-slot pipeline (each
// channel's window: M - 1 history values, then the chunk), one launch per chunk, and each
// channel's outputs are copied back to its own buffer. Device buffers: each channel's first
// min(n, M - 1) inputs read a seam [history, inputs] (device_history.cuh); one launch covers
// every channel's seam, the next ones every channel's remaining inputs in place. The same
// layout as the predistorter bank (dpd_bank.cu).
#include "../common/sc16.h"
#include "complex_ops.cuh"
#include "cuda_common.cuh"
#include "cuda_engines.h"
#include "device_history.cuh"
#include "fir_launch.h"
#include "host_pipeline.cuh"
#include "sc16_counters.cuh"
#include <gnuradio/gpuinterp/kernel/stream_history.h>
#include <type_traits>
#include <algorithm>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpuinterp {
namespace gpu {

namespace {

// X: the stored input, T or (sc16 input) short2; the histories and the host staging hold X.
template <typename T, typename TAP, typename X = T>
class cuda_fir_engine final : public kernel::fir_engine<host_t<T>, host_t<TAP>>
{
public:
    using HT = host_t<T>;
    using HTAP = host_t<TAP>;
    using HX = host_sample_t<X>;
    static constexpr bool SC16_IN = !std::is_same_v<X, T>;
    static_assert(sizeof(HT) == sizeof(T) && sizeof(HTAP) == sizeof(TAP), "layout");

    cuda_fir_engine(int device, size_t batch, unsigned channels)
        : d_device(device),
          d_batch(batch),
          d_N(channels),
          d_hist(channels),
          d_dev_hist(channels),
          d_pipe(device)
    {
        check_engine_channels(channels, "the CUDA interpolator");
    }

    void set_taps(const std::vector<HTAP>& padded, unsigned L, size_t M) override
    {
        device_guard guard(d_device);
        for (unsigned c = 0; c < d_N; c++)
            d_dev_hist[c].pull(d_hist[c]);
        d_taps.reserve(padded.size());
        upload(d_taps.get(), padded.data(), padded.size());
        for (auto& h : d_hist)
            h.resize(M - 1);
        d_plan = plan_fir<T, TAP>(d_device, L, M);
    }

    void filter(HT* const* out, const HT* const* in, size_t n, bool device) override
    {
        run(reinterpret_cast<void* const*>(out), fc32_input(in), n, device, d_pipe, {});
    }

    void filter_sc16(int16_t* const* out,
                     const HT* const* in,
                     size_t n,
                     float scale,
                     kernel::sc16_counts* counts,
                     bool device) override
    {
        if constexpr (!std::is_same_v<T, float2>)
            throw std::invalid_argument("output_format: sc16 needs complex samples");
        else
            run_sc16(reinterpret_cast<void* const*>(out),
                     fc32_input(in),
                     n,
                     device,
                     1.f,
                     scale,
                     counts);
    }

    void filter_from_sc16(void* const* out,
                          const int16_t* const* in,
                          size_t n,
                          float in_scale,
                          float scale,
                          kernel::sc16_counts* counts,
                          bool device) override
    {
        if constexpr (!SC16_IN) {
            throw std::logic_error("fir engine: made for complex float input");
        } else {
            const auto x = reinterpret_cast<const HX* const*>(in);
            if (counts)
                run_sc16(out, x, n, device, in_scale, scale, counts);
            else
                run(out, x, n, device, d_pipe, { in_scale });
        }
    }

    void reset() override
    {
        for (unsigned c = 0; c < d_N; c++) {
            d_hist[c].clear();
            d_dev_hist[c].invalidate();
        }
    }

    void set_batch(size_t b) override { d_batch = b; }

private:
    const HX* const* fc32_input(const HT* const* in) const
    {
        if constexpr (SC16_IN)
            throw std::logic_error("fir engine: made for sc16 input");
        else
            return in;
    }

    void run_sc16(void* const* out,
                  const HX* const* in,
                  size_t n,
                  bool device,
                  float in_scale,
                  float scale,
                  kernel::sc16_counts* counts)
    {
        run_counted<X>(d_device,
                       d_N,
                       d_counts,
                       d_pipe16,
                       d_pipe.stream0(),
                       counts,
                       [&](auto& pipe, auto* k) {
                           run(out, in, n, device, pipe, { in_scale, scale, k });
                       });
    }

    //! One call over every channel; Out: one output value (T, or an sc16 pair as a word).
    template <typename Out>
    void run(void* const* out,
             const HX* const* in_h,
             size_t n,
             bool device,
             host_pipeline<X, Out>& pipe,
             const fir_formats& f)
    {
        if (n == 0)
            return;
        device_guard guard(d_device);
        const size_t L = size_t(d_plan.g.L), N = d_N;
        const X* const* in = reinterpret_cast<const X* const*>(in_h);
        auto y = [&](unsigned c, size_t pos) {
            return static_cast<Out*>(out[c]) + pos * L;
        };
        auto launch = [&](const channel_pointers& p, size_t cnt, cudaStream_t st) {
            launch_fir_channels<X, T, TAP>(
                fir_call<TAP>{ d_plan, d_taps.get(), int(cnt), f, st }, p, d_N);
        };
        if (device) {
            const cudaStream_t st = d_pipe.stream0();
            launch_channels_device(
                d_dev_hist,
                d_hist,
                in,
                n,
                st,
                y,
                [&](const channel_pointers& p, size_t cnt) { launch(p, cnt, st); });
            // GNU Radio takes the input as consumed and the output as written on return.
            GPUINTERP_CUDA_CHECK(cudaStreamSynchronize(st));
            return;
        }
        for (unsigned c = 0; c < d_N; c++)
            d_dev_hist[c].pull(d_hist[c]);
        // Items of the pipeline are "one input of every channel"; the output of one launch stays
        // at 4 Mi values (all channels) so pinned staging is bounded for large L and N.
        const size_t chunk =
            std::max<size_t>(1, std::min(d_batch, (size_t(1) << 22) / L) / N);
        run_channels_host(pipe, d_hist, in_h, out, n, chunk, L, launch);
    }

    int d_device;
    size_t d_batch;
    unsigned d_N;
    fir_plan d_plan{};
    device_buffer<TAP> d_taps;
    std::vector<kernel::stream_history<HX>> d_hist;
    std::vector<device_history<X, HX>> d_dev_hist;
    sc16_counters d_counts; //!< sc16
    // Last members, destroyed first: they wait for their streams before the buffers above go.
    host_pipeline<X, T> d_pipe;
    std::unique_ptr<host_pipeline<X, uint32_t>> d_pipe16;
};

} // namespace

template <typename T, typename TAP>
std::unique_ptr<kernel::fir_engine<T, TAP>>
make_cuda_fir_engine(int device, size_t batch, unsigned channels, bool sc16_in)
{
    using DT = device_t<T>;
    using DTAP = device_t<TAP>;
    if constexpr (std::is_same_v<DT, float2>) {
        if (sc16_in)
            return std::make_unique<cuda_fir_engine<DT, DTAP, short2>>(
                device, batch, channels);
    } else if (sc16_in) {
        throw std::invalid_argument("input_format: sc16 needs complex samples");
    }
    return std::make_unique<cuda_fir_engine<DT, DTAP>>(device, batch, channels);
}

template std::unique_ptr<kernel::fir_engine<std::complex<float>, float>>
make_cuda_fir_engine<std::complex<float>, float>(int, size_t, unsigned, bool);
template std::unique_ptr<kernel::fir_engine<float, float>>
make_cuda_fir_engine<float, float>(int, size_t, unsigned, bool);
template std::unique_ptr<kernel::fir_engine<std::complex<float>, std::complex<float>>>
make_cuda_fir_engine<std::complex<float>, std::complex<float>>(int,
                                                               size_t,
                                                               unsigned,
                                                               bool);

} // namespace gpu
} // namespace gpuinterp
} // namespace gr
