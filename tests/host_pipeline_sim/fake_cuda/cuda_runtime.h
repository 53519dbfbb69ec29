/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_TESTS_FAKE_CUDA_RUNTIME_H
#define INCLUDED_GPUINTERP_TESTS_FAKE_CUDA_RUNTIME_H

// A stand-in for the CUDA runtime, just what cuda_common.cuh and host_pipeline.cuh call, so the
// pipeline's ordering logic runs on machines without a GPU. Every stream is a queue that runs its
// work only when something synchronises on it: the latest a real device could run it. Any reuse
// of staging before its queued copies and kernels are done then reads or writes the wrong data,
// and destroying a stream with work still queued aborts.

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <set>

typedef int cudaError_t;
enum { cudaSuccess = 0, cudaErrorMemoryAllocation = 2 };
enum cudaMemcpyKind {
    cudaMemcpyHostToDevice,
    cudaMemcpyDeviceToHost,
    cudaMemcpyDeviceToDevice
};
enum {
    cudaStreamNonBlocking = 1,
    cudaEventDefault = 0,
    cudaEventDisableTiming = 2,
    cudaHostAllocDefault = 0,
    cudaHostAllocMapped = 2
};

struct fake_stream {
    std::deque<std::function<void()>> queue;
    size_t enqueued = 0, done = 0;
};
struct fake_event {
    fake_stream* s = nullptr;
    size_t target = 0;
};
typedef fake_stream* cudaStream_t;
typedef fake_event* cudaEvent_t;

inline std::set<fake_stream*>& fake_streams()
{
    static std::set<fake_stream*> s;
    return s;
}
//! The implicit per-thread stream (upload() in cuda_common.cuh copies on it).
inline fake_stream* fake_per_thread_stream()
{
    static fake_stream* s = [] {
        auto* p = new fake_stream;
        fake_streams().insert(p);
        return p;
    }();
    return s;
}
#define cudaStreamPerThread (fake_per_thread_stream())
//! Device allocations left before cudaMalloc fails (negative: never fails).
inline int& fake_mallocs_left()
{
    static int n = -1;
    return n;
}
//! What a kernel launch on `s` would be: runs when `s` is synchronised.
inline void fake_enqueue(cudaStream_t s, std::function<void()> f)
{
    s->queue.push_back(std::move(f));
    s->enqueued++;
}
inline void fake_run_until(fake_stream* s, size_t count)
{
    while (s->done < count) {
        auto f = std::move(s->queue.front());
        s->queue.pop_front();
        s->done++;
        f();
    }
}
inline void fake_device_synchronize()
{
    for (auto* s : fake_streams())
        fake_run_until(s, s->enqueued);
}
inline bool fake_idle()
{
    for (auto* s : fake_streams())
        if (!s->queue.empty())
            return false;
    return true;
}

inline cudaError_t cudaGetDevice(int* d)
{
    *d = 0;
    return cudaSuccess;
}
inline cudaError_t cudaSetDevice(int) { return cudaSuccess; }
// compute_capability(): an sm_90 device.
enum cudaDeviceAttr {
    cudaDevAttrComputeCapabilityMajor,
    cudaDevAttrComputeCapabilityMinor
};
inline cudaError_t cudaDeviceGetAttribute(int* v, cudaDeviceAttr a, int)
{
    *v = a == cudaDevAttrComputeCapabilityMajor ? 9 : 0;
    return cudaSuccess;
}
inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned)
{
    *s = new fake_stream;
    fake_streams().insert(*s);
    return cudaSuccess;
}
inline cudaError_t cudaStreamDestroy(cudaStream_t s)
{
    if (!s->queue.empty())
        std::abort(); // a real device would still be running work on freed memory
    fake_streams().erase(s);
    delete s;
    return cudaSuccess;
}
inline cudaError_t cudaStreamSynchronize(cudaStream_t s)
{
    fake_run_until(s, s->enqueued);
    return cudaSuccess;
}
inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned)
{
    *e = new fake_event;
    return cudaSuccess;
}
inline cudaError_t cudaEventDestroy(cudaEvent_t e)
{
    delete e;
    return cudaSuccess;
}
inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s)
{
    e->s = s;
    e->target = s->enqueued;
    return cudaSuccess;
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t e)
{
    if (e->s)
        fake_run_until(e->s, e->target);
    return cudaSuccess;
}
inline cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t, cudaEvent_t)
{
    *ms = 0;
    return cudaSuccess;
}
inline cudaError_t cudaGetLastError() { return cudaSuccess; }
inline cudaError_t cudaMalloc(void** p, size_t n)
{
    if (fake_mallocs_left() == 0)
        return cudaErrorMemoryAllocation;
    if (fake_mallocs_left() > 0)
        fake_mallocs_left()--;
    *p = std::malloc(n);
    std::memset(*p, 0xcd, n); // garbage, as fresh device memory
    return cudaSuccess;
}
inline cudaError_t cudaFree(void* p) // synchronises the device, as the real one does
{
    fake_device_synchronize();
    std::free(p);
    return cudaSuccess;
}
inline cudaError_t cudaHostAlloc(void** p, size_t n, unsigned)
{
    *p = std::malloc(n);
    std::memset(*p, 0xab, n);
    return cudaSuccess;
}
inline cudaError_t cudaFreeHost(void* p)
{
    fake_device_synchronize();
    std::free(p);
    return cudaSuccess;
}
inline cudaError_t cudaHostGetDevicePointer(void** d, void* h, unsigned)
{
    *d = h; // mapped memory: the device reaches the host allocation directly
    return cudaSuccess;
}
inline cudaError_t
cudaMemcpyAsync(void* d, const void* s, size_t n, cudaMemcpyKind, cudaStream_t st)
{
    fake_enqueue(st, [=] { std::memcpy(d, s, n); });
    return cudaSuccess;
}

#endif
