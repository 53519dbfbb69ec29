/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_DEVICE_IO_H
#define INCLUDED_GPUINTERP_DEVICE_IO_H

// What a block needs in work() when its ports use cuda_buffer (docs/device_buffers.md,
// "Adopting device buffers in a block"): its own device binding, and its input in its own
// memory. An input buffer belongs to the device of the block that made it (the upstream
// block, or this block when the upstream block is a host block), so a chain spread over
// two GPUs reads a buffer of another device; it is then copied peer-to-peer into a
// scratch array first.

#include "device/device_ops.h"
#include <gnuradio/block.h>
#include <gnuradio/block_detail.h>
#include <gnuradio/buffer_reader.h>
#include <gnuradio/gpuinterp/cuda_buffer.h>
#include <gnuradio/gpuinterp/kernel/backend.h>
#include <stdexcept>

namespace gr {
namespace gpuinterp {

class device_io
{
public:
    device_io() = default;
    device_io(const device_io&) = delete;
    device_io& operator=(const device_io&) = delete;
    ~device_io()
    {
        if (d_ops)
            d_ops->free_device(d_scratch);
    }

    //! cuda backend on `device` -> that GPU; cpu backend -> the host-memory simulation.
    static device_binding binding_for(backend active, int device)
    {
        return active == backend::cuda ? device_binding{ memory_kind::cuda, device }
                                       : device_binding{ memory_kind::simulated, 0 };
    }

    void set_binding(device_binding b) { d_binding = b; }

    //! Items of stream (sample) ports a device-buffer block asks for as its minimum output
    //! buffer: GNU Radio's default (8192 complex items) would mean one kernel launch per few
    //! thousand inputs, and a device chain wants large chunks. Still overridable before start().
    static constexpr long stream_min_items = 1 << 18;

    /*!
     * What every gpuinterp block does in its constructor: bind to its backend's memory and, with
     * device buffers, ask for `min_items` output items (0: leave GNU Radio's choice, e.g. for
     * frame-sized vector items).
     */
    void attach(gr::block& blk,
                backend active,
                int device,
                bool device_buffers,
                long min_items = stream_min_items)
    {
        set_binding(binding_for(active, device));
        if (device_buffers && min_items > 0)
            blk.set_min_output_buffer(min_items);
    }
    device_binding binding() const { return d_binding; }

    //! `ptr` (the scheduler's input pointer of `port`, `bytes` long) in this block's own
    //! memory.
    const void* input(gr::block& blk, int port, const void* ptr, size_t bytes)
    {
        auto buf = blk.detail()->input(port)->buffer();
        auto* cb = dynamic_cast<cuda_buffer*>(buf.get());
        if (!cb)
            throw std::logic_error("device_io: input " + std::to_string(port) +
                                   " is not a cuda_buffer");
        if (cb->binding() == d_binding)
            return ptr;
        if (!d_ops)
            d_ops = device::make_device_ops(d_binding);
        if (bytes > d_cap) {
            d_ops->free_device(d_scratch);
            d_scratch = nullptr;
            d_cap = 0;
            d_scratch = d_ops->alloc_device(bytes);
            d_cap = bytes;
        }
        device::copy_between(d_binding, d_scratch, cb->binding(), ptr, bytes);
        return d_scratch;
    }

private:
    device_binding d_binding;
    std::unique_ptr<device::device_ops> d_ops;
    void* d_scratch = nullptr;
    size_t d_cap = 0;
};

} // namespace gpuinterp
} // namespace gr

#endif
