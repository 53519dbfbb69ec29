/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_GPU_HOST_PIPELINE_CUH
#define INCLUDED_GPUINTERP_GPU_HOST_PIPELINE_CUH

// The double-buffered host pipeline of the engines that take host memory (FIR interpolator,
// predistorter, resize_2d). Two slots, each with its own stream, pinned input/output staging,
// device buffers and an event, take alternate chunks: while the GPU works on chunk c-1, the CPU
// copies chunk c-2's output out of pinned memory and chunk c's input in, so the bus copies, the
// device work and the host copies of consecutive chunks overlap. GNU Radio's buffers are
// pageable, so pinned staging is what makes the copies asynchronous; the output copy is split
// across threads (cpu::parallel_copy) because one thread's memcpy (~8 GB/s) was the measured limit
// of whole blocks on the H200 host. Chunks carry everything they need (history included), so the
// two streams never wait on each other.
//
// With `mapped` the staging is mapped pinned memory that the device work reads and writes
// directly over the bus (zero-copy: no device buffers, no copy engine).

#include "../common/parallel.h"
#include "cuda_common.cuh"
#include <algorithm>
#include <cstddef>
#include <memory>

namespace gr {
namespace gpuinterp {
namespace gpu {

template <typename In, typename Out>
class host_pipeline
{
public:
    //! A chunk of `cnt` items reads `in_front + cnt * in_per_item` input values (in_front: the
    //! history each chunk carries in front of its items) and writes `cnt * out_per_item` outputs.
    struct layout {
        size_t in_front = 0;
        size_t in_per_item = 1;
        size_t out_per_item = 1;
    };

    //! Streams and events are created on `device`.
    explicit host_pipeline(int device, bool mapped = false) : d_mapped(mapped)
    {
        device_guard guard(device);
        for (auto& s : d_slots)
            s = std::make_unique<slot>(mapped);
    }

    //! Waits for in-flight work before the staging it uses is freed; never throws. An engine
    //! declares its pipeline as its last member, so this also runs before the engine's own
    //! device memory (taps, tables) is freed, and covers work its device-buffer entry points left
    //! on stream0() when they threw.
    ~host_pipeline()
    {
        for (auto& s : d_slots)
            if (s)
                cudaStreamSynchronize(s->strm.get());
    }

    host_pipeline(const host_pipeline&) = delete;
    host_pipeline& operator=(const host_pipeline&) = delete;

    //! Slot 0's stream: the engines' device-buffer entry points and benchmark hooks run there.
    cudaStream_t stream0() const { return d_slots[0]->strm.get(); }
    bool mapped() const { return d_mapped; }

    /*!
     * Processes n items in chunks of max(1, chunk), alternating the slots, and returns once the
     * output of item i is at out[i * out_per_item ..]. Per chunk (items pos .. pos + cnt):
     *  - stage(In* pinned, size_t pos, size_t cnt) writes the chunk's input (in_front +
     *    cnt * in_per_item values) into pinned staging, on host threads;
     *  - work(const In* x, Out* y, size_t cnt, cudaStream_t st) enqueues the device work on `st`;
     *    x and y are the slot's device buffers, or with `mapped` the device addresses of its
     *    pinned staging.
     * A slot's previous chunk is copied out before the slot is reused, so staging is never
     * overwritten while a copy or the device work still reads it. On a throw both streams are
     * synchronised (nothing is left in flight) and pending outputs are dropped before rethrowing.
     */
    template <typename Stage, typename Work>
    void
    run(Out* out, size_t n, size_t chunk, const layout& lay, Stage&& stage, Work&& work)
    {
        run_to(
            n, chunk, lay, stage, work, [&](const Out* staged, size_t pos, size_t cnt) {
                cpu::parallel_copy(out + pos * lay.out_per_item,
                                   staged,
                                   cnt * lay.out_per_item * sizeof(Out));
            });
    }

    //! run() with the output handed to deliver(const Out* staged, size_t pos, size_t cnt) (the
    //! chunk's cnt * out_per_item values, in pinned memory) instead of copied to one array: a
    //! predistorter bank scatters its channels to their own buffers.
    template <typename Stage, typename Work, typename Deliver>
    void run_to(size_t n,
                size_t chunk,
                const layout& lay,
                Stage&& stage,
                Work&& work,
                Deliver&& deliver)
    {
        chunk = std::max<size_t>(1, chunk);
        const size_t in_cap = lay.in_front + chunk * lay.in_per_item;
        const size_t out_cap = chunk * lay.out_per_item;
        size_t pos = 0;
        unsigned c = 0;
        try {
            while (pos < n) {
                slot& s = *d_slots[c & 1];
                drain(s, deliver);
                const size_t cnt = std::min(chunk, n - pos);
                const size_t n_in = lay.in_front + cnt * lay.in_per_item;
                const size_t n_out = cnt * lay.out_per_item;
                // Sized for a full chunk, so the buffers grow once rather than per call.
                s.h_in.reserve(in_cap);
                s.h_out.reserve(out_cap);
                if (!d_mapped) {
                    s.d_in.reserve(in_cap);
                    s.d_out.reserve(out_cap);
                }
                stage(s.h_in.get(), pos, cnt);
                const cudaStream_t st = s.strm.get();
                if (d_mapped) {
                    work(static_cast<const In*>(s.h_in.device_pointer()),
                         s.h_out.device_pointer(),
                         cnt,
                         st);
                } else {
                    GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(s.d_in.get(),
                                                         s.h_in.get(),
                                                         n_in * sizeof(In),
                                                         cudaMemcpyHostToDevice,
                                                         st));
                    work(static_cast<const In*>(s.d_in.get()), s.d_out.get(), cnt, st);
                    GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(s.h_out.get(),
                                                         s.d_out.get(),
                                                         n_out * sizeof(Out),
                                                         cudaMemcpyDeviceToHost,
                                                         st));
                }
                s.done.record(st);
                s.pending = true;
                s.pos = pos;
                s.cnt = cnt;
                pos += cnt;
                c++;
            }
            drain(*d_slots[c & 1], deliver); // the older chunk first
            drain(*d_slots[(c + 1) & 1], deliver);
        } catch (...) {
            // The failed chunk's staging may still be read by queued copies or work: wait for
            // both streams so the caller may free or reuse its buffers; their results are lost.
            for (auto& s : d_slots) {
                cudaStreamSynchronize(s->strm.get());
                s->pending = false;
            }
            throw;
        }
    }

private:
    struct slot {
        explicit slot(bool mapped) : h_in(mapped), h_out(mapped) {}
        stream strm;
        event done{ false }; // ordering only
        pinned_buffer<In> h_in;
        pinned_buffer<Out> h_out;
        device_buffer<In> d_in;
        device_buffer<Out> d_out;
        bool pending = false;
        size_t pos = 0, cnt = 0; // the pending chunk's items
    };

    template <typename Deliver>
    void drain(slot& s, Deliver& deliver)
    {
        if (!s.pending)
            return;
        s.done.synchronize();
        deliver(static_cast<const Out*>(s.h_out.get()), s.pos, s.cnt);
        s.pending = false;
    }

    bool d_mapped;
    std::unique_ptr<slot> d_slots[2];
};

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
