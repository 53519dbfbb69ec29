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
// gru: the recursion is sequential in time, so a call is split into chunks of `chunk` outputs run
// side by side. Chunk 0 starts from the hidden state carried from the previous call (exact); chunk
// c > 0 starts from a zero state `warmup` steps before its first output and discards those steps.
// A GRU forgets its initial state geometrically (at a rate set by the update gate and weight_hh),
// so the warm-up leaves an error that shrinks exponentially with it; warmup = 0 runs the call as
// one chunk, exactly as the CPU engine. The state carried to the next call is the last chunk's
// final state. A warm-up that would reach back to the call's start starts there from the carried
// state instead, which is exact. Two kernels run the chunks:
//
//  - gru_lanes<H, U> (H in gru_lane_sizes: 4, 6, 8, 10, 12, 16, 20, 24, 32): a chunk is a group
//    of G = H / U lanes of one warp, lane s owning units s*U .. s*U + U - 1. Each lane keeps its
//    units' rows of weight_ih and weight_hh and their biases in registers (3U(6 + H) + 4U floats,
//    about 100, loaded once), and the whole state h[H] in registers; a step computes the lane's U
//    units with nn::gru_cell (the CPU's arithmetic) and gathers the new h with H shuffles inside
//    the group: no shared memory, no barrier, no weight load in the loop. U = 2 for H <= 12 (so
//    a warp runs 32 / G chunks: 16 for H = 4, 6 for H = 10), U = 1 above (H = 32: one chunk a
//    warp). Lanes 0 and 1 of the group compute output I and Q (the head's row in registers, the
//    skip path's few weights from global memory through L1) on output steps only.
//    Why not one thread per chunk with the weights in shared memory: a step is then 3H(6 + H)
//    fused multiply-adds, each with its own shared load (H = 10: 480 loads, 1000+ instructions a
//    step), and since every chunk but the first runs `warmup` steps before its outputs, one call's
//    time is at least (warmup + chunk) steps of one thread: 512 x 1000+ cycles, about 1 Gsample/s
//    for a 2^18-sample batch on an H200 at best. Splitting the step over G lanes divides a step's
//    instructions (and its latency) by about G with the weights in registers.
//    Chunk length: one warp per SM scheduler (gru_warps_per_sm = 4), each chunk as long as that
//    leaves it, but none shorter than gru_min_chunk = 32 outputs: chunk = max(32, n / (SMs x 4 x
//    chunks a warp)). A call's time is about (warmup + chunk) steps of one warp, and the warm-up
//    dominates, so more warps (shorter chunks) only pay while one warp cannot keep its scheduler
//    busy; a step's 3U independent dot-product chains and U transcendental chains give a warp
//    enough independent work, and a second warp would halve the chunk but double the step.
//    So a launch's time is about (warmup + chunk) steps whatever its length, and only long
//    chunks amortise the warm-up: a 2^18-sample launch on 132 SMs with H = 10 runs 3168 chunks
//    of 83 outputs, each 595 steps (7x the outputs). The engine therefore takes batches of at
//    least gru_batch_warmups (4) warm-ups a chunk, whatever the block's batch (H = 10: 3168 x
//    4 x 512 = 6.5 M samples, 52 MB a buffer; H = 24 or 32: 528 chunks, 1.1 M samples), so a
//    long call spends at most a fifth of its steps warming up. A short call (a flowgraph's
//    work() of 2^16 samples) still pays a whole warm-up: its rate rises with its length.
//  - gru_chunks (any other H, e.g. 48 or 64): one block per chunk, the block's threads the hidden
//    units (h in shared memory, ping-pong buffers, one barrier per step), weight_ih and weight_hh
//    transposed on the device so consecutive units read consecutive words; chunks of at least
//    8 x warmup outputs. A state of H > 32 does not fit one warp's group of registers.
//
// Data movement per batch on the engine's one stream: the window (the last history() samples,
// kept on the device, then the batch's inputs) is assembled by device copies, the kernel runs, and
// the window's tail becomes the next history on the device. process_device() therefore queues all
// its batches without waiting and synchronises once at the end; process() waits per batch for the
// outputs to copy them to the caller. The gru's state makes consecutive batches depend on each
// other, and the tdnn is compute bound (4MH + (N-1)H^2 multiply-adds per sample) far above its
// 16 bytes per sample of traffic, so the two-slot pipeline of the polynomial engines would hide
// little.
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
constexpr size_t gru_batch_warmups =
    4; // gru_lanes: a batch's chunks at least 4 warm-ups long
constexpr size_t gru_block_warmups =
    8; // gru_chunks: every chunk at least 8 warm-ups long

struct gru_args {
    const float*
        w; // device layout: weight_ih and weight_hh transposed, the rest as the file
    nn::gru_layout L;
    const float2* x;   // window: Hh carried samples, then the batch's inputs
    size_t Hh;         // carried samples before input 0
    size_t n;          // outputs
    unsigned la;       // look-ahead (output delay)
    uint64_t pos0;     // stream index of input 0 of the batch
    size_t chunk;      // outputs per chunk
    size_t chunks;     // chunks (the last may be shorter)
    size_t warmup;     // steps of warm-up before a later chunk's first output
    const float* h_in; // carried hidden state (H)
    float* h_out;      // the last chunk's final state (H)
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

// ---- gru_lanes: a group of G = H / U lanes per chunk, weights and state in registers ----

constexpr unsigned gru_lane_threads = 128;
constexpr unsigned gru_warps_per_sm = 4; // one warp per scheduler: see the header
constexpr size_t gru_min_chunk = 32;

//! Units per lane of a templated hidden size: 2 up to H = 12 (3 * 2 * (6 + 12) = 108 weight
//! registers), 1 above (H = 32: 114).
constexpr unsigned gru_lane_units(unsigned H) { return H <= 12 ? 2 : 1; }

template <unsigned H, unsigned U>
__global__ void __launch_bounds__(gru_lane_threads) gru_lanes(gru_args a)
{
    static_assert(H % U == 0 && H / U <= 32, "gru_lanes: a chunk's lanes fit one warp");
    constexpr unsigned G = H / U, per_warp = 32 / G, H3 = 3 * H;
    const unsigned lane = threadIdx.x % 32, grp = lane / G, s = lane % G;
    if (grp >= per_warp)
        return;
    const size_t c =
        (size_t(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32) * per_warp + grp;
    if (c >= a.chunks)
        return;
    const unsigned base = grp * G;
    const unsigned mask = G == 32 ? 0xffffffffu : ((1u << G) - 1u) << base;
    const nn::gru_layout& L = a.L;
    const float* w = a.w;

    // This lane's units j = s * U + q: rows r, z, n of weight_ih and weight_hh (transposed on
    // the device: element (row, col) at col * 3H + row) and the biases gru_unit adds first.
    float wi[3][U][6], wh[3][U][H], br[U], bz[U], bi[U], bh[U];
#pragma unroll
    for (unsigned q = 0; q < U; q++) {
        const unsigned j = s * U + q;
#pragma unroll
        for (unsigned g = 0; g < 3; g++) {
#pragma unroll
            for (unsigned k = 0; k < 6; k++)
                wi[g][q][k] = w[L.w_ih + size_t(k) * H3 + g * H + j];
#pragma unroll
            for (unsigned k = 0; k < H; k++)
                wh[g][q][k] = w[L.w_hh + size_t(k) * H3 + g * H + j];
        }
        br[q] = w[L.b_ih + j] + w[L.b_hh + j];
        bz[q] = w[L.b_ih + H + j] + w[L.b_hh + H + j];
        bi[q] = w[L.b_ih + 2 * H + j];
        bh[q] = w[L.b_hh + 2 * H + j];
    }
    // Lanes 0 and 1 write output component s: the head's row s (G >= 2 for every size used).
    const unsigned o = s & 1;
    float wo[H];
#pragma unroll
    for (unsigned k = 0; k < H; k++)
        wo[k] = w[L.w_o + o * H + k];
    const float bo = w[L.b_o + o];

    const size_t i0 = c * a.chunk;
    const size_t i1 = min(a.n, i0 + a.chunk);
    size_t i = 0;
    bool carried = true;
    if (c > 0 && i0 > a.warmup) {
        i = i0 - a.warmup;
        carried = false;
    }
    float h[H], own[U];
#pragma unroll
    for (unsigned k = 0; k < H; k++)
        h[k] = carried ? a.h_in[k] : 0.f;
#pragma unroll
    for (unsigned q = 0; q < U; q++)
        own[q] = carried ? a.h_in[s * U + q] : 0.f;

    // Model time < 0: the recursion has not started, the outputs are zero.
    for (; i < i1 && a.pos0 + i < a.la; i++)
        if (i >= i0 && s < 2)
            a.y[2 * i + s] = 0.f;
    if (i < i1) {
        size_t p = a.Hh + i - a.la; // x[p] is the model's input at step i
        const size_t last = a.Hh + a.n - 1;
        float2 x0 = a.x[p], x1 = a.x[p + 1];
        for (; i < i1; i++, p++) {
            // The next step's x[p + 1], loaded a step early (a warm-up step's only load).
            const float2 x2 = a.x[min(p + 2, last)];
            float u[6];
            nn::gru_features(u, x0.x, x0.y, x1.x, x1.y);
            float hn[U];
#pragma unroll
            for (unsigned q = 0; q < U; q++)
                hn[q] = nn::gru_cell(wi[0][q],
                                     wi[1][q],
                                     wi[2][q],
                                     1,
                                     wh[0][q],
                                     wh[1][q],
                                     wh[2][q],
                                     1,
                                     br[q],
                                     bz[q],
                                     bi[q],
                                     bh[q],
                                     H,
                                     u,
                                     h,
                                     own[q]);
#pragma unroll
            for (unsigned k = 0; k < H; k++)
                h[k] = __shfl_sync(mask, hn[k % U], base + k / U);
#pragma unroll
            for (unsigned q = 0; q < U; q++)
                own[q] = hn[q];
            if (i >= i0 && s < 2) {
                float v = nn::gru_head(wo, &bo, H, h, 0);
                if (L.C) {
                    const float2 xm = a.x[p - L.D], xp = a.x[p + L.D];
                    const float taps[6] = { xm.x, xm.y, x0.x, x0.y, xp.x, xp.y };
                    v += nn::gru_skip(w + L.k, w + L.p, L.C, taps, s);
                }
                a.y[2 * i + s] = v;
            }
            x0 = x1;
            x1 = x2;
        }
    }
    if (c == a.chunks - 1)
#pragma unroll
        for (unsigned q = 0; q < U; q++)
            a.h_out[s * U + q] = own[q];
}

//! The hidden sizes gru_lanes is compiled for (each a kernel of its own); any other H runs
//! gru_chunks.
template <unsigned... Hs>
struct gru_lane_list {
    static bool launch(unsigned H, const gru_args& a, int sms, cudaStream_t st)
    {
        return (try_one<Hs>(H, a, sms, st) || ...);
    }
    //! The chunks a launch of hidden size H aims for on `sms` SMs (0: H has no lane kernel).
    static size_t chunk_target(unsigned H, int sms)
    {
        size_t t = 0;
        ((H == Hs
              ? (t = size_t(sms) * gru_warps_per_sm * (32 / (Hs / gru_lane_units(Hs))))
              : 0),
         ...);
        return t;
    }
    template <unsigned Ht>
    static bool try_one(unsigned H, gru_args a, int sms, cudaStream_t st)
    {
        if (H != Ht)
            return false;
        constexpr unsigned U = gru_lane_units(Ht), per_warp = 32 / (Ht / U);
        if (a.warmup == 0) {
            a.chunk = a.n;
        } else {
            const size_t target = chunk_target(Ht, sms);
            a.chunk = std::max(gru_min_chunk, (a.n + target - 1) / target);
        }
        a.chunks = (a.n + a.chunk - 1) / a.chunk;
        const size_t warps = (a.chunks + per_warp - 1) / per_warp;
        const unsigned per_block = gru_lane_threads / 32;
        const unsigned blocks = unsigned((warps + per_block - 1) / per_block);
        gru_lanes<Ht, U><<<blocks, gru_lane_threads, 0, st>>>(a);
        GPUINTERP_CUDA_CHECK_LAUNCH(st);
        return true;
    }
};
using gru_lane_sizes = gru_lane_list<4, 6, 8, 10, 12, 16, 20, 24, 32>;

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
            if (model.history()) {
                d_hist.reserve(model.history());
                GPUINTERP_CUDA_CHECK(
                    cudaMemsetAsync(d_hist.get(), 0, model.history() * sizeof(cf), st()));
            }
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
        if (d_loaded && d_model.history())
            GPUINTERP_CUDA_CHECK(
                cudaMemsetAsync(d_hist.get(), 0, d_model.history() * sizeof(cf), st()));
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

    //! Batches of at most d_batch samples: window (history, then inputs) assembled on the
    //! device, the kernel, the window's last Hh samples kept on the device as the next history.
    //! Host outputs are copied back per batch; device outputs need one wait at the end.
    void run(cf* out, const cf* in, size_t n, bool device_ptrs)
    {
        device_guard guard(d_device);
        const size_t Hh = d_model.history();
        const size_t batch = std::max(d_batch, gru_min_batch());
        for (size_t pos = 0; pos < n;) {
            const size_t cnt = std::min(batch, n - pos);
            d_x.reserve(Hh + cnt);
            d_y.reserve(cnt);
            if (Hh)
                GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(d_x.get(),
                                                     d_hist.get(),
                                                     Hh * sizeof(cf),
                                                     cudaMemcpyDeviceToDevice,
                                                     st()));
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
            if (Hh)
                GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(d_hist.get(),
                                                     d_x.get() + cnt,
                                                     Hh * sizeof(cf),
                                                     cudaMemcpyDeviceToDevice,
                                                     st()));
            if (!device_ptrs) {
                GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(
                    d_io.get(), y, cnt * sizeof(cf), cudaMemcpyDeviceToHost, st()));
                GPUINTERP_CUDA_CHECK(cudaStreamSynchronize(st()));
                std::memcpy(out + pos, d_io.get(), cnt * sizeof(cf));
            }
            d_pos += cnt;
            pos += cnt;
        }
        GPUINTERP_CUDA_CHECK(cudaStreamSynchronize(st()));
    }

    //! gru: the fewest samples a batch takes (see the header: every chunk after the first
    //! repeats `warmup` steps, so a batch is split no finer than gru_batch_warmups warm-ups a
    //! chunk at the launch's planned chunk count); 0 for the tdnn and for warmup = 0.
    size_t gru_min_batch() const
    {
        if (d_model.family != dpd_model::family_t::gru || d_warmup == 0)
            return 0;
        const size_t chunks = gru_lane_sizes::chunk_target(d_g.H, d_sms);
        if (chunks ==
            0) // gru_chunks: enough for its target of chunks at their least length
            return gru_block_chunks() * gru_block_warmups * d_warmup;
        return chunks * gru_batch_warmups * d_warmup;
    }
    size_t gru_block_chunks() const { return size_t(d_sms) * 8; }

    void launch(const float2* x, float2* y, size_t Hh, size_t n)
    {
        if (d_model.family == dpd_model::family_t::gru) {
            const float* h_in = d_state[d_cur].get();
            float* h_out = d_state[1 - d_cur].get();
            d_cur = 1 - d_cur; // the state written is the next call's carried state
            gru_args a;
            a.w = d_w.get();
            a.L = d_g;
            a.x = x;
            a.Hh = Hh;
            a.n = n;
            a.la = d_model.lookahead();
            a.pos0 = d_pos;
            a.chunk = a.chunks = 0; // the launch's plan
            a.warmup = d_warmup;
            a.h_in = h_in;
            a.h_out = h_out;
            a.y = reinterpret_cast<float*>(y);
            if (gru_lane_sizes::launch(d_g.H, a, d_sms, st()))
                return;
            // Enough chunks to fill the device (8 blocks per SM), none shorter than 8 warm-ups
            // so the warm-up costs at most an eighth more steps.
            const size_t target = gru_block_chunks();
            a.chunk = d_warmup == 0 ? n
                                    : std::max<size_t>(gru_block_warmups * d_warmup,
                                                       (n + target - 1) / target);
            a.chunks = (n + a.chunk - 1) / a.chunk;
            const unsigned blocks = unsigned(a.chunks);
            const unsigned threads = std::min(256u, (d_g.H + 31) / 32 * 32);
            gru_chunks<<<blocks, threads, 2 * d_g.H * sizeof(float), st()>>>(a);
            GPUINTERP_CUDA_CHECK_LAUNCH(st());
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
    device_buffer<cf> d_hist; // the last history() inputs
    device_buffer<float> d_w;
    device_buffer<float> d_state[2]; // gru: carried hidden state, ping-pong per launch
    unsigned d_cur = 0;
    device_buffer<cf> d_x;
    device_buffer<float2> d_y;
    pinned_buffer<cf> d_io;
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
