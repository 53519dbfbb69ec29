/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "block_util.h"
#include <gnuradio/gpuinterp/kernel/resampler.h>
#include <gnuradio/gpuinterp/resampler.h>
#include <gnuradio/io_signature.h>
#include <cmath>
#include <mutex>

namespace gr {
namespace gpuinterp {

namespace {
kernel::polyphase_params make_params(unsigned nfilts, unsigned taps_per_arm, double att)
{
    kernel::polyphase_params p;
    p.nfilts = nfilts;
    p.taps_per_arm = taps_per_arm;
    p.attenuation_db = att;
    return p;
}
} // namespace

template <class T>
class resampler_impl : public resampler<T>
{
public:
    resampler_impl(double rate,
                   const std::string& method,
                   unsigned nfilts,
                   unsigned taps_per_arm,
                   double attenuation_db,
                   const std::string& backend,
                   int device)
        : gr::block("resampler",
                    gr::io_signature::make(1, 1, sizeof(T)),
                    gr::io_signature::make(1, 1, sizeof(T))),
          d_kernel(rate,
                   kernel::method_from_string(method),
                   backend_from_string(backend),
                   device,
                   make_params(nfilts, taps_per_arm, attenuation_db))
    {
        log_backend(this->d_logger, d_kernel.active_backend(), d_kernel.backend_note());
        this->set_relative_rate(rate);
        // The kernel keeps its own history; the declared history only makes GNU Radio
        // size our input buffer for the worst case of one output (K/r inputs for
        // polyphase at r < 1), which the default buffer (8192 complex items) cannot hold
        // at low rates. GNU Radio's history items sit in front of input_items[0] and are
        // skipped in general_work. The buffer is sized once, at start: lowering the rate
        // a lot while running (polyphase) can outgrow it.
        d_skip = d_kernel.reach_back() + d_kernel.lookahead() +
                 size_t(std::ceil(1.0 / rate)) + 1;
        this->set_history(unsigned(d_skip + 1));
        // Tags are moved by their input time (first output at or after it), not offset *
        // rate.
        this->set_tag_propagation_policy(gr::block::TPP_DONT);
    }

    void set_rate(double rate) override
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_kernel.set_rate(rate); // validates; the new segment starts at the next output
        d_rate_changed = true;
    }
    double rate() const override
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return d_kernel.rate();
    }
    std::string method() const override { return kernel::to_string(d_kernel.method()); }
    std::string active_backend() const override
    {
        return to_string(d_kernel.active_backend());
    }

    void forecast(int noutput_items, gr_vector_int& ninput_items_required) override
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        const size_t need = d_kernel.inputs_needed(size_t(noutput_items));
        // inputs_needed() >= 1 always (see the kernel's consumption rule), plus GNU
        // Radio's history.
        ninput_items_required[0] = int(std::max<size_t>(1, need) + d_skip);
    }

    int general_work(int noutput_items,
                     gr_vector_int& ninput_items,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items) override
    {
        return guarded_work(this->d_logger, [&] {
            std::lock_guard<std::mutex> lock(d_mutex);
            if (d_rate_changed) {
                this->set_relative_rate(d_kernel.rate());
                d_rate_changed = false;
            }
            const uint64_t read0 = this->nitems_read(0);
            size_t used = 0;
            const size_t avail = size_t(std::max(0, ninput_items[0] - int(d_skip)));
            const size_t got =
                d_kernel.resample(static_cast<T*>(output_items[0]),
                                  size_t(noutput_items),
                                  static_cast<const T*>(input_items[0]) + d_skip,
                                  avail,
                                  used);
            if (used > 0) {
                std::vector<gr::tag_t> tags;
                this->get_tags_in_range(tags, 0, read0, read0 + used);
                for (gr::tag_t t : tags) {
                    t.offset = d_kernel.first_output_at(t.offset);
                    this->add_item_tag(0, t);
                }
            }
            this->consume_each(int(used));
            return int(got);
        });
    }

private:
    mutable std::mutex d_mutex; // set_rate lands between two work() calls
    kernel::resampler<T> d_kernel;
    bool d_rate_changed = false;
    size_t d_skip = 0; // GNU Radio history items in front of the new input
};

template <class T>
typename resampler<T>::sptr resampler<T>::make(double rate,
                                               const std::string& method,
                                               unsigned nfilts,
                                               unsigned taps_per_arm,
                                               double attenuation_db,
                                               const std::string& backend,
                                               int device)
{
    return gnuradio::make_block_sptr<resampler_impl<T>>(
        rate, method, nfilts, taps_per_arm, attenuation_db, backend, device);
}

template class resampler<std::complex<float>>;
template class resampler<float>;

} // namespace gpuinterp
} // namespace gr
