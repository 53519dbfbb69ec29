/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_GPU_RESAMP_ENGINE_CUH
#define INCLUDED_GPUINTERP_GPU_RESAMP_ENGINE_CUH

// The CUDA resampler engine (design notes in resampler.cu): pinned staging, the device window,
// the pitch-2D texture of the texture method and the choice between the tiled and the untiled
// polyphase kernel. resampler.cu builds it through the engine factory; launch() is public so the
// benchmark can time the kernels alone on device-resident data (bench/kernel_timing.cu).

#include "../kernel/resamp_engines.h"
#include "cuda_common.cuh"
#include "device_history.cuh"
#include "resamp_engine_base.cuh"
#include "resamp_kernels.cuh"
#include "sc16_counters.cuh"
#include "sc16_expand.cuh"
#include "texture_util.cuh"
#include <type_traits>
#include <algorithm>
#include <cstring>
#include <memory>
#include <stdexcept>

namespace gr {
namespace gpuinterp {
namespace gpu {
namespace {

// Shared by this engine and the one-launch channels engine (resamp_channels.cu).

//! The prototype as the kernels read it, on the device: (P+1) reversed arms of K taps
//! (untiled) and the arm columns (tiled).
struct resamp_prototype {
    device_buffer<float> arms, cols;
    int K = 0, P = 0;

    //! Uploads `table` (K taps of P phases, kernel/resampler.h); the caller's device is current.
    void set(const std::vector<float>& table, unsigned taps, unsigned phases)
    {
        std::vector<float> a(size_t(phases + 1) * taps);
        for (unsigned p = 0; p <= phases; p++)
            for (unsigned m = 0; m < taps; m++)
                a[size_t(p) * taps + m] = table[size_t(taps - 1 - m) * phases + p];
        arms.reserve(a.size());
        upload(arms.get(), a.data(), a.size());
        const std::vector<float> c = kernel::poly_arm_columns(table, taps, phases);
        cols.reserve(c.size());
        upload(cols.get(), c.data(), c.size());
        K = int(taps);
        P = int(phases);
    }
    //! The untiled kernel's arms for a plan of half span `half`.
    poly_args untiled(int half) const { return { arms.get(), K, P, half }; }
};

//! Split the plan's outputs into launches of at most `batch` outputs; each gets the part
//! [lo, lo + n) of the window (length n_win) it reads and its plan relative to that part:
//! f(k0, cnt, lo, n, sub).
template <typename F>
void for_each_resamp_batch(const kernel::resamp_plan& plan,
                           size_t n_win,
                           size_t batch,
                           F&& f)
{
    const size_t per = std::max<size_t>(1, batch);
    for (size_t k0 = 0; k0 < plan.n_out; k0 += per) {
        const size_t cnt = std::min(per, plan.n_out - k0);
        const fx_pos first = kernel::fx_advance(plan.pos0, plan.step, k0);
        const fx_pos lastp = kernel::fx_advance(plan.pos0, plan.step, k0 + cnt - 1);
        const long long lo = std::max<long long>(0, first.ip - (long long)plan.back);
        const long long hi =
            std::min<long long>((long long)n_win, lastp.ip + (long long)plan.ahead + 1);
        kernel::resamp_plan sub = plan;
        sub.pos0 = { first.ip - lo, first.fp };
        sub.n_out = cnt;
        f(k0, cnt, lo, size_t(hi - lo), sub);
    }
}

//! Number of the plan's outputs whose integer position is below `limit`.
inline size_t outputs_before(const kernel::resamp_plan& plan, long long limit)
{
    size_t lo = 0, hi = plan.n_out; // answer in [lo, hi]
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (kernel::fx_advance(plan.pos0, plan.step, mid).ip < limit)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

//! The outputs of the plan's device-buffer call that read the seam [history, in[0 .. H)]: an
//! output at window index ip reads [ip - back, ip + ahead]; it reaches into the history when
//! ip < H + back, and then ends before H + back + ahead < 2H (H >= back + ahead + 1), so the
//! seam (H + min(n_in, H) samples) holds its whole reach. The rest read `in` in place, with
//! the plan `rest` (positions relative to in[0]).
inline size_t
seam_outputs(const kernel::resamp_plan& plan, size_t H, kernel::resamp_plan& rest)
{
    const size_t n_seam = outputs_before(plan, (long long)(H + plan.back));
    rest = plan;
    rest.pos0 = kernel::fx_advance(plan.pos0, plan.step, n_seam);
    rest.pos0.ip -= (long long)H; // window index -> index into `in`
    rest.n_out = plan.n_out - n_seam;
    return n_seam;
}

//! The tiled polyphase kernel's tile for the plan: the first of the tuning's sizes whose arm
//! table and span fit in shared memory; tile 0 when none does. occ: the kernel's resident blocks
//! per SM at that size (at least 1).
struct tiled_shape {
    size_t tile = 0, cap = 0, bytes = 0;
    int occ = 1;
};
template <typename D>
tiled_shape pick_tiled_shape(
    const kernel::resamp_plan& plan, int K, int P, const resamp_tuning& t, int smem_optin)
{
    const size_t coef =
        kernel::poly_arm_columns_floats(unsigned(K), unsigned(P)) * sizeof(float);
    for (const int tile_outputs : t.poly_tiles) {
        const size_t tile = size_t(tile_outputs);
        const size_t cap = kernel::poly_tile_cap(plan.step, tile, K);
        const size_t bytes = coef + cap * sizeof(D);
        if (bytes <= size_t(smem_optin))
            return { tile, cap, bytes };
    }
    return {};
}

//! An engine's set-up of its tiled polyphase kernels, one per store (the sc16 kernel has its
//! own registers, so its own occupancy), remembering each one's occupancy at the last size;
//! `threads`: the block the kernel is compiled for and launched with.
class tiled_setup
{
public:
    //! The shape of the plan for `kern` (tile 0: it does not fit; launch nothing). The
    //! shared-memory attribute belongs to the kernel, not to this engine; every engine sets it
    //! to the device limit (it only permits; the launch asks for `bytes`) and nothing lowers it,
    //! so each engine sets it once, at its first launch of the kernel, rather than per call.
    template <typename D, typename Store, typename Kernel>
    tiled_shape prepare(Kernel* kern,
                        int threads,
                        const kernel::resamp_plan& plan,
                        const resamp_prototype& proto,
                        const resamp_tuning& t,
                        int smem_optin)
    {
        constexpr int si = std::is_same_v<Store, D*> ? 0 : 1;
        tiled_shape sh = pick_tiled_shape<D>(plan, proto.K, proto.P, t, smem_optin);
        if (sh.tile == 0)
            return sh;
        if (!d_allowed[si]) {
            GPUINTERP_CUDA_CHECK(cudaFuncSetAttribute(
                kern, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_optin));
            d_allowed[si] = true;
        }
        if (sh.bytes != d_bytes[si]) {
            GPUINTERP_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &d_occ[si], kern, threads, sh.bytes));
            d_bytes[si] = sh.bytes;
        }
        sh.occ = std::max(1, d_occ[si]);
        return sh;
    }

private:
    int d_occ[2] = { 1, 1 };
    size_t d_bytes[2] = { 0, 0 };
    bool d_allowed[2] = { false, false };
};

//! Queues tiled polyphase kernel `kern` on `grid` for the plan, in blocks of `threads` (the block
//! it is compiled for); `head`: its leading arguments (the window and store of the single-channel
//! kernel, the pointers and store prototype of the channels kernel).
template <typename Kernel, typename... Head>
void launch_poly_tiled(Kernel* kern,
                       dim3 grid,
                       int threads,
                       const tiled_shape& sh,
                       const kernel::resamp_plan& plan,
                       const resamp_prototype& proto,
                       cudaStream_t st,
                       const Head&... head)
{
    kern<<<grid, threads, sh.bytes, st>>>(head...,
                                          plan.n_out,
                                          plan.pos0,
                                          plan.step,
                                          proto.cols.get(),
                                          proto.K,
                                          proto.P,
                                          plan.half_span,
                                          unsigned(sh.tile),
                                          unsigned(sh.cap));
}

//! NT: the tiled polyphase kernel's block, resamp_build's (the benchmark lab builds others).
template <typename D, typename H, int NT = resamp_build.tiled_threads>
class cuda_resamp_engine final
    : public resamp_engine_base<kernel::resamp_window_engine<H>, resamp_prototype>
{
    using base = resamp_engine_base<kernel::resamp_window_engine<H>, resamp_prototype>;
    using base::d_batch, base::d_device, base::d_proto, base::d_sms, base::d_smem_optin,
        base::d_tuning, base::d_untiled;

public:
    //! `channels`: each with its own history and sc16 expansion, run one after the other.
    cuda_resamp_engine(int device, size_t batch, unsigned channels = 1)
        : cuda_resamp_engine(
              device, batch, resamp_tuning_for(compute_capability(device)), channels)
    {
    }
    //! With the tuning row `t` instead of the device's (the benchmark's sweeps).
    cuda_resamp_engine(int device,
                       size_t batch,
                       const resamp_tuning& t,
                       unsigned channels = 1)
        : base(device, batch, t),
          d_sc16_in(channels),
          d_dev_hist(channels),
          d_stream(device)
    {
        d_pitch_align = device_attribute(cudaDevAttrTexturePitchAlignment, device);
        d_max_rows = device_attribute(cudaDevAttrMaxTexture2DLinearHeight, device);
        d_tex_align = device_attribute(cudaDevAttrTextureAlignment, device);
    }

    void run_window(H* out,
                    const H* win,
                    size_t n_win,
                    const kernel::resamp_plan& plan) override
    {
        run_to(reinterpret_cast<D*>(out), win, n_win, plan, d_dout, d_hout);
    }

    void run_window_sc16(int16_t* out,
                         const H* win,
                         size_t n_win,
                         const kernel::resamp_plan& plan,
                         float scale,
                         kernel::sc16_counts& counts) override
    {
        with_sc16(out, scale, counts, [&](auto* y) {
            run_to(y, win, n_win, plan, d_dout16, d_hout16);
        });
    }

    // Device-buffer entry point. The window [history, in] is never assembled: the outputs
    // whose reach goes back into the history (the first few) read the seam array
    // [history, in[0 .. H)] of device_history.cuh, all later ones read `in` in place, so the
    // call costs one small launch (the seam and the new history) on top of the kernel. Ends with a synchronise of
    // this engine's stream (GNU Radio treats output as readable when work() returns).
    void run_device(unsigned c, H* out, const kernel::resamp_call<H>& call) override
    {
        device_guard g(d_device);
        run_device_to(c, reinterpret_cast<D*>(out), call);
        d_stream.synchronize();
    }

    void run_device_sc16(unsigned c,
                         int16_t* out,
                         const kernel::resamp_call<H>& call,
                         float scale,
                         kernel::sc16_counts& counts) override
    {
        with_sc16(out, scale, counts, [&](auto* y) { run_device_to(c, y, call); });
    }

    const H*
    expand_sc16_device(unsigned c, const int16_t* in, size_t n, float inverse) override
    {
        if (!std::is_same_v<D, float2>) // the front end refuses sc16 for real samples
            throw std::logic_error("resampler engine: sc16 needs complex samples");
        device_guard g(d_device);
        return reinterpret_cast<const H*>(
            d_sc16_in[c].run(in, n, inverse, d_stream.get()));
    }

    void pull_history(std::vector<kernel::stream_history<H>>& hist) override
    {
        device_guard g(d_device);
        for (size_t c = 0; c < d_dev_hist.size(); c++)
            d_dev_hist[c].pull(hist[c]);
    }
    void forget_history() override
    {
        for (auto& h : d_dev_hist)
            h.invalidate();
    }


    //! Device-resident: relayout (texture) + kernel on data already on the device.
    void launch(const D* dwin,
                size_t n_win,
                D* dout,
                const kernel::resamp_plan& plan,
                cudaStream_t st)
    {
        launch_to(dwin, n_win, dout, plan, st);
    }

private:
    // Host memory: the window staged through pinned memory and copied once per batch of
    // outputs, the kernel, and the outputs back. O: D, or short2 with sc16.
    template <typename O>
    void run_to(O* out,
                const H* win,
                size_t n_win,
                const kernel::resamp_plan& plan,
                device_buffer<O>& dout,
                pinned_buffer<O>& hout)
    {
        device_guard g(d_device);
        cudaStream_t st = d_stream.get();
        for_each_batch(
            plan,
            n_win,
            [&](size_t k0,
                size_t cnt,
                long long lo,
                size_t n,
                const kernel::resamp_plan& sub) {
                d_hwin.reserve(n);
                d_dwin.reserve(n);
                hout.reserve(cnt);
                dout.reserve(cnt);
                std::memcpy(d_hwin.get(), win + lo, n * sizeof(D));
                GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(d_dwin.get(),
                                                     d_hwin.get(),
                                                     n * sizeof(D),
                                                     cudaMemcpyHostToDevice,
                                                     st));
                launch_to(d_dwin.get(), n, dout.get(), sub, st);
                GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(
                    hout.get(), dout.get(), cnt * sizeof(O), cudaMemcpyDeviceToHost, st));
                d_stream.synchronize();
                std::memcpy(static_cast<void*>(out + k0), hout.get(), cnt * sizeof(O));
            });
    }

    // Device buffers: channel c's launches of run_device(), queued on the stream (the caller
    // waits).
    template <typename O>
    void run_device_to(unsigned c, O* out, const kernel::resamp_call<H>& call)
    {
        cudaStream_t st = d_stream.get();
        const D* in = reinterpret_cast<const D*>(call.in[c]);
        const size_t n_in = call.n_in, Hn = call.hist[c].size();
        const kernel::resamp_plan& plan = call.plan;
        const D* seam = d_dev_hist[c].seam(call.hist[c], in, n_in, call.used, st);
        kernel::resamp_plan rest;
        const size_t n_seam = seam_outputs(plan, Hn, rest);
        if (n_seam > 0) {
            kernel::resamp_plan sub = plan;
            sub.n_out = n_seam;
            launch_to(seam, Hn + std::min(n_in, Hn), out, sub, st);
        }
        if (rest.n_out > 0) {
            for_each_batch(rest,
                           n_in,
                           [&](size_t k0,
                               size_t cnt,
                               long long lo,
                               size_t n,
                               const kernel::resamp_plan& sub) {
                               (void)cnt;
                               launch_to(in + lo, n, out + n_seam + k0, sub, st);
                           });
        }
    }

    //! The kernel's store for an output array: plain, or the sc16 conversion with the scale and
    //! counters of begin_sc16().
    D* store_for(D* y) const { return y; }
    resamp_store_sc16 store_for(short2* y) const
    {
        return { y, d_sc16_scale, d_counts.get() };
    }

    //! Relayout (texture) + kernel on data already on the device; O as in run_to().
    template <typename O>
    void launch_to(const D* dwin,
                   size_t n_win,
                   O* dout,
                   const kernel::resamp_plan& plan,
                   cudaStream_t st)
    {
        using Store = decltype(store_for(dout));
        cudaTextureObject_t tex = 0;
        if (plan.method == resamp_method::texture)
            tex = to_pitch2d(dwin, n_win, st);
        const poly_args pa = d_proto.untiled(plan.half_span);
        const int threads = d_tuning.threads;
        const int blocks = int(
            std::max<size_t>(1,
                             std::min<size_t>((plan.n_out + threads - 1) / threads,
                                              size_t(d_sms) * d_tuning.blocks_per_sm)));
        // The kernel's template argument is the method's value (resamp_method order); polyphase
        // runs the tiled kernel where it applies.
        const decltype(&resamp_kernel<D, 0, Store>) by_method[] = {
            resamp_kernel<D, 0, Store>,
            resamp_kernel<D, 1, Store>,
            resamp_kernel<D, 2, Store>,
            resamp_kernel<D, 3, Store>,
            resamp_kernel<D, 4, Store>
        };
        if (plan.method != resamp_method::polyphase || d_untiled ||
            !launch_tiled(dwin, dout, plan, st))
            by_method[int(plan.method)]<<<blocks, threads, 0, st>>>(
                dwin, store_for(dout), plan.n_out, plan.pos0, plan.step, pa, tex);
        GPUINTERP_CUDA_CHECK_LAUNCH(st);
    }

    //! Before an sc16 call: the scale its stores use and, the first time, the counters.
    void begin_sc16(float scale)
    {
        d_sc16_scale = scale;
        d_counts.ensure(1, d_stream.get());
    }

    //! After an sc16 call's launches: wait for the stream, add what the counters grew by.
    void read_counts(kernel::sc16_counts& counts)
    {
        d_counts.read(&counts, d_stream.get());
    }

    //! One sc16 call: run(y) launches into the short2 outputs y, between the counters' set-up
    //! and their read-back. Complex samples only: the front end refuses sc16 for real ones.
    //! The parameters are unused where the samples are real.
    template <typename Run>
    void with_sc16([[maybe_unused]] int16_t* out,
                   [[maybe_unused]] float scale,
                   [[maybe_unused]] kernel::sc16_counts& counts,
                   [[maybe_unused]] Run&& run)
    {
        if constexpr (!std::is_same_v<D, float2>) {
            throw std::logic_error("resampler engine: sc16 needs complex samples");
        } else {
            device_guard g(d_device);
            begin_sc16(scale);
            run(reinterpret_cast<short2*>(out));
            read_counts(counts); // waits for the stream: the outputs are complete too
        }
    }

    template <typename F>
    void for_each_batch(const kernel::resamp_plan& plan, size_t n_win, F&& f)
    {
        for_each_resamp_batch(plan, n_win, d_batch, f);
    }
    //! The tiled polyphase kernel; false (nothing launched) when the arm table and a tile's
    //! span do not fit in shared memory.
    template <typename O>
    bool
    launch_tiled(const D* dwin, O* dout, const kernel::resamp_plan& plan, cudaStream_t st)
    {
        using Store = decltype(store_for(dout));
        if (plan.n_out == 0)
            return true;
        auto* kern = poly_tiled_kernel<D, Store, NT>;
        const tiled_shape sh =
            d_tiled.prepare<D, Store>(kern, NT, plan, d_proto, d_tuning, d_smem_optin);
        if (sh.tile == 0)
            return false;
        const size_t n_tiles = (plan.n_out + sh.tile - 1) / sh.tile;
        const int blocks =
            int(std::max<size_t>(1, std::min<size_t>(n_tiles, size_t(d_sms) * sh.occ)));
        launch_poly_tiled(kern, blocks, NT, sh, plan, d_proto, st, dwin, store_for(dout));
        return true;
    }

    //! Lay n samples out as rows of W+1 texels (overlap 1) and return a texture over
    //! them.
    cudaTextureObject_t to_pitch2d(const D* src, size_t n, cudaStream_t st)
    {
        const size_t rows = (n + W - 1) / W;
        if (rows + 1 > size_t(d_max_rows))
            throw std::invalid_argument(
                "batch: " + std::to_string(n) +
                " samples exceed one pitch-2D texture; lower the batch");
        const size_t row_bytes = size_t(W + 1) * sizeof(D);
        const size_t pitch =
            (row_bytes + d_pitch_align - 1) / d_pitch_align * d_pitch_align;
        if (rows + 1 > d_rows_cap || !d_tex.valid()) {
            const size_t cap =
                std::min(size_t(d_max_rows), std::max(rows + 1, d_rows_cap * 2));
            d_tex.release();
            // The texture's base address must be a multiple of the texture alignment (512
            // B).
            d_pitched.reserve(cap * pitch + size_t(d_tex_align));
            const uintptr_t base = reinterpret_cast<uintptr_t>(d_pitched.get());
            d_pitched_base = reinterpret_cast<char*>((base + d_tex_align - 1) /
                                                     d_tex_align * d_tex_align);
            cudaResourceDesc res;
            std::memset(&res, 0, sizeof(res));
            res.resType = cudaResourceTypePitch2D;
            res.res.pitch2D.devPtr = d_pitched_base;
            res.res.pitch2D.desc = cudaCreateChannelDesc<D>();
            res.res.pitch2D.width = W + 1;
            res.res.pitch2D.height = cap;
            res.res.pitch2D.pitchInBytes = pitch;
            cudaTextureDesc td;
            std::memset(&td, 0, sizeof(td));
            td.addressMode[0] = cudaAddressModeClamp;
            td.addressMode[1] = cudaAddressModeClamp;
            td.filterMode = cudaFilterModeLinear;
            td.readMode = cudaReadModeElementType;
            td.normalizedCoords = 0;
            d_tex.create(res, td);
            d_rows_cap = cap;
        }
        char* dst = d_pitched_base;
        // Zero the last row and the one after it: their unwritten texels are read with
        // weight 0 (the overlap texel of the last row, and the vertical neighbour), and 0
        // * NaN is NaN.
        GPUINTERP_CUDA_CHECK(cudaMemsetAsync(dst + (rows - 1) * pitch, 0, 2 * pitch, st));
        const size_t full = n / W;
        if (full > 0)
            GPUINTERP_CUDA_CHECK(cudaMemcpy2DAsync(dst,
                                                   pitch,
                                                   src,
                                                   W * sizeof(D),
                                                   W * sizeof(D),
                                                   full,
                                                   cudaMemcpyDeviceToDevice,
                                                   st));
        if (n > full * W)
            GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(dst + full * pitch,
                                                 src + full * W,
                                                 (n - full * W) * sizeof(D),
                                                 cudaMemcpyDeviceToDevice,
                                                 st));
        if (rows > 1) // texel W of row j = sample (j+1) W
            GPUINTERP_CUDA_CHECK(cudaMemcpy2DAsync(dst + W * sizeof(D),
                                                   pitch,
                                                   src + W,
                                                   W * sizeof(D),
                                                   sizeof(D),
                                                   rows - 1,
                                                   cudaMemcpyDeviceToDevice,
                                                   st));
        return d_tex.get();
    }

    int d_pitch_align = 32, d_max_rows = 65000;
    tiled_setup d_tiled;
    device_buffer<D> d_dwin, d_dout;
    pinned_buffer<D> d_hwin, d_hout;
    // sc16 output: its staging, the scale of the call, the counters (sc16_counters.cuh).
    device_buffer<short2> d_dout16;
    pinned_buffer<short2> d_hout16;
    float d_sc16_scale = 1.0f;
    sc16_counters d_counts;
    std::vector<device_sc16_expansion>
        d_sc16_in; // sc16 input in device buffers, per channel
    std::vector<device_history<D, H>> d_dev_hist; // device-buffer mode, per channel
    device_buffer<char> d_pitched;
    char* d_pitched_base = nullptr;
    int d_tex_align = 512;
    size_t d_rows_cap = 0;
    texture_object d_tex;
    engine_stream d_stream; // last: destroyed (waited for) first
};

} // namespace
} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
