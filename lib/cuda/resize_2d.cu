/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CUDA backend of resize_2d.
//
// Kernels: lib/cuda/resize_kernels.cuh; launch plan: resize_launch.h; this file: the engine. The
// variants `automatic` never picks run only when bench/resize_lab.cu registered them
// (resize_lab.h); so do the timing hooks, which live there.
//
// Host pipeline (resize_2d::resize from host memory): chunks of `batch` frames go through the
// two-slot pinned pipeline of host_pipeline.cuh; the host copies in and out of pinned staging
// both run on several threads (one thread moves ~8 GB/s, far below the ~55 GB/s bus). Frames
// are independent, so no state crosses chunks. The output is staged as bytes: float32 or
// binary16 per call.
#include "../common/env.h"
#include "../common/parallel.h"
#include "bench_hooks.h"
#include "cuda_common.cuh"
#include "cuda_engines.h"
#include "host_pipeline.cuh"
#include "resize_kernels.cuh"
#include "resize_lab.h"
#include "resize_launch.h"
#include <cuda_fp16.h>
#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpuinterp {
namespace gpu {

using namespace rz;

namespace {

bool l2_hint_enabled() { return env::resize_l2_hint(); }

resize_lab_variants& lab_registry()
{
    static resize_lab_variants v;
    return v;
}

void require_registered(resize_variant v)
{
    if (!resize_is_production(v) && !lab_registry().launch)
        throw std::invalid_argument(
            std::string("variant: '") + resize_variant_name(v) +
            "' is a benchmark-only resize variant (bench/resize_lab.cu); "
            "the library runs automatic, tile, vec4_r4, rowcache_r32, "
            "point or point_f4");
}

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
            s.set = cudaDeviceGetLimit(&s.old, cudaLimitMaxL2FetchGranularity) ==
                        cudaSuccess &&
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
            if (cudaGetDevice(&cur) == cudaSuccess &&
                cudaSetDevice(device) == cudaSuccess) {
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
class cuda_resize_engine final : public resize_lab_engine<T>
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
        upload(d_yidx.get(), ytab.idx.data(), ytab.idx.size());
        upload(d_yw.get(), ytab.w.data(), ytab.w.size());
        upload(d_xidx.get(), xi.data(), xi.size());
        upload(d_xw.get(), xwt.data(), xwt.size());
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
        d_pipe.run(
            static_cast<char*>(out),
            n_frames,
            d_batch,
            { 0, in_frame, out_frame * osz },
            [&](T* staged, size_t pos, size_t cnt) {
                cpu::parallel_copy(
                    staged, in + pos * in_frame, cnt * in_frame * sizeof(T));
            },
            [&](const T* x, char* y, size_t cnt, cudaStream_t st) {
                launch(x, y, half, cnt, st);
            });
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

    //! Device-resident launch: d_out holds float or binary16 per `half`.
    void
    launch(const T* d_in, void* d_out, bool half, size_t frames, cudaStream_t st) override
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
        const bool vec_ok =
            s.RW % 4 == 0 && reinterpret_cast<uintptr_t>(d_out) % (4 * osz) == 0;
        const int ov = resize_variant_override();
        const resize_variant req =
            ov != int(resize_variant::automatic) ? resize_variant(ov) : d_variant;
        const resize_plan p = resize_plan_launch(
            req, s.RW, s.out_h, frames, d_sms, vec_ok, d_kx, d_g.out_h >= d_g.in_h, d_sm);
        require_registered(p.variant);
        d_last_variant = p.variant;
        note_resize_variant(int(p.variant));
        // The point variants run the gather-bound shapes (few outputs, each reading ~2
        // scattered 32-byte sectors per source row): with the default 64-byte L2 fetch
        // granularity half of every DRAM fill is wasted. Measured on the H200 (16 x 4K ->
        // 224x224 bilinear): 0.032 ms at 64 B, 0.023 ms at 32 B, 0.034 ms at 128 B. A context
        // setting, held while this engine lives (l2_gather_hint; GPUINTERP_RESIZE_L2_HINT=0
        // turns it off).
        if (!d_l2.held && l2_hint_enabled() &&
            (p.variant == resize_variant::point ||
             p.variant == resize_variant::point_f4)) {
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
            const resize_launch_args a{
                src,        dst, d_yidx.get(), d_yw.get(),          d_xidx.get(),
                d_xw.get(), s,   d_tf,         dim3(g.x, g.y, g.z), dim3(p.bx, p.by),
                st
            };
            if (!resize_is_production(p.variant)) // registered: checked above
                lab_registry().launch(p.variant, d_ky, sizeof(T) == 1, half, a);
            else if (half)
                dispatch<unsigned short>(p.variant, a);
            else
                dispatch<float>(p.variant, a);
        }
    }

    void set_variant(resize_variant v) override
    {
        if (v != resize_variant::automatic)
            require_registered(v);
        d_variant = v;
    }
    const dev_transform& device_transform() const override { return d_tf; }
    cudaStream_t stream0() const override { return d_pipe.stream0(); }
    int multiprocessors() const override { return d_sms; }

private:
    // The production variants; the benchmark-only ones go to the lab's launcher (launch()).
    template <typename O, int K>
    void dispatch_k(resize_variant v, const resize_launch_args& a)
    {
        const auto go = [&](auto kernel) { launch_variant<T, O>(kernel, a); };
        switch (v) {
        case resize_variant::vec4_r4:
            go(resize_vec4_kernel<T, O, K, K, 4, true, false>);
            break;
        case resize_variant::rowcache_r32:
            go(resize_rowcache_kernel<T, O, K, K, 32, 1>);
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
        GPUINTERP_CUDA_CHECK_LAUNCH(a.st);
    }

    template <typename O>
    void dispatch(resize_variant v, const resize_launch_args& a)
    {
        if (d_ky == 1)
            dispatch_k<O, 1>(v, a);
        else if (d_ky == 2)
            dispatch_k<O, 2>(v, a);
        else
            dispatch_k<O, 4>(v, a);
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

void set_resize_lab_variants(const resize_lab_variants& v) { lab_registry() = v; }

std::unique_ptr<resize_lab_engine<float>> make_resize_lab_engine(int device, size_t batch)
{
    return std::make_unique<cuda_resize_engine<float>>(device, batch);
}

} // namespace gpu
} // namespace gpuinterp
} // namespace gr
