/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "engine_factory.h"
#include <gnuradio/gpuinterp/kernel/resize_2d.h>
#include <gnuradio/gpuinterp/kernel/validate.h>
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>

namespace gr {
namespace gpuinterp {
namespace kernel {

int resize_border_index(int p, int n, resize_border border)
{
    if (p >= 0 && p < n)
        return p;
    switch (border) {
    case resize_border::replicate:
        return p < 0 ? 0 : n - 1;
    case resize_border::constant:
        return -1;
    default: {
        // OpenCV borderInterpolate: repeated mirroring also covers taps farther out than
        // n.
        if (n == 1)
            return 0;
        const int delta = border == resize_border::reflect_101 ? 1 : 0;
        do {
            if (p < 0)
                p = -p - 1 + delta;
            else
                p = n - 1 - (p - n) - delta;
        } while (p < 0 || p >= n);
        return p;
    }
    }
}

namespace {

int method_taps(resize_method m)
{
    return m == resize_method::nearest ? 1 : (m == resize_method::bilinear ? 2 : 4);
}

// Keys' cubic convolution kernel at distance t >= 0.
double cubic_weight(double t)
{
    const double a = resize_cubic_a;
    t = std::fabs(t);
    if (t <= 1)
        return ((a + 2) * t - (a + 3)) * t * t + 1;
    if (t < 2)
        return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a;
    return 0;
}

} // namespace

resize_axis_table resize_make_axis_table(
    int n_in, int n_out, resize_method m, resize_coord c, resize_border b)
{
    resize_axis_table t;
    t.taps = method_taps(m);
    t.idx.resize(size_t(n_out) * t.taps);
    t.w.resize(size_t(n_out) * t.taps);
    const double r = double(n_in) / double(n_out);
    for (int o = 0; o < n_out; o++) {
        double s;
        switch (c) {
        case resize_coord::half_pixel:
            s = (o + 0.5) * r - 0.5;
            break;
        case resize_coord::align_corners:
            s = n_out > 1 ? double(o) * double(n_in - 1) / double(n_out - 1) : 0.0;
            break;
        default:
            s = o * r;
            break;
        }
        int32_t* idx = &t.idx[size_t(o) * t.taps];
        float* w = &t.w[size_t(o) * t.taps];
        if (m == resize_method::nearest) {
            int i;
            if (c == resize_coord::half_pixel) {
                // Exactly OpenCV INTER_NEAREST: sx = cvFloor(dx * (1 / (out/in))),
                // clamped to in-1.
                const double ifx = 1.0 / (double(n_out) / double(n_in));
                i = std::min(int(std::floor(o * ifx)), n_in - 1);
            } else {
                i = int(std::nearbyint(s)); // round half to even, like __float2int_rn
            }
            idx[0] = resize_border_index(i, n_in, b);
            w[0] = 1.0f;
            continue;
        }
        const double fl = std::floor(s);
        const int i0 = int(fl);
        const double f = s - fl;
        if (m == resize_method::bilinear) {
            idx[0] = resize_border_index(i0, n_in, b);
            idx[1] = resize_border_index(i0 + 1, n_in, b);
            w[0] = float(1.0 - f);
            w[1] = float(f);
        } else {
            for (int k = 0; k < 4; k++) {
                idx[k] = resize_border_index(i0 - 1 + k, n_in, b);
                w[k] = float(cubic_weight(f - (k - 1)));
            }
        }
    }
    return t;
}

bool resize_transform::identity() const
{
    for (int c = 0; c < 4; c++)
        if (mean[c] != 0.0f || inv_std[c] != 1.0f)
            return false;
    return scale == 1.0f && !clip;
}

namespace {

// Per side: the axis tables (taps x (index, weight) per output row and column), the CPU engine's
// per-thread row caches and the CUDA tables grow with each side on its own, so a 1 x 2*10^9 frame,
// within the 2^31-1 elements per frame, needed tens of GB and failed with std::bad_alloc. 2^20
// pixels per side keeps them at tens of MB.
constexpr int64_t max_side = int64_t(1) << 20;

void check_size(const char* name, int64_t v)
{
    if (v < 1 || v > max_side)
        invalid_parameter(name,
                          "must be in [1, " + std::to_string(max_side) +
                              "] pixels, got " + std::to_string(v));
}

void check_finite(const char* name, float v)
{
    if (!std::isfinite(v))
        invalid_parameter(name, "must be finite");
}

} // namespace

void resize_config::validate() const
{
    check_size("in_height", in_height);
    check_size("in_width", in_width);
    check_size("out_height", out_height);
    check_size("out_width", out_width);
    if (channels < 1 || channels > 4)
        invalid_parameter("channels", "must be 1..4, got " + std::to_string(channels));
    // Element offsets inside a frame are 32-bit on both backends.
    if (double(in_height) * in_width * channels > double(INT_MAX))
        invalid_parameter("in_height",
                          "frame of in_height*in_width*channels exceeds 2^31-1 elements");
    if (double(out_height) * out_width * channels > double(INT_MAX))
        invalid_parameter(
            "out_height",
            "frame of out_height*out_width*channels exceeds 2^31-1 elements");
    resize_method_from_string(method);
    resize_coord_from_string(coord);
    resize_border_from_string(border);
    check_finite("border_value", border_value);
    const size_t C = size_t(channels);
    auto check_len = [C](const char* name, const std::vector<float>& v) {
        if (v.size() > 1 && v.size() != C)
            invalid_parameter(name,
                              "needs 0, 1 or channels (" + std::to_string(C) +
                                  ") values, got " + std::to_string(v.size()));
    };
    check_len("mean", mean);
    check_len("std", std);
    if (!mean.empty() && !std.empty() && mean.size() != std.size())
        invalid_parameter("std",
                          "has " + std::to_string(std.size()) + " values but mean has " +
                              std::to_string(mean.size()) +
                              "; give both per channel or both once");
    require_finite("mean", mean);
    require_finite("std", std);
    for (size_t i = 0; i < std.size(); i++)
        if (std[i] == 0.0f)
            invalid_parameter("std", "element " + std::to_string(i) + " is zero");
    if (!std::isfinite(scale) || scale == 0.0f)
        invalid_parameter("scale", "must be finite and non-zero");
    check_finite("clip_min", clip_min);
    check_finite("clip_max", clip_max);
    if (clip_min > clip_max)
        invalid_parameter("clip_min", "must be <= clip_max");
    backend_from_string(backend);
    if (device < 0 || device > INT_MAX)
        invalid_parameter("device",
                          "must be in [0, " + std::to_string(INT_MAX) + "], got " +
                              std::to_string(device));
    if (batch < 0)
        invalid_parameter(
            "batch",
            "must be >= 0 (0 selects the default, ~32 MiB of input per launch), "
            "got " +
                std::to_string(batch));
}

template <typename T>
size_t resize_2d<T>::default_batch(size_t frame_bytes)
{
    return std::max<size_t>(1, (size_t(32) << 20) / std::max<size_t>(1, frame_bytes));
}

template <typename T>
resize_2d<T>::resize_2d(const resize_config& config)
{
    adopt(config);
    d_batch =
        config.batch ? size_t(config.batch) : default_batch(in_frame_size() * sizeof(T));
    d_cfg.batch = int64_t(d_batch);
    const backend_choice choice =
        select_backend(backend_from_string(config.backend), int(config.device));
    d_backend = choice.selected;
    d_note = choice.reason;
    d_engine = make_resize_engine<T>(d_backend, int(config.device), d_batch);
    rebuild_tables();
    push_transform();
}

template <typename T>
resize_2d<T>::~resize_2d() = default;

template <typename T>
void resize_2d<T>::adopt(const resize_config& c)
{
    c.validate();
    d_method = resize_method_from_string(c.method);
    d_coord = resize_coord_from_string(c.coord);
    d_border = resize_border_from_string(c.border);
    // The frame sizes, backend and device are fixed at construction; setters change the rest.
    d_cfg = c;
}

template <typename T>
void resize_2d<T>::rebuild_tables()
{
    resize_geometry g;
    g.in_h = in_height();
    g.in_w = in_width();
    g.out_h = out_height();
    g.out_w = out_width();
    g.channels = channels();
    set_resize_tables(*d_engine, g, d_method, d_coord, d_border, d_cfg.border_value);
}

template <typename T>
void resize_2d<T>::push_transform()
{
    const auto& mean = d_cfg.mean;
    const auto& sd = d_cfg.std;
    for (int c = 0; c < 4; c++) {
        const int cc = std::min(c, channels() - 1);
        d_tf.mean[c] = mean.empty() ? 0.0f : mean[mean.size() == 1 ? 0 : size_t(cc)];
        const double s = sd.empty() ? 1.0 : sd[sd.size() == 1 ? 0 : size_t(cc)];
        d_tf.inv_std[c] = float(1.0 / s);
    }
    d_tf.scale = d_cfg.scale;
    d_tf.clip = d_cfg.clip;
    d_tf.clip_min = d_cfg.clip_min;
    d_tf.clip_max = d_cfg.clip_max;
    d_engine->set_transform(d_tf);
}

template <typename T>
void resize_2d<T>::resize(float* out, const T* in, size_t n_frames)
{
    if (n_frames == 0)
        return;
    d_engine->run(out, false, in, n_frames);
}

template <typename T>
void resize_2d<T>::resize_half(uint16_t* out, const T* in, size_t n_frames)
{
    if (n_frames == 0)
        return;
    d_engine->run(out, true, in, n_frames);
}

template <typename T>
void resize_2d<T>::resize_device(void* out, bool half, const T* in, size_t n_frames)
{
    if (n_frames == 0)
        return;
    d_engine->run_device(out, half, in, n_frames);
}

namespace {
//! `c` with one parameter changed.
template <typename V, typename A>
resize_config with(resize_config c, V resize_config::*field, const A& value)
{
    c.*field = value;
    return c;
}
} // namespace

template <typename T>
void resize_2d<T>::reconfigure(const resize_config& c, bool tables)
{
    adopt(c);
    if (tables)
        rebuild_tables();
    else
        push_transform();
}

template <typename T>
void resize_2d<T>::set_method(const std::string& method)
{
    reconfigure(with(d_cfg, &resize_config::method, method), true);
}
template <typename T>
void resize_2d<T>::set_coord(const std::string& coord)
{
    reconfigure(with(d_cfg, &resize_config::coord, coord), true);
}
template <typename T>
void resize_2d<T>::set_border(const std::string& border)
{
    reconfigure(with(d_cfg, &resize_config::border, border), true);
}
template <typename T>
void resize_2d<T>::set_border_value(float value)
{
    reconfigure(with(d_cfg, &resize_config::border_value, value), true);
}
template <typename T>
void resize_2d<T>::set_normalization(const std::vector<float>& mean,
                                     const std::vector<float>& std)
{
    reconfigure(with(with(d_cfg, &resize_config::mean, mean), &resize_config::std, std),
                false);
}
template <typename T>
void resize_2d<T>::set_scale(float scale)
{
    reconfigure(with(d_cfg, &resize_config::scale, scale), false);
}
template <typename T>
void resize_2d<T>::set_clip(bool clip, float clip_min, float clip_max)
{
    resize_config c = with(d_cfg, &resize_config::clip, clip);
    c.clip_min = clip_min;
    c.clip_max = clip_max;
    reconfigure(c, false);
}

template <typename T>
void resize_2d<T>::set_batch(size_t frames)
{
    if (frames < 1)
        invalid_parameter("batch", "must be >= 1");
    d_batch = frames;
    d_cfg.batch = int64_t(std::min<size_t>(frames, size_t(INT64_MAX)));
    d_engine->set_batch(frames);
}

template class resize_2d<float>;
template class resize_2d<uint8_t>;

} // namespace kernel
} // namespace gpuinterp
} // namespace gr
