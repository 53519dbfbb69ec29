/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_GPU_CUDA_COMMON_CUH
#define INCLUDED_GPUINTERP_GPU_CUDA_COMMON_CUH

// Shared CUDA plumbing for every .cu file: one checking macro, RAII owners for streams, events,
// device and pinned host buffers. Only .cu files include this header.

#include <gnuradio/gpuinterp/kernel/backend.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace gpu {

[[noreturn]] void
throw_cuda_error(cudaError_t err, const char* expr, const char* file, int line);

//! Opt-in debugging: GPUINTERP_CUDA_SYNC=1 synchronises after every launch so an asynchronous fault
//! is reported at the launch that caused it.
bool debug_sync_enabled();

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#define GPUINTERP_CUDA_CHECK(expr)                          \
    do {                                                    \
        cudaError_t gpuinterp_err_ = (expr);                \
        if (gpuinterp_err_ != cudaSuccess)                  \
            ::gr::gpuinterp::gpu::throw_cuda_error(         \
                gpuinterp_err_, #expr, __FILE__, __LINE__); \
    } while (0)

//! After every kernel launch: reports launch-configuration errors, and with the debug switch the fault.
#define GPUINTERP_CUDA_CHECK_LAUNCH(stream)                      \
    do {                                                         \
        GPUINTERP_CUDA_CHECK(cudaGetLastError());                \
        if (::gr::gpuinterp::gpu::debug_sync_enabled())          \
            GPUINTERP_CUDA_CHECK(cudaStreamSynchronize(stream)); \
    } while (0)

namespace gr {
namespace gpuinterp {
namespace gpu {

//! Makes `device` current for the lifetime of the guard and restores the previous device after.
class device_guard
{
public:
    explicit device_guard(int device)
    {
        GPUINTERP_CUDA_CHECK(cudaGetDevice(&d_prev));
        if (d_prev != device)
            GPUINTERP_CUDA_CHECK(cudaSetDevice(device));
    }
    ~device_guard() { cudaSetDevice(d_prev); }
    device_guard(const device_guard&) = delete;
    device_guard& operator=(const device_guard&) = delete;

private:
    int d_prev = 0;
};

//! Compute capability of `device` as major * 10 + minor (90 for sm_90): what selects a kernel
//! family's tuning row (arch_tuning.h) and what the compiled mp/gmp kernel is built for.
//! One attribute of `device` (cudaDeviceGetAttribute), checked: what the plans read of a device.
inline int device_attribute(cudaDeviceAttr attr, int device)
{
    int v = 0;
    GPUINTERP_CUDA_CHECK(cudaDeviceGetAttribute(&v, attr, device));
    return v;
}

//! Blocks of a launch over `n` items, `per_block` to a block: enough to cover them, but at most
//! `max_blocks` (what the plan found resident on the device), the blocks then striding over the
//! rest.
inline int capped_grid(long long n, long long per_block, int max_blocks)
{
    return int(std::min<long long>((n + per_block - 1) / per_block, max_blocks));
}

inline int compute_capability(int device)
{
    return device_attribute(cudaDevAttrComputeCapabilityMajor, device) * 10 +
           device_attribute(cudaDevAttrComputeCapabilityMinor, device);
}

class stream
{
public:
    stream()
    {
        GPUINTERP_CUDA_CHECK(cudaStreamCreateWithFlags(&d_s, cudaStreamNonBlocking));
    }
    ~stream()
    {
        if (d_s)
            cudaStreamDestroy(d_s); // destructors never throw
    }
    stream(const stream&) = delete;
    stream& operator=(const stream&) = delete;
    cudaStream_t get() const { return d_s; }
    void synchronize() const { GPUINTERP_CUDA_CHECK(cudaStreamSynchronize(d_s)); }

private:
    cudaStream_t d_s = nullptr;
};

class event
{
public:
    //! Events are for ordering by default; pass true to measure elapsed time.
    explicit event(bool timing = true)
    {
        GPUINTERP_CUDA_CHECK(cudaEventCreateWithFlags(
            &d_e, timing ? cudaEventDefault : cudaEventDisableTiming));
    }
    ~event()
    {
        if (d_e)
            cudaEventDestroy(d_e);
    }
    event(const event&) = delete;
    event& operator=(const event&) = delete;
    cudaEvent_t get() const { return d_e; }
    void record(cudaStream_t s) { GPUINTERP_CUDA_CHECK(cudaEventRecord(d_e, s)); }
    void synchronize() const { GPUINTERP_CUDA_CHECK(cudaEventSynchronize(d_e)); }

private:
    cudaEvent_t d_e = nullptr;
};

//! Device buffer that only grows: reserve() reallocates when more is needed, never per call.
template <typename T>
class device_buffer
{
public:
    device_buffer() = default;
    explicit device_buffer(size_t n) { reserve(n); }
    ~device_buffer() { release(); }
    device_buffer(const device_buffer&) = delete;
    device_buffer& operator=(const device_buffer&) = delete;
    device_buffer(device_buffer&& o) noexcept { swap(o); }
    device_buffer& operator=(device_buffer&& o) noexcept
    {
        swap(o);
        return *this;
    }
    void reserve(size_t n)
    {
        if (n <= d_cap)
            return;
        release();
        GPUINTERP_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&d_p), n * sizeof(T)));
        d_cap = n;
    }
    T* get() const { return d_p; }
    size_t capacity() const { return d_cap; }

private:
    void release()
    {
        if (d_p)
            cudaFree(d_p);
        d_p = nullptr;
        d_cap = 0;
    }
    void swap(device_buffer& o) noexcept
    {
        std::swap(d_p, o.d_p);
        std::swap(d_cap, o.d_cap);
    }
    T* d_p = nullptr;
    size_t d_cap = 0;
};

//! Copies `count` values from host memory to the device and returns once they are there. A plain
//! cudaMemcpy from pageable memory returns when the data is staged, its DMA possibly still queued
//! on the legacy default stream, which the engines' non-blocking streams do not wait for: a kernel
//! launched next could read the old values (a coefficient update applied late, a table half new).
//! S may be D's host twin of the same size (std::complex<float> for float2).
template <typename D, typename S>
void upload(D* dst, const S* src, size_t count)
{
    static_assert(sizeof(D) == sizeof(S),
                  "upload: the device type and the host type differ in size");
    GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(
        dst, src, count * sizeof(S), cudaMemcpyHostToDevice, cudaStreamPerThread));
    GPUINTERP_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
}

//! Page-locked host buffer (so copies are truly asynchronous); grows like device_buffer.
//! With `mapped` it is also mapped into the device address space (zero-copy access by kernels).
template <typename T>
class pinned_buffer
{
public:
    pinned_buffer() = default;
    explicit pinned_buffer(bool mapped) : d_mapped(mapped) {}
    ~pinned_buffer() { release(); }
    pinned_buffer(const pinned_buffer&) = delete;
    pinned_buffer& operator=(const pinned_buffer&) = delete;
    void reserve(size_t n)
    {
        if (n <= d_cap)
            return;
        release();
        GPUINTERP_CUDA_CHECK(
            cudaHostAlloc(reinterpret_cast<void**>(&d_p),
                          n * sizeof(T),
                          d_mapped ? cudaHostAllocMapped : cudaHostAllocDefault));
        d_cap = n;
    }
    T* get() const { return d_p; }
    T* device_pointer() const
    {
        T* dp = nullptr;
        GPUINTERP_CUDA_CHECK(
            cudaHostGetDevicePointer(reinterpret_cast<void**>(&dp), d_p, 0));
        return dp;
    }
    size_t capacity() const { return d_cap; }

private:
    void release()
    {
        if (d_p)
            cudaFreeHost(d_p);
        d_p = nullptr;
        d_cap = 0;
    }
    T* d_p = nullptr;
    size_t d_cap = 0;
    bool d_mapped = false;
};

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
