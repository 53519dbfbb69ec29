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
// built first), so the sizes are checked here with the kernel's messages.
int frame_items(const char* hname, int h, const char* wname, int w, int c)
{
    if (h < 1)
        invalid_parameter(hname, "must be >= 1, got " + std::to_string(h));
    if (w < 1)
        invalid_parameter(wname, "must be >= 1, got " + std::to_string(w));
    if (c < 1 || c > 4)
        invalid_parameter("channels", "must be 1..4, got " + std::to_string(c));
    if (double(h) * w * c * 4 > double(INT_MAX))
        invalid_parameter(hname,
                          "frame of height*width*channels is too large for one item");
    return h * w * c;
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
    return gnuradio::make_block_sptr<resize_2d_impl<T>>(in_height,
                                                        in_width,
                                                        out_height,
                                                        out_width,
                                                        channels,
                                                        method,
                                                        coord,
                                                        border,
                                                        border_value,
                                                        mean,
                                                        std,
                                                        scale,
                                                        clip,
                                                        half_output,
                                                        backend,
                                                        device,
                                                        clip_min,
                                                        clip_max,
                                                        batch,
                                                        device_buffers);
}

template <class T>
resize_2d_impl<T>::resize_2d_impl(int in_height,
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
    : gr::sync_block(
          "resize_2d",
          device_buffer_signature(
              device_buffers,
              1,
              1,
              sizeof(T) *
                  frame_items("in_height", in_height, "in_width", in_width, channels)),
          device_buffer_signature(
              device_buffers,
              1,
              1,
              (half_output ? 2 : 4) *
                  frame_items(
                      "out_height", out_height, "out_width", out_width, channels))),
      d_half(half_output),
      d_device_buffers(device_buffers)
{
    const gr::gpuinterp::backend b = backend_from_string(backend);
    d_kernel = std::make_unique<kernel::resize_2d<T>>(in_height,
                                                      in_width,
                                                      out_height,
                                                      out_width,
                                                      channels,
                                                      method,
                                                      coord,
                                                      border,
                                                      border_value,
                                                      b,
                                                      device,
                                                      batch_from_param(batch));
    d_kernel->set_normalization(mean, std);
    d_kernel->set_scale(scale);
    d_kernel->set_clip(clip, clip_min, clip_max);
    log_backend(this->d_logger, d_kernel->active_backend(), d_kernel->backend_note());
    // Items are whole frames: GNU Radio's default buffer already holds several.
    d_io.attach(*this, d_kernel->active_backend(), device, device_buffers, 0);
}

template <class T>
void resize_2d_impl<T>::set_normalization(const std::vector<float>& mean,
                                          const std::vector<float>& std)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    d_kernel->set_normalization(mean, std);
}

template <class T>
void resize_2d_impl<T>::set_mean(const std::vector<float>& mean)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    d_kernel->set_normalization(mean, d_kernel->std());
}

template <class T>
void resize_2d_impl<T>::set_std(const std::vector<float>& std)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    d_kernel->set_normalization(d_kernel->mean(), std);
}

template <class T>
std::vector<float> resize_2d_impl<T>::mean() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_kernel->mean();
}

template <class T>
std::vector<float> resize_2d_impl<T>::std() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_kernel->std();
}

template <class T>
void resize_2d_impl<T>::set_scale(float scale)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    d_kernel->set_scale(scale);
}

template <class T>
float resize_2d_impl<T>::scale() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_kernel->scale();
}

template <class T>
void resize_2d_impl<T>::set_clip(bool clip)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    d_kernel->set_clip(clip, d_kernel->clip_min(), d_kernel->clip_max());
}

template <class T>
void resize_2d_impl<T>::set_clip_range(float clip_min, float clip_max)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    d_kernel->set_clip(d_kernel->clip(), clip_min, clip_max);
}

template <class T>
bool resize_2d_impl<T>::clip() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_kernel->clip();
}

template <class T>
void resize_2d_impl<T>::set_border_value(float value)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    d_kernel->set_border_value(value);
}

template <class T>
float resize_2d_impl<T>::border_value() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_kernel->border_value();
}

template <class T>
void resize_2d_impl<T>::set_method(const std::string& method)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    d_kernel->set_method(method);
}

template <class T>
std::string resize_2d_impl<T>::method() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_kernel->method();
}

template <class T>
void resize_2d_impl<T>::set_coord(const std::string& coord)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    d_kernel->set_coord(coord);
}

template <class T>
std::string resize_2d_impl<T>::coord() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_kernel->coord();
}

template <class T>
void resize_2d_impl<T>::set_border(const std::string& border)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    d_kernel->set_border(border);
}

template <class T>
std::string resize_2d_impl<T>::border() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_kernel->border();
}

template <class T>
void resize_2d_impl<T>::set_batch(int batch)
{
    const size_t b = batch_from_param(batch);
    std::lock_guard<std::mutex> lock(d_mutex);
    d_kernel->set_batch(
        b ? b
          : kernel::resize_2d<T>::default_batch(d_kernel->in_frame_size() * sizeof(T)));
}

template <class T>
int resize_2d_impl<T>::batch() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return static_cast<int>(d_kernel->batch());
}

template <class T>
std::string resize_2d_impl<T>::active_backend() const
{
    return to_string(d_kernel->active_backend());
}

template <class T>
int resize_2d_impl<T>::work(int noutput_items,
                            gr_vector_const_void_star& input_items,
                            gr_vector_void_star& output_items)
{
    return guarded_work(this->d_logger, [&] {
        std::lock_guard<std::mutex> lock(d_mutex);
        if (d_device_buffers) { // device pointers (host memory on the CPU backend)
            const size_t in_bytes = size_t(noutput_items) * this->input_signature()->sizeof_stream_item(0);
            const T* in = static_cast<const T*>(d_io.input(*this, 0, input_items[0], in_bytes));
            d_kernel->resize_device(output_items[0], d_half, in, size_t(noutput_items));
            return noutput_items;
        }
        const T* in = static_cast<const T*>(input_items[0]);
        if (d_half)
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
