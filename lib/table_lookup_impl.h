/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_TABLE_LOOKUP_IMPL_H
#define INCLUDED_GPUINTERP_TABLE_LOOKUP_IMPL_H

#include "kernel_block.h"
#include <gnuradio/gpuinterp/kernel/table_lookup.h>
#include <gnuradio/gpuinterp/table_lookup.h>
#include <memory>
#include <mutex>

namespace gr {
namespace gpuinterp {

template <class T>
class table_lookup_impl : public kernel_block<table_lookup<T>, kernel::table_lookup<T>>
{
public:
    //! `kernel`: built by make() from its arguments.
    table_lookup_impl(std::unique_ptr<kernel::table_lookup<T>> kernel,
                      int device,
                      bool device_buffers)
        : gr::sync_block("table_lookup",
                         device_buffer_signature(device_buffers, 1, 1, sizeof(float)),
                         device_buffer_signature(device_buffers, 1, 1, sizeof(T))),
          base(std::move(kernel), device, device_buffers)
    {
    }

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

    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    using base = kernel_block<table_lookup<T>, kernel::table_lookup<T>>;
    using base::d_device_buffers, base::d_io, base::d_kernel, base::d_mutex;
};

} // namespace gpuinterp
} // namespace gr

#endif
