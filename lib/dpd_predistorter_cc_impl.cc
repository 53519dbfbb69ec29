/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "block_util.h"
#include "dpd_predistorter_cc_impl.h"
#include <gnuradio/gpuinterp/kernel/sample_format.h>
#include <gnuradio/io_signature.h>
#include <algorithm>
#include <stdexcept>

namespace gr {
namespace gpuinterp {

namespace {

const char* const port_name = "coeffs";
const char* const tag_name = "dpd_coeffs";
// Marks the first output of a set that arrived by message or setter (a tag switch is
// marked by its own `dpd_coeffs` tag): an estimator downstream must not mix two sets in
// one capture.
const char* const switch_tag_name = "dpd_switch";

// The model of make()'s arguments: `spec` when given, else ph with (P, Q, Lp, Lq). Validated
// where it is made; the values are validated by the bank.
kernel::dpd_model model_from_params(
    unsigned P, unsigned Q, unsigned Lp, unsigned Lq, const std::string& spec)
{
    if (spec.find_first_not_of(" \t\n") == std::string::npos)
        return kernel::dpd_model::ph_params(P, Q, Lp, Lq);
    return kernel::dpd_model::parse(spec);
}

// The bank of the model's kind: a neural model takes real weights, the others complex
// coefficients; the other kind's argument must be empty, so a mix-up is named, not ignored.
std::unique_ptr<kernel::dpd_bank> make_bank(const kernel::dpd_model& m,
                                            const stream_setup& s,
                                            const std::vector<gr_complex>& coefficients,
                                            gr_complex lo_leakage,
                                            const std::vector<float>& weights,
                                            bool mapped)
{
    kernel::dpd_bank::options o(s.requested);
    o.device = s.device;
    o.batch = s.batch;
    o.mapped = mapped;
    o.input_format = s.input;
    o.output_format = s.output;
    o.full_scale = s.full_scale;
    if (!m.is_neural()) {
        if (!weights.empty())
            throw std::invalid_argument(
                "weights: " + m.to_string() +
                " takes complex coefficients; weights are for the "
                "neural families (gru, tdnn)");
        return std::make_unique<kernel::dpd_bank>(
            m, s.channels, coefficients, lo_leakage, o);
    }
    if (!coefficients.empty() || lo_leakage != gr_complex(0))
        throw std::invalid_argument("coefficients: " + m.to_string() +
                                    " is a neural model: give its weights, and no "
                                    "coefficients or LO leakage");
    return std::make_unique<kernel::dpd_bank>(m, s.channels, weights, o);
}

dpd_predistorter_cc::sptr make_block(const kernel::dpd_model& m,
                                     const std::vector<gr_complex>& coefficients,
                                     gr_complex lo_leakage,
                                     const std::vector<float>& weights,
                                     bool mapped,
                                     const stream_options& options)
{
    const stream_setup s =
        check_stream<gr_complex>(options); // before the ports are sized
    return gnuradio::make_block_sptr<dpd_predistorter_cc_impl>(
        make_bank(m, s, coefficients, lo_leakage, weights, mapped),
        s.device,
        s.device_buffers);
}
} // namespace

dpd_predistorter_cc::sptr
dpd_predistorter_cc::make(unsigned P,
                          unsigned Q,
                          unsigned Lp,
                          unsigned Lq,
                          const std::vector<gr_complex>& coefficients,
                          gr_complex lo_leakage,
                          const std::string& backend,
                          int device,
                          int batch,
                          bool mapped,
                          bool device_buffers,
                          const std::string& model,
                          int channels,
                          const std::string& output_format,
                          float full_scale,
                          const std::string& input_format,
                          const std::vector<float>& weights)
{
    const stream_options o{ backend,  device,       batch,         device_buffers,
                            channels, input_format, output_format, full_scale };
    return make_block(model_from_params(P, Q, Lp, Lq, model),
                      coefficients,
                      lo_leakage,
                      weights,
                      mapped,
                      o);
}

dpd_predistorter_cc::sptr
dpd_predistorter_cc::make(const std::string& model,
                          const std::vector<gr_complex>& coefficients,
                          gr_complex lo_leakage,
                          const std::vector<float>& weights,
                          bool mapped,
                          const stream_options& options)
{
    return make_block(kernel::dpd_model::parse(model),
                      coefficients,
                      lo_leakage,
                      weights,
                      mapped,
                      options);
}

dpd_predistorter_cc_impl::dpd_predistorter_cc_impl(
    std::unique_ptr<kernel::dpd_bank> kernel, int device, bool device_buffers)
    : gr::sync_block(
          "dpd_predistorter_cc",
          device_buffer_signature(device_buffers,
                                  kernel->channels(),
                                  kernel->channels(),
                                  kernel::sample_bytes(kernel->input_format())),
          device_buffer_signature(device_buffers,
                                  kernel->channels(),
                                  kernel->channels(),
                                  kernel::sample_bytes(kernel->output_format()))),
      channel_block(std::move(kernel), device, device_buffers),
      d_tag_key(pmt::intern(tag_name)),
      d_switch_key(pmt::intern(switch_tag_name)),
      d_switched(d_kernel->channels(), 0),
      d_pending(d_kernel->channels()),
      d_span_out(d_kernel->channels()),
      d_span_in(d_kernel->channels())
{
    // Delayed output: tags move with it (work() re-adds them at offset + delay). Channels: a
    // tag stays on its own channel.
    if (d_kernel->delay() > 0)
        set_tag_propagation_policy(TPP_DONT);
    else if (d_kernel->channels() > 1)
        set_tag_propagation_policy(TPP_ONE_TO_ONE);
    message_port_register_in(pmt::mp(port_name));
    set_msg_handler(pmt::mp(port_name),
                    [this](const pmt::pmt_t& msg) { handle_message(msg); });
}

void dpd_predistorter_cc_impl::set_coefficients(
    const std::vector<gr_complex>& coefficients, gr_complex lo_leakage)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    d_kernel->set_coefficients(0, d_kernel->channels() - 1, coefficients, lo_leakage);
    std::fill(d_switched.begin(), d_switched.end(), 1);
}

void dpd_predistorter_cc_impl::set_channel_coefficients(
    unsigned channel, const std::vector<gr_complex>& coefficients, gr_complex lo_leakage)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    d_kernel->set_coefficients(channel, coefficients, lo_leakage);
    d_switched[channel] = 1;
}

void dpd_predistorter_cc_impl::set_weights(const std::vector<float>& weights)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    d_kernel->set_weights(0, d_kernel->channels() - 1, weights);
    std::fill(d_switched.begin(), d_switched.end(), 1);
}

void dpd_predistorter_cc_impl::set_channel_weights(unsigned channel,
                                                   const std::vector<float>& weights)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    d_kernel->set_weights(channel, weights);
    d_switched[channel] = 1;
}

std::vector<float> dpd_predistorter_cc_impl::channel_weights(unsigned channel) const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_kernel->weights(channel);
}

std::vector<gr_complex> dpd_predistorter_cc_impl::coefficients() const
{
    return channel_coefficients(0);
}

gr_complex dpd_predistorter_cc_impl::lo_leakage() const { return channel_lo_leakage(0); }

std::vector<gr_complex>
dpd_predistorter_cc_impl::channel_coefficients(unsigned channel) const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_kernel->coefficients(channel);
}

gr_complex dpd_predistorter_cc_impl::channel_lo_leakage(unsigned channel) const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_kernel->lo_leakage(channel);
}

void dpd_predistorter_cc_impl::set_batch(int batch)
{
    const size_t b = batch_from_param(batch);
    std::lock_guard<std::mutex> lock(d_mutex);
    d_kernel->set_batch(b);
}

int dpd_predistorter_cc_impl::batch() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return static_cast<int>(d_kernel->batch());
}

void dpd_predistorter_cc_impl::set_cuda_variant(const std::string& variant)
{
    const auto v = kernel::dpd_cuda_variant_from_string(variant);
    std::lock_guard<std::mutex> lock(d_mutex);
    d_kernel->set_cuda_variant(v);
}

bool dpd_predistorter_cc_impl::apply_locked(const pmt::pmt_t& v,
                                            const char* where,
                                            int channel)
{
    const int N = int(d_kernel->channels());
    try {
        const coeffs_update u = decode_coeffs_message(v);
        if (channel >= 0 && u.channel >= 0 && u.channel != channel)
            throw std::invalid_argument(
                "channel: the value names channel " + std::to_string(u.channel) +
                ", the tag is on input " + std::to_string(channel));
        const int target = channel >= 0 ? channel : u.channel;
        // The kernel checks the channels and validates the set once for the range, so a
        // refused set changes no channel.
        const unsigned first = target >= 0 ? target : 0,
                       last = target >= 0 ? target : N - 1;
        if (d_kernel->model().is_neural()) {
            d_kernel->set_weights(first, last, weights_of(u));
        } else {
            if (!u.weights.empty())
                throw std::invalid_argument("weights: " + d_kernel->model().to_string() +
                                            " takes complex coefficients, not weights");
            d_kernel->set_coefficients(first,
                                       last,
                                       u.coefficients,
                                       u.has_lo_leakage
                                           ? std::optional<gr_complex>(u.lo_leakage)
                                           : std::nullopt);
        }
        if (channel < 0) // a tag's switch is marked by the tag itself
            for (unsigned c = first; c <= last; c++)
                d_switched[c] = 1;
        return true;
    } catch (const std::invalid_argument& e) {
        d_logger->error("ignoring coefficient update from {}: {}", where, e.what());
        return false;
    }
}

void dpd_predistorter_cc_impl::handle_message(const pmt::pmt_t& msg)
{
    // Runs in the block's thread between two work() calls: the new set starts a chunk.
    std::lock_guard<std::mutex> lock(d_mutex);
    apply_locked(msg, "message port 'coeffs'", -1);
}

void dpd_predistorter_cc_impl::process_span(size_t from, size_t to)
{
    if (to <= from)
        return;
    const size_t bytes = kernel::sample_bytes(d_kernel->output_format());
    const size_t in_bytes = kernel::sample_bytes(d_kernel->input_format());
    for (size_t c = 0; c < d_span_out.size(); c++) {
        d_span_out[c] = static_cast<char*>(d_ports.out[c]) + from * bytes;
        d_span_in[c] = static_cast<const char*>(d_ports.in[c]) + from * in_bytes;
    }
    // Device buffers hand over device pointers (host memory on the CPU backend).
    if (d_device_buffers)
        d_kernel->process_device(d_span_out.data(), d_span_in.data(), to - from);
    else
        d_kernel->process(d_span_out.data(), d_span_in.data(), to - from);
}

int dpd_predistorter_cc_impl::work(int noutput_items,
                                   gr_vector_const_void_star& input_items,
                                   gr_vector_void_star& output_items)
{
    return guarded_work(d_logger, [&] {
        const unsigned N = d_kernel->channels();
        d_ports.point(
            *this, d_io, d_device_buffers, input_items, output_items, 0, noutput_items);
        const uint64_t n0 = nitems_read(0), w0 = nitems_written(0);
        const uint64_t D = d_kernel->delay();
        std::lock_guard<std::mutex> lock(d_mutex);
        for (unsigned c = 0; c < N; c++) {
            if (d_switched[c]) {
                add_item_tag(c, w0, d_switch_key, pmt::PMT_T);
                d_switched[c] = 0;
            }
            if (D == 0)
                get_tags_in_range(d_tags, c, n0, n0 + noutput_items, d_tag_key);
            else
                get_tags_in_range(d_tags, c, n0, n0 + noutput_items);
            std::stable_sort(
                d_tags.begin(), d_tags.end(), [](const gr::tag_t& a, const gr::tag_t& b) {
                    return a.offset < b.offset;
                });
            // Output i is aligned with input i - D: a tag moves to offset + D, and so does the
            // switch a `dpd_coeffs` tag asks for (queued when it lands in a later call). Targets
            // of earlier calls are below this call's, so each queue stays in output order.
            for (const auto& t : d_tags) {
                if (D > 0)
                    add_item_tag(c, t.offset + D, t.key, t.value, t.srcid);
                if (pmt::eq(t.key, d_tag_key))
                    d_pending[c].push_back({ t.offset + D, t.value });
            }
        }
        // Split the call at every switch due in it, whichever channel's, so each new set
        // starts exactly at its sample; the other channels just continue across the split.
        size_t done = 0;
        const uint64_t end = w0 + uint64_t(noutput_items);
        for (;;) {
            uint64_t next = end;
            for (const auto& q : d_pending)
                if (!q.empty())
                    next = std::min(next, std::max(q.front().at, w0));
            if (next >= end)
                break;
            const size_t at = static_cast<size_t>(next - w0);
            process_span(done, at);
            done = at;
            for (unsigned c = 0; c < N; c++)
                while (!d_pending[c].empty() &&
                       std::max(d_pending[c].front().at, w0) == next) {
                    apply_locked(d_pending[c].front().value, "tag 'dpd_coeffs'", int(c));
                    d_pending[c].pop_front();
                }
        }
        process_span(done, static_cast<size_t>(noutput_items));
        d_ports.warn(d_logger, [&](unsigned c) { return d_kernel->counts(c); });
        return noutput_items;
    });
}

} // namespace gpuinterp
} // namespace gr
