/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The host-memory simulation of a device, the allocation counters and the dispatch
// between the simulation and CUDA. The simulation defers every queued copy until wait():
// real copies are asynchronous, so code that reads a destination without waiting is
// wrong, and here it also fails.
#include "device_ops.h"
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <new>
#include <stdexcept>
#include <vector>

namespace gr {
namespace gpuinterp {

namespace {
struct counters {
    std::atomic<long> allocs[2][2]{}; // [kind][device?]
    std::atomic<size_t> bytes[2][2]{};
};
counters& g_counters()
{
    static counters c;
    return c;
}
} // namespace

std::atomic<long>& live_buffer_counter()
{
    static std::atomic<long> n{ 0 };
    return n;
}

std::string to_string(const device_binding& b)
{
    return b.kind == memory_kind::cuda ? "cuda:" + std::to_string(b.device) : "simulated";
}

device_memory_stats device_memory_usage()
{
    auto& c = g_counters();
    device_memory_stats s;
    s.sim_device_allocs = c.allocs[0][1];
    s.sim_host_allocs = c.allocs[0][0];
    s.sim_device_bytes = c.bytes[0][1];
    s.sim_host_bytes = c.bytes[0][0];
    s.cuda_device_allocs = c.allocs[1][1];
    s.cuda_host_allocs = c.allocs[1][0];
    s.cuda_device_bytes = c.bytes[1][1];
    s.cuda_host_bytes = c.bytes[1][0];
    s.buffers = live_buffer_counter();
    return s;
}

namespace device {

void note_alloc(memory_kind k, bool dev, size_t bytes)
{
    auto& c = g_counters();
    c.allocs[int(k)][dev] += 1;
    c.bytes[int(k)][dev] += bytes;
}

void note_free(memory_kind k, bool dev, size_t bytes)
{
    auto& c = g_counters();
    c.allocs[int(k)][dev] -= 1;
    c.bytes[int(k)][dev] -= bytes;
}

namespace {

class sim_device_ops final : public device_ops
{
public:
    ~sim_device_ops() override { wait(); }

    device_binding binding() const override { return { memory_kind::simulated, 0 }; }

    void* alloc_device(size_t bytes) override { return alloc(bytes, true); }
    void free_device(void* p) noexcept override { release(p, true); }
    void* alloc_host(size_t bytes) override { return alloc(bytes, false); }
    void free_host(void* p) noexcept override { release(p, false); }

    void copy_async(void* dst, const void* src, size_t bytes, copy_dir) override
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_queue.emplace_back([=] { std::memcpy(dst, src, bytes); });
    }

    void move_device_async(void* dst, const void* src, size_t bytes) override
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_queue.emplace_back([=] { std::memmove(dst, src, bytes); });
    }

    void wait() override
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        for (auto& op : d_queue)
            op();
        d_queue.clear();
    }

private:
    // Sizes are remembered so the counters can be decremented exactly on free.
    void* alloc(size_t bytes, bool dev)
    {
        const size_t n = (bytes + 63) / 64 * 64 + 64;
        auto* p = static_cast<unsigned char*>(std::aligned_alloc(64, n));
        if (!p)
            throw std::bad_alloc();
        std::memset(p, 0, n);
        *reinterpret_cast<size_t*>(p) = bytes;
        note_alloc(memory_kind::simulated, dev, bytes);
        return p + 64;
    }
    void release(void* q, bool dev) noexcept
    {
        if (!q)
            return;
        auto* p = static_cast<unsigned char*>(q) - 64;
        note_free(memory_kind::simulated, dev, *reinterpret_cast<size_t*>(p));
        std::free(p);
    }

    std::mutex d_mutex;
    std::vector<std::function<void()>> d_queue;
};

} // namespace

std::unique_ptr<device_ops> make_sim_device_ops()
{
    return std::make_unique<sim_device_ops>();
}

std::unique_ptr<device_ops> make_device_ops(const device_binding& b)
{
    if (b.kind == memory_kind::simulated)
        return make_sim_device_ops();
    return gpu::make_cuda_device_ops(b.device);
}

void copy_between(const device_binding& dst_b,
                  void* dst,
                  const device_binding& src_b,
                  const void* src,
                  size_t bytes)
{
    if (dst_b.kind == memory_kind::simulated && src_b.kind == memory_kind::simulated) {
        std::memcpy(dst, src, bytes);
        return;
    }
    gpu::cuda_copy_between(dst_b, dst, src_b, src, bytes);
}

} // namespace device
} // namespace gpuinterp
} // namespace gr
