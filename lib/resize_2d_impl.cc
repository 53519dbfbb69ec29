/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "block_util.h"
#include "resize_2d_impl.h"
#include <gnuradio/gpuinterp/kernel/validate.h>
#include <gnuradio/io_signature.h>
#include <climits>

namespace gr {
namespace gpuinterp {

namespace {

// The io signatures need the frame sizes before the kernel exists (the base class is
// built first), so the config is validated here; an item must also fit GNU Radio's int item size.
int frame_bytes(const kernel::resize_config& c, bool output, size_t sample_size)
{
    c.validate();
    const double items = output ? double(c.out_height) * c.out_width * c.channels
                                : double(c.in_height) * c.in_width * c.channels;
    if (items * sample_size > double(INT_MAX))
        invalid_parameter(output ? "out_height" : "in_height",
                          "frame of height*width*channels is too large for one item");
    return int(items * sample_size);
}

} // namespace

template <class T>
typename resize_2d<T>::sptr resize_2d<T>::make(int in_height,
                                               int in_width,
                                               int out_height,
                                               int out_width,
                                               int channels,
                                               const std::string& method,
                                               const std::string& coord,
                                               const std::string& border,
                                               float border_value,
                                               const std::vector<float>& mean,
                                               const std::vector<float>& std,
                                               float scale,
                                               bool clip,
                                               bool half_output,
                                               const std::string& backend,
                                               int device,
                                               float clip_min,
                                               float clip_max,
                                               int batch,
                                               bool device_buffers)
{
    // The parameters carry the list's names (a renamed or missing one fails to compile).
    kernel::resize_config config;
    GPUINTERP_RESIZE_2D_PARAMS(GPUINTERP_RESIZE_2D_ASSIGN, GPUINTERP_RESIZE_2D_ASSIGN)
    return make(config);
}

template <class T>
typename resize_2d<T>::sptr resize_2d<T>::make(const kernel::resize_config& config)
{
    return gnuradio::make_block_sptr<resize_2d_impl<T>>(config);
}

template <class T>
resize_2d_impl<T>::resize_2d_impl(const kernel::resize_config& c)
    : gr::sync_block(
          "resize_2d",
          device_buffer_signature(
              c.device_buffers, 1, 1, frame_bytes(c, false, sizeof(T))),
          device_buffer_signature(
              c.device_buffers, 1, 1, frame_bytes(c, true, c.half_output ? 2 : 4))),
      // Items are whole frames: GNU Radio's default buffer already holds several, so no
      // minimum output buffer (min_items 0).
      base(std::make_unique<kernel::resize_2d<T>>(c), int(c.device), c.device_buffers, 0),
      d_half(c.half_output)
{
}

template <class T>
void resize_2d_impl<T>::set_batch(int batch)
{
    locked([&] {
        kernel::resize_config c = d_kernel->config();
        c.batch = batch;
        c.validate(); // the same message as make()'s
        d_kernel->set_batch(batch ? size_t(batch)
                                  : kernel::resize_2d<T>::default_batch(
                                        d_kernel->in_frame_size() * sizeof(T)));
    });
}

template <class T>
int resize_2d_impl<T>::work(int noutput_items,
                            gr_vector_const_void_star& input_items,
                            gr_vector_void_star& output_items)
{
    return this->locked_work([&] {
        const T* in = static_cast<const T*>(this->port_input(
            input_items,
            size_t(noutput_items) * this->input_signature()->sizeof_stream_item(0)));
        if (d_device_buffers)
            d_kernel->resize_device(output_items[0], d_half, in, size_t(noutput_items));
        else if (d_half)
            d_kernel->resize_half(
                static_cast<std::uint16_t*>(output_items[0]), in, size_t(noutput_items));
        else
            d_kernel->resize(
                static_cast<float*>(output_items[0]), in, size_t(noutput_items));
        return noutput_items;
    });
}

template class resize_2d<float>;
template class resize_2d<std::uint8_t>;

} // namespace gpuinterp
} // namespace gr
