/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CUDA backend of the resampler. One thread per output: its position comes in closed form
// from the 64.64 fixed-point clock (fixed_phase.h), the same integers the CPU backend
// steps through, so both backends read the same samples with the same phase.
//
// Texture method, long streams: PITCH-2D TEXTURE OVER DEVICE MEMORY, not chunks of 1D
// cudaArrays. A 1D cudaArray holds at most 131072 texels, so a stream would have to be
// cut into overlapping arrays and copied into each (a cudaMemcpyToArray per chunk, a
// texture object per chunk, and a branch per output to pick the object). A pitch-2D
// texture reads device memory we already own: the window is laid out in rows of W+1
// texels where row j holds samples jW .. jW+W (the last texel duplicates the first of the
// next row, the overlap linear filtering needs), written by two strided device-to-device
// copies (cudaMemcpy2DAsync), and ONE texture object covers up to 65000 rows (266 M
// samples per launch with W = 4096). An output between samples i and i+1 fetches row
// floor(i/W) at x = (i mod W) + 0.5 + k/256 and y = row + 0.5: y sits on the row centre,
// so the vertical weight is exactly 0 and the fetch is the 1D linear filter along the
// row. W = 4096 keeps x below 2^13, where (i mod W) + 0.5 + k/256 is exact in float: the
// coordinate carries exactly the weight k/256 the CPU emulation uses, so CPU and GPU
// agree bit for bit whatever rounding the texture unit applies to coordinates. The price
// is one extra device-side read and write of the input. (Caveat: a non-finite input may
// reach the row above through the zero vertical weight.)
//
// Polyphase, tiled (the default): a block stages the whole arm table (K x (P+1)
// floats, tap-major: see poly_tiles.h) in shared memory once, then walks tiles of
// consecutive outputs (persistent blocks, grid = what fits on the SMs): per tile it loads
// the input span the tile reads (tile span + K) with coalesced loads, and each thread
// computes outputs j, j + blockDim, ... of the tile from shared memory, lanes on
// consecutive outputs (their taps are consecutive or equal samples, and their arms are
// words of one 33-word row: no bank conflicts). Same arms, same tap order, same mac()
// and the same blend as the first (untiled) kernel, which runs when the table + span do not
// fit in shared memory (r << 1 stretches the arms to K/r taps) or when the untiled
// resamp_cuda_variant is chosen.
//
// Host side: one stream; the window (history + new inputs) is staged through pinned
// memory and copied once per batch of outputs, then the kernel runs and the outputs come
// back. Not double-buffered: unlike the FIR interpolator each batch's window depends on
// where the previous batch's outputs ended, and the copies (8 B in, 8r B out per sample)
// dominate the kernel time.
#include "../kernel/fixed_phase.h"
#include "../kernel/poly_tiles.h"
#include "bench_hooks.h"
#include "cuda_engines.h"
#include "complex_ops.cuh"
#include "cuda_common.cuh"
#include "device_history.cuh"
#include "texture_util.cuh"
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

namespace gr {
namespace gpuinterp {
namespace gpu {

namespace {

using kernel::fx_pos;
using kernel::fx_step;
using kernel::resamp_method;

constexpr int W = 4096; // texture row width (samples) without the overlap texel

struct poly_args {
    const float* arms; // (P+1) arms of K taps: arm p, tap m at p*K + m
    int K, P, half;
};

__device__ inline float2 operator*(float a, float2 b)
{
    return make_float2(a * b.x, a * b.y);
}
__device__ inline float2 operator+(float2 a, float2 b)
{
    return make_float2(a.x + b.x, a.y + b.y);
}
__device__ inline float2 operator-(float2 a, float2 b)
{
    return make_float2(a.x - b.x, a.y - b.y);
}

template <typename D, int M>
__global__ void resamp_kernel(const D* __restrict__ w,
                              D* __restrict__ y,
                              size_t n_out,
                              fx_pos pos0,
                              fx_step step,
                              poly_args pa,
                              cudaTextureObject_t tex)
{
    for (size_t k = blockIdx.x * size_t(blockDim.x) + threadIdx.x; k < n_out;
         k += size_t(gridDim.x) * blockDim.x) {
        const fx_pos p = kernel::fx_advance(pos0, step, k);
        const long long i = p.ip;
        if (M == int(resamp_method::nearest)) {
            y[k] = w[i + (long long)(p.fp >> 63)];
        } else if (M == int(resamp_method::linear)) {
            const float mu = kernel::fx_frac_f(p.fp);
            y[k] = (1.0f - mu) * w[i] + mu * w[i + 1];
        } else if (M == int(resamp_method::texture)) {
            long long j = i;
            int q = kernel::fx_weight9(p.fp);
            if (q == 256) {
                j++;
                q = 0;
            }
            const long long row = j / W;
            const float x =
                float(j - row * W) + 0.5f + float(q) * (1.0f / 256.0f); // exact
            y[k] = tex2D<D>(tex, x, float(row) + 0.5f);
        } else if (M == int(resamp_method::cubic)) {
            const float mu = kernel::fx_frac_f(p.fp);
            const D xm = w[i - 1], x0 = w[i], x1 = w[i + 1], x2 = w[i + 2];
            y[k] = x0 + (0.5f * mu) *
                            ((x1 - xm) + mu * ((2.0f * xm - 5.0f * x0 + 4.0f * x1 - x2) +
                                               mu * (3.0f * (x0 - x1) + x2 - xm)));
        } else { // polyphase: two arms (K' taps each), blended
            const unsigned long long arm =
                kernel::fx_mulhi(p.fp, (unsigned long long)pa.P);
            const float f = kernel::fx_frac_f(p.fp * (unsigned long long)pa.P);
            const float* h0 = pa.arms + arm * pa.K;
            const float* h1 = h0 + pa.K;
            const D* x = w + i - (pa.half - 1);
            D a0 = zero<D>(), a1 = zero<D>();
            for (int m = 0; m < pa.K; m++) {
                const D v = x[m];
                mac(a0, __ldg(h0 + m), v);
                mac(a1, __ldg(h1 + m), v);
            }
            y[k] = (1.0f - f) * a0 + f * a1;
        }
    }
}

//! One polyphase output: x = its first tap sample, c = its arm at tap 0 (arm tap m at
//! c[m (P+1)], the next arm's one word later). Inlined, so x stays a shared or a global
//! pointer as the caller's is.
template <typename D>
__device__ __forceinline__ D
poly_dot(const D* x, const float* c, int K, int P1, float f)
{
    D a0 = zero<D>(), a1 = zero<D>();
#pragma unroll 4
    for (int m = 0; m < K; m++) {
        const float h0 = c[m * P1], h1 = c[m * P1 + 1];
        const D v = x[m];
        mac(a0, h0, v);
        mac(a1, h1, v);
    }
    return (1.0f - f) * a0 + f * a1;
}

template <typename D>
__global__ void __launch_bounds__(256)
    poly_tiled_kernel(const D* __restrict__ w,
                      D* __restrict__ y,
                      size_t n_out,
                      fx_pos pos0,
                      fx_step step,
                      const float* __restrict__ cols,
                      int K,
                      int P,
                      int half,
                      unsigned tile,
                      unsigned cap)
{
    extern __shared__ float2 smem[]; // float2: 8-byte aligned
    float* sc = reinterpret_cast<float*>(smem); // K*(P+1) arm taps
    D* sx = reinterpret_cast<D*>(sc + kernel::poly_arm_columns_floats(K, P)); // cap samples
    for (int i = threadIdx.x; i < K * (P + 1); i += blockDim.x)
        sc[i] = cols[i];
    const size_t n_tiles = (n_out + tile - 1) / tile;
    for (size_t t = blockIdx.x; t < n_tiles; t += gridDim.x) {
        const size_t k0 = t * tile;
        const unsigned cnt = unsigned(min(size_t(tile), n_out - k0));
        const kernel::poly_tile tr =
            kernel::poly_tile_range(pos0, step, k0, cnt, half, K);
        const bool staged = tr.n_load <= (long long)cap; // same in every thread
        __syncthreads(); // the previous tile's reads of sx are done
        if (staged)
            for (int i = threadIdx.x; i < int(tr.n_load); i += blockDim.x)
                sx[i] = w[tr.lo + i];
        __syncthreads(); // sx (and, the first time, sc) written
        const long long ip0 = tr.lo + (half - 1); // integer position of output k0
        for (unsigned j = threadIdx.x; j < cnt; j += blockDim.x) {
            const fx_pos p = kernel::fx_advance(pos0, step, k0 + j);
            const unsigned long long arm =
                kernel::fx_mulhi(p.fp, (unsigned long long)P);
            const float f = kernel::fx_frac_f(p.fp * (unsigned long long)P);
            const float* c = sc + arm;
            y[k0 + j] = staged ? poly_dot(sx + (p.ip - ip0), c, K, P + 1, f)
                               : poly_dot(w + (p.ip - (half - 1)), c, K, P + 1, f);
        }
    }
}

template <typename D, typename H>
class cuda_resamp_engine final : public kernel::resamp_engine<H>
{
public:
    cuda_resamp_engine(int device, size_t batch) : d_device(device), d_batch(batch)
    {
        device_guard g(d_device);
        d_stream = std::make_unique<stream>();
        GPUINTERP_CUDA_CHECK(
            cudaDeviceGetAttribute(&d_sms, cudaDevAttrMultiProcessorCount, device));
        GPUINTERP_CUDA_CHECK(cudaDeviceGetAttribute(
            &d_pitch_align, cudaDevAttrTexturePitchAlignment, device));
        GPUINTERP_CUDA_CHECK(cudaDeviceGetAttribute(
            &d_max_rows, cudaDevAttrMaxTexture2DLinearHeight, device));
        GPUINTERP_CUDA_CHECK(
            cudaDeviceGetAttribute(&d_tex_align, cudaDevAttrTextureAlignment, device));
        GPUINTERP_CUDA_CHECK(cudaDeviceGetAttribute(
            &d_smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    }
    ~cuda_resamp_engine() override
    {
        if (d_stream)
            cudaStreamSynchronize(d_stream->get());
    }

    void set_prototype(const std::vector<float>& table, unsigned K, unsigned P) override
    {
        device_guard g(d_device);
        std::vector<float> arms(size_t(P + 1) * K);
        for (unsigned p = 0; p <= P; p++)
            for (unsigned m = 0; m < K; m++)
                arms[size_t(p) * K + m] = table[size_t(K - 1 - m) * P + p];
        d_arms.reserve(arms.size());
        GPUINTERP_CUDA_CHECK(cudaMemcpy(d_arms.get(),
                                        arms.data(),
                                        arms.size() * sizeof(float),
                                        cudaMemcpyHostToDevice));
        const std::vector<float> cols = kernel::poly_arm_columns(table, K, P);
        d_cols.reserve(cols.size());
        GPUINTERP_CUDA_CHECK(cudaMemcpy(d_cols.get(),
                                        cols.data(),
                                        cols.size() * sizeof(float),
                                        cudaMemcpyHostToDevice));
        d_K = int(K);
        d_P = int(P);
    }

    void set_cuda_variant(kernel::resamp_cuda_variant v) override
    {
        d_untiled = v == kernel::resamp_cuda_variant::untiled;
    }

    void run(H* out, const H* win, size_t n_win, const kernel::resamp_plan& plan) override
    {
        device_guard g(d_device);
        cudaStream_t st = d_stream->get();
        for_each_batch(plan, n_win, [&](size_t k0, size_t cnt, long long lo, size_t n,
                                        const kernel::resamp_plan& sub) {
            d_hwin.reserve(n);
            d_dwin.reserve(n);
            d_hout.reserve(cnt);
            d_dout.reserve(cnt);
            std::memcpy(d_hwin.get(), win + lo, n * sizeof(D));
            GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(
                d_dwin.get(), d_hwin.get(), n * sizeof(D), cudaMemcpyHostToDevice, st));
            launch(d_dwin.get(), n, d_dout.get(), sub, st);
            GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(
                d_hout.get(), d_dout.get(), cnt * sizeof(D), cudaMemcpyDeviceToHost, st));
            d_stream->synchronize();
            std::memcpy(static_cast<void*>(out + k0), d_hout.get(), cnt * sizeof(D));
        });
    }

    // Device-buffer entry point. The window [history, in] is never assembled: the outputs
    // whose reach goes back into the history (the first few) read the seam array
    // [history, in[0 .. H)] of device_history.cuh, all later ones read `in` in place, so the
    // call costs two small device copies on top of the kernel. Ends with a synchronise of
    // this engine's stream (GNU Radio treats output as readable when work() returns).
    void run_device(H* out_h,
                    const H* in_h,
                    size_t n_in,
                    kernel::stream_history<H>& hist,
                    size_t used,
                    const kernel::resamp_plan& plan) override
    {
        device_guard g(d_device);
        cudaStream_t st = d_stream->get();
        D* out = reinterpret_cast<D*>(out_h);
        const D* in = reinterpret_cast<const D*>(in_h);
        const size_t Hn = hist.size();
        const D* seam = d_dev_hist.seam(hist, in, n_in, st);
        // An output at window index ip reads [ip - back, ip + ahead]: it reaches into the
        // history when ip < H + back, and then ends before H + back + ahead < 2H (H >= back +
        // ahead + 1), so the seam (H + min(n_in, H) samples) holds its whole reach.
        const size_t n_seam = count_before(plan, (long long)(Hn + plan.back));
        if (n_seam > 0) {
            kernel::resamp_plan sub = plan;
            sub.n_out = n_seam;
            launch(seam, Hn + std::min(n_in, Hn), out, sub, st);
        }
        if (n_seam < plan.n_out) {
            kernel::resamp_plan rest = plan;
            rest.pos0 = kernel::fx_advance(plan.pos0, plan.step, n_seam);
            rest.pos0.ip -= (long long)Hn; // window index -> index into `in`
            rest.n_out = plan.n_out - n_seam;
            for_each_batch(rest, n_in, [&](size_t k0, size_t cnt, long long lo, size_t n,
                                           const kernel::resamp_plan& sub) {
                (void)cnt;
                launch(in + lo, n, out + n_seam + k0, sub, st);
            });
        }
        d_dev_hist.save(in, used, st);
        d_stream->synchronize();
    }

    void pull_history(kernel::stream_history<H>& hist) override
    {
        device_guard g(d_device);
        d_dev_hist.pull(hist);
    }
    void forget_history() override { d_dev_hist.invalidate(); }

    void set_batch(size_t b) override { d_batch = b; }

    //! Device-resident: relayout (texture) + kernel on data already on the device.
    void launch(const D* dwin,
                size_t n_win,
                D* dout,
                const kernel::resamp_plan& plan,
                cudaStream_t st)
    {
        cudaTextureObject_t tex = 0;
        if (plan.method == resamp_method::texture)
            tex = to_pitch2d(dwin, n_win, st);
        poly_args pa{ d_arms.get(), d_K, d_P, plan.half_span };
        const int threads = 256;
        const int blocks = int(std::max<size_t>(
            1,
            std::min<size_t>((plan.n_out + threads - 1) / threads, size_t(d_sms) * 32)));
        // The kernel's template argument is the method's value (resamp_method order); polyphase
        // runs the tiled kernel where it applies.
        const decltype(&resamp_kernel<D, 0>) by_method[] = {
            resamp_kernel<D, 0>, resamp_kernel<D, 1>, resamp_kernel<D, 2>, resamp_kernel<D, 3>, resamp_kernel<D, 4>
        };
        if (plan.method != resamp_method::polyphase || d_untiled || !launch_tiled(dwin, dout, plan, st))
            by_method[int(plan.method)]<<<blocks, threads, 0, st>>>(
                dwin, dout, plan.n_out, plan.pos0, plan.step, pa, tex);
        GPUINTERP_CUDA_CHECK_LAUNCH(st);
    }

private:
    //! Split the plan's outputs into launches of at most d_batch outputs; each gets the part
    //! [lo, lo + n) of the window (length n_win) it reads and its plan relative to that part.
    template <typename F>
    void for_each_batch(const kernel::resamp_plan& plan, size_t n_win, F&& f)
    {
        const size_t per = std::max<size_t>(1, d_batch);
        for (size_t k0 = 0; k0 < plan.n_out; k0 += per) {
            const size_t cnt = std::min(per, plan.n_out - k0);
            const fx_pos first = kernel::fx_advance(plan.pos0, plan.step, k0);
            const fx_pos lastp = kernel::fx_advance(plan.pos0, plan.step, k0 + cnt - 1);
            const long long lo = std::max<long long>(0, first.ip - (long long)plan.back);
            const long long hi = std::min<long long>(
                (long long)n_win, lastp.ip + (long long)plan.ahead + 1);
            kernel::resamp_plan sub = plan;
            sub.pos0 = { first.ip - lo, first.fp };
            sub.n_out = cnt;
            f(k0, cnt, lo, size_t(hi - lo), sub);
        }
    }

    //! Number of the plan's outputs whose integer position is below `limit`.
    static size_t count_before(const kernel::resamp_plan& plan, long long limit)
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

    //! The tiled polyphase kernel; false (nothing launched) when the arm table and a tile's
    //! span do not fit in shared memory.
    bool
    launch_tiled(const D* dwin, D* dout, const kernel::resamp_plan& plan, cudaStream_t st)
    {
        if (plan.n_out == 0)
            return true;
        constexpr int threads = 256;
        const size_t coef =
            kernel::poly_arm_columns_floats(unsigned(d_K), unsigned(d_P)) * sizeof(float);
        for (size_t tile : { 1024, 256, 64 }) {
            const size_t cap = kernel::poly_tile_cap(plan.step, tile, d_K);
            const size_t bytes = coef + cap * sizeof(D);
            if (bytes > size_t(d_smem_optin))
                continue;
            auto* kern = poly_tiled_kernel<D>;
            // The attribute belongs to the kernel, not to this engine: another engine (other
            // rate) may have lowered it since, so set it before every launch, to the device
            // limit (it only permits; the launch asks for `bytes`).
            GPUINTERP_CUDA_CHECK(cudaFuncSetAttribute(
                kern, cudaFuncAttributeMaxDynamicSharedMemorySize, d_smem_optin));
            if (bytes != d_tiled_bytes) {
                GPUINTERP_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                    &d_tiled_occ, kern, threads, bytes));
                d_tiled_bytes = bytes;
            }
            const size_t n_tiles = (plan.n_out + tile - 1) / tile;
            const int blocks = int(std::max<size_t>(
                1, std::min<size_t>(n_tiles, size_t(d_sms) * std::max(1, d_tiled_occ))));
            kern<<<blocks, threads, bytes, st>>>(dwin,
                                                 dout,
                                                 plan.n_out,
                                                 plan.pos0,
                                                 plan.step,
                                                 d_cols.get(),
                                                 d_K,
                                                 d_P,
                                                 plan.half_span,
                                                 unsigned(tile),
                                                 unsigned(cap));
            return true;
        }
        return false;
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

    int d_device;
    size_t d_batch;
    int d_sms = 1, d_pitch_align = 32, d_max_rows = 65000;
    int d_K = 0, d_P = 0;
    std::unique_ptr<stream> d_stream;
    device_buffer<float> d_arms;
    device_buffer<float> d_cols;
    int d_smem_optin = 48 * 1024, d_tiled_occ = 1;
    size_t d_tiled_bytes = 0;
    bool d_untiled = false;
    device_buffer<D> d_dwin, d_dout;
    pinned_buffer<D> d_hwin, d_hout;
    device_history<D, H> d_dev_hist; // device-buffer mode
    device_buffer<char> d_pitched;
    char* d_pitched_base = nullptr;
    int d_tex_align = 512;
    size_t d_rows_cap = 0;
    texture_object d_tex;
};

} // namespace

template <typename T>
std::unique_ptr<kernel::resamp_engine<T>> make_cuda_resamp_engine(int device,
                                                                  size_t batch)
{
    return std::make_unique<cuda_resamp_engine<device_t<T>, T>>(device, batch);
}

template std::unique_ptr<kernel::resamp_engine<float>>
make_cuda_resamp_engine<float>(int, size_t);
template std::unique_ptr<kernel::resamp_engine<std::complex<float>>>
make_cuda_resamp_engine<std::complex<float>>(int, size_t);

double time_resampler_kernel_ms(int device,
                                kernel::resamp_method m,
                                double rate,
                                size_t n_in,
                                int iters,
                                bool untiled)
{
    using H = std::complex<float>;
    kernel::resampler<H> front(
        rate, m, backend::cpu); // only for the reach and the prototype
    cuda_resamp_engine<float2, H> e(device, n_in);
    e.set_cuda_variant(untiled ? kernel::resamp_cuda_variant::untiled : kernel::resamp_cuda_variant::automatic);
    kernel::polyphase_params pp;
    if (m == resamp_method::polyphase)
        e.set_prototype(front.prototype(),
                        unsigned(kernel::polyphase_taps(pp, std::min(1.0, rate))),
                        pp.nfilts);
    device_guard g(device);
    const size_t H0 = front.reach_back() + 1;
    const size_t n_win = n_in + H0 + front.lookahead();
    std::vector<H> hx(n_win);
    for (size_t i = 0; i < n_win; i++)
        hx[i] = H(float((i * 2654435761u) % 2001) * 1e-3f - 1.0005f,
                  float((i * 40503u) % 1999) * 1e-3f - 0.9995f);
    device_buffer<float2> x(n_win);
    GPUINTERP_CUDA_CHECK(
        cudaMemcpy(x.get(), hx.data(), n_win * sizeof(float2), cudaMemcpyHostToDevice));
    kernel::resamp_plan plan;
    plan.method = m;
    plan.pos0 = { (long long)H0, 0 };
    const double d = 1.0 / rate;
    plan.step = { uint64_t(std::floor(d)), uint64_t(std::ldexp(d - std::floor(d), 64)) };
    plan.n_out = size_t(double(n_in) * rate);
    plan.hist = H0;
    plan.scale = std::min(1.0, rate);
    plan.half_span = int(front.lookahead());
    plan.nfilts = int(pp.nfilts);
    plan.back = front.reach_back();
    plan.ahead = front.lookahead();
    device_buffer<float2> y(plan.n_out);
    stream s;
    return median_launch_ms(s.get(), iters, [&] { e.launch(x.get(), n_win, y.get(), plan, s.get()); });
}

} // namespace gpu
} // namespace gpuinterp
} // namespace gr
