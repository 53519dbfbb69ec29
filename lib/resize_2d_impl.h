/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_RESIZE_2D_IMPL_H
#define INCLUDED_GPUINTERP_RESIZE_2D_IMPL_H

#include "kernel_block.h"
#include <gnuradio/gpuinterp/kernel/resize_2d.h>
#include <gnuradio/gpuinterp/resize_2d.h>
#include <mutex>

namespace gr {
namespace gpuinterp {

template <class T>
class resize_2d_impl : public kernel_block<resize_2d<T>, kernel::resize_2d<T>>
{
public:
    explicit resize_2d_impl(const kernel::resize_config& config);

    // Setters and getters: the kernel validates; the lock makes a change land between two work()
    // calls.
    void set_normalization(const std::vector<float>& mean,
                           const std::vector<float>& std) override
    {
        locked([&] { d_kernel->set_normalization(mean, std); });
    }
    void set_mean(const std::vector<float>& mean) override
    {
        locked([&] { d_kernel->set_normalization(mean, d_kernel->std()); });
    }
    void set_std(const std::vector<float>& std) override
    {
        locked([&] { d_kernel->set_normalization(d_kernel->mean(), std); });
    }
    std::vector<float> mean() const override
    {
        return locked([&] { return d_kernel->mean(); });
    }
    std::vector<float> std() const override
    {
        return locked([&] { return d_kernel->std(); });
    }
    void set_scale(float scale) override
    {
        locked([&] { d_kernel->set_scale(scale); });
    }
    float scale() const override
    {
        return locked([&] { return d_kernel->scale(); });
    }
    void set_clip(bool clip) override
    {
        locked([&] {
            d_kernel->set_clip(clip, d_kernel->clip_min(), d_kernel->clip_max());
        });
    }
    void set_clip_range(float clip_min, float clip_max) override
    {
        locked([&] { d_kernel->set_clip(d_kernel->clip(), clip_min, clip_max); });
    }
    bool clip() const override
    {
        return locked([&] { return d_kernel->clip(); });
    }
    void set_border_value(float value) override
    {
        locked([&] { d_kernel->set_border_value(value); });
    }
    float border_value() const override
    {
        return locked([&] { return d_kernel->border_value(); });
    }
    void set_method(const std::string& method) override
    {
        locked([&] { d_kernel->set_method(method); });
    }
    std::string method() const override
    {
        return locked([&] { return d_kernel->method(); });
    }
    void set_coord(const std::string& coord) override
    {
        locked([&] { d_kernel->set_coord(coord); });
    }
    std::string coord() const override
    {
        return locked([&] { return d_kernel->coord(); });
    }
    void set_border(const std::string& border) override
    {
        locked([&] { d_kernel->set_border(border); });
    }
    std::string border() const override
    {
        return locked([&] { return d_kernel->border(); });
    }
    void set_batch(int batch) override;
    int batch() const override
    {
        return locked([&] { return static_cast<int>(d_kernel->batch()); });
    }
    bool half_output() const override { return d_half; }

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

    using base = kernel_block<resize_2d<T>, kernel::resize_2d<T>>;
    using base::d_device_buffers, base::d_io, base::d_kernel, base::d_mutex;

    const bool d_half;
};

} // namespace gpuinterp
} // namespace gr

#endif
