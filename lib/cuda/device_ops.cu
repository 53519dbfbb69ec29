/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CUDA implementation of the device operations behind cuda_buffer: one non-blocking
// stream per buffer, so its copies are ordered among themselves and overlap everything
// else; waiting is a stream synchronise of that stream only (never cudaDeviceSynchronize,
// which would also wait for every other block's kernels).
#include "../device/device_ops.h"
#include "cuda_common.cuh"
#include <algorithm>
#include <cstring>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace gpu {

namespace {

cudaMemcpyKind kind_of(device::copy_dir d)
{
    switch (d) {
    case device::copy_dir::host_to_device:
        return cudaMemcpyHostToDevice;
    case device::copy_dir::device_to_host:
        return cudaMemcpyDeviceToHost;
    default:
        return cudaMemcpyDeviceToDevice;
    }
}

class cuda_device_ops final : public device::device_ops
{
public:
    explicit cuda_device_ops(int device) : d_device(device)
    {
        device_guard g(d_device);
        d_stream = std::make_unique<stream>();
    }

    ~cuda_device_ops() override
    {
        // The owner frees its memory before destroying this object; only the stream is
        // left.
        if (d_stream)
            cudaStreamSynchronize(d_stream->get());
    }

    device_binding binding() const override { return { memory_kind::cuda, d_device }; }

    void* alloc_device(size_t bytes) override
    {
        device_guard g(d_device);
        void* p = nullptr;
        GPUINTERP_CUDA_CHECK(cudaMalloc(&p, bytes));
        // cudaMemset would run on the legacy default stream, which does not order against
        // this object's non-blocking stream: zero on our stream and wait.
        cudaError_t e = cudaMemsetAsync(p, 0, bytes, d_stream->get());
        if (e == cudaSuccess)
            e = cudaStreamSynchronize(d_stream->get());
        if (e != cudaSuccess) {
            cudaFree(p);
            GPUINTERP_CUDA_CHECK(e);
        }
        return track(p, bytes, true);
    }

    void free_device(void* p) noexcept override
    {
        if (!p)
            return;
        int prev = 0;
        cudaGetDevice(&prev);
        cudaSetDevice(d_device);
        cudaFree(p);
        cudaSetDevice(prev);
        untrack(p, true);
    }

    void* alloc_host(size_t bytes) override
    {
        device_guard g(d_device);
        void* p = nullptr;
        GPUINTERP_CUDA_CHECK(cudaHostAlloc(&p, bytes, cudaHostAllocPortable));
        std::memset(p, 0, bytes);
        return track(p, bytes, false);
    }

    void free_host(void* p) noexcept override
    {
        if (!p)
            return;
        cudaFreeHost(p);
        untrack(p, false);
    }

    void
    copy_async(void* dst, const void* src, size_t bytes, device::copy_dir dir) override
    {
        if (bytes == 0)
            return;
        device_guard g(d_device);
        GPUINTERP_CUDA_CHECK(
            cudaMemcpyAsync(dst, src, bytes, kind_of(dir), d_stream->get()));
    }

    void move_device_async(void* dst, const void* src, size_t bytes) override
    {
        if (bytes == 0 || dst == src)
            return;
        device_guard g(d_device);
        cudaStream_t st = d_stream->get();
        auto* d = static_cast<char*>(dst);
        const auto* s = static_cast<const char*>(src);
        const size_t gap = d > s ? size_t(d - s) : size_t(s - d);
        if (gap >= bytes) { // disjoint
            GPUINTERP_CUDA_CHECK(
                cudaMemcpyAsync(d, s, bytes, cudaMemcpyDeviceToDevice, st));
            return;
        }
        // cudaMemcpy on overlapping ranges is undefined. Chunks no larger than the gap,
        // issued in the direction of the move on one stream, never read what an earlier
        // chunk wrote; when that would take many small copies, go through a scratch
        // buffer instead.
        if (gap * 16 >= bytes) {
            const size_t n = (bytes + gap - 1) / gap;
            for (size_t i = 0; i < n; i++) {
                const size_t k = d < s ? i : n - 1 - i;
                const size_t off = k * gap;
                const size_t len = std::min(gap, bytes - off);
                GPUINTERP_CUDA_CHECK(
                    cudaMemcpyAsync(d + off, s + off, len, cudaMemcpyDeviceToDevice, st));
            }
            return;
        }
        d_scratch.reserve(bytes);
        GPUINTERP_CUDA_CHECK(
            cudaMemcpyAsync(d_scratch.get(), s, bytes, cudaMemcpyDeviceToDevice, st));
        GPUINTERP_CUDA_CHECK(
            cudaMemcpyAsync(d, d_scratch.get(), bytes, cudaMemcpyDeviceToDevice, st));
    }

    void wait() override { GPUINTERP_CUDA_CHECK(cudaStreamSynchronize(d_stream->get())); }

private:
    //! Counts a new allocation (device memory or pinned host memory) in the diagnostics.
    void* track(void* p, size_t bytes, bool on_device)
    {
        device::note_alloc(memory_kind::cuda, on_device, bytes);
        d_sizes.emplace_back(p, bytes);
        return p;
    }
    //! Counts the allocation at p as freed.
    void untrack(void* p, bool on_device) noexcept
    {
        size_t bytes = 0;
        for (auto it = d_sizes.begin(); it != d_sizes.end(); ++it)
            if (it->first == p) {
                bytes = it->second;
                d_sizes.erase(it);
                break;
            }
        device::note_free(memory_kind::cuda, on_device, bytes);
    }

    int d_device;
    std::unique_ptr<stream> d_stream;
    device_buffer<char> d_scratch;
    std::vector<std::pair<void*, size_t>>
        d_sizes; // a buffer makes two or three allocations
};

//! Peer access is enabled once per ordered device pair, when the hardware allows it;
//! otherwise cudaMemcpyPeer still works, staged through the host by the driver.
void enable_peer(int dst, int src)
{
    static std::mutex m;
    static std::set<std::pair<int, int>> done;
    std::lock_guard<std::mutex> lock(m);
    if (!done.insert({ dst, src }).second)
        return;
    int can = 0;
    if (cudaDeviceCanAccessPeer(&can, dst, src) != cudaSuccess || !can) {
        cudaGetLastError();
        return;
    }
    device_guard g(dst);
    const cudaError_t e = cudaDeviceEnablePeerAccess(src, 0);
    if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled)
        GPUINTERP_CUDA_CHECK(e);
    cudaGetLastError();
}

} // namespace

std::unique_ptr<device::device_ops> make_cuda_device_ops(int device)
{
    return std::make_unique<cuda_device_ops>(device);
}

void cuda_copy_between(const device_binding& dst_b,
                       void* dst,
                       const device_binding& src_b,
                       const void* src,
                       size_t bytes)
{
    if (bytes == 0)
        return;
    // The result is read by kernels on other (non-blocking) streams right after this
    // returns, so the copy must be complete, not merely issued: cudaMemcpyPeer and
    // pageable cudaMemcpy may return before their DMA finishes. Copy on the legacy stream
    // and wait for that stream only.
    if (dst_b.kind == memory_kind::cuda && src_b.kind == memory_kind::cuda &&
        dst_b.device != src_b.device) {
        enable_peer(dst_b.device, src_b.device);
        device_guard g(dst_b.device);
        GPUINTERP_CUDA_CHECK(
            cudaMemcpyPeerAsync(dst, dst_b.device, src, src_b.device, bytes, 0));
        GPUINTERP_CUDA_CHECK(cudaStreamSynchronize(0));
        return;
    }
    // Simulated memory is ordinary host memory: unified addressing tells the driver the
    // direction.
    device_guard g(dst_b.kind == memory_kind::cuda ? dst_b.device : src_b.device);
    GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, 0));
    GPUINTERP_CUDA_CHECK(cudaStreamSynchronize(0));
}

std::pair<size_t, size_t> cuda_mem_info(int device)
{
    device_guard g(device);
    size_t free_b = 0, total = 0;
    GPUINTERP_CUDA_CHECK(cudaMemGetInfo(&free_b, &total));
    return { free_b, total };
}

} // namespace gpu
} // namespace gpuinterp
} // namespace gr
