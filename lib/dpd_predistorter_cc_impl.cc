/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "block_util.h"
#include "dpd_predistorter_cc_impl.h"
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

// The model of make()'s arguments: `spec` when given, else ph with (P, Q, Lp, Lq).
kernel::dpd_model model_from_params(unsigned P,
                                    unsigned Q,
                                    unsigned Lp,
                                    unsigned Lq,
                                    const std::vector<gr_complex>& coefficients,
                                    gr_complex lo_leakage,
                                    const std::string& spec)
{
    if (spec.find_first_not_of(" \t\n") == std::string::npos) {
        // The (P, Q, Lp, Lq) parameters keep their own error messages ("P: ...").
        kernel::dpd_predistorter::validate(P, Q, Lp, Lq, coefficients, lo_leakage);
        return kernel::dpd_predistorter::ph_model(P, Q, Lp, Lq);
    }
    return kernel::dpd_model::parse(spec);
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
                          const std::string& model)
{
    return gnuradio::make_block_sptr<dpd_predistorter_cc_impl>(
        std::make_unique<kernel::dpd_predistorter>(
            model_from_params(P, Q, Lp, Lq, coefficients, lo_leakage, model),
            coefficients,
            lo_leakage,
            backend_from_string(backend),
            device,
            batch_from_param(batch),
            mapped),
        device,
        device_buffers);
}

dpd_predistorter_cc_impl::dpd_predistorter_cc_impl(
    std::unique_ptr<kernel::dpd_predistorter> kernel, int device, bool device_buffers)
    : gr::sync_block("dpd_predistorter_cc",
                     device_buffer_signature(device_buffers, 1, 1, sizeof(gr_complex)),
                     device_buffer_signature(device_buffers, 1, 1, sizeof(gr_complex))),
      d_kernel(std::move(kernel)),
      d_tag_key(pmt::intern(tag_name)),
      d_switch_key(pmt::intern(switch_tag_name)),
      d_device_buffers(device_buffers)
{
    log_backend(d_logger, d_kernel->active_backend(), d_kernel->backend_note());
    // Delayed output: tags move with it (work() re-adds them at offset + delay).
    if (d_kernel->delay() > 0)
        set_tag_propagation_policy(TPP_DONT);
    d_io.attach(*this, d_kernel->active_backend(), device, device_buffers);
    message_port_register_in(pmt::mp(port_name));
    set_msg_handler(pmt::mp(port_name),
                    [this](const pmt::pmt_t& msg) { handle_message(msg); });
}

void dpd_predistorter_cc_impl::set_coefficients(
    const std::vector<gr_complex>& coefficients, gr_complex lo_leakage)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    d_kernel->set_coefficients(coefficients, lo_leakage); // validates; unchanged on error
    d_switched = true;
}

std::vector<gr_complex> dpd_predistorter_cc_impl::coefficients() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_kernel->coefficients();
}

gr_complex dpd_predistorter_cc_impl::lo_leakage() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_kernel->lo_leakage();
}

void dpd_predistorter_cc_impl::set_batch(int batch)
{
    const size_t b = batch_from_param(batch);
    std::lock_guard<std::mutex> lock(d_mutex);
    d_kernel->set_batch(b ? b : kernel::dpd_predistorter::default_batch);
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

std::string dpd_predistorter_cc_impl::active_backend() const
{
    return to_string(d_kernel->active_backend());
}

bool dpd_predistorter_cc_impl::apply_locked(const pmt::pmt_t& v, const char* where)
{
    try {
        const coeffs_update u = decode_coeffs_message(v);
        d_kernel->set_coefficients(
            u.coefficients, u.has_lo_leakage ? u.lo_leakage : d_kernel->lo_leakage());
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
    if (apply_locked(msg, "message port 'coeffs'"))
        d_switched = true;
}

int dpd_predistorter_cc_impl::work(int noutput_items,
                                   gr_vector_const_void_star& input_items,
                                   gr_vector_void_star& output_items)
{
    return guarded_work(d_logger, [&] {
        const auto* in = static_cast<const gr_complex*>(
            d_device_buffers ? d_io.input(*this,
                                          0,
                                          input_items[0],
                                          size_t(noutput_items) * sizeof(gr_complex))
                             : input_items[0]);
        auto* out = static_cast<gr_complex*>(output_items[0]);
        // Device buffers hand over device pointers (host memory on the CPU backend).
        auto process = [&](gr_complex* o, const gr_complex* i, size_t n) {
            if (d_device_buffers)
                d_kernel->process_device(o, i, n);
            else
                d_kernel->process(o, i, n);
        };
        const uint64_t n0 = nitems_read(0), w0 = nitems_written(0);
        const uint64_t D = d_kernel->delay();
        std::lock_guard<std::mutex> lock(d_mutex);
        if (d_switched) {
            add_item_tag(0, w0, d_switch_key, pmt::PMT_T);
            d_switched = false;
        }
        if (D == 0)
            get_tags_in_range(d_tags, 0, n0, n0 + noutput_items, d_tag_key);
        else
            get_tags_in_range(d_tags, 0, n0, n0 + noutput_items);
        std::stable_sort(
            d_tags.begin(), d_tags.end(), [](const gr::tag_t& a, const gr::tag_t& b) {
                return a.offset < b.offset;
            });
        // Output i is aligned with input i - D: a tag moves to offset + D, and so does the
        // switch a `dpd_coeffs` tag asks for (queued when it lands in a later call). Targets of
        // earlier calls are below this call's, so the queue stays in output order.
        for (const auto& t : d_tags) {
            if (D > 0)
                add_item_tag(0, t.offset + D, t.key, t.value, t.srcid);
            if (pmt::eq(t.key, d_tag_key))
                d_pending.push_back({ t.offset + D, t.value });
        }
        // Split the call at every switch due in it so the new set starts exactly there.
        size_t done = 0;
        const uint64_t end = w0 + uint64_t(noutput_items);
        while (!d_pending.empty() && d_pending.front().at < end) {
            const size_t at =
                static_cast<size_t>(std::max(d_pending.front().at, w0) - w0);
            process(out + done, in + done, at - done);
            done = at;
            apply_locked(d_pending.front().value, "tag 'dpd_coeffs'");
            d_pending.pop_front();
        }
        process(out + done, in + done, static_cast<size_t>(noutput_items) - done);
        return noutput_items;
    });
}

} // namespace gpuinterp
} // namespace gr
