/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_RESAMPLER_IMPL_H
#define INCLUDED_GPUINTERP_RESAMPLER_IMPL_H

#include "kernel_block.h"
#include <gnuradio/block_detail.h>
#include <gnuradio/buffer_reader.h>
#include <gnuradio/gpuinterp/kernel/resampler.h>
#include <gnuradio/gpuinterp/resampler.h>
#include <memory>
#include <mutex>
#include <vector>

namespace gr {
namespace gpuinterp {

namespace resampler_detail {
kernel::polyphase_params make_params(unsigned nfilts, unsigned taps_per_arm, double att);
//! Give the scheduler the rate as a fraction with a small denominator (see the
//! definition).
void set_hint_rate(gr::block& b, double r);
} // namespace resampler_detail

template <class T>
class resampler_impl : public channel_block<resampler<T>, kernel::resampler<T>, T>
{
public:
    //! `kernel`: built by make() from its arguments.
    //! `format`, `full_scale`: as make() takes them (output_item_size() validates them).
    resampler_impl(std::unique_ptr<kernel::resampler<T>> kernel,
                   int device,
                   bool device_buffers,
                   kernel::sample_format format,
                   float full_scale)
        : gr::block("resampler",
                    device_buffer_signature(device_buffers,
                                            int(kernel->channels()),
                                            int(kernel->channels()),
                                            input_item_size<T>(kernel->input_format())),
                    device_buffer_signature(device_buffers,
                                            int(kernel->channels()),
                                            int(kernel->channels()),
                                            output_item_size<T>(format, full_scale))),
          base(std::move(kernel), device, device_buffers, format, full_scale)
    {
        const double rate = d_kernel->rate();
        resampler_detail::set_hint_rate(*this, rate);
        // The kernel keeps its own history; the declared history only makes GNU Radio
        // size our input buffer for the worst case of one output (K/r inputs for
        // polyphase at r < 1), which the default buffer (8192 complex items) cannot hold
        // at low rates. GNU Radio's history items sit in front of input_items[0] and are
        // skipped in general_work. The buffer is sized once, at start: lowering the rate
        // a lot while running (polyphase) can outgrow it.
        grow_history();
        // Tags are moved by their input time (first output at or after it), not offset *
        // rate, each on its own channel.
        this->set_tag_propagation_policy(gr::block::TPP_DONT);
    }

    void set_rate(double rate) override
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        const auto det = this->detail();
        if (det && det->ninputs() > 0 && det->input(0)) {
            // A running block's input buffer was sized at start. If one output at the new
            // rate needs more input than it can ever hold, the scheduler logs an error and
            // stops the block for good, so such a rate is refused here, with the numbers. The
            // check comes before the kernel sees the rate: a refused rate must leave nothing
            // behind (the kernel's history only ever grows).
            const long capacity = det->input(0)->max_possible_items_available();
            const long need = long(window_for(rate) + d_skip);
            if (need > capacity)
                throw std::invalid_argument(
                    "rate: " + std::to_string(rate) + " needs about " +
                    std::to_string(need) +
                    " input items per output, more than this running block's input "
                    "buffer holds (" +
                    std::to_string(capacity) +
                    "); construct the block with the lowest rate it will run at (the "
                    "buffer is "
                    "sized for that), or set it before the flowgraph starts");
        }
        d_kernel->set_rate(rate); // validates; the new segment starts at the next output
        if (!det) {
            // Not started yet: the declared history (and so the buffer GNU Radio will
            // allocate) can still grow to the new rate's window.
            grow_history();
        }
        d_rate_changed = true;
    }
    double rate() const override
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return d_kernel->rate();
    }
    void set_cuda_variant(const std::string& variant) override
    {
        const auto v = kernel::resamp_cuda_variant_from_string(variant); // validates
        std::lock_guard<std::mutex> lock(d_mutex);
        d_kernel->set_cuda_variant(v);
    }
    std::string method() const override { return kernel::to_string(d_kernel->method()); }

    void forecast(int noutput_items, gr_vector_int& ninput_items_required) override
    {
        (void)noutput_items;
        std::lock_guard<std::mutex> lock(d_mutex);
        // What the next output needs, whatever noutput_items is: general_work() makes as many
        // outputs as the inputs it is handed allow (up to noutput_items), as a sync block
        // does. A forecast of what noutput_items outputs need would make GNU Radio halve
        // noutput_items until it fits the inputs there, so a resampler that keeps up with its
        // producer would drain each batch of input in a geometric tail of ever smaller calls
        // (about log2 of the batch), each paying a call's fixed cost: on the H200 that tail
        // held the 3-stage device chain ending in sc16 near the fc32 chain's rate
        // (docs/performance.md, "The sc16 chain's lost time: the resampler's forecast").
        const size_t need = d_kernel->inputs_needed(1);
        // inputs_needed() >= 1 always (see the kernel's consumption rule), plus GNU
        // Radio's history.
        // Every channel runs on the one clock: each needs the same inputs.
        for (auto& r : ninput_items_required)
            r = int(std::max<size_t>(1, need) + d_skip);
    }

    int general_work(int noutput_items,
                     gr_vector_int& ninput_items,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items) override;

private:
    //! Inputs one output can need at `rate` beyond the declared history: the filter's look
    //! ahead plus one output period (an upper bound of the kernel's inputs_needed(1)).
    size_t window_for(double rate) const
    {
        if (!std::isfinite(rate) || !(rate > 0))
            return 0;     // the kernel's own check names the bad rate
        size_t ahead = 2; // nearest, linear, texture, cubic
        if (d_kernel->method() == kernel::resamp_method::polyphase)
            ahead = kernel::polyphase_taps(d_kernel->params(), std::min(1.0, rate)) / 2;
        return ahead + size_t(std::ceil(1.0 / rate)) + 1;
    }

    //! Declare the history one output at the current rate needs (never shrinks it).
    void grow_history()
    {
        const size_t skip = d_kernel->reach_back() + d_kernel->lookahead() +
                            size_t(std::ceil(1.0 / d_kernel->rate())) + 1;
        if (skip > d_skip) {
            d_skip = skip;
            this->set_history(unsigned(d_skip + 1));
        }
    }

    using base = channel_block<resampler<T>, kernel::resampler<T>, T>;
    using base::d_device_buffers, base::d_io, base::d_kernel, base::d_mutex,
        base::d_ports;

    bool d_rate_changed = false;
    size_t d_skip = 0;             // GNU Radio history items in front of the new input
    std::vector<gr::tag_t> d_tags; // reused across calls
};

} // namespace gpuinterp
} // namespace gr

#endif
