/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The mp/gmp kernel alone on device-resident data, for bench_kernels: the library's launch plan
// (lib/cuda/gmp_launch.h) driven directly, without an engine's staging or history seam.
#include "cuda/cuda_common.cuh"
#include "cuda/gmp_launch.h"
#include "gmp_timing.h"
#include <complex>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace gpu {

double time_gmp_kernel_ms(int device, const kernel::gmp_program& program, size_t n, int iters)
{
    device_guard guard(device);
    const gmp_blob b = flatten(program);
    const gmp_plan plan = plan_gmp(b, device);
    device_buffer<int4> blob(b.words.size() / 4);
    GPUINTERP_CUDA_CHECK(cudaMemcpy(blob.get(), b.words.data(), b.words.size() * sizeof(int), cudaMemcpyHostToDevice));
    // H samples of history ahead of the n inputs, |x| <= ~0.7, deterministic.
    std::vector<std::complex<float>> hx(n + program.H);
    for (size_t i = 0; i < hx.size(); i++)
        hx[i] = { float((i * 2654435761u) % 1000) * 1e-3f - 0.5f, float((i * 40503u) % 997) * 1e-3f - 0.5f };
    device_buffer<float2> x(hx.size()), y(n);
    GPUINTERP_CUDA_CHECK(cudaMemcpy(x.get(), hx.data(), hx.size() * sizeof(float2), cudaMemcpyHostToDevice));
    stream s;
    return median_launch_ms(s.get(), iters, [&] { launch_gmp(plan, b, blob.get(), x.get(), y.get(), n, s.get()); });
}

} // namespace gpu
} // namespace gpuinterp
} // namespace gr
