/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_INTERP_FIR_IMPL_H
#define INCLUDED_GPUINTERP_INTERP_FIR_IMPL_H

#include "block_util.h"
#include "channel_ports.h"
#include "device_io.h"
#include <gnuradio/gpuinterp/cuda_buffer.h>
#include <gnuradio/gpuinterp/interp_fir.h>
#include <gnuradio/gpuinterp/kernel/polyphase_interpolator.h>
#include <memory>
#include <mutex>

namespace gr {
namespace gpuinterp {

template <class T, class TAP>
class interp_fir_impl : public interp_fir<T, TAP>, public device_buffer_client
{
public:
    using kernel_type = kernel::polyphase_interpolator<T, TAP>;

    //! `output_format`, `full_scale`: validated here (output_item_size()).
    interp_fir_impl(std::unique_ptr<kernel_type> kernel,
                    int device,
                    bool device_buffers,
                    kernel::sample_format output_format,
                    float full_scale);

    void set_taps(const std::vector<TAP>& taps) override;
    std::vector<TAP> taps() const override;
    void set_batch(int batch) override;
    int batch() const override;
    std::string active_backend() const override;
    bool device_buffers() const override { return d_device_buffers; }
    device_binding buffer_binding() const override { return d_io.binding(); }
    std::string output_format() const override
    {
        return kernel::to_string(d_ports.output);
    }
    std::string input_format() const override
    {
        return kernel::to_string(d_kernel->input_format());
    }
    float full_scale() const override { return d_ports.full_scale; }
    uint64_t saturated(unsigned channel) const override;
    uint64_t invalid(unsigned channel) const override;
    unsigned channels() const override { return d_kernel->channels(); }

    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    mutable std::mutex d_mutex; // setters land between two work() calls
    std::unique_ptr<kernel_type> d_kernel;
    const bool d_device_buffers;
    device_io d_io;
    channel_ports d_ports;
};

} // namespace gpuinterp
} // namespace gr

#endif
