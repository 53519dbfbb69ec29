/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_KERNEL_RESIZE_2D_H
#define INCLUDED_GPUINTERP_KERNEL_RESIZE_2D_H

#include <gnuradio/gpuinterp/kernel/backend.h>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace kernel {

enum class resize_method { nearest = 0, bilinear = 1, bicubic = 2 };
enum class resize_coord { half_pixel = 0, align_corners = 1, asymmetric = 2 };
enum class resize_border { replicate = 0, reflect = 1, reflect_101 = 2, constant = 3 };

//! Parse names; unknown names throw std::invalid_argument starting with "method",
//! "coord", "border".
resize_method resize_method_from_string(const std::string& s);
resize_coord resize_coord_from_string(const std::string& s);
resize_border resize_border_from_string(const std::string& s);
std::string to_string(resize_method m);
std::string to_string(resize_coord c);
std::string to_string(resize_border b);

//! Bicubic kernel coefficient (Keys' a), the value of OpenCV INTER_CUBIC and torch
//! 'bicubic'.
constexpr double resize_cubic_a = -0.75;

//! Map an index outside [0, n) onto the image by `border` (OpenCV borderInterpolate);
//! returns -1 for `constant` (the sample is the border value). Indices inside pass
//! through.
int resize_border_index(int p, int n, resize_border border);

/*!
 * Per-axis sampling table: output position o reads taps source indices idx[o*taps + k]
 * (already border-mapped; -1 = constant border value) with weights w[o*taps + k]. Shared
 * by every backend, so the CPU and the GPU sample the same coordinates.
 */
struct resize_axis_table {
    int taps = 1;
    std::vector<int32_t> idx;
    std::vector<float> w;
};
resize_axis_table resize_make_axis_table(
    int n_in, int n_out, resize_method m, resize_coord c, resize_border b);

//! The per-channel output transform, resolved: out = (clip(scale*v) - mean[c]) *
//! inv_std[c].
struct resize_transform {
    float mean[4] = { 0, 0, 0, 0 };
    float inv_std[4] = { 1, 1, 1, 1 };
    float scale = 1;
    bool clip = false;
    float clip_min = 0, clip_max = 1;
    bool identity() const;
};

/*!
 * \brief The parameters of a frame resizer, in one list: the blocks' make() order, which is also
 * the order of their Python constructor and of GRC's make templates.
 *
 * \details K(type, name, default, required, doc) is a parameter of the kernel and the blocks;
 * B(...) one of the blocks only (the kernel ignores it). `required`: make() has no default for it
 * (the default here is the config struct's). resize_config's fields, make()'s and the Python
 * bindings' copying into it, and resize_2d_parameters (the table tests read, which checks the
 * Python keyword lists and the GRC yml against this list) are all expanded from it.
 */
// One row per parameter, as a table:
// clang-format off
#define GPUINTERP_RESIZE_2D_PARAMS(K, B)                                                      \
    K(int64_t, in_height, 1, true, "input frame height in pixels, >= 1")                      \
    K(int64_t, in_width, 1, true, "input frame width in pixels, >= 1")                        \
    K(int64_t, out_height, 1, true, "output frame height in pixels, >= 1")                    \
    K(int64_t, out_width, 1, true, "output frame width in pixels, >= 1")                      \
    K(int64_t, channels, 1, false, "interleaved channels per pixel, 1..4")                    \
    K(std::string, method, "bilinear", false,                                                 \
      "\"nearest\", \"bilinear\" or \"bicubic\" (Keys a = -0.75, as OpenCV INTER_CUBIC)")     \
    K(std::string, coord, "half_pixel", false,                                                \
      "\"half_pixel\" (OpenCV, torch align_corners=False), \"align_corners\" or "             \
      "\"asymmetric\" (src = dst*in/out)")                                                    \
    K(std::string, border, "replicate", false,                                                \
      "\"replicate\", \"reflect\" (OpenCV REFLECT), \"reflect_101\" or \"constant\"")         \
    K(float, border_value, 0.0f, false, "sample outside the frame with border \"constant\"")  \
    K(std::vector<float>, mean, {}, false,                                                    \
      "per-channel mean: none (0), one value or `channels` values")                           \
    K(std::vector<float>, std, {}, false,                                                     \
      "per-channel standard deviation, non-zero: none (1), one value or `channels` values; "  \
      "as many as mean if both are given")                                                    \
    K(float, scale, 1.0f, false, "factor on the interpolated value before clip and mean/std") \
    K(bool, clip, false, false, "clamp scale*v to [clip_min, clip_max] before mean/std")      \
    B(bool, half_output, false, false, "IEEE binary16 output items instead of float32")       \
    K(std::string, backend, "automatic", false, "\"automatic\", \"cpu\" or \"cuda\"")         \
    K(int64_t, device, 0, false, "CUDA device index, >= 0")                                   \
    K(float, clip_min, 0.0f, false, "lower clip bound")                                       \
    K(float, clip_max, 1.0f, false, "upper clip bound, >= clip_min")                          \
    K(int64_t, batch, 0, false, "most frames per GPU launch (0: ~32 MiB of input per launch)") \
    B(bool, device_buffers, false, false,                                                     \
      "ports on device buffers (frames stay in GPU memory between gpuinterp blocks)")
// clang-format on

//! For GPUINTERP_RESIZE_2D_PARAMS: `config.name = name;` (in a function whose parameters carry
//! the list's names) and nothing (the block-only parameters in a kernel's function).
#define GPUINTERP_RESIZE_2D_ASSIGN(type, name, def, required, doc) config.name = name;
#define GPUINTERP_RESIZE_2D_SKIP(type, name, def, required, doc)

/*!
 * \brief Every parameter of a frame resizer (GPUINTERP_RESIZE_2D_PARAMS): the kernel, the blocks,
 * the Python bindings and GRC all fill this struct, and validate() is the one check of it.
 *
 * \details Integers are 64-bit so that any Python int reaches validate() and gets a ValueError
 * naming the parameter rather than a conversion error. The kernel ignores the two block options
 * (half_output, device_buffers).
 */
struct resize_config {
#define GPUINTERP_RESIZE_2D_FIELD(type, name, def, required, doc) type name = def;
    GPUINTERP_RESIZE_2D_PARAMS(GPUINTERP_RESIZE_2D_FIELD, GPUINTERP_RESIZE_2D_FIELD)
#undef GPUINTERP_RESIZE_2D_FIELD

    //! Throws std::invalid_argument whose message starts with the first bad parameter's name.
    void validate() const;
};

//! One entry of GPUINTERP_RESIZE_2D_PARAMS as text (what the tests compare the Python bindings
//! and the GRC yml with).
struct resize_parameter {
    const char* name;
    const char* type;          //!< the C++ type
    const char* default_value; //!< the C++ expression
    bool required;             //!< no default in make()
    bool block_only;           //!< the blocks' only
    const char* doc;
};
constexpr resize_parameter resize_2d_parameters[] = {
#define GPUINTERP_RESIZE_2D_INFO_K(type, name, def, required, doc) \
    { #name, #type, #def, required, false, doc },
#define GPUINTERP_RESIZE_2D_INFO_B(type, name, def, required, doc) \
    { #name, #type, #def, required, true, doc },
    GPUINTERP_RESIZE_2D_PARAMS(GPUINTERP_RESIZE_2D_INFO_K, GPUINTERP_RESIZE_2D_INFO_B)
#undef GPUINTERP_RESIZE_2D_INFO_K
#undef GPUINTERP_RESIZE_2D_INFO_B
};

template <typename T>
class resize_engine;

/*!
 * \brief Resize frames (2D images) that travel as vectors, with an optional fused
 * per-channel normalisation, on the CPU or a CUDA device.
 *
 * \details
 * Layout: a frame is in_height x in_width pixels, row-major, `channels` (1..4)
 * interleaved (element (y, x, c) at (y*in_width + x)*channels + c). Input items are T
 * (float or uint8_t, the latter read as its integer value), outputs float32 or IEEE
 * binary16 (resize_half()). A call takes any number of frames; frames are independent (no
 * state carries between calls).
 *
 * Coordinates: per axis, with r = in/out, output index o samples the source at
 *  - half_pixel (default): s = (o + 0.5) r - 0.5, i.e. OpenCV cv::resize / torch
 * align_corners=False;
 *  - align_corners: s = o (in-1)/(out-1) (s = 0 when out = 1), torch align_corners=True;
 *  - asymmetric: s = o r (TensorFlow's legacy resize without half_pixel_centers);
 * Methods:
 *  - nearest: half_pixel reads floor(o r) clamped to in-1, exactly OpenCV INTER_NEAREST
 * (r computed as 1/(out/in) in double, as OpenCV does) and torch 'nearest'; align_corners
 * and asymmetric read round(s) (half to even, like CUDA's __float2int_rn);
 *  - bilinear: taps floor(s), floor(s)+1 with weights 1-f, f (f = s - floor(s));
 *  - bicubic: taps floor(s)-1 .. floor(s)+2, Keys' cubic with a = -0.75 (OpenCV
 * INTER_CUBIC, torch 'bicubic'). Bicubic may overshoot the input range; `clip` bounds it.
 * Borders (taps outside the image): replicate (clamp; what OpenCV and torch do), reflect
 * (OpenCV BORDER_REFLECT = numpy 'symmetric': 3 2 1 | 1 2 3 4 5 | 5 4 3), reflect_101
 * (OpenCV BORDER_REFLECT_101 = numpy 'reflect': 4 3 2 | 1 2 3 4 5 | 4 3 2), constant
 * (border_value). The result equals interpolating the infinitely border-extended image.
 * Output transform, per channel c, applied to the interpolated value v in the same pass:
 *   u = scale * v;  u = clamp(u, clip_min, clip_max) if clip;  out = (u - mean[c]) /
 * std[c]. mean/std hold 0 values (0 and 1), 1 value (all channels) or `channels` values.
 * Precision: weights are float (computed in double), accumulation float: a float result
 * is within a few ulps of the exact value of the same formula; binary16 output rounds
 * that to nearest even.
 */
template <typename T>
class resize_2d
{
public:
    /*!
     * \param in_height, in_width, out_height, out_width frame sizes in pixels, each >= 1
     * \param channels interleaved channels per pixel, 1..4
     * \param method "nearest", "bilinear" or "bicubic"
     * \param coord "half_pixel", "align_corners" or "asymmetric"
     * \param border "replicate", "reflect", "reflect_101" or "constant"
     * \param border_value value of samples outside the frame with border "constant"
     * (finite) \param requested backend; \param device CUDA device index \param batch
     * most frames per GPU launch (0: enough frames for ~32 MiB of input). Ignored on the
     * CPU.
     */
    resize_2d(int in_height,
              int in_width,
              int out_height,
              int out_width,
              int channels = 1,
              const std::string& method = "bilinear",
              const std::string& coord = "half_pixel",
              const std::string& border = "replicate",
              float border_value = 0.0f,
              backend requested = backend::cpu,
              int device = 0,
              size_t batch = 0)
        : resize_2d([&] {
              resize_config c; // the rest at their defaults
              c.in_height = in_height;
              c.in_width = in_width;
              c.out_height = out_height;
              c.out_width = out_width;
              c.channels = channels;
              c.method = method;
              c.coord = coord;
              c.border = border;
              c.border_value = border_value;
              c.backend = to_string(requested);
              c.device = device;
              c.batch = int64_t(std::min<size_t>(batch, size_t(INT64_MAX)));
              return c;
          }())
    {
    }
    //! The same from a config (its `backend` string; half_output, device_buffers ignored).
    explicit resize_2d(const resize_config& config);
    ~resize_2d();
    resize_2d(const resize_2d&) = delete;
    resize_2d& operator=(const resize_2d&) = delete;

    //! Resize n_frames frames: `in` holds n_frames*in_frame_size() items, `out`
    //! n_frames*out_frame_size().
    void resize(float* out, const T* in, size_t n_frames);
    //! Same, writing IEEE binary16 bit patterns (round to nearest even).
    void resize_half(uint16_t* out, const T* in, size_t n_frames);
    //! resize() / resize_half() with `out` and `in` in the backend's own memory: device memory on
    //! CUDA (GNU Radio device buffers, docs/device_buffers.md), host memory on the CPU. `out` is a
    //! float* or, with `half`, a uint16_t*. Returns when `out` is complete.
    void resize_device(void* out, bool half, const T* in, size_t n_frames);

    void set_method(const std::string& method);
    void set_coord(const std::string& coord);
    void set_border(const std::string& border);
    void set_border_value(float value);
    //! mean, std: 0, 1 or channels() values each; both non-empty ones of equal length;
    //! std != 0.
    void set_normalization(const std::vector<float>& mean, const std::vector<float>& std);
    void set_scale(float scale);
    void set_clip(bool clip, float clip_min = 0.0f, float clip_max = 1.0f);
    void set_batch(size_t frames);

    int in_height() const { return int(d_cfg.in_height); }
    int in_width() const { return int(d_cfg.in_width); }
    int out_height() const { return int(d_cfg.out_height); }
    int out_width() const { return int(d_cfg.out_width); }
    int channels() const { return int(d_cfg.channels); }
    size_t in_frame_size() const
    {
        return size_t(d_cfg.in_height) * d_cfg.in_width * d_cfg.channels;
    }
    size_t out_frame_size() const
    {
        return size_t(d_cfg.out_height) * d_cfg.out_width * d_cfg.channels;
    }
    std::string method() const { return to_string(d_method); }
    std::string coord() const { return to_string(d_coord); }
    std::string border() const { return to_string(d_border); }
    float border_value() const { return d_cfg.border_value; }
    const std::vector<float>& mean() const { return d_cfg.mean; }
    const std::vector<float>& std() const { return d_cfg.std; }
    float scale() const { return d_cfg.scale; }
    bool clip() const { return d_cfg.clip; }
    float clip_min() const { return d_cfg.clip_min; }
    float clip_max() const { return d_cfg.clip_max; }
    size_t batch() const { return d_batch; }
    //! The parameters in force (batch resolved).
    const resize_config& config() const { return d_cfg; }

    backend active_backend() const { return d_backend; }
    const std::string& backend_note() const { return d_note; }

    //! Default frames per GPU launch for a frame of `frame_bytes` input bytes (~32 MiB
    //! per launch).
    static size_t default_batch(size_t frame_bytes);

private:
    //! Validate `c`, then make it the configuration in force.
    void adopt(const resize_config& c);
    //! adopt(c), then hand the engine new tables (`tables`) or a new transform.
    void reconfigure(const resize_config& c, bool tables);
    void rebuild_tables();
    void push_transform();

    resize_config d_cfg;
    resize_method d_method;
    resize_coord d_coord;
    resize_border d_border;
    resize_transform d_tf;
    size_t d_batch;
    backend d_backend;
    std::string d_note;
    std::unique_ptr<resize_engine<T>> d_engine;
};

using resize_2d_f = resize_2d<float>;
using resize_2d_b = resize_2d<uint8_t>;

} // namespace kernel
} // namespace gpuinterp
} // namespace gr

#endif
