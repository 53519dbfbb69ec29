/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "block_util.h"
#include "interp_fir_impl.h"
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
                         float full_scale)
{
    return gnuradio::make_block_sptr<interp_fir_impl<T, TAP>>(interpolation,
                                                              taps,
                                                              backend,
                                                              device,
                                                              batch,
                                                              device_buffers,
                                                              output_format,
                                                              full_scale);
}

template <class T, class TAP>
interp_fir_impl<T, TAP>::interp_fir_impl(int interpolation,
                                         const std::vector<TAP>& taps,
                                         const std::string& backend,
                                         int device,
                                         int batch,
                                         bool device_buffers,
                                         const std::string& output_format,
                                         float full_scale)
    : gr::sync_interpolator(
          "interp_fir",
          device_buffer_signature(device_buffers, 1, 1, sizeof(T)),
          device_buffer_signature(
              device_buffers,
              1,
              1,
              output_item_size<T>(kernel::sample_format_from_string(output_format),
                                  full_scale)),
          unsigned(interpolation < 1 ? 1 : interpolation)),
      d_kernel(interpolation_from_param(interpolation),
               taps,
               backend_from_string(backend),
               device,
               batch_from_param(batch)),
      d_device_buffers(device_buffers),
      d_format(kernel::sample_format_from_string(output_format)),
      d_full_scale(full_scale)
{
    log_backend(this->d_logger, d_kernel.active_backend(), d_kernel.backend_note());
    d_io.attach(*this, d_kernel.active_backend(), device, device_buffers);
}

template <class T, class TAP>
void interp_fir_impl<T, TAP>::set_taps(const std::vector<TAP>& taps)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    d_kernel.set_taps(taps);
}

template <class T, class TAP>
std::vector<TAP> interp_fir_impl<T, TAP>::taps() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_kernel.taps();
}

template <class T, class TAP>
void interp_fir_impl<T, TAP>::set_batch(int batch)
{
    const size_t b = batch_from_param(batch);
    std::lock_guard<std::mutex> lock(d_mutex);
    d_kernel.set_batch(b ? b : kernel::polyphase_interpolator<T, TAP>::default_batch);
}

template <class T, class TAP>
int interp_fir_impl<T, TAP>::batch() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return static_cast<int>(d_kernel.batch());
}

template <class T, class TAP>
uint64_t interp_fir_impl<T, TAP>::saturated() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_kernel.counts().saturated;
}

template <class T, class TAP>
uint64_t interp_fir_impl<T, TAP>::invalid() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_kernel.counts().invalid;
}

template <class T, class TAP>
std::string interp_fir_impl<T, TAP>::active_backend() const
{
    return to_string(d_kernel.active_backend());
}

template <class T, class TAP>
int interp_fir_impl<T, TAP>::work(int noutput_items,
                                  gr_vector_const_void_star& input_items,
                                  gr_vector_void_star& output_items)
{
    return guarded_work(this->d_logger, [&] {
        std::lock_guard<std::mutex> lock(d_mutex);
        const unsigned L = d_kernel.interpolation();
        const int n_in = noutput_items / static_cast<int>(L);
        if (d_format == kernel::sample_format::sc16) {
            const void* in =
                d_device_buffers
                    ? d_io.input(*this, 0, input_items[0], size_t(n_in) * sizeof(T))
                    : input_items[0];
            d_kernel.filter_sc16(static_cast<int16_t*>(output_items[0]),
                                 static_cast<const T*>(in),
                                 static_cast<size_t>(n_in),
                                 d_full_scale,
                                 d_device_buffers);
            d_warning.check(this->d_logger, "", d_kernel.counts(), d_full_scale);
        } else if (d_device_buffers) {
            const void* in =
                d_io.input(*this, 0, input_items[0], size_t(n_in) * sizeof(T));
            d_kernel.filter_device(static_cast<T*>(output_items[0]),
                                   static_cast<const T*>(in),
                                   static_cast<size_t>(n_in));
        } else {
            d_kernel.filter(static_cast<T*>(output_items[0]),
                            static_cast<const T*>(input_items[0]),
                            static_cast<size_t>(n_in));
        }
        return n_in * static_cast<int>(L);
    });
}

template class interp_fir<std::complex<float>, float>;
template class interp_fir<float, float>;
template class interp_fir<std::complex<float>, std::complex<float>>;

} // namespace gpuinterp
} // namespace gr
