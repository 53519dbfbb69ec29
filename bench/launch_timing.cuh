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

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
