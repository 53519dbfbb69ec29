/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_DPD_PREDISTORTER_CC_IMPL_H
#define INCLUDED_GPUINTERP_DPD_PREDISTORTER_CC_IMPL_H

#include "kernel_block.h"
#include <gnuradio/gpuinterp/coeffs_message.h>
#include <gnuradio/gpuinterp/dpd_predistorter_cc.h>
#include <gnuradio/gpuinterp/kernel/dpd_bank.h>
#include <pmt/pmt.h>
#include <deque>
#include <memory>
#include <mutex>

namespace gr {
namespace gpuinterp {

class dpd_predistorter_cc_impl
    : public channel_block<dpd_predistorter_cc, kernel::dpd_bank, gr_complex>
{
public:
    //! `kernel`: built by make() from its arguments.
    dpd_predistorter_cc_impl(std::unique_ptr<kernel::dpd_bank> kernel,
                             int device,
                             bool device_buffers);

    void set_coefficients(const std::vector<gr_complex>& coefficients,
                          gr_complex lo_leakage) override;
    std::vector<gr_complex> coefficients() const override;
    gr_complex lo_leakage() const override;
    void set_channel_coefficients(unsigned channel,
                                  const std::vector<gr_complex>& coefficients,
                                  gr_complex lo_leakage) override;
    std::vector<gr_complex> channel_coefficients(unsigned channel) const override;
    gr_complex channel_lo_leakage(unsigned channel) const override;
    void set_weights(const std::vector<float>& weights) override;
    void set_channel_weights(unsigned channel,
                             const std::vector<float>& weights) override;
    std::vector<float> weights() const override { return channel_weights(0); }
    std::vector<float> channel_weights(unsigned channel) const override;
    std::string model() const override { return d_kernel->model().to_string(); }
    unsigned delay() const override { return unsigned(d_kernel->delay()); }
    unsigned P() const override { return ph() ? d_kernel->model().P : 0; }
    unsigned Q() const override { return ph() ? d_kernel->model().Q : 0; }
    unsigned Lp() const override { return ph() ? d_kernel->model().Lp : 0; }
    unsigned Lq() const override { return ph() ? d_kernel->model().Lq : 0; }
    void set_batch(int batch) override;
    int batch() const override;
    void set_cuda_variant(const std::string& variant) override;

    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    bool ph() const
    {
        return d_kernel->model().family == kernel::dpd_model::family_t::ph;
    }
    void handle_message(const pmt::pmt_t& msg);
    //! Apply an update under the lock already held, to `channel` (a tag's port) or, with -1, to
    //! the channel the update names (every channel when it names none); false (and a log line)
    //! when it is refused.
    bool apply_locked(const pmt::pmt_t& v, const char* where, int channel);
    //! Process outputs [from, to) of every channel of the current work() call.
    void process_span(size_t from, size_t to);

    // d_mutex (kernel_block): messages land between two work() calls too.
    const pmt::pmt_t d_tag_key;
    const pmt::pmt_t d_switch_key;
    //! Per channel: a set arrived by message or setter, so the next work() tags the channel's
    //! first output `dpd_switch`.
    std::vector<char> d_switched;
    std::vector<gr::tag_t> d_tags;
    //! `dpd_coeffs` switches waiting for their output (tag offset + delay), per channel, in
    //! output order.
    struct pending_switch {
        uint64_t at;
        pmt::pmt_t value;
    };
    std::vector<std::deque<pending_switch>> d_pending;
    //! One span's pointers into the call's ports (d_ports); sized once, so work() allocates
    //! nothing.
    std::vector<void*> d_span_out;
    std::vector<const void*> d_span_in;
};

} // namespace gpuinterp
} // namespace gr

#endif
