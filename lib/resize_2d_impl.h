/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_RESIZE_2D_IMPL_H
#define INCLUDED_GPUINTERP_RESIZE_2D_IMPL_H

#include "device_io.h"
#include <gnuradio/gpuinterp/cuda_buffer.h>
#include <gnuradio/gpuinterp/kernel/resize_2d.h>
#include <gnuradio/gpuinterp/resize_2d.h>
#include <mutex>

namespace gr {
namespace gpuinterp {

template <class T>
class resize_2d_impl : public resize_2d<T>, public device_buffer_client
{
public:
    explicit resize_2d_impl(const kernel::resize_config& config);

    void set_normalization(const std::vector<float>& mean,
                           const std::vector<float>& std) override;
    void set_mean(const std::vector<float>& mean) override;
    void set_std(const std::vector<float>& std) override;
    std::vector<float> mean() const override;
    std::vector<float> std() const override;
    void set_scale(float scale) override;
    float scale() const override;
    void set_clip(bool clip) override;
    void set_clip_range(float clip_min, float clip_max) override;
    bool clip() const override;
    void set_border_value(float value) override;
    float border_value() const override;
    void set_method(const std::string& method) override;
    std::string method() const override;
    void set_coord(const std::string& coord) override;
    std::string coord() const override;
    void set_border(const std::string& border) override;
    std::string border() const override;
    void set_batch(int batch) override;
    int batch() const override;
    bool half_output() const override { return d_half; }
    bool device_buffers() const override { return d_device_buffers; }
    device_binding buffer_binding() const override { return d_io.binding(); }
    std::string active_backend() const override;

    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    template <typename F>
    auto locked(F&& f) const
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return f();
    }

    mutable std::mutex d_mutex; // setters land between two work() calls
    std::unique_ptr<kernel::resize_2d<T>> d_kernel;
    const bool d_half;
    const bool d_device_buffers;
    device_io d_io;
};

} // namespace gpuinterp
} // namespace gr

#endif
