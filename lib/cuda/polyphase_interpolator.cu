/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CUDA backend of the polyphase interpolator.
//
// Kernel: a persistent grid walks tiles of TI input samples. Per tile, a block loads its input
// window (TI + M - 1 samples, history included) into shared memory once; the padded taps stay in
// shared memory for the block's lifetime (or are read through the read-only cache when they do not
// fit). A work item is one arm p and R consecutive inputs, so a thread computes R outputs of one arm:
// each tap is loaded once for R multiply-accumulates and the input window slides through registers
// (2R values, refreshed R at a time), which keeps shared-memory traffic at ~2 loads per R MACs.
// R is odd so the R-strided window loads of neighbouring items hit distinct banks. No
// multiplication by a stuffed zero happens anywhere. For L < 32, a warp's outputs are scattered
// (stride R*L), so they are staged in shared memory and written back as one contiguous, coalesced
// tile; for L >= 32 a warp already writes 32 consecutive outputs and writes directly.
// An sc16 input (X = short2) is expanded to complex float as the window is loaded into shared
// memory, so everything after the load is unchanged; those kernels live in fir_sc16_in.cu. The
// engine keeps its history and host staging in sc16 (4 bytes a sample across the bus).
//
// Host pipeline: the two-slot pinned pipeline of host_pipeline.cuh, where the threaded copy of
// the (L times larger) output matters most. Each chunk's history (M-1 inputs) is taken from the
// host side of the stream and sent with the chunk, which keeps the two streams independent (no
// cross-stream events) at the price of M-1 extra input samples per chunk.
#include "cuda_engines.h"
#include "device_history.cuh"
#include "fir_kernels.cuh"
#include "host_pipeline.cuh"
#include "sc16_counters.cuh"
#include <gnuradio/gpuinterp/kernel/stream_history.h>
#include <type_traits>
#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace gr {
namespace gpuinterp {
namespace gpu {

template <typename T, typename TAP>
fir_plan plan_fir(int device, unsigned L, size_t M)
{
    return plan_fir<T, TAP>(device, L, M, fir_tuning_for(compute_capability(device)));
}

template <typename T, typename TAP>
fir_plan plan_fir(int device, unsigned L, size_t M, const fir_tuning& t)
{
    // Every kernel the plan may launch: one channel or all, both stores, and (complex samples)
    // sc16 input. The window in shared memory is T whatever the stored input: one geometry.
    const auto allow = [](const tile_geometry& g, int optin) {
        allow_smem(pick_kernel<T, T, TAP>(g), optin);
        allow_smem(pick_kernel<T, T, TAP, fir_store<T>, true>(g), optin);
        if constexpr (std::is_same_v<T, float2>) {
            allow_smem(pick_kernel<T, T, TAP, fir_store_sc16>(g), optin);
            allow_smem(pick_kernel<T, T, TAP, fir_store_sc16, true>(g), optin);
            allow_fir_sc16_in<TAP>(g, optin);
        }
    };
    return plan_fir_shape<fir_build_shape, T, TAP>(device, L, M, t, allow);
}

template <typename T, typename TAP>
void launch_fir(
    const fir_plan& pl, const T* x, T* y, const TAP* taps, int n, cudaStream_t st)
{
    launch_one<T, T, TAP>(fir_call<TAP>{ pl, taps, n, {}, st }, x, fir_store<T>{ y });
}

template <typename X, typename T, typename TAP>
void launch_fir_channels(const fir_call<TAP>& c,
                         const channel_pointers& p,
                         unsigned channels)
{
    if constexpr (!std::is_same_v<X, T>)
        launch_fir_channels_sc16_in<TAP>(c, p, channels);
    else
        with_store<T>(nullptr, c.formats, [&](const auto& proto) {
            launch_channels<T, T, TAP>(c, p, channels, proto);
        });
}

#define GPUINTERP_FIR_CHANNELS(X, T, TAP)         \
    template void launch_fir_channels<X, T, TAP>( \
        const fir_call<TAP>&, const channel_pointers&, unsigned);
GPUINTERP_FIR_CHANNELS(float2, float2, float)
GPUINTERP_FIR_CHANNELS(float, float, float)
GPUINTERP_FIR_CHANNELS(float2, float2, float2)
GPUINTERP_FIR_CHANNELS(short2, float2, float)
GPUINTERP_FIR_CHANNELS(short2, float2, float2)
#undef GPUINTERP_FIR_CHANNELS

#define GPUINTERP_PLAN_FIR(T, TAP)                             \
    template fir_plan plan_fir<T, TAP>(int, unsigned, size_t); \
    template fir_plan plan_fir<T, TAP>(int, unsigned, size_t, const fir_tuning&);
GPUINTERP_PLAN_FIR(float2, float)
GPUINTERP_PLAN_FIR(float, float)
GPUINTERP_PLAN_FIR(float2, float2)
#undef GPUINTERP_PLAN_FIR
template void launch_fir<float2, float>(
    const fir_plan&, const float2*, float2*, const float*, int, cudaStream_t);
template void launch_fir<float, float>(
    const fir_plan&, const float*, float*, const float*, int, cudaStream_t);
template void launch_fir<float2, float2>(
    const fir_plan&, const float2*, float2*, const float2*, int, cudaStream_t);

namespace {

// The single-channel kernel for c's formats: y holds c.n * L outputs, T or sc16.
template <typename X, typename T, typename TAP>
void launch_formats(const fir_call<TAP>& c, const X* x, void* y)
{
    if constexpr (!std::is_same_v<X, T>)
        launch_fir_sc16_in<TAP>(c, x, y);
    else
        with_store<T>(
            y, c.formats, [&](const auto& out) { launch_one<T, T, TAP>(c, x, out); });
}

// X: the stored input, T or (sc16 input) short2; the history and the host staging hold X.
template <typename T, typename TAP, typename X = T>
class cuda_fir_engine final : public kernel::fir_engine<host_t<T>, host_t<TAP>>
{
public:
    using HT = host_t<T>;
    using HTAP = host_t<TAP>;
    using HX = host_sample_t<X>;
    static constexpr bool SC16_IN = !std::is_same_v<X, T>;
    static_assert(sizeof(HT) == sizeof(T) && sizeof(HTAP) == sizeof(TAP), "layout");

    cuda_fir_engine(int device, size_t batch)
        : d_device(device), d_batch(batch), d_pipe(device)
    {
    }

    void set_taps(const std::vector<HTAP>& padded, unsigned L, size_t M) override
    {
        device_guard guard(d_device);
        d_dev_hist.pull(d_hist); // device-buffer mode keeps the history on the device
        d_taps.reserve(padded.size());
        upload(d_taps.get(), padded.data(), padded.size());
        d_hist.resize(M - 1);
        d_plan = plan_fir<T, TAP>(d_device, L, M);
    }

    void filter(HT* const* out, const HT* const* in, size_t n_in, bool device) override
    {
        run(reinterpret_cast<T*>(out[0]), fc32_input(in[0]), n_in, device, d_pipe, {});
    }

    void reset() override
    {
        d_hist.clear();
        d_dev_hist.invalidate();
    }

    void set_batch(size_t b) override { d_batch = b; }

    void filter_sc16(int16_t* const* out,
                     const HT* const* in,
                     size_t n_in,
                     float scale,
                     kernel::sc16_counts* counts,
                     bool device) override
    {
        if constexpr (!std::is_same_v<T, float2>)
            throw std::invalid_argument("output_format: sc16 needs complex samples");
        else
            run_sc16(out[0], fc32_input(in[0]), n_in, device, 1.f, scale, counts[0]);
    }

    void filter_from_sc16(void* const* out,
                          const int16_t* const* in,
                          size_t n_in,
                          float in_scale,
                          float scale,
                          kernel::sc16_counts* counts,
                          bool device) override
    {
        if constexpr (!SC16_IN) {
            throw std::logic_error("fir engine: made for complex float input");
        } else {
            const HX* x = reinterpret_cast<const HX*>(in[0]);
            if (counts)
                run_sc16(static_cast<int16_t*>(out[0]),
                         x,
                         n_in,
                         device,
                         in_scale,
                         scale,
                         counts[0]);
            else
                run(static_cast<T*>(out[0]), x, n_in, device, d_pipe, { in_scale });
        }
    }

private:
    const HX* fc32_input(const HT* in) const
    {
        if constexpr (SC16_IN)
            throw std::logic_error("fir engine: made for sc16 input");
        else
            return in;
    }

    void run_sc16(int16_t* out,
                  const HX* in,
                  size_t n_in,
                  bool device,
                  float in_scale,
                  float scale,
                  kernel::sc16_counts& counts)
    {
        run_counted<X>(d_device,
                       1,
                       d_counts,
                       d_pipe16,
                       d_pipe.stream0(),
                       &counts,
                       [&](auto& pipe, auto* k) {
                           run(reinterpret_cast<uint32_t*>(out),
                               in,
                               n_in,
                               device,
                               pipe,
                               { in_scale, scale, k });
                       });
    }

    // One call: n_in inputs to n_in * L outputs of Out (T, or an sc16 pair as a word). Host
    // memory goes through the pipeline, each chunk with its M - 1 history inputs in front;
    // device memory (GNU Radio device buffers) is read in place, the history on the device. The
    // call ends with a synchronise of this engine's stream only: GNU Radio treats input as
    // consumed, and output as readable, when work() returns.
    template <typename Out>
    void run(Out* out,
             const HX* in,
             size_t n_in,
             bool device,
             host_pipeline<X, Out>& pipe,
             const fir_formats& f)
    {
        device_guard guard(d_device);
        const size_t L = size_t(d_plan.g.L);
        auto launch = [&](const X* x, Out* y, size_t cnt, cudaStream_t st) {
            launch_formats<X, T, TAP>(
                fir_call<TAP>{ d_plan, d_taps.get(), int(cnt), f, st }, x, y);
        };
        if (device) {
            const size_t H = d_hist.size();
            cudaStream_t st = d_pipe.stream0();
            d_dev_hist.run(d_hist,
                           reinterpret_cast<const X*>(in),
                           n_in,
                           st,
                           [&](const X* x, size_t first, size_t count) {
                               launch(x - H, out + first * L, count, st);
                           });
            GPUINTERP_CUDA_CHECK(cudaStreamSynchronize(st));
            return;
        }
        d_dev_hist.pull(d_hist);
        // Cap the output of one launch at 4 Mi samples so pinned staging stays bounded for large L.
        const size_t chunk = std::min(d_batch, (size_t(1) << 22) / L);
        pipe.run(
            out,
            n_in,
            chunk,
            { d_hist.size(), 1, L },
            [&](X* staged, size_t pos, size_t cnt) {
                d_hist.window(reinterpret_cast<HX*>(staged), in, pos, cnt);
            },
            launch);
        d_hist.advance(in, n_in);
    }

    int d_device;
    size_t d_batch;
    fir_plan d_plan{};
    device_buffer<TAP> d_taps;
    kernel::stream_history<HX> d_hist;
    // Device-buffer mode (filter_device): history on the device and the seam array.
    device_history<X, HX> d_dev_hist;
    sc16_counters d_counts; // sc16: saturated, invalid
    // The pipelines go first (the last members): their destructors wait for their streams before
    // the members above free memory that queued work may still use. sc16 output has its own,
    // made at the first sc16 call.
    host_pipeline<X, T> d_pipe;
    std::unique_ptr<host_pipeline<X, uint32_t>> d_pipe16;
};

} // namespace

template <typename T, typename TAP>
std::unique_ptr<kernel::fir_engine<T, TAP>>
make_cuda_fir_engine(int device, size_t batch, unsigned channels, bool sc16_in)
{
    if (channels != 1)
        return make_cuda_fir_channels_engine<T, TAP>(device, batch, channels, sc16_in);
    using DT = device_t<T>;
    using DTAP = device_t<TAP>;
    if constexpr (std::is_same_v<DT, float2>) {
        if (sc16_in)
            return std::make_unique<cuda_fir_engine<DT, DTAP, short2>>(device, batch);
    } else if (sc16_in) {
        throw std::invalid_argument("input_format: sc16 needs complex samples");
    }
    return std::make_unique<cuda_fir_engine<DT, DTAP>>(device, batch);
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
