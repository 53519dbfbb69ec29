/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_GPU_HOST_PUBLISH_CUH
#define INCLUDED_GPUINTERP_GPU_HOST_PUBLISH_CUH

// A few device words (the sc16 counters) to pinned host memory with the stores of a one-block
// kernel instead of a device-to-host cudaMemcpyAsync. The GPU moves device-to-host copies
// through one copy engine in submission order, so a small copy queued behind the bulk copies of
// GNU Radio's device buffers (a chain's output leaving for a host block, megabytes per call)
// waits for all of them: each work() call would end only when the previous call's output had
// crossed the bus, and kernels and transfers stop overlapping. A kernel's stores to host memory
// do not use the copy engines. Pinned memory from cudaHostAlloc is addressable from the device
// under unified addressing (every 64-bit platform CUDA supports), so the host pointer is passed
// as it is; after the stream is synchronised the host reads the values.

#include "cuda_common.cuh"

namespace gr {
namespace gpuinterp {
namespace gpu {

namespace {
__global__ void
publish_kernel(const unsigned long long* __restrict__ src, unsigned long long* dst, int n)
{
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        dst[i] = src[i];
}
} // namespace

//! Queue the copy of n words from `src` (device) to `dst` (pinned host) on `st`.
inline void publish_to_host(const unsigned long long* src,
                            unsigned long long* dst,
                            int n,
                            cudaStream_t st)
{
    if (n <= 0)
        return;
    publish_kernel<<<1, 128, 0, st>>>(src, dst, n);
    GPUINTERP_CUDA_CHECK_LAUNCH(st);
}

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
