/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The bus ceiling of bench_flowgraphs (BM_bus_ceiling): pinned copy bandwidth, measured with the
// CUDA runtime directly (declared in bench_util.h).
#include "bench_util.h"
#include "launch_timing.cuh"

namespace gr {
namespace gpuinterp {
namespace gpu {

double cuda_pinned_copy_gbps(int device, size_t bytes, bool h2d, int iters)
{
    device_guard g(device);
    pinned_buffer<char> h;
    h.reserve(bytes);
    device_buffer<char> d(bytes);
    stream s;
    const double ms = median_launch_ms(s.get(), iters, [&] {
        if (h2d)
            GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(
                d.get(), h.get(), bytes, cudaMemcpyHostToDevice, s.get()));
        else
            GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(
                h.get(), d.get(), bytes, cudaMemcpyDeviceToHost, s.get()));
    });
    return double(bytes) / (ms * 1e-3) / 1e9;
}

} // namespace gpu
} // namespace gpuinterp
} // namespace gr
