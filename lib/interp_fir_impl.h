/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_INTERP_FIR_IMPL_H
#define INCLUDED_GPUINTERP_INTERP_FIR_IMPL_H

#include "kernel_block.h"
#include <gnuradio/gpuinterp/interp_fir.h>
#include <gnuradio/gpuinterp/kernel/polyphase_interpolator.h>
#include <memory>
#include <mutex>

namespace gr {
namespace gpuinterp {

template <class T, class TAP>
class interp_fir_impl
    : public channel_block<interp_fir<T, TAP>, kernel::polyphase_interpolator<T, TAP>, T>
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

    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    using base =
        channel_block<interp_fir<T, TAP>, kernel::polyphase_interpolator<T, TAP>, T>;
    using base::d_device_buffers, base::d_io, base::d_kernel, base::d_mutex,
        base::d_ports;
};

} // namespace gpuinterp
} // namespace gr

#endif
