/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_GPU_CUDA_COMMON_CUH
#define INCLUDED_GPUINTERP_GPU_CUDA_COMMON_CUH

// Shared CUDA plumbing for every .cu file: one checking macro, one RAII owner of handles
// // (unique_handle) and from it the owners of streams, events, device and pinned host buffers.
// Only .cu files include this header.

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
//! A CUDA library's (cuBLAS, cuSOLVER, cuFFT) failed status, as a cuda_error naming the library.
[[noreturn]] void
library_error(const char* lib, int status, const char* expr, const char* file, int line);

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

//! One check for the CUDA libraries' status codes (each library's success value `ok`), as
//! GPUINTERP_CUDA_CHECK is for the runtime's.
#define GPUINTERP_LIBRARY_CHECK(lib, ok, expr)                       \
    do {                                                             \
        const auto gpuinterp_st_ = (expr);                           \
        if (gpuinterp_st_ != (ok))                                   \
            ::gr::gpuinterp::gpu::library_error(                     \
                lib, int(gpuinterp_st_), #expr, __FILE__, __LINE__); \
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

//! The sum of `v` over the 32 lanes of a full warp, in every lane. sm_80 has a one-instruction
//! reduction (__reduce_add_sync); Turing (sm_75, the oldest architecture built) and PTX compiled
//! for it take the five-step butterfly. Selecting on __CUDA_ARCH__ is right here, unlike for
//! tuning (arch_tuning.h): both paths give the same sum, only the instruction differs. Device code
//! only: the host pipeline's CPU test compiles this header with a host compiler and a fake runtime.
#ifdef __CUDACC__
__device__ __forceinline__ unsigned warp_sum(unsigned v)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    return __reduce_add_sync(0xffffffffu, v);
#else
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
#endif
}
#endif

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

//! Owner of one handle of the CUDA runtime or a CUDA library (a stream, an event, an array, a
//! texture object, memory, a cuBLAS or cuSOLVER handle): destroyed once with `destroy` when it is
//! replaced and at the end, its status ignored (destructors never throw). Movable, not copyable.
//! Whether a handle is held is kept apart from its value, as 0 is a valid texture object.
template <typename H, typename S, S (*destroy)(H)>
class unique_handle
{
public:
    unique_handle() = default;
    ~unique_handle() { reset(); }
    unique_handle(const unique_handle&) = delete;
    unique_handle& operator=(const unique_handle&) = delete;
    unique_handle(unique_handle&& o) noexcept { swap(o); }
    unique_handle& operator=(unique_handle&& o) noexcept
    {
        swap(o);
        return *this;
    }
    H get() const { return d_h; }
    bool valid() const { return d_held; }
    //! Destroys the handle held, if any.
    void reset()
    {
        if (d_held)
            destroy(d_h);
        d_h = H();
        d_held = false;
    }
    //! Destroys the handle held and owns `h` (what a create call returned) from now on.
    void reset(H h)
    {
        reset();
        d_h = h;
        d_held = true;
    }
    void swap(unique_handle& o) noexcept
    {
        std::swap(d_h, o.d_h);
        std::swap(d_held, o.d_held);
    }

private:
    H d_h = H();
    bool d_held = false;
};

class stream
{
public:
    stream()
    {
        cudaStream_t s = nullptr;
        GPUINTERP_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        d_s.reset(s);
    }
    cudaStream_t get() const { return d_s.get(); }
    void synchronize() const { GPUINTERP_CUDA_CHECK(cudaStreamSynchronize(get())); }

private:
    unique_handle<cudaStream_t, cudaError_t, cudaStreamDestroy> d_s;
};

//! An engine's stream: made on `device`, and waited for when it goes. Declared as the engine's
//! last member, so it is destroyed first: the buffers and textures that queued work may still use
//! are freed only after that work is done.
class engine_stream : public stream
{
public:
    explicit engine_stream(int device) : stream(made_on(device)) {}
    ~engine_stream() { cudaStreamSynchronize(get()); }
    engine_stream(const engine_stream&) = delete;
    engine_stream& operator=(const engine_stream&) = delete;

private:
    static stream made_on(int device)
    {
        device_guard g(device);
        return stream();
    }
};

class event
{
public:
    //! Events are for ordering by default; pass true to measure elapsed time.
    explicit event(bool timing = true)
    {
        cudaEvent_t e = nullptr;
        GPUINTERP_CUDA_CHECK(cudaEventCreateWithFlags(
            &e, timing ? cudaEventDefault : cudaEventDisableTiming));
        d_e.reset(e);
    }
    cudaEvent_t get() const { return d_e.get(); }
    void record(cudaStream_t s) { GPUINTERP_CUDA_CHECK(cudaEventRecord(get(), s)); }
    void synchronize() const { GPUINTERP_CUDA_CHECK(cudaEventSynchronize(get())); }

private:
    unique_handle<cudaEvent_t, cudaError_t, cudaEventDestroy> d_e;
};

//! Memory of `count` T that only grows: reserve() reallocates when more is needed, never per
//! call. Alloc is device or pinned host memory (device_buffer, pinned_buffer).
template <typename T, typename Alloc>
class growing_buffer
{
public:
    growing_buffer() = default;
    explicit growing_buffer(Alloc alloc) : d_alloc(alloc) {}
    growing_buffer(growing_buffer&& o) noexcept { swap(o); }
    growing_buffer& operator=(growing_buffer&& o) noexcept
    {
        swap(o);
        return *this;
    }
    void reserve(size_t n)
    {
        if (n <= d_cap)
            return;
        d_p.reset(); // the old memory is freed before the new is taken
        d_cap = 0;
        d_p.reset(d_alloc.allocate(n * sizeof(T)));
        d_cap = n;
    }
    T* get() const { return static_cast<T*>(d_p.get()); }
    size_t capacity() const { return d_cap; }

private:
    void swap(growing_buffer& o) noexcept
    {
        d_p.swap(o.d_p);
        std::swap(d_cap, o.d_cap);
        std::swap(d_alloc, o.d_alloc);
    }
    Alloc d_alloc;
    unique_handle<void*, cudaError_t, Alloc::free> d_p;
    size_t d_cap = 0;
};

struct device_memory {
    static constexpr auto free = cudaFree;
    void* allocate(size_t bytes) const
    {
        void* p = nullptr;
        GPUINTERP_CUDA_CHECK(cudaMalloc(&p, bytes));
        return p;
    }
};

struct pinned_memory {
    static constexpr auto free = cudaFreeHost;
    bool mapped = false;
    void* allocate(size_t bytes) const
    {
        void* p = nullptr;
        GPUINTERP_CUDA_CHECK(cudaHostAlloc(
            &p, bytes, mapped ? cudaHostAllocMapped : cudaHostAllocDefault));
        return p;
    }
};

//! Device buffer that only grows.
template <typename T>
class device_buffer : public growing_buffer<T, device_memory>
{
public:
    device_buffer() = default;
    explicit device_buffer(size_t n) { this->reserve(n); }
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
class pinned_buffer : public growing_buffer<T, pinned_memory>
{
public:
    pinned_buffer() = default;
    explicit pinned_buffer(bool mapped) : growing_buffer<T, pinned_memory>({ mapped }) {}
    T* device_pointer() const
    {
        T* dp = nullptr;
        GPUINTERP_CUDA_CHECK(
            cudaHostGetDevicePointer(reinterpret_cast<void**>(&dp), this->get(), 0));
        return dp;
    }
};

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
