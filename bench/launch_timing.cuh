/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_BENCH_LAUNCH_TIMING_CUH
#define INCLUDED_GPUINTERP_BENCH_LAUNCH_TIMING_CUH

// The one timing rule of the benchmarks' device-resident hooks (kernel_timing.cu,
// resize_timing.cu, bus_timing.cu). Only .cu files include it.

#include "cuda/cuda_common.cuh"
#include <algorithm>
#include <complex>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace gpu {

//! Runs `launch()` on `st` iters + 1 times, each between two events, drops the first run
//! (one-time costs) and returns the median in ms.
template <typename F>
double median_launch_ms(cudaStream_t st, int iters, F&& launch)
{
    event a, b;
    std::vector<float> ms;
    for (int i = 0; i < iters + 1; i++) {
        a.record(st);
        launch();
        b.record(st);
        b.synchronize();
        float t = 0;
        GPUINTERP_CUDA_CHECK(cudaEventElapsedTime(&t, a.get(), b.get()));
        if (i > 0)
            ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

//! `count` complex samples, |x| <= ~0.7, deterministic, on the device: the input of every kernel
//! timing, so their numbers compare.
inline device_buffer<float2> test_signal(size_t count)
{
    std::vector<std::complex<float>> hx(count);
    for (size_t i = 0; i < hx.size(); i++)
        hx[i] = { float((i * 2654435761u) % 1000) * 1e-3f - 0.5f,
                  float((i * 40503u) % 997) * 1e-3f - 0.5f };
    device_buffer<float2> x(count);
    upload(x.get(), hx.data(), hx.size());
    return x;
}

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
