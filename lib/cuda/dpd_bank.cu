/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The predistorter bank's CUDA engine (kernel/dpd_bank.h): every channel of a ph model in one
// launch per call, complex float or sc16 in and out.
//
// Device buffers: each channel's first min(n, H) outputs read a seam [history, inputs] as the
// single-channel engine's do (device_history.cuh); one launch covers every channel's seam, one
// more every channel's remaining outputs read in place. Host buffers: the channels are staged
// channel-major through the two-slot pipeline (each channel's window: H history values, then the
// chunk), one launch per chunk, and each channel's outputs are scattered back to its own buffer.
// An sc16 input is staged and kept (history, seams) as sc16 and converted in the kernel's window
// load, so it crosses the bus and GNU Radio's buffers at 4 bytes per sample.
// The counters of saturated and invalid sc16 samples live on the device and come back with
// every call (16 bytes per channel, stored to pinned memory by a one-block kernel ordered before
// the call's final synchronise: host_publish.cuh says why not a copy).

#include "../kernel/dpd_bank_engine.h"
#include "cuda_engines.h"
#include "device_history.cuh"
#include "dpd_bank_kernels.cuh"
#include "dpd_ph_launch.h"
#include "host_pipeline.cuh"
#include "host_publish.cuh"
#include <gnuradio/gpuinterp/kernel/stream_history.h>
#include <type_traits>
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpuinterp {
namespace gpu {

namespace {

using cf = std::complex<float>;
constexpr int BANK_R = TILED_R, BANK_NT = TILED_NT;

//! The host type of an input sample: the layout of In (float2 or short2).
template <typename In>
using host_sample = std::conditional_t<std::is_same<In, short2>::value,
                                       std::complex<int16_t>,
                                       std::complex<float>>;

//! In: the input sample on the device, float2 (complex float) or short2 (sc16).
template <typename In>
class cuda_dpd_bank_engine final : public kernel::dpd_bank_engine
{
    using HIn = host_sample<In>;
    static constexpr bool SC16_IN = std::is_same<In, short2>::value;

public:
    //! `structure`: the model's packed form (its values unused), which fixes the kernel.
    cuda_dpd_bank_engine(const kernel::bank_config& cfg,
                         const kernel::dpd_packed& structure)
        : d_device(cfg.device),
          d_N(kernel::check_channels(cfg.channels)),
          d_sc16(cfg.formats.output == kernel::sample_format::sc16),
          d_scale(kernel::sc16_scale(cfg.formats.full_scale)),
          d_in_scale(kernel::sc16_inverse_scale(cfg.formats.full_scale)),
          d_batch(cfg.batch),
          d_hist(d_N),
          d_dev_hist(d_N),
          d_host_counts(2 * d_N, 0),
          d_pipe(cfg.device, cfg.mapped)
    {
        device_guard guard(d_device);
        d_counts.reserve(2 * d_N);
        d_pinned_counts.reserve(2 * d_N);
        reset_counts();
        d_md = make_dev_model(structure); // checks the order
        d_M = int(structure.M);
        configure(structure.H);
    }

    void set_model(unsigned channel, const kernel::dpd_packed& m) override
    {
        device_guard guard(d_device);
        if (int(m.M) != d_M || int(m.Lmax) != d_md.Lmax)
            throw std::logic_error(
                "dpd bank: a channel's structure differs from the bank's");
        const size_t words = size_t(d_M) * d_md.Lmax;
        float4* dst = d_hcoef.data() + size_t(channel) * d_chan_words;
        std::memcpy(dst, m.abcd.data(), words * sizeof(float4));
        dst[words] = make_float4(m.cr, m.ci, 0.f, 0.f);
        d_dirty = true;
    }

    void process(void* const* out, const void* const* in, size_t n, bool device) override
    {
        if (n == 0)
            return;
        if (device)
            process_device(out, reinterpret_cast<const In* const*>(in), n);
        else
            process_host(out, reinterpret_cast<const HIn* const*>(in), n);
    }

    void reset() override
    {
        for (unsigned c = 0; c < d_N; c++) {
            d_hist[c].clear();
            d_dev_hist[c].invalidate();
        }
    }

    void set_batch(size_t b) override { d_batch = b; }

    kernel::sc16_counts counts(unsigned channel) const override
    {
        return { d_host_counts[2 * channel], d_host_counts[2 * channel + 1] };
    }

    void reset_counts() override
    {
        device_guard guard(d_device);
        // On the stream the kernels count on (a plain cudaMemset would run on the legacy
        // default stream, which that non-blocking stream does not wait for).
        GPUINTERP_CUDA_CHECK(cudaMemsetAsync(
            d_counts.get(), 0, 2 * d_N * sizeof(unsigned long long), d_pipe.stream0()));
        GPUINTERP_CUDA_CHECK(cudaStreamSynchronize(d_pipe.stream0()));
        std::fill(d_host_counts.begin(), d_host_counts.end(), 0);
    }

    //! One kernel: the tiled body.
    kernel::dpd_cuda_variant active_variant() const override
    {
        return kernel::dpd_cuda_variant::tiled;
    }
    bool one_launch() const override { return true; }

private:
    void process_host(void* const* out, const HIn* const* in, size_t n)
    {
        device_guard guard(d_device);
        for (unsigned c = 0; c < d_N; c++)
            d_dev_hist[c].pull(d_hist[c]);
        // The pipeline's second stream does not wait for stream0: a new set must have landed.
        if (sync_coefficients(d_pipe.stream0()))
            GPUINTERP_CUDA_CHECK(cudaStreamSynchronize(d_pipe.stream0()));
        // Items of the pipeline are "one sample of every channel": N window values in, N outputs
        // (units words each) out, channel-major within a chunk.
        const size_t units = d_sc16 ? 1 : 2;
        run_channels_host(d_pipe,
                          d_hist,
                          in,
                          out,
                          n,
                          std::max<size_t>(1, d_batch / d_N),
                          units,
                          [&](const channel_pointers& p, size_t cnt, cudaStream_t st) {
                              launch(p, cnt, st);
                          });
        fetch_counts(d_pipe.stream0());
    }

    void process_device(void* const* out, const In* const* in, size_t n)
    {
        device_guard guard(d_device);
        const cudaStream_t st = d_pipe.stream0();
        sync_coefficients(st);
        const size_t bytes = d_sc16 ? 4 : 8;
        launch_channels_device(
            d_dev_hist,
            d_hist,
            in,
            n,
            st,
            [&](unsigned c, size_t pos) {
                return static_cast<char*>(out[c]) + pos * bytes;
            },
            [&](const channel_pointers& p, size_t cnt) { launch(p, cnt, st); });
        fetch_counts(st);
    }

    void configure(size_t H)
    {
        int sms = 1, optin = 48 * 1024;
        GPUINTERP_CUDA_CHECK(
            cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, d_device));
        GPUINTERP_CUDA_CHECK(cudaDeviceGetAttribute(
            &optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, d_device));
        const int T = BANK_R * BANK_NT; // odd R: planes unpadded
        d_chan_words = d_M * d_md.Lmax + 1;
        // The planes hold complex float whatever the input format.
        d_smem = size_t(d_chan_words) * sizeof(float4) +
                 (size_t(d_M) * (T + H) + size_t(T)) * sizeof(float2);
        // One halo value per thread (tiled_body); longer filters run one engine per channel.
        if (H >= size_t(BANK_NT) || d_smem > size_t(optin))
            throw std::invalid_argument("Lp: " + std::to_string(d_md.Lmax) +
                                        " taps do not fit the bank's one-launch kernel");
        d_kernel = bank_kernel_for<BANK_R, BANK_NT>(d_M, d_md.Lmax, d_sc16, SC16_IN);
        GPUINTERP_CUDA_CHECK(cudaFuncSetAttribute(
            d_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
        int per_sm = 0;
        GPUINTERP_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &per_sm, d_kernel, BANK_NT, d_smem));
        d_max_blocks = std::max(1, per_sm) * sms;
        d_tile = T;
        d_H = H;
        for (unsigned c = 0; c < d_N; c++)
            d_hist[c].resize(H);
        d_hcoef.assign(size_t(d_N) * d_chan_words, make_float4(0.f, 0.f, 0.f, 0.f));
        d_coef.reserve(d_hcoef.size());
    }

    //! Uploads the maps when a set changed, ordered on `st`; true when it did.
    bool sync_coefficients(cudaStream_t st)
    {
        if (!d_dirty)
            return false;
        // The previous call ended with a synchronise: no kernel reads the maps now.
        GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(d_coef.get(),
                                             d_hcoef.data(),
                                             d_hcoef.size() * sizeof(float4),
                                             cudaMemcpyHostToDevice,
                                             st));
        d_dirty = false;
        return true;
    }

    void launch(const channel_pointers& p, size_t n, cudaStream_t st)
    {
        const long long nn = (long long)n;
        // Each block walks its channel's tiles with a stride of gridDim.x.
        const dim3 grid = channels_grid(nn, d_tile, d_max_blocks, d_N);
        const float4* coef = d_coef.get();
        int words = d_chan_words;
        float scale = d_scale, in_scale = d_in_scale;
        unsigned long long* counts = d_counts.get();
        void* args[] = { const_cast<channel_pointers*>(&p), &coef,  &words,  &d_md,
                         const_cast<long long*>(&nn),       &scale, &counts, &in_scale };
        GPUINTERP_CUDA_CHECK(
            cudaLaunchKernel(d_kernel, grid, dim3(BANK_NT), args, d_smem, st));
        GPUINTERP_CUDA_CHECK_LAUNCH(st);
    }

    void fetch_counts(cudaStream_t st)
    {
        // A kernel's stores, not a device-to-host copy (host_publish.cuh says why).
        if (d_sc16)
            publish_to_host(d_counts.get(), d_pinned_counts.get(), int(2 * d_N), st);
        GPUINTERP_CUDA_CHECK(cudaStreamSynchronize(st));
        if (d_sc16)
            std::copy(d_pinned_counts.get(),
                      d_pinned_counts.get() + 2 * d_N,
                      d_host_counts.begin());
    }

    int d_device;
    unsigned d_N;
    bool d_sc16;
    float d_scale, d_in_scale;
    size_t d_batch;
    bool d_dirty = false;
    int d_M = 1, d_chan_words = 1, d_tile = 1, d_max_blocks = 1;
    size_t d_H = 0, d_smem = 0;
    const void* d_kernel = nullptr;
    dev_model d_md{};
    std::vector<float4> d_hcoef; //!< per channel: the maps, then (cr, ci, 0, 0)
    std::vector<kernel::stream_history<HIn>> d_hist;
    std::vector<device_history<In, HIn>> d_dev_hist;
    std::vector<uint64_t> d_host_counts;
    device_buffer<float4> d_coef;
    device_buffer<unsigned long long> d_counts;
    pinned_buffer<unsigned long long> d_pinned_counts;
    // Last member, so destroyed first: it waits for both streams before the buffers above go.
    host_pipeline<In, uint32_t> d_pipe;
};

} // namespace

std::unique_ptr<kernel::dpd_bank_engine>
make_cuda_dpd_bank_engine(const kernel::bank_config& cfg,
                          const kernel::dpd_packed& structure)
{
    if (cfg.formats.input == kernel::sample_format::sc16)
        return std::make_unique<cuda_dpd_bank_engine<short2>>(cfg, structure);
    return std::make_unique<cuda_dpd_bank_engine<float2>>(cfg, structure);
}

} // namespace gpu
} // namespace gpuinterp
} // namespace gr
