/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_DPD_PREDISTORTER_CC_IMPL_H
#define INCLUDED_GPUINTERP_DPD_PREDISTORTER_CC_IMPL_H

#include "device_io.h"
#include <gnuradio/gpuinterp/coeffs_message.h>
#include <gnuradio/gpuinterp/cuda_buffer.h>
#include <gnuradio/gpuinterp/dpd_predistorter_cc.h>
#include <gnuradio/gpuinterp/kernel/dpd_predistorter.h>
#include <pmt/pmt.h>
#include <deque>
#include <memory>
#include <mutex>

namespace gr {
namespace gpuinterp {

class dpd_predistorter_cc_impl : public dpd_predistorter_cc, public device_buffer_client
{
public:
    //! `kernel`: built by make() from its arguments.
    dpd_predistorter_cc_impl(std::unique_ptr<kernel::dpd_predistorter> kernel,
                             int device,
                             bool device_buffers);

    void set_coefficients(const std::vector<gr_complex>& coefficients,
                          gr_complex lo_leakage) override;
    std::vector<gr_complex> coefficients() const override;
    gr_complex lo_leakage() const override;
    std::string model() const override { return d_kernel->model().to_string(); }
    unsigned delay() const override { return unsigned(d_kernel->delay()); }
    unsigned P() const override { return d_kernel->P(); }
    unsigned Q() const override { return d_kernel->Q(); }
    unsigned Lp() const override { return d_kernel->Lp(); }
    unsigned Lq() const override { return d_kernel->Lq(); }
    void set_batch(int batch) override;
    int batch() const override;
    void set_cuda_variant(const std::string& variant) override;
    std::string active_backend() const override;
    bool device_buffers() const override { return d_device_buffers; }
    device_binding buffer_binding() const override { return d_io.binding(); }

    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    void handle_message(const pmt::pmt_t& msg);
    //! Apply an update under the lock already held; false (and a log line) when it is refused.
    bool apply_locked(const pmt::pmt_t& v, const char* where);

    mutable std::mutex d_mutex; // setters and messages land between two work() calls
    std::unique_ptr<kernel::dpd_predistorter> d_kernel;
    const pmt::pmt_t d_tag_key;
    const pmt::pmt_t d_switch_key;
    //! A set arrived by message or setter: the next work() tags its first output
    //! `dpd_switch`.
    bool d_switched = false;
    const bool d_device_buffers;
    device_io d_io;
    std::vector<gr::tag_t> d_tags;
    //! `dpd_coeffs` switches waiting for their output (tag offset + delay), in output order.
    struct pending_switch {
        uint64_t at;
        pmt::pmt_t value;
    };
    std::deque<pending_switch> d_pending;
};

} // namespace gpuinterp
} // namespace gr

#endif
