/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_GPU_HOST_PUBLISH_CUH
#define INCLUDED_GPUINTERP_GPU_HOST_PUBLISH_CUH

// A few device words (the sc16 counters) to pinned host memory with the stores of a one-block
// kernel instead of a device-to-host cudaMemcpyAsync. The reason was the transmit chain ending
// in sc16 on the H200: with a 16-byte copy per call its device-buffer rows ran well below the
// fc32 ones, and with these stores they did not (docs/performance.md, "The call after the
// counters moved off the copy engine"). The suspected mechanism, the small copy queueing behind
// the device buffers' bulk copies in the copy engine, is not confirmed: a later probe of the two
// in isolation, with bulk copies queued on other streams, found neither waiting for them (same
// file, "What the sc16 chain's extra work() time is not"). A kernel's stores to host memory do
// not use the copy engines. Pinned memory from cudaHostAlloc is addressable from the device
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
