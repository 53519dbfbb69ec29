/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_KERNEL_BLOCK_H
#define INCLUDED_GPUINTERP_KERNEL_BLOCK_H

// The part every gpuinterp block has alike: one kernel, the lock that makes a setter land
// between two work() calls, the device-buffer flag and binding, the active backend; and, for
// the multi-channel blocks with sc16 items (the FIR interpolator, the resampler), their ports'
// formats and sc16 counts.

#include "block_util.h"
#include "channel_ports.h"
#include "device_io.h"
#include <gnuradio/gpuinterp/cuda_buffer.h>
#include <memory>
#include <mutex>
#include <string>

namespace gr {
namespace gpuinterp {

/*!
 * `Block`: the block's public class (interp_fir<T, TAP>, ...), whose gr::block base is virtual:
 * the most derived class constructs that base first, so this constructor can already log the
 * backend the kernel ended up with and bind the block to its memory (device_io::attach(),
 * `min_items` as there).
 */
template <class Block, class Kernel>
class kernel_block : public Block, public device_buffer_client
{
public:
    bool device_buffers() const override { return d_device_buffers; }
    device_binding buffer_binding() const override { return d_io.binding(); }
    std::string active_backend() const override
    {
        return to_string(d_kernel->active_backend());
    }

protected:
    kernel_block(std::unique_ptr<Kernel> kernel,
                 int device,
                 bool device_buffers,
                 long min_items = device_io::stream_min_items)
        : d_kernel(std::move(kernel)), d_device_buffers(device_buffers)
    {
        log_backend(this->d_logger, d_kernel->active_backend(), d_kernel->backend_note());
        d_io.attach(*this, d_kernel->active_backend(), device, device_buffers, min_items);
    }

    //! A work() body run under the lock, failures handled as guarded_work() does.
    template <typename F>
    int locked_work(F&& body)
    {
        return guarded_work(this->d_logger, [&] {
            std::lock_guard<std::mutex> lock(d_mutex);
            return body();
        });
    }

    //! Input port 0 of this work() call, `bytes` long; with device buffers handed over as a
    //! device pointer (host memory on the CPU backend).
    const void* port_input(const gr_vector_const_void_star& input_items, size_t bytes)
    {
        return d_device_buffers ? d_io.input(*this, 0, input_items[0], bytes)
                                : input_items[0];
    }

    mutable std::mutex d_mutex; // setters land between two work() calls
    std::unique_ptr<Kernel> d_kernel;
    const bool d_device_buffers;
    device_io d_io;
};

/*!
 * A kernel_block whose ports are channel_ports: T the sample type, `output` and `full_scale`
 * as make() took them (output_item_size() has validated them).
 */
template <class Block, class Kernel, class T>
class channel_block : public kernel_block<Block, Kernel>
{
public:
    std::string output_format() const override
    {
        return kernel::to_string(d_ports.output);
    }
    std::string input_format() const override
    {
        return kernel::to_string(this->d_kernel->input_format());
    }
    float full_scale() const override { return d_ports.full_scale; }
    uint64_t saturated(unsigned channel) const override
    {
        std::lock_guard<std::mutex> lock(this->d_mutex);
        return this->d_kernel->counts(channel).saturated;
    }
    uint64_t invalid(unsigned channel) const override
    {
        std::lock_guard<std::mutex> lock(this->d_mutex);
        return this->d_kernel->counts(channel).invalid;
    }
    unsigned channels() const override { return this->d_kernel->channels(); }

protected:
    channel_block(std::unique_ptr<Kernel> kernel,
                  int device,
                  bool device_buffers,
                  kernel::sample_format output,
                  float full_scale)
        : kernel_block<Block, Kernel>(std::move(kernel), device, device_buffers),
          d_ports(this->d_kernel->channels(),
                  input_item_size<T>(this->d_kernel->input_format()),
                  output,
                  full_scale)
    {
    }
    //! A kernel that holds its formats (dpd_bank): output and full scale read from it.
    channel_block(std::unique_ptr<Kernel> kernel, int device, bool device_buffers)
        : kernel_block<Block, Kernel>(std::move(kernel), device, device_buffers),
          d_ports(this->d_kernel->channels(),
                  input_item_size<T>(this->d_kernel->input_format()),
                  this->d_kernel->output_format(),
                  this->d_kernel->full_scale())
    {
    }

    channel_ports d_ports;
};

} // namespace gpuinterp
} // namespace gr

#endif
