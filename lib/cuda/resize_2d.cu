/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CUDA backend of resize_2d.
//
// Kernels: lib/cuda/resize_kernels.cuh; launch plan: resize_launch.h; this file: the engine.
//
// Host pipeline (resize_2d::resize from host memory): chunks of `batch` frames go through the
// two-slot pinned pipeline of host_pipeline.cuh; the host copies in and out of pinned staging
// both run on several threads (one thread moves ~8 GB/s, far below the ~55 GB/s bus). Frames
// are independent, so no state crosses chunks. The output is staged as bytes: float32 or
// binary16 per call.
#include "../common/env.h"
#include "../common/parallel.h"
#include "bench_hooks.h"
#include "cuda_engines.h"
#include "cuda_common.cuh"
#include "host_pipeline.cuh"
#include "resize_kernels.cuh"
#include "resize_launch.h"
#include <cuda_fp16.h>
#include <algorithm>
#include <cstdint>
#include <climits>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <random>

namespace gr {
namespace gpuinterp {
namespace gpu {

using namespace rz;

namespace {

bool l2_hint_enabled() { return env::resize_l2_hint(); }

/*!
 * The context's L2 fetch granularity set to 32 bytes while at least one engine that runs
 * gather-bound launches is alive on a device, then restored (process-wide reference count per
 * device). Why not around each launch: cudaDeviceSetLimit costs ~0.3-0.4 ms of host time per
 * call on the H200 host (it does not wait for running kernels), 15x the 0.023 ms kernel it
 * speeds up. A streaming kernel is unaffected by the hint (measured: docs/performance.md).
 */
class l2_gather_hint
{
public:
    static void acquire(int device)
    {
        std::lock_guard<std::mutex> lock(mutex());
        state& s = states()[device];
        if (s.users == 0) {
            device_guard guard(device); // may throw: then nothing was counted
            s.set = cudaDeviceGetLimit(&s.old, cudaLimitMaxL2FetchGranularity) == cudaSuccess &&
                    s.old != 32 &&
                    cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, 32) == cudaSuccess;
        }
        s.users++;
    }
    static void release(int device) noexcept
    {
        std::lock_guard<std::mutex> lock(mutex());
        state& s = states()[device];
        if (s.users > 0 && --s.users == 0 && s.set) {
            int cur = 0;
            if (cudaGetDevice(&cur) == cudaSuccess && cudaSetDevice(device) == cudaSuccess) {
                cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, s.old);
                cudaSetDevice(cur);
            }
            s.set = false;
        }
    }

private:
    struct state {
        int users = 0;
        size_t old = 0;
        bool set = false;
    };
    static std::mutex& mutex()
    {
        static std::mutex m;
        return m;
    }
    static std::map<int, state>& states()
    {
        static std::map<int, state> m;
        return m;
    }
};

template <typename T>
class cuda_resize_engine final : public kernel::resize_engine<T>
{
public:
    cuda_resize_engine(int device, size_t batch)
        : d_device(device), d_batch(batch), d_pipe(device)
    {
        device_guard guard(d_device);
        GPUINTERP_CUDA_CHECK(
            cudaDeviceGetAttribute(&d_sms, cudaDevAttrMultiProcessorCount, device));
        int major = 0, minor = 0;
        GPUINTERP_CUDA_CHECK(
            cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
        GPUINTERP_CUDA_CHECK(
            cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
        d_sm = major * 10 + minor;
    }

    void set_tables(const kernel::resize_geometry& g,
                    const kernel::resize_axis_table& ytab,
                    const kernel::resize_axis_table& xtab,
                    float border_value) override
    {
        device_guard guard(d_device);
        d_g = g;
        d_ky = ytab.taps;
        d_kx = xtab.taps;
        d_bv = border_value;
        const size_t C = size_t(g.channels), RW = size_t(g.out_w) * C;
        std::vector<int> xi(RW * d_kx);
        std::vector<float> xwt(RW * d_kx);
        for (int ox = 0; ox < g.out_w; ox++)
            for (int k = 0; k < d_kx; k++) {
                const int ix = xtab.idx[size_t(ox) * d_kx + k];
                for (size_t c = 0; c < C; c++) {
                    xi[k * RW + ox * C + c] = ix < 0 ? -1 : int(size_t(ix) * C + c);
                    xwt[k * RW + ox * C + c] = xtab.w[size_t(ox) * d_kx + k];
                }
            }
        // Nothing is in flight here (run() drains both slots before it returns), so plain
        // synchronous copies cannot race a kernel that reads the old tables.
        d_yidx.reserve(ytab.idx.size());
        d_yw.reserve(ytab.w.size());
        d_xidx.reserve(xi.size());
        d_xw.reserve(xwt.size());
        GPUINTERP_CUDA_CHECK(cudaMemcpy(d_yidx.get(),
                                        ytab.idx.data(),
                                        ytab.idx.size() * sizeof(int),
                                        cudaMemcpyHostToDevice));
        GPUINTERP_CUDA_CHECK(cudaMemcpy(d_yw.get(),
                                        ytab.w.data(),
                                        ytab.w.size() * sizeof(float),
                                        cudaMemcpyHostToDevice));
        GPUINTERP_CUDA_CHECK(cudaMemcpy(
            d_xidx.get(), xi.data(), xi.size() * sizeof(int), cudaMemcpyHostToDevice));
        GPUINTERP_CUDA_CHECK(cudaMemcpy(
            d_xw.get(), xwt.data(), xwt.size() * sizeof(float), cudaMemcpyHostToDevice));
    }

    void set_transform(const kernel::resize_transform& tf) override
    {
        for (int c = 0; c < 4; c++) {
            d_tf.mul[c] = tf.clip ? tf.inv_std[c] : tf.scale * tf.inv_std[c];
            d_tf.add[c] = -tf.mean[c] * tf.inv_std[c];
        }
        d_tf.scale = tf.scale;
        d_tf.lo = tf.clip_min;
        d_tf.hi = tf.clip_max;
        d_tf.clip = tf.clip;
        d_tf.identity = tf.identity();
    }

    void set_batch(size_t b) override { d_batch = b; }

    void run(void* out, bool half, const T* in, size_t n_frames) override
    {
        device_guard guard(d_device);
        const size_t in_frame = size_t(d_g.in_h) * d_g.in_w * d_g.channels;
        const size_t out_frame = size_t(d_g.out_h) * d_g.out_w * d_g.channels;
        const size_t osz = half ? sizeof(unsigned short) : sizeof(float);
        d_pipe.run(static_cast<char*>(out), n_frames, d_batch, { 0, in_frame, out_frame * osz },
                   [&](T* staged, size_t pos, size_t cnt) {
                       cpu::parallel_copy(staged, in + pos * in_frame, cnt * in_frame * sizeof(T));
                   },
                   [&](const T* x, char* y, size_t cnt, cudaStream_t st) { launch(x, y, half, cnt, st); });
    }

    // Device-buffer entry point: one launch on device pointers (no history: frames are independent),
    // then a synchronise of this engine's stream only.
    void run_device(void* out, bool half, const T* in, size_t n_frames) override
    {
        device_guard guard(d_device);
        cudaStream_t st = stream0();
        launch(in, out, half, n_frames, st);
        GPUINTERP_CUDA_CHECK(cudaStreamSynchronize(st));
    }

    //! Device-resident launch (benchmarks): d_out holds float or binary16 per `half`.
    void launch(const T* d_in, void* d_out, bool half, size_t frames, cudaStream_t st)
    {
        if (frames == 0)
            return;
        launch_shape s{};
        s.in_row = d_g.in_w * d_g.channels;
        s.in_h = d_g.in_h;
        s.RW = d_g.out_w * d_g.channels;
        s.out_h = d_g.out_h;
        s.C = d_g.channels;
        s.in_frame = (long long)d_g.in_h * s.in_row;
        s.out_frame = (long long)d_g.out_h * s.RW;
        s.border_value = d_bv;
        const size_t osz = half ? sizeof(unsigned short) : sizeof(float);
        // Device buffers are 256-byte aligned; with RW % 4 == 0 every row (and every
        // frame) then starts on a 16-byte (float) / 8-byte (binary16) boundary.
        const bool vec_ok = s.RW % 4 == 0 &&
                            reinterpret_cast<uintptr_t>(d_out) % (4 * osz) == 0;
        const int ov = resize_variant_override();
        const resize_variant req =
            ov != int(resize_variant::automatic) ? resize_variant(ov) : d_variant;
        const resize_plan p = resize_plan_launch(
            req, s.RW, s.out_h, frames, d_sms, vec_ok, d_kx, d_g.out_h >= d_g.in_h, d_sm);
        d_last_variant = p.variant;
        note_resize_variant(int(p.variant));
        // The point variants run the gather-bound shapes (few outputs, each reading ~2
        // scattered 32-byte sectors per source row): with the default 64-byte L2 fetch
        // granularity half of every DRAM fill is wasted. Measured on the H200 (16 x 4K ->
        // 224x224 bilinear): 0.032 ms at 64 B, 0.023 ms at 32 B, 0.034 ms at 128 B. A context
        // setting, held while this engine lives (l2_gather_hint; GPUINTERP_RESIZE_L2_HINT=0
        // turns it off).
        if (!d_l2.held && l2_hint_enabled() &&
            (p.variant == resize_variant::point || p.variant == resize_variant::point_f4)) {
            l2_gather_hint::acquire(d_device);
            d_l2.device = d_device;
            d_l2.held = true;
        }
        s.tiles_x = p.tiles_x;
        s.rows = p.rows;
        s.row_groups = p.row_groups;
        for (size_t f0 = 0; f0 < frames; f0 += p.frames_per_launch) {
            const size_t nf = std::min(p.frames_per_launch, frames - f0);
            s.frames = int(nf);
            const T* src = d_in + f0 * size_t(s.in_frame);
            void* dst = static_cast<char*>(d_out) + f0 * size_t(s.out_frame) * osz;
            const resize_grid g = resize_grid_for(p, nf);
            const dim3 grid(g.x, g.y, g.z), block(p.bx, p.by);
            if (half)
                dispatch<unsigned short>(
                    src, static_cast<unsigned short*>(dst), s, p.variant, grid, block, st);
            else
                dispatch<float>(
                    src, static_cast<float*>(dst), s, p.variant, grid, block, st);
        }
    }

    void set_variant(resize_variant v) { d_variant = v; }
    resize_variant last_variant() const { return d_last_variant; }

    void launch_normalise(float* y, size_t frames, cudaStream_t st)
    {
        const long long n = (long long)frames * d_g.out_h * d_g.out_w * d_g.channels;
        const int blocks =
            int(std::min<long long>((n + 255) / 256, (long long)d_sms * 16));
        normalise_kernel<<<blocks, 256, 0, st>>>(y, n, d_g.channels, d_tf);
        GPUINTERP_CUDA_CHECK_LAUNCH(st);
    }

    cudaStream_t stream0() const { return d_pipe.stream0(); }

private:
    template <typename O, int K>
    void dispatch_k(const T* in,
                    O* out,
                    const launch_shape& s,
                    resize_variant v,
                    dim3 grid,
                    dim3 block,
                    cudaStream_t st)
    {
        // Every variant takes the same arguments.
        const auto go = [&](auto kernel) {
            kernel<<<grid, block, 0, st>>>(
                in, out, d_yidx.get(), d_yw.get(), d_xidx.get(), d_xw.get(), s, d_tf);
        };
        switch (v) {
        case resize_variant::vec4_r1:
            go(resize_vec4_kernel<T, O, K, K, 1, true, false>);
            break;
        case resize_variant::vec4_r2:
            go(resize_vec4_kernel<T, O, K, K, 2, true, false>);
            break;
        case resize_variant::vec4_r2_plain:
            go(resize_vec4_kernel<T, O, K, K, 2, false, false>);
            break;
        case resize_variant::vec4_r4:
            go(resize_vec4_kernel<T, O, K, K, 4, true, false>);
            break;
        case resize_variant::strided_r2:
            go(resize_vec4_kernel<T, O, K, K, 2, true, true>);
            break;
        case resize_variant::strided_r4:
            go(resize_vec4_kernel<T, O, K, K, 4, true, true>);
            break;
        case resize_variant::rowcache_r8:
            go(resize_rowcache_kernel<T, O, K, K, 8, 1>);
            break;
        case resize_variant::rowcache_r16:
            go(resize_rowcache_kernel<T, O, K, K, 16, 1>);
            break;
        case resize_variant::rowcache_r32:
            go(resize_rowcache_kernel<T, O, K, K, 32, 1>);
            break;
        case resize_variant::rowcache_w8:
            // The plan runs rowcache_r8 for bicubic taps (register budget).
            if constexpr (K <= 2)
                go(resize_rowcache_kernel<T, O, K, K, 8, 2>);
            else
                throw std::logic_error("resize: rowcache_w8 planned for bicubic taps");
            break;
        case resize_variant::staged_r8:
            go(resize_staged_kernel<T, O, K, K, 8>);
            break;
        case resize_variant::staged_r16:
            go(resize_staged_kernel<T, O, K, K, 16>);
            break;
        case resize_variant::point:
            go(resize_point_kernel<T, O, K, K, 1>);
            break;
        case resize_variant::point_f4:
            go(resize_point_kernel<T, O, K, K, 4>);
            break;
        default:
            go(resize_kernel<T, O, K, K>);
            break;
        }
        GPUINTERP_CUDA_CHECK_LAUNCH(st);
    }

    template <typename O>
    void dispatch(const T* in,
                  O* out,
                  const launch_shape& s,
                  resize_variant v,
                  dim3 grid,
                  dim3 block,
                  cudaStream_t st)
    {
        if (d_ky == 1)
            dispatch_k<O, 1>(in, out, s, v, grid, block, st);
        else if (d_ky == 2)
            dispatch_k<O, 2>(in, out, s, v, grid, block, st);
        else
            dispatch_k<O, 4>(in, out, s, v, grid, block, st);
    }

    int d_device;
    size_t d_batch;
    int d_sms = 1;
    int d_sm = 90; // compute capability, major * 10 + minor (the tuning row)
    kernel::resize_geometry d_g;
    int d_ky = 1, d_kx = 1;
    float d_bv = 0;
    dev_transform d_tf{ { 1, 1, 1, 1 }, { 0, 0, 0, 0 }, 1, 0, 1, 0, 1 };
    device_buffer<int> d_yidx, d_xidx;
    device_buffer<float> d_yw, d_xw;
    resize_variant d_variant = resize_variant::automatic;
    resize_variant d_last_variant = resize_variant::automatic;
    // Holds the L2 fetch-granularity hint (released after d_pipe waited for the streams).
    struct l2_hint_holder {
        int device = 0;
        bool held = false;
        ~l2_hint_holder()
        {
            if (held)
                l2_gather_hint::release(device);
        }
    } d_l2;
    // Last member, so destroyed first: its destructor waits for both streams before the tables
    // above are freed.
    host_pipeline<T, char> d_pipe;
};

} // namespace

template <typename T>
std::unique_ptr<kernel::resize_engine<T>> make_cuda_resize_engine(int device,
                                                                  size_t batch)
{
    return std::make_unique<cuda_resize_engine<T>>(device, batch);
}

template std::unique_ptr<kernel::resize_engine<float>>
make_cuda_resize_engine<float>(int, size_t);
template std::unique_ptr<kernel::resize_engine<uint8_t>>
make_cuda_resize_engine<uint8_t>(int, size_t);

int l2_fetch_granularity(int device)
{
    device_guard guard(device);
    size_t v = 0;
    GPUINTERP_CUDA_CHECK(cudaDeviceGetLimit(&v, cudaLimitMaxL2FetchGranularity));
    return int(v);
}

double time_resize_kernel_ms(int device,
                             int in_h,
                             int in_w,
                             int out_h,
                             int out_w,
                             int channels,
                             kernel::resize_method method,
                             size_t n_frames,
                             resize_bench_mode mode,
                             bool half_output,
                             int iters,
                             int variant,
                             int l2_fetch_bytes)
{
    if (half_output && mode == resize_bench_mode::separate)
        throw std::invalid_argument(
            "half_output: the separate normalise pass works on float32 output");
    device_guard guard(device);
    cuda_resize_engine<float> e(device, n_frames);
    e.set_variant(resize_variant(variant));
    kernel::resize_geometry g;
    g.in_h = in_h;
    g.in_w = in_w;
    g.out_h = out_h;
    g.out_w = out_w;
    g.channels = channels;
    using kernel::resize_border;
    using kernel::resize_coord;
    e.set_tables(
        g,
        kernel::resize_make_axis_table(
            in_h, out_h, method, resize_coord::half_pixel, resize_border::replicate),
        kernel::resize_make_axis_table(
            in_w, out_w, method, resize_coord::half_pixel, resize_border::replicate),
        0.f);
    kernel::resize_transform tf;
    for (int c = 0; c < 4; c++) {
        tf.mean[c] = 0.5f;
        tf.inv_std[c] = 4.0f;
    }
    kernel::resize_transform plain;
    e.set_transform(mode == resize_bench_mode::fused ? tf : plain);

    const size_t in_n = n_frames * size_t(in_h) * in_w * channels;
    const size_t out_n = n_frames * size_t(out_h) * out_w * channels;
    device_buffer<float> x(in_n);
    device_buffer<char> y(out_n * (half_output ? 2 : 4));
    {
        std::vector<float> hx(in_n);
        std::mt19937 rng(7);
        std::uniform_real_distribution<float> d(0.f, 1.f);
        for (auto& v : hx)
            v = d(rng);
        GPUINTERP_CUDA_CHECK(
            cudaMemcpy(x.get(), hx.data(), in_n * sizeof(float), cudaMemcpyHostToDevice));
    }
    cudaStream_t st = e.stream0();
    // A 17x bilinear shrink reads ~2 scattered 32-byte sectors per output: if L2 fills
    // from DRAM in larger units, most of each fill is wasted (benchmark experiment only).
    struct l2_fetch_scope {
        size_t old = 0;
        bool set = false;
        explicit l2_fetch_scope(int bytes)
        {
            if (bytes <= 0)
                return;
            GPUINTERP_CUDA_CHECK(cudaDeviceGetLimit(&old, cudaLimitMaxL2FetchGranularity));
            GPUINTERP_CUDA_CHECK(
                cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, size_t(bytes)));
            set = true;
        }
        ~l2_fetch_scope()
        {
            if (set)
                cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, old);
        }
    } l2_scope(l2_fetch_bytes);
    return median_launch_ms(st, iters, [&] {
        e.launch(x.get(), y.get(), half_output, n_frames, st);
        if (mode == resize_bench_mode::separate) {
            e.set_transform(tf);
            e.launch_normalise(reinterpret_cast<float*>(y.get()), n_frames, st);
            e.set_transform(plain);
        }
    });
}

double time_resize_expand_floor_ms(int device, int in_h, int in_w, size_t n_frames, int layout, int iters)
{
    if (in_w % 4 != 0 || in_h < 1 || n_frames < 1)
        throw std::invalid_argument("in_w: the expand floor needs a multiple of 4 (and in_h, "
                                    "n_frames >= 1)");
    if (layout < 0 || layout > 2)
        throw std::invalid_argument("layout: 0, 1 or 2");
    device_guard guard(device);
    const size_t in_n = n_frames * size_t(in_h) * in_w, out_n = 4 * in_n;
    device_buffer<float> x(in_n);
    device_buffer<float> y(out_n);
    GPUINTERP_CUDA_CHECK(cudaMemset(x.get(), 0, in_n * sizeof(float)));
    int sms = 0;
    GPUINTERP_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    cudaStream_t st = nullptr;
    const int w4 = in_w / 4;
    return median_launch_ms(st, iters, [&] {
        if (layout == 0)
            expand_out_order_kernel<<<unsigned(sms) * 8, 256, 0, st>>>(
                reinterpret_cast<const float2*>(x.get()),
                reinterpret_cast<float4*>(y.get()),
                (long long)(out_n / 4),
                in_h,
                w4);
        else if (layout == 1)
            expand_walk_kernel<<<dim3(unsigned((2 * w4 + resize_vec_bx - 1) / resize_vec_bx),
                                      unsigned((2 * in_h + resize_vec_by * 32 - 1) /
                                               (resize_vec_by * 32)),
                                      unsigned(n_frames)),
                                 dim3(resize_vec_bx, resize_vec_by),
                                 0,
                                 st>>>(
                reinterpret_cast<const float2*>(x.get()), reinterpret_cast<float4*>(y.get()), in_h, w4);
        else
            expand_pairs_kernel<<<unsigned(sms) * 8, 256, 0, st>>>(
                reinterpret_cast<const float4*>(x.get()),
                reinterpret_cast<float4*>(y.get()),
                (long long)(in_n / 4),
                w4);
        GPUINTERP_CUDA_CHECK(cudaGetLastError());
    });
}

} // namespace gpu
} // namespace gpuinterp
} // namespace gr
