/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CUDA backend of resize_2d.
//
// Kernels: lib/cuda/resize_kernels.cuh; launch plan: resize_launch.h; the parts of an engine
// (tables, transform, the launcher of the library's variants, the L2 hint): resize_device.cuh,
// defined here. The variants `automatic` never picks are not in the library: the benchmarks build
// their own engine from the same parts (bench/resize_lab.cu).
//
// Host pipeline (resize_2d::resize from host memory): chunks of `batch` frames go through the
// two-slot pinned pipeline of host_pipeline.cuh; the host copies in and out of pinned staging
// both run on several threads (one thread moves ~8 GB/s, far below the ~55 GB/s bus). Frames
// are independent, so no state crosses chunks. The output is staged as bytes: float32 or
// binary16 per call.
#include "../common/env.h"
#include "../common/parallel.h"
#include "cuda_common.cuh"
#include "cuda_engines.h"
#include "host_pipeline.cuh"
#include "resize_device.cuh"
#include "resize_kernels.cuh"
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

template <typename O, int K>
void launch_k(resize_variant v, bool in_u8, const resize_launch_args& a)
{
    const auto go = [&](auto k8, auto kf) {
        if (in_u8)
            launch_variant<uint8_t, O>(k8, a);
        else
            launch_variant<float, O>(kf, a);
    };
    switch (v) {
    case resize_variant::tile:
        go(resize_kernel<uint8_t, O, K, K>, resize_kernel<float, O, K, K>);
        break;
    case resize_variant::vec4_r4:
        go(resize_vec4_kernel<uint8_t, O, K, K, 4, true, false>,
           resize_vec4_kernel<float, O, K, K, 4, true, false>);
        break;
    case resize_variant::rowcache_r32:
        go(resize_rowcache_kernel<uint8_t, O, K, K, 32, 1>,
           resize_rowcache_kernel<float, O, K, K, 32, 1>);
        break;
    case resize_variant::point:
        go(resize_point_kernel<uint8_t, O, K, K, 1>,
           resize_point_kernel<float, O, K, K, 1>);
        break;
    case resize_variant::point_f4:
        go(resize_point_kernel<uint8_t, O, K, K, 4>,
           resize_point_kernel<float, O, K, K, 4>);
        break;
    default:
        throw std::invalid_argument(std::string("variant: '") + resize_variant_name(v) +
                                    "' is a benchmark-only resize variant "
                                    "(bench/resize_lab.cu); the library runs "
                                    "tile, vec4_r4, rowcache_r32, point or point_f4");
    }
    GPUINTERP_CUDA_CHECK_LAUNCH(a.st);
}

template <typename O>
void launch_o(resize_variant v, int K, bool in_u8, const resize_launch_args& a)
{
    if (K == 1)
        launch_k<O, 1>(v, in_u8, a);
    else if (K == 2)
        launch_k<O, 2>(v, in_u8, a);
    else
        launch_k<O, 4>(v, in_u8, a);
}

template <typename T>
class cuda_resize_engine final : public kernel::resize_engine<T>
{
public:
    cuda_resize_engine(int device, size_t batch)
        : d_device(device), d_batch(batch), d_pipe(device)
    {
        query_resize_device(d_device, d_sms, d_sm);
    }

    void set_tables(const kernel::resize_geometry& g,
                    const kernel::resize_axis_table& ytab,
                    const kernel::resize_axis_table& xtab,
                    float border_value) override
    {
        device_guard guard(d_device);
        // Nothing is in flight here (run() drains both slots before it returns), so plain
        // synchronous copies cannot race a kernel that reads the old tables.
        d_tab.set(g, ytab, xtab, border_value);
    }

    void set_transform(const kernel::resize_transform& tf) override
    {
        d_tf = resize_dev_transform(tf);
    }

    void set_batch(size_t b) override { d_batch = b; }

    void run(void* out, bool half, const T* in, size_t n_frames) override
    {
        device_guard guard(d_device);
        const size_t in_frame = d_tab.in_frame();
        const size_t out_frame = d_tab.out_frame();
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
        cudaStream_t st = d_pipe.stream0();
        launch(in, out, half, n_frames, st);
        GPUINTERP_CUDA_CHECK(cudaStreamSynchronize(st));
    }

private:
    //! Device-resident launch: d_out holds float or binary16 per `half`.
    void launch(const T* d_in, void* d_out, bool half, size_t frames, cudaStream_t st)
    {
        if (frames == 0)
            return;
        const size_t osz = half ? sizeof(unsigned short) : sizeof(float);
        const resize_plan p =
            d_tab.plan(resize_variant::automatic, d_out, osz, frames, d_sms, d_sm);
        d_l2.note(d_device, p.variant);
        d_tab.for_each_launch(p, d_tf, d_in, d_out, osz, frames, st, [&](const auto& a) {
            launch_resize(p.variant, d_tab.ky(), sizeof(T) == 1, half, a);
        });
    }

    int d_device;
    size_t d_batch;
    int d_sms = 1;
    int d_sm = 90; // compute capability, major * 10 + minor (the tuning row)
    resize_device_tables d_tab;
    dev_transform d_tf = resize_identity_transform;
    // Released after d_pipe waited for the streams.
    resize_l2_hint d_l2;
    // Last member, so destroyed first: its destructor waits for both streams before the tables
    // above are freed.
    host_pipeline<T, char> d_pipe;
};

} // namespace

void resize_device_tables::set(const kernel::resize_geometry& g,
                               const kernel::resize_axis_table& ytab,
                               const kernel::resize_axis_table& xtab,
                               float border_value)
{
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
    d_yidx.reserve(ytab.idx.size());
    d_yw.reserve(ytab.w.size());
    d_xidx.reserve(xi.size());
    d_xw.reserve(xwt.size());
    upload(d_yidx.get(), ytab.idx.data(), ytab.idx.size());
    upload(d_yw.get(), ytab.w.data(), ytab.w.size());
    upload(d_xidx.get(), xi.data(), xi.size());
    upload(d_xw.get(), xwt.data(), xwt.size());
}

dev_transform resize_dev_transform(const kernel::resize_transform& tf)
{
    dev_transform d{};
    for (int c = 0; c < 4; c++) {
        d.mul[c] = tf.clip ? tf.inv_std[c] : tf.scale * tf.inv_std[c];
        d.add[c] = -tf.mean[c] * tf.inv_std[c];
    }
    d.scale = tf.scale;
    d.lo = tf.clip_min;
    d.hi = tf.clip_max;
    d.clip = tf.clip;
    d.identity = tf.identity();
    return d;
}

void launch_resize(
    resize_variant v, int K, bool in_u8, bool half, const resize_launch_args& a)
{
    if (half)
        launch_o<unsigned short>(v, K, in_u8, a);
    else
        launch_o<float>(v, K, in_u8, a);
}

resize_l2_hint::~resize_l2_hint()
{
    if (d_held)
        l2_gather_hint::release(d_device);
}

void resize_l2_hint::note(int device, resize_variant v)
{
    // The point variants run the gather-bound shapes (few outputs, each reading ~2 scattered
    // 32-byte sectors per source row): with the default 64-byte L2 fetch granularity half of
    // every DRAM fill is wasted. Measured on the H200 (16 x 4K -> 224x224 bilinear): 0.032 ms at
    // 64 B, 0.023 ms at 32 B, 0.034 ms at 128 B. A context setting, held while the engine lives.
    if (!d_held && env::resize_l2_hint() &&
        (v == resize_variant::point || v == resize_variant::point_f4)) {
        l2_gather_hint::acquire(device);
        d_device = device;
        d_held = true;
    }
}

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

} // namespace gpu
} // namespace gpuinterp
} // namespace gr
