/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The timing hooks of the resize benchmarks (resize_lab.h): the lab engine on device-resident
// frames, the separate normalise pass it is compared with, and the gather-free expand floors.
#include "cuda/resize_device.cuh"
#include "launch_timing.cuh"
#include "resize_lab.h"
#include <algorithm>
#include <random>
#include <stdexcept>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace gpu {

using namespace rz;

namespace {

// Stand-alone normaliser, only for the "resize, then normalise" benchmark comparison.
__global__ void normalise_kernel(float* y, long long n, int C, dev_transform tf)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        const int c = int(i % C);
        y[i] = y[i] * pick4(tf.mul, c) + pick4(tf.add, c);
    }
}

// Gather-free 2x2 expands (benchmark floor only, time_resize_expand_floor_ms). Input
// frames of h rows x w4 float4, output 2h rows x 2*w4 float4.
__global__ void expand_out_order_kernel(
    const float2* __restrict__ x, float4* __restrict__ y, long long n_out4, int h, int w4)
{
    const long long ow4 = 2LL * w4;
    for (long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x; j < n_out4;
         j += (long long)gridDim.x * blockDim.x) {
        const long long oy = j / ow4, c = j - oy * ow4;
        const long long f = oy / (2 * h), r = (oy - f * 2 * h) / 2;
        const float2 v = __ldg(x + (f * h + r) * ow4 + c);
        __stcs(y + j, make_float4(v.x, v.x, v.y, v.y));
    }
}

__global__ void
expand_walk_kernel(const float2* __restrict__ x, float4* __restrict__ y, int h, int w4)
{
    constexpr int R = 32;
    const int ow4 = 2 * w4;
    const int c = int(blockIdx.x) * resize_vec_bx + threadIdx.x;
    const int oy0 = (int(blockIdx.y) * resize_vec_by + threadIdx.y) * R;
    const long long f = blockIdx.z;
    if (c >= ow4 || oy0 >= 2 * h)
        return;
    float2 v = make_float2(0.f, 0.f);
#pragma unroll 1
    for (int r = 0; r < R && oy0 + r < 2 * h; r++) {
        const int oy = oy0 + r;
        if (r == 0 || (oy & 1) == 0)
            v = __ldg(x + (f * h + oy / 2) * ow4 + c);
        __stcs(y + (f * 2 * h + oy) * ow4 + c, make_float4(v.x, v.x, v.y, v.y));
    }
}

__global__ void expand_pairs_kernel(const float4* __restrict__ x,
                                    float4* __restrict__ y,
                                    long long n_in4,
                                    int w4)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n_in4;
         i += (long long)gridDim.x * blockDim.x) {
        const long long row = i / w4, c = i - row * w4;
        const float4 v = __ldcs(x + i);
        const float4 a = make_float4(v.x, v.x, v.y, v.y),
                     b = make_float4(v.z, v.z, v.w, v.w);
        float4* o = y + 2 * row * (2LL * w4) + 2 * c;
        __stcs(o, a);
        __stcs(o + 1, b);
        __stcs(o + 2 * w4, a);
        __stcs(o + 2 * w4 + 1, b);
    }
}

} // namespace

int l2_fetch_granularity(int device)
{
    device_guard guard(device);
    size_t v = 0;
    GPUINTERP_CUDA_CHECK(cudaDeviceGetLimit(&v, cudaLimitMaxL2FetchGranularity));
    return int(v);
}

double time_resize_kernel_ms(int device, const resize_timing_request& q, int* ran)
{
    if (q.half_output && q.mode == resize_bench_mode::separate)
        throw std::invalid_argument(
            "half_output: the separate normalise pass works on float32 output");
    device_guard guard(device);
    const auto engine = make_resize_lab_engine<float>(device, q.n_frames);
    resize_lab_engine<float>& e = *engine;
    e.set_variant(q.variant);
    if (q.build)
        e.set_build(*q.build);
    if (q.tuning)
        e.set_tuning(*q.tuning);
    const kernel::resize_geometry g{ q.in_h, q.in_w, q.out_h, q.out_w, q.channels };
    kernel::set_resize_tables(e,
                              g,
                              q.method,
                              kernel::resize_coord::half_pixel,
                              kernel::resize_border::replicate,
                              0.f);
    kernel::resize_transform tf;
    for (int c = 0; c < 4; c++) {
        tf.mean[c] = 0.5f;
        tf.inv_std[c] = 4.0f;
    }
    kernel::resize_transform plain;
    e.set_transform(q.mode == resize_bench_mode::fused ? tf : plain);

    const size_t in_n = q.n_frames * size_t(q.in_h) * q.in_w * q.channels;
    const size_t out_n = q.n_frames * size_t(q.out_h) * q.out_w * q.channels;
    device_buffer<float> x(in_n);
    device_buffer<char> y(out_n * (q.half_output ? 2 : 4));
    {
        std::vector<float> hx(in_n);
        std::mt19937 rng(7);
        std::uniform_real_distribution<float> d(0.f, 1.f);
        for (auto& v : hx)
            v = d(rng);
        upload(x.get(), hx.data(), in_n);
    }
    cudaStream_t st = e.stream();
    // A 17x bilinear shrink reads ~2 scattered 32-byte sectors per output: if L2 fills
    // from DRAM in larger units, most of each fill is wasted (benchmark experiment only).
    struct l2_fetch_scope {
        size_t old = 0;
        bool set = false;
        explicit l2_fetch_scope(int bytes)
        {
            if (bytes <= 0)
                return;
            GPUINTERP_CUDA_CHECK(
                cudaDeviceGetLimit(&old, cudaLimitMaxL2FetchGranularity));
            GPUINTERP_CUDA_CHECK(
                cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, size_t(bytes)));
            set = true;
        }
        ~l2_fetch_scope()
        {
            if (set)
                cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, old);
        }
    } l2_scope(q.l2_fetch_bytes);
    // The separate pass applies what the fused mode folds into the resize kernel.
    const dev_transform normalise = resize_dev_transform(tf);
    const double ms = median_launch_ms(st, q.iters, [&] {
        e.launch(x.get(), y.get(), q.half_output, q.n_frames, st);
        if (q.mode == resize_bench_mode::separate) {
            const long long n = (long long)out_n;
            const int blocks = int(std::min<long long>(
                (n + 255) / 256, (long long)e.multiprocessors() * 16));
            normalise_kernel<<<blocks, 256, 0, st>>>(
                reinterpret_cast<float*>(y.get()), n, q.channels, normalise);
            GPUINTERP_CUDA_CHECK_LAUNCH(st);
        }
    });
    if (ran)
        *ran = e.last_variant();
    return ms;
}

double time_resize_expand_floor_ms(
    int device, int in_h, int in_w, size_t n_frames, int layout, int iters)
{
    if (in_w % 4 != 0 || in_h < 1 || n_frames < 1)
        throw std::invalid_argument(
            "in_w: the expand floor needs a multiple of 4 (and in_h, "
            "n_frames >= 1)");
    if (layout < 0 || layout > 2)
        throw std::invalid_argument("layout: 0, 1 or 2");
    device_guard guard(device);
    const size_t in_n = n_frames * size_t(in_h) * in_w, out_n = 4 * in_n;
    device_buffer<float> x(in_n);
    device_buffer<float> y(out_n);
    GPUINTERP_CUDA_CHECK(cudaMemset(x.get(), 0, in_n * sizeof(float)));
    int sms = 0;
    GPUINTERP_CUDA_CHECK(
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
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
            expand_walk_kernel<<<
                dim3(unsigned((2 * w4 + resize_vec_bx - 1) / resize_vec_bx),
                     unsigned((2 * in_h + resize_vec_by * 32 - 1) / (resize_vec_by * 32)),
                     unsigned(n_frames)),
                dim3(resize_vec_bx, resize_vec_by),
                0,
                st>>>(reinterpret_cast<const float2*>(x.get()),
                      reinterpret_cast<float4*>(y.get()),
                      in_h,
                      w4);
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
