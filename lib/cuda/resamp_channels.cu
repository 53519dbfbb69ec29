/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The multi-channel resampler's CUDA engine (kernel/resampler.h with channels > 1): the channels
// share the rate, so one plan (positions, counts) serves all of them, and each kernel of
// resamp_kernels.cuh runs every channel in one launch (gridDim.y = channel, the per-channel
// windows and outputs in a channel_pointers parameter). The texture method is not here: each
// channel's window would need its own pitch-2D texture, so the front end runs one
// single-channel engine per channel for it.
//
// Host buffers: each batch's window part is staged channel-major in pinned memory, copied in
// once, one launch, the outputs copied back once and scattered to the channels' buffers (not
// double-buffered, as the single-channel engine: resampler.cu says why). Device buffers: each
// channel's seam [history, in[0 .. H)] (device_history.cuh) for the first outputs, one launch for
// every channel's seam, then every channel's remaining outputs read in place.
#include "channel_pointers.cuh"
#include "cuda_engines.h"
#include "resamp_engine.cuh"
#include "resamp_engine_base.cuh"
#include "sc16_counters.cuh"
#include <vector>

namespace gr {
namespace gpuinterp {
namespace gpu {

namespace {

template <typename D, typename H>
class cuda_resamp_channels_engine final
    : public resamp_engine_base<kernel::resamp_engine<H>, resamp_prototype>
{
public:
    cuda_resamp_channels_engine(int device, size_t batch, unsigned channels)
        : base(device, batch),
          d_N(channels),
          d_dev_hist(channels),
          d_sc16_in(channels),
          d_stream(device)
    {
        check_engine_channels(channels, "the CUDA resampler");
    }

    void run(H* const* out, const kernel::resamp_call<H>& call) override
    {
        device_guard g(d_device);
        run_to(reinterpret_cast<void* const*>(out),
               call,
               static_cast<D*>(nullptr),
               d_dout,
               d_hout);
    }

    void run_sc16(int16_t* const* out,
                  const kernel::resamp_call<H>& call,
                  float scale,
                  kernel::sc16_counts* counts) override
    {
        if constexpr (!std::is_same_v<D, float2>) {
            throw std::logic_error("resampler engine: sc16 needs complex samples");
        } else {
            device_guard g(d_device);
            const cudaStream_t st = d_stream.get();
            d_counts.ensure(d_N, st);
            run_to(reinterpret_cast<void* const*>(out),
                   call,
                   resamp_store_sc16{ nullptr, scale, d_counts.get() },
                   d_dout16,
                   d_hout16);
            d_counts.read(counts,
                          st); // waits for the stream: the outputs are complete too
        }
    }

    const H*
    expand_sc16_device(unsigned c, const int16_t* in, size_t n, float inverse) override
    {
        if (!std::is_same_v<D, float2>) // the front end refuses sc16 for real samples
            throw std::logic_error(
                "resampler channels engine: sc16 needs complex samples");
        device_guard g(d_device);
        return reinterpret_cast<const H*>(
            d_sc16_in[c].run(in, n, inverse, d_stream.get()));
    }

    void pull_history(std::vector<kernel::stream_history<H>>& hist) override
    {
        device_guard g(d_device);
        for (unsigned c = 0; c < d_N; c++)
            d_dev_hist[c].pull(hist[c]);
    }
    void forget_history() override
    {
        for (auto& h : d_dev_hist)
            h.invalidate();
    }

private:
    //! The output value of a store: D, or an sc16 pair.
    template <typename Store>
    using out_t = std::conditional_t<std::is_same_v<Store, D*>, D, short2>;

    template <typename Store>
    void run_to(void* const* out,
                const kernel::resamp_call<H>& call,
                const Store& proto,
                device_buffer<out_t<Store>>& dout,
                pinned_buffer<out_t<Store>>& hout)
    {
        using O = out_t<Store>;
        const size_t n_in = call.n_in, used = call.used;
        std::vector<kernel::stream_history<H>>& hist = call.hist;
        const kernel::resamp_plan& plan = call.plan;
        const cudaStream_t st = d_stream.get();
        const size_t Hn = hist[0].size(), N = d_N;
        const D* const* in = reinterpret_cast<const D* const*>(call.in);
        auto y = [&](unsigned c, size_t k) { return static_cast<O*>(out[c]) + k; };
        // One launch's outputs, all channels together, stay at the batch.
        const size_t per = std::max<size_t>(1, d_batch / N);
        channel_pointers p{};
        if (call.device) {
            for (unsigned c = 0; c < d_N; c++) {
                p.x[c] = d_dev_hist[c].seam(hist[c], in[c], n_in, used, st);
                p.y[c] = y(c, 0);
            }
            kernel::resamp_plan rest;
            const size_t n_seam = seam_outputs(plan, Hn, rest);
            if (n_seam > 0) {
                kernel::resamp_plan sub = plan;
                sub.n_out = n_seam;
                launch(p, sub, proto, st);
            }
            for_each_resamp_batch(rest,
                                  n_in,
                                  per,
                                  [&](size_t k0,
                                      size_t,
                                      long long lo,
                                      size_t,
                                      const kernel::resamp_plan& sub) {
                                      for (unsigned c = 0; c < d_N; c++) {
                                          p.x[c] = in[c] + lo;
                                          p.y[c] = y(c, n_seam + k0);
                                      }
                                      launch(p, sub, proto, st);
                                  });
            d_stream.synchronize(); // GNU Radio reads the outputs when work() returns
            return;
        }
        for_each_resamp_batch(
            plan,
            Hn + n_in,
            per,
            [&](size_t k0,
                size_t cnt,
                long long lo,
                size_t n,
                const kernel::resamp_plan& sub) {
                d_hwin.reserve(N * n);
                d_dwin.reserve(N * n);
                hout.reserve(N * cnt);
                dout.reserve(N * cnt);
                for (unsigned c = 0; c < d_N; c++)
                    window_part(d_hwin.get() + c * n, hist[c], in[c], size_t(lo), n);
                GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(d_dwin.get(),
                                                     d_hwin.get(),
                                                     N * n * sizeof(D),
                                                     cudaMemcpyHostToDevice,
                                                     st));
                for (unsigned c = 0; c < d_N; c++) {
                    p.x[c] = d_dwin.get() + c * n;
                    p.y[c] = dout.get() + c * cnt;
                }
                launch(p, sub, proto, st);
                GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(hout.get(),
                                                     dout.get(),
                                                     N * cnt * sizeof(O),
                                                     cudaMemcpyDeviceToHost,
                                                     st));
                d_stream.synchronize();
                for (unsigned c = 0; c < d_N; c++)
                    std::memcpy(static_cast<void*>(y(c, k0)),
                                hout.get() + c * cnt,
                                cnt * sizeof(O));
            });
        for (unsigned c = 0; c < d_N; c++)
            hist[c].advance(call.in[c], used);
    }

    //! Samples [lo, lo + n) of the window [hist, in] to dst.
    static void window_part(
        D* dst, const kernel::stream_history<H>& hist, const D* in, size_t lo, size_t n)
    {
        const size_t Hn = hist.size();
        size_t done = 0;
        if (lo < Hn) {
            done = std::min(n, Hn - lo);
            std::memcpy(dst, hist.values().data() + lo, done * sizeof(D));
        }
        if (done < n)
            std::memcpy(dst + done, in + (lo + done - Hn), (n - done) * sizeof(D));
    }

    //! Every channel's outputs of `plan` (its positions relative to each p.x[c]).
    template <typename Store>
    void launch(const channel_pointers& p,
                const kernel::resamp_plan& plan,
                const Store& proto,
                cudaStream_t st)
    {
        if (plan.n_out == 0)
            return;
        if (plan.method == resamp_method::polyphase && !d_untiled &&
            launch_tiled(p, plan, proto, st))
            return;
        if (plan.method == resamp_method::texture)
            throw std::logic_error("resampler: the texture method runs per channel");
        const poly_args pa = d_proto.untiled(plan.half_span);
        const int threads = d_tuning.threads;
        const dim3 grid = channels_grid((long long)plan.n_out,
                                        threads,
                                        (long long)d_sms * d_tuning.blocks_per_sm,
                                        d_N);
        // Indexed by the method's value (resamp_method order); texture has no entry.
        const decltype(&resamp_channels_kernel<D, 0, Store>) by_method[] = {
            resamp_channels_kernel<D, 0, Store>,
            resamp_channels_kernel<D, 1, Store>,
            nullptr,
            resamp_channels_kernel<D, 3, Store>,
            resamp_channels_kernel<D, 4, Store>
        };
        by_method[int(plan.method)]<<<grid, threads, 0, st>>>(
            p, proto, plan.n_out, plan.pos0, plan.step, pa);
        GPUINTERP_CUDA_CHECK_LAUNCH(st);
    }

    template <typename Store>
    bool launch_tiled(const channel_pointers& p,
                      const kernel::resamp_plan& plan,
                      const Store& proto,
                      cudaStream_t st)
    {
        auto* kern = poly_tiled_channels_kernel<D, Store>;
        const tiled_shape sh = d_tiled.prepare<D, Store>(
            kern, resamp_build.tiled_threads, plan, d_proto, d_tuning, d_smem_optin);
        if (sh.tile == 0)
            return false;
        const dim3 grid = channels_grid(
            (long long)plan.n_out, (long long)sh.tile, (long long)d_sms * sh.occ, d_N);
        launch_poly_tiled(
            kern, grid, resamp_build.tiled_threads, sh, plan, d_proto, st, p, proto);
        GPUINTERP_CUDA_CHECK_LAUNCH(st);
        return true;
    }

    using base = resamp_engine_base<kernel::resamp_engine<H>, resamp_prototype>;
    using base::d_batch, base::d_device, base::d_proto, base::d_sms, base::d_smem_optin,
        base::d_tuning, base::d_untiled;

    unsigned d_N;
    tiled_setup d_tiled;
    device_buffer<D> d_dwin, d_dout;
    pinned_buffer<D> d_hwin, d_hout;
    device_buffer<short2> d_dout16;
    pinned_buffer<short2> d_hout16;
    sc16_counters d_counts; //!< sc16
    std::vector<device_history<D, H>> d_dev_hist;
    std::vector<device_sc16_expansion> d_sc16_in; // sc16 input in device buffers
    engine_stream d_stream;                       // last: destroyed (waited for) first
};

} // namespace

template <typename T>
std::unique_ptr<kernel::resamp_engine<T>>
make_cuda_resamp_channels_engine(int device, size_t batch, unsigned channels)
{
    return std::make_unique<cuda_resamp_channels_engine<device_t<T>, T>>(
        device, batch, channels);
}

template std::unique_ptr<kernel::resamp_engine<float>>
make_cuda_resamp_channels_engine<float>(int, size_t, unsigned);
template std::unique_ptr<kernel::resamp_engine<std::complex<float>>>
make_cuda_resamp_channels_engine<std::complex<float>>(int, size_t, unsigned);

} // namespace gpu
} // namespace gpuinterp
} // namespace gr
