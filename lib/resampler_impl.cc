/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "block_util.h"
#include "resampler_impl.h"
#include <gnuradio/gpuinterp/kernel/channels.h>
#include <gnuradio/io_signature.h>
#include <cmath>

namespace gr {
namespace gpuinterp {

namespace {
std::pair<uint64_t, uint64_t> bounded_fraction(double r, uint64_t max_den)
{
    uint64_t p0 = 0, q0 = 1, p1 = 1, q1 = 0;
    double x = r;
    for (int i = 0; i < 64; i++) {
        const double a_d = std::floor(x);
        if (a_d > 1e15)
            break;
        const uint64_t a = uint64_t(a_d);
        const uint64_t q2 = q0 + a * q1;
        if (q2 > max_den)
            break;
        const uint64_t p2 = p0 + a * p1;
        p0 = p1;
        q0 = q1;
        p1 = p2;
        q1 = q2;
        const double frac = x - a_d;
        if (frac < 1e-12)
            break;
        x = 1.0 / frac;
    }
    // The best bounded approximation is either the last convergent or a semiconvergent.
    const uint64_t k = q1 ? (max_den - q0) / q1 : 0;
    const uint64_t ps = p0 + k * p1, qs = q0 + k * q1;
    auto err = [&](uint64_t p, uint64_t q) {
        return std::abs(double(p) / double(q) - r);
    };
    if (q1 == 0 || (qs > 0 && err(ps, qs) < err(p1, q1)))
        return { std::max<uint64_t>(ps, 1), std::max<uint64_t>(qs, 1) };
    return { std::max<uint64_t>(p1, 1), q1 };
}


} // namespace

namespace resampler_detail {
kernel::polyphase_params make_params(unsigned nfilts, unsigned taps_per_arm, double att)
{
    kernel::polyphase_params p;
    p.nfilts = nfilts;
    p.taps_per_arm = taps_per_arm;
    p.attenuation_db = att;
    return p;
}
//! The fraction p/q closest to r with q <= max_den (continued fractions, as Python's
//! Fraction.limit_denominator).
//! GNU Radio sizes single-mapped (device) buffers in multiples of the reader's
//! relative-rate denominator; set_relative_rate(double) approximates 0.73 by a fraction
//! with a ~1e9 denominator, which made a gigabyte buffer. The rate is only a hint to the
//! scheduler (the forecast is exact), so it gets the fraction with the smallest
//! denominator bound (64, 4096, 2^20) that is within 0.1 % of the rate.
void set_hint_rate(gr::block& b, double r)
{
    std::pair<uint64_t, uint64_t> f;
    for (uint64_t max_den : { uint64_t(64), uint64_t(4096), uint64_t(1) << 20 }) {
        f = bounded_fraction(r, max_den);
        if (std::abs(double(f.first) / double(f.second) - r) <= 1e-3 * r)
            break;
    }
    b.set_relative_rate(f.first, f.second);
}
} // namespace resampler_detail

template <class T>
int resampler_impl<T>::general_work(int noutput_items,
                                    gr_vector_int& ninput_items,
                                    gr_vector_const_void_star& input_items,
                                    gr_vector_void_star& output_items)
{
    return this->locked_work([&] {
        if (d_rate_changed) {
            resampler_detail::set_hint_rate(*this, d_kernel->rate());
            d_rate_changed = false;
        }
        const unsigned N = d_kernel->channels();
        // One clock for every channel: each call takes what every input has.
        int ready = ninput_items[0];
        for (unsigned c = 1; c < N; c++)
            ready = std::min(ready, ninput_items[c]);
        const size_t avail = size_t(std::max(0, ready - int(d_skip)));
        d_ports.point(
            *this, d_io, d_device_buffers, input_items, output_items, d_skip, avail);
        const uint64_t read0 = this->nitems_read(0);
        size_t used = 0;
        const size_t got = d_kernel->resample_items(d_ports.out.data(),
                                                    size_t(noutput_items),
                                                    d_ports.in.data(),
                                                    avail,
                                                    used,
                                                    d_ports.output,
                                                    d_ports.full_scale,
                                                    d_device_buffers);
        d_ports.warn(this->d_logger, [&](unsigned c) { return d_kernel->counts(c); });
        if (used > 0)
            for (unsigned c = 0; c < N; c++) {
                this->get_tags_in_range(d_tags, int(c), read0, read0 + used);
                for (gr::tag_t t : d_tags) {
                    t.offset = d_kernel->first_output_at(t.offset);
                    this->add_item_tag(int(c), t);
                }
            }
        this->consume_each(int(used));
        return int(got);
    });
}

template <class T>
typename resampler<T>::sptr resampler<T>::make(double rate,
                                               const std::string& method,
                                               unsigned nfilts,
                                               unsigned taps_per_arm,
                                               double attenuation_db,
                                               const std::string& backend,
                                               int device,
                                               bool device_buffers,
                                               const std::string& output_format,
                                               float full_scale,
                                               int channels,
                                               const std::string& input_format)
{
    const stream_options o{ backend,        device,    0,
                            device_buffers, channels,  input_format,
                            output_format,  full_scale };
    return make(rate,
                method,
                resampler_detail::make_params(nfilts, taps_per_arm, attenuation_db),
                o);
}

template <class T>
typename resampler<T>::sptr resampler<T>::make(double rate,
                                               const std::string& method,
                                               const kernel::polyphase_params& filter,
                                               const stream_options& options)
{
    // The item parameters are checked before a kernel (and its device memory) exists.
    const stream_setup s = check_stream<T>(options);
    auto k = std::make_unique<kernel::resampler<T>>(rate,
                                                    kernel::method_from_string(method),
                                                    s.requested,
                                                    s.device,
                                                    filter,
                                                    s.batch,
                                                    s.channels,
                                                    s.input);
    return gnuradio::make_block_sptr<resampler_impl<T>>(
        std::move(k), s.device, s.device_buffers, s.output, s.full_scale);
}

template class resampler<std::complex<float>>;
template class resampler<float>;

} // namespace gpuinterp
} // namespace gr
