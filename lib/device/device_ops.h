/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_DEVICE_DEVICE_OPS_H
#define INCLUDED_GPUINTERP_DEVICE_DEVICE_OPS_H

// Internal: the device operations a cuda_buffer needs (allocate, free, queue copies,
// wait), behind one small interface so the buffer logic runs unchanged on a real CUDA
// device and on a host-memory simulation. The simulation queues copies and runs them only
// when someone waits, so a read that forgot to wait sees stale data and a test fails: it
// checks the ordering, not just the arithmetic. No GNU Radio and no CUDA types here.

#include <gnuradio/gpuinterp/device_binding.h>
#include <atomic>
#include <cstddef>
#include <memory>
#include <utility>

namespace gr {
namespace gpuinterp {
namespace device {

enum class copy_dir { host_to_device, device_to_host, device_to_device };

class device_ops
{
public:
    virtual ~device_ops() = default;
    virtual device_binding binding() const = 0;
    //! Device memory, zero-filled (GNU Radio pre-loads history readers with zeros).
    virtual void* alloc_device(size_t bytes) = 0;
    virtual void free_device(void* p) noexcept = 0;
    //! Page-locked host memory (so copies are truly asynchronous), zero-filled.
    virtual void* alloc_host(size_t bytes) = 0;
    virtual void free_host(void* p) noexcept = 0;
    //! Queue a copy behind everything queued before on this object; returns at once.
    virtual void copy_async(void* dst, const void* src, size_t bytes, copy_dir dir) = 0;
    //! Queue an overlap-safe move inside device memory (memmove semantics).
    virtual void move_device_async(void* dst, const void* src, size_t bytes) = 0;
    //! Block the calling thread until everything queued so far has completed. Never
    //! device-wide.
    virtual void wait() = 0;
};

//! Operations for `b` (simulated, or CUDA device b.device). Throws std::runtime_error
//! when a CUDA binding is asked for in a build without CUDA.
std::unique_ptr<device_ops> make_device_ops(const device_binding& b);
std::unique_ptr<device_ops> make_sim_device_ops();

//! Synchronous copy between any two bindings (host scratch <-> device, device <-> device
//! on another GPU: peer-to-peer when the devices allow it). Used when a block reads a
//! buffer of another device.
void copy_between(const device_binding& dst_b,
                  void* dst,
                  const device_binding& src_b,
                  const void* src,
                  size_t bytes);

//! Allocation bookkeeping shared by both implementations (leak tests read it).
void note_alloc(memory_kind k, bool device, size_t bytes);
void note_free(memory_kind k, bool device, size_t bytes);

} // namespace device

//! Number of gpuinterp cuda_buffer objects alive (maintained by cuda_buffer).
std::atomic<long>& live_buffer_counter();

namespace gpu {
// lib/cuda/device_ops.cu (CUDA builds) or lib/device/device_ops_nocuda.cc.
std::unique_ptr<device::device_ops> make_cuda_device_ops(int device);
void cuda_copy_between(const device_binding& dst_b,
                       void* dst,
                       const device_binding& src_b,
                       const void* src,
                       size_t bytes);
//! Free/total device memory of `device` in bytes (cudaMemGetInfo); {0, 0} without CUDA.
std::pair<size_t, size_t> cuda_mem_info(int device);
} // namespace gpu

} // namespace gpuinterp
} // namespace gr

#endif
