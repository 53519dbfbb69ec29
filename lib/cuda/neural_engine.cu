/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CUDA engine of the neural families (gru, tdnn; docs/neural_models.md), with the per-unit and
// per-sample arithmetic of common/neural_net.h, so it rounds as the CPU engine does.
//
// tdnn: one thread per output sample (grid-stride). The weights sit in shared memory when they fit
// in 48 KiB (every thread reads the same weight at the same time: a broadcast), else they are read
// from global memory through the read-only cache, where the same broadcast holds. Layer 1 runs tap
// by tap (four features, then H accumulators), so the 4M features are never stored.
//
// gru: the recursion is sequential in time, so the call is split into chunks of `chunk` outputs,
// one block each; a block's threads are the hidden units (h in shared memory, ping-pong buffers,
// one barrier per step), weight_ih and weight_hh transposed on the device so consecutive units read
// consecutive words. Block 0 starts from the hidden state carried from the previous call (exact);
// block b > 0 starts from a zero state `warmup` steps before its first output and discards those
// steps. A GRU forgets its initial state geometrically (at a rate set by the update gate and
// weight_hh), so the warm-up leaves an error that shrinks exponentially with it; warmup = 0 runs
// the call as one chunk, exactly as the CPU engine. The state carried to the next call is the
// last block's. A warm-up that would reach back to the call's start starts there from the carried
// state instead, which is exact.
//
// Data movement is synchronous per batch on the engine's one stream (copy in, kernel, copy out):
// the gru's state makes consecutive batches depend on each other, and the tdnn is compute bound
// (4MH + (N-1)H^2 multiply-adds per sample) far above its 16 bytes per sample of traffic, so the
// two-slot pipeline of the polynomial engines would hide little.
#include "../common/neural_net.h"
#include "cuda_common.cuh"
#include "cuda_engines.h"
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace gr {
namespace gpuinterp {
namespace gpu {

namespace {

using cf = std::complex<float>;
using kernel::dpd_model;

constexpr size_t smem_weight_bytes = 48 * 1024; // the default dynamic shared-memory limit
constexpr unsigned tdnn_threads = 128;
constexpr size_t default_warmup = 512;

struct gru_args {
    const float*
        w; // device layout: weight_ih and weight_hh transposed, the rest as the file
    nn::gru_layout L;
    const float2* x;   // window: Hh carried samples, then the batch's inputs
    size_t Hh;         // carried samples before input 0
    size_t n;          // outputs
    unsigned la;       // look-ahead (output delay)
    uint64_t pos0;     // stream index of input 0 of the batch
    size_t chunk;      // outputs per block
    size_t warmup;     // steps of warm-up before a later block's first output
    const float* h_in; // carried hidden state (H)
    float* h_out;      // the last block's final state (H)
    float* y;          // 2n floats
};

__global__ void gru_chunks(gru_args a)
{
    extern __shared__ float sh[];
    const nn::gru_layout& L = a.L;
    const unsigned H = L.H, H3 = 3 * H, tid = threadIdx.x;
    float* h = sh;
    float* hn = sh + H;
    const size_t i0 = size_t(blockIdx.x) * a.chunk;
    const size_t i1 = min(a.n, i0 + a.chunk);
    size_t s = 0;
    bool carried = true;
    if (blockIdx.x > 0 && i0 > a.warmup) {
        s = i0 - a.warmup;
        carried = false;
    }
    for (unsigned j = tid; j < H; j += blockDim.x)
        h[j] = carried ? a.h_in[j] : 0.f;
    __syncthreads();
    const float* w = a.w;
    for (size_t i = s; i < i1; i++) {
        if (a.pos0 + i <
            a.la) { // model time < 0: the recursion has not started (block-uniform)
            if (i >= i0 && tid < 2)
                a.y[2 * i + tid] = 0.f;
            continue;
        }
        const size_t p = a.Hh + i - a.la;
        const float2 x0 = a.x[p], x1 = a.x[p + 1];
        float u[6];
        nn::gru_features(u, x0.x, x0.y, x1.x, x1.y);
        for (unsigned j = tid; j < H; j += blockDim.x)
            hn[j] = nn::gru_unit(
                w + L.w_ih, 1, H3, w + L.w_hh, 1, H3, w + L.b_ih, w + L.b_hh, H, u, h, j);
        __syncthreads();
        float* t = h;
        h = hn;
        hn = t;
        // The next step writes hn (the old state, no longer read) and reads h, as these two
        // threads do: the one barrier above orders both.
        if (i >= i0 && tid < 2) {
            float v = nn::gru_head(w + L.w_o, w + L.b_o, H, h, tid);
            if (L.C) {
                const float2 xm = a.x[p - L.D], xp = a.x[p + L.D];
                const float taps[6] = { xm.x, xm.y, x0.x, x0.y, xp.x, xp.y };
                v += nn::gru_skip(w + L.k, w + L.p, L.C, taps, tid);
            }
            a.y[2 * i + tid] = v;
        }
    }
    if (blockIdx.x == gridDim.x - 1)
        for (unsigned j = tid; j < H; j += blockDim.x)
            a.h_out[j] = h[j];
}

struct tdnn_args {
    const float* w; // the file's layout
    size_t count;   // weights
    bool smem;      // copy them to shared memory first
    nn::tdnn_layout L;
    const float2* x; // window: Hh = M - 1 carried samples, then the inputs
    size_t Hh;
    size_t n;
    float2* y;
};

__global__ void tdnn_samples(tdnn_args a)
{
    extern __shared__ float sw[];
    const float* w = a.w;
    if (a.smem) {
        for (size_t k = threadIdx.x; k < a.count; k += blockDim.x)
            sw[k] = a.w[k];
        __syncthreads();
        w = sw;
    }
    const nn::tdnn_layout& L = a.L;
    const unsigned H = L.H, M = L.M;
    float ping[dpd_model::max_hidden], pong[dpd_model::max_hidden];
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < a.n;
         i += size_t(gridDim.x) * blockDim.x) {
        const size_t p = a.Hh + i;
        for (unsigned r = 0; r < H; r++)
            ping[r] = w[L.b[0] + r];
        const float* W1 = w + L.w[0];
        for (unsigned m = 0; m < M; m++) {
            const float2 xm = a.x[p - m];
            float f[4];
            nn::tdnn_features(f, xm.x, xm.y);
            for (unsigned r = 0; r < H; r++) {
                const float* wr = W1 + size_t(r) * 4 * M + 4 * m;
                float acc = ping[r];
                acc = fmaf(wr[0], f[0], acc);
                acc = fmaf(wr[1], f[1], acc);
                acc = fmaf(wr[2], f[2], acc);
                acc = fmaf(wr[3], f[3], acc);
                ping[r] = acc;
            }
        }
        for (unsigned r = 0; r < H; r++)
            ping[r] = tanhf(ping[r]);
        float* in = ping;
        float* out = pong;
        for (unsigned l = 1; l < L.N; l++) {
            for (unsigned r = 0; r < H; r++)
                out[r] = nn::dense_tanh(w + L.w[l], w + L.b[l], in, H, r);
            float* t = in;
            in = out;
            out = t;
        }
        float y[2];
        for (unsigned o = 0; o < 2; o++) {
            float acc = w[L.b_out + o];
            for (unsigned k = 0; k < H; k++)
                acc = fmaf(w[L.w_out + size_t(o) * H + k], in[k], acc);
            y[o] = acc;
        }
        const float2 x0 = a.x[p];
        a.y[i] = make_float2(y[0] + x0.x, y[1] + x0.y);
    }
}

class cuda_neural_engine final : public kernel::neural_engine
{
public:
    cuda_neural_engine(int device, size_t batch)
        : d_device(device), d_batch(batch), d_stream(device)
    {
        device_guard guard(d_device);
        d_sms = device_attribute(cudaDevAttrMultiProcessorCount, device);
    }

    void set_weights(const dpd_model& model, const std::vector<float>& w) override
    {
        device_guard guard(d_device);
        if (!d_loaded) {
            d_model = model;
            d_hist.assign(model.history(), cf(0));
            if (model.family == dpd_model::family_t::gru) {
                d_g = nn::make_gru_layout(model.H, model.C, model.D);
                for (auto& s : d_state) {
                    s.reserve(model.H);
                    GPUINTERP_CUDA_CHECK(
                        cudaMemsetAsync(s.get(), 0, model.H * sizeof(float), st()));
                }
            } else {
                d_t = nn::make_tdnn_layout(model.M, model.H, model.N);
            }
            d_loaded = true;
        }
        std::vector<float> dev = w;
        if (model.family == dpd_model::family_t::gru) {
            // weight_ih (3H x 6) and weight_hh (3H x H) column-major: unit j's rows are adjacent
            // to unit j+1's, so a warp's loads of one column coalesce.
            const size_t H3 = 3 * size_t(d_g.H);
            for (size_t r = 0; r < H3; r++) {
                for (size_t c = 0; c < 6; c++)
                    dev[d_g.w_ih + c * H3 + r] = w[d_g.w_ih + r * 6 + c];
                for (size_t c = 0; c < d_g.H; c++)
                    dev[d_g.w_hh + c * H3 + r] = w[d_g.w_hh + r * d_g.H + c];
            }
        }
        // The entry points return after their work, so no kernel reads the old weights.
        GPUINTERP_CUDA_CHECK(cudaStreamSynchronize(st()));
        d_w.reserve(dev.size());
        upload(d_w.get(), dev.data(), dev.size());
        d_count = dev.size();
    }

    void process(cf* out, const cf* in, size_t n) override { run(out, in, n, false); }
    void process_device(cf* out, const cf* in, size_t n) override
    {
        run(out, in, n, true);
    }

    void reset() override
    {
        device_guard guard(d_device);
        std::fill(d_hist.begin(), d_hist.end(), cf(0));
        d_pos = 0;
        if (d_model.family == dpd_model::family_t::gru)
            for (auto& s : d_state)
                GPUINTERP_CUDA_CHECK(
                    cudaMemsetAsync(s.get(), 0, d_g.H * sizeof(float), st()));
        GPUINTERP_CUDA_CHECK(cudaStreamSynchronize(st()));
    }

    void set_batch(size_t b) override { d_batch = b; }
    void set_warmup(size_t w) override { d_warmup = w; }
    size_t warmup() const override { return d_warmup; }

private:
    cudaStream_t st() const { return d_stream.get(); }

    //! Batches of at most d_batch samples: window (history, then inputs) to the device, the
    //! kernel, outputs back; the next history is the window's last Hh samples.
    void run(cf* out, const cf* in, size_t n, bool device_ptrs)
    {
        device_guard guard(d_device);
        const size_t Hh = d_hist.size();
        for (size_t pos = 0; pos < n;) {
            const size_t cnt = std::min(d_batch, n - pos);
            d_x.reserve(Hh + cnt);
            d_y.reserve(cnt);
            if (Hh) {
                d_hist_pinned.reserve(Hh);
                std::memcpy(d_hist_pinned.get(), d_hist.data(), Hh * sizeof(cf));
                GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(d_x.get(),
                                                     d_hist_pinned.get(),
                                                     Hh * sizeof(cf),
                                                     cudaMemcpyHostToDevice,
                                                     st()));
            }
            if (device_ptrs) {
                GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(d_x.get() + Hh,
                                                     in + pos,
                                                     cnt * sizeof(cf),
                                                     cudaMemcpyDeviceToDevice,
                                                     st()));
            } else {
                d_io.reserve(cnt);
                std::memcpy(d_io.get(), in + pos, cnt * sizeof(cf));
                GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(d_x.get() + Hh,
                                                     d_io.get(),
                                                     cnt * sizeof(cf),
                                                     cudaMemcpyHostToDevice,
                                                     st()));
            }
            float2* y = device_ptrs ? reinterpret_cast<float2*>(out + pos) : d_y.get();
            launch(reinterpret_cast<const float2*>(d_x.get()), y, Hh, cnt);
            if (!device_ptrs)
                GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(
                    d_io.get(), y, cnt * sizeof(cf), cudaMemcpyDeviceToHost, st()));
            if (Hh)
                GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(d_hist_pinned.get(),
                                                     d_x.get() + cnt,
                                                     Hh * sizeof(cf),
                                                     cudaMemcpyDeviceToHost,
                                                     st()));
            GPUINTERP_CUDA_CHECK(cudaStreamSynchronize(st()));
            if (!device_ptrs)
                std::memcpy(out + pos, d_io.get(), cnt * sizeof(cf));
            if (Hh)
                std::memcpy(d_hist.data(), d_hist_pinned.get(), Hh * sizeof(cf));
            d_pos += cnt;
            pos += cnt;
        }
    }

    void launch(const float2* x, float2* y, size_t Hh, size_t n)
    {
        if (d_model.family == dpd_model::family_t::gru) {
            gru_args a;
            a.w = d_w.get();
            a.L = d_g;
            a.x = x;
            a.Hh = Hh;
            a.n = n;
            a.la = d_model.lookahead();
            a.pos0 = d_pos;
            // Enough chunks to fill the device (8 blocks per SM), none shorter than 8 warm-ups
            // so the warm-up costs at most an eighth more steps.
            const size_t target = size_t(d_sms) * 8;
            a.chunk = d_warmup == 0
                          ? n
                          : std::max<size_t>(8 * d_warmup, (n + target - 1) / target);
            a.warmup = d_warmup;
            a.h_in = d_state[d_cur].get();
            a.h_out = d_state[1 - d_cur].get();
            a.y = reinterpret_cast<float*>(y);
            const unsigned blocks = unsigned((n + a.chunk - 1) / a.chunk);
            const unsigned threads = std::min(256u, (d_g.H + 31) / 32 * 32);
            gru_chunks<<<blocks, threads, 2 * d_g.H * sizeof(float), st()>>>(a);
            GPUINTERP_CUDA_CHECK_LAUNCH(st());
            d_cur = 1 - d_cur; // the state written is the next call's carried state
        } else {
            tdnn_args a;
            a.w = d_w.get();
            a.count = d_count;
            a.smem = d_count * sizeof(float) <= smem_weight_bytes;
            a.L = d_t;
            a.x = x;
            a.Hh = Hh;
            a.n = n;
            a.y = y;
            const int blocks =
                capped_grid((long long)n, tdnn_threads, std::max(1, d_sms * 16));
            tdnn_samples<<<blocks,
                           tdnn_threads,
                           a.smem ? d_count * sizeof(float) : 0,
                           st()>>>(a);
            GPUINTERP_CUDA_CHECK_LAUNCH(st());
        }
    }

    const int d_device;
    size_t d_batch;
    int d_sms = 1;
    size_t d_warmup = default_warmup;
    bool d_loaded = false;
    dpd_model d_model;
    nn::gru_layout d_g;
    nn::tdnn_layout d_t;
    size_t d_count = 0;
    uint64_t d_pos = 0;
    std::vector<cf> d_hist; // the last history() inputs, host side
    device_buffer<float> d_w;
    device_buffer<float> d_state[2]; // gru: carried hidden state, ping-pong per launch
    unsigned d_cur = 0;
    device_buffer<cf> d_x;
    device_buffer<float2> d_y;
    pinned_buffer<cf> d_io, d_hist_pinned;
    // Last member, so destroyed first: it waits for queued work before the buffers go.
    engine_stream d_stream;
};

} // namespace

std::unique_ptr<kernel::neural_engine> make_cuda_neural_engine(int device, size_t batch)
{
    return std::make_unique<cuda_neural_engine>(device, batch);
}

} // namespace gpu
} // namespace gpuinterp
} // namespace gr
