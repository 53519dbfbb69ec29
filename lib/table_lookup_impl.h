/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_TABLE_LOOKUP_IMPL_H
#define INCLUDED_GPUINTERP_TABLE_LOOKUP_IMPL_H

#include "device_io.h"
#include <gnuradio/gpuinterp/cuda_buffer.h>
#include <gnuradio/gpuinterp/kernel/table_lookup.h>
#include <gnuradio/gpuinterp/table_lookup.h>
#include <memory>
#include <mutex>

namespace gr {
namespace gpuinterp {

template <class T>
class table_lookup_impl : public table_lookup<T>, public device_buffer_client
{
public:
    //! `kernel`: built by make() from its arguments.
    table_lookup_impl(std::unique_ptr<kernel::table_lookup<T>> kernel,
                      int device,
                      bool device_buffers)
        : gr::sync_block("table_lookup",
                         device_buffer_signature(device_buffers, 1, 1, sizeof(float)),
                         device_buffer_signature(device_buffers, 1, 1, sizeof(T))),
          d_kernel(std::move(kernel)),
          d_device_buffers(device_buffers)
    {
        log_backend(this->d_logger, d_kernel->active_backend(), d_kernel->backend_note());
        d_io.attach(*this, d_kernel->active_backend(), device, device_buffers);
    }

    bool device_buffers() const override { return d_device_buffers; }
    device_binding buffer_binding() const override { return d_io.binding(); }

    void set_table(const std::vector<T>& table) override
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_kernel->set_table(table);
    }
    std::vector<T> table() const override
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return d_kernel->table();
    }
    std::string active_backend() const override
    {
        return to_string(d_kernel->active_backend());
    }

    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    mutable std::mutex d_mutex; // set_table lands between two work() calls
    std::unique_ptr<kernel::table_lookup<T>> d_kernel;
    const bool d_device_buffers;
    device_io d_io;
};

} // namespace gpuinterp
} // namespace gr

#endif
