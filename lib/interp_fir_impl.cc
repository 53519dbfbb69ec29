/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "block_util.h"
#include "interp_fir_impl.h"
#include <gnuradio/gpuinterp/kernel/channels.h>
#include <gnuradio/io_signature.h>
#include <type_traits>
#include <stdexcept>

namespace gr {
namespace gpuinterp {

template <class T, class TAP>
typename interp_fir<T, TAP>::sptr
interp_fir<T, TAP>::make(int interpolation,
                         const std::vector<TAP>& taps,
                         const std::string& backend,
                         int device,
                         int batch,
                         bool device_buffers,
                         const std::string& output_format,
                         float full_scale,
                         int channels,
                         const std::string& input_format)
{
    const stream_options o{ backend,  device,       batch,         device_buffers,
                            channels, input_format, output_format, full_scale };
    return make(interpolation, taps, o);
}

template <class T, class TAP>
typename interp_fir<T, TAP>::sptr interp_fir<T, TAP>::make(int interpolation,
                                                           const std::vector<TAP>& taps,
                                                           const stream_options& options)
{
    const stream_setup s = check_stream<T>(options);
    return gnuradio::make_block_sptr<interp_fir_impl<T, TAP>>(
        std::make_unique<kernel::polyphase_interpolator<T, TAP>>(
            interpolation_from_param(interpolation),
            taps,
            s.requested,
            s.device,
            s.batch,
            s.channels,
            s.input),
        s.device,
        s.device_buffers,
        s.output,
        s.full_scale);
}

template <class T, class TAP>
interp_fir_impl<T, TAP>::interp_fir_impl(std::unique_ptr<kernel_type> kernel,
                                         int device,
                                         bool device_buffers,
                                         kernel::sample_format output_format,
                                         float full_scale)
    : gr::sync_interpolator(
          "interp_fir",
          device_buffer_signature(device_buffers,
                                  kernel->channels(),
                                  kernel->channels(),
                                  input_item_size<T>(kernel->input_format())),
          device_buffer_signature(device_buffers,
                                  kernel->channels(),
                                  kernel->channels(),
                                  output_item_size<T>(output_format, full_scale)),
          kernel->interpolation()),
      base(std::move(kernel), device, device_buffers, output_format, full_scale)
{
    // A tag stays on its own channel (GNU Radio's default copies every input's tags to every
    // output); offsets still scale by L.
    if (d_kernel->channels() > 1)
        this->set_tag_propagation_policy(gr::block::TPP_ONE_TO_ONE);
}

template <class T, class TAP>
void interp_fir_impl<T, TAP>::set_taps(const std::vector<TAP>& taps)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    d_kernel->set_taps(taps);
}

template <class T, class TAP>
std::vector<TAP> interp_fir_impl<T, TAP>::taps() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_kernel->taps();
}

template <class T, class TAP>
void interp_fir_impl<T, TAP>::set_batch(int batch)
{
    const size_t b = batch_from_param(batch);
    std::lock_guard<std::mutex> lock(d_mutex);
    d_kernel->set_batch(b ? b : kernel::polyphase_interpolator<T, TAP>::default_batch);
}

template <class T, class TAP>
int interp_fir_impl<T, TAP>::batch() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return static_cast<int>(d_kernel->batch());
}

template <class T, class TAP>
int interp_fir_impl<T, TAP>::work(int noutput_items,
                                  gr_vector_const_void_star& input_items,
                                  gr_vector_void_star& output_items)
{
    return this->locked_work([&] {
        const unsigned L = d_kernel->interpolation();
        const size_t n_in = size_t(noutput_items) / L;
        d_ports.point(*this, d_io, d_device_buffers, input_items, output_items, 0, n_in);
        d_kernel->filter_items(d_ports.out.data(),
                               d_ports.in.data(),
                               n_in,
                               d_ports.output,
                               d_ports.full_scale,
                               d_device_buffers);
        d_ports.warn(this->d_logger, [&](unsigned c) { return d_kernel->counts(c); });
        return int(n_in * L);
    });
}

template class interp_fir<std::complex<float>, float>;
template class interp_fir<float, float>;
template class interp_fir<std::complex<float>, std::complex<float>>;

} // namespace gpuinterp
} // namespace gr
