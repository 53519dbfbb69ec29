/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_RESIZE_2D_H
#define INCLUDED_GPUINTERP_RESIZE_2D_H

#include <gnuradio/gpuinterp/api.h>
#include <gnuradio/gpuinterp/kernel/resize_2d.h>
#include <gnuradio/sync_block.h>
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace gpuinterp {

/*!
 * \brief Resize frames that travel as vector items (spectrogram/waterfall, camera or
 * sensor frames), fused with per-channel normalisation, on a GPU or the CPU. \ingroup
 * gpuinterp
 *
 * \details
 * One input item is one frame of in_height x in_width pixels, row-major, `channels`
 * interleaved (float32 for _ff, uint8 for _bf). One output item is the resized frame,
 * out_height x out_width x channels float32, or IEEE binary16 (2-byte items) with
 * half_output. Every output value is out = (clip(scale * v) - mean[c]) / std[c], v the
 * interpolated value (see kernel::resize_2d for the exact conventions: half_pixel equals
 * OpenCV cv::resize and torch align_corners=False; bicubic uses a = -0.75 like OpenCV
 * INTER_CUBIC). All frames a work() call gets go to the GPU together (in launches of
 * `batch` frames), with the copies of consecutive launches overlapped on two CUDA
 * streams. Tags pass through unchanged (one frame in, one frame out). Setters land
 * between two work() calls.
 */
template <class T>
class GPUINTERP_API resize_2d : virtual public gr::sync_block
{
public:
    typedef std::shared_ptr<resize_2d<T>> sptr;

    /*!
     * \brief Make a frame resizer.
     * \param in_height input frame height in pixels (>= 1)
     * \param in_width input frame width in pixels (>= 1)
     * \param out_height output frame height (>= 1)
     * \param out_width output frame width (>= 1)
     * \param channels interleaved channels per pixel, 1..4
     * \param method "nearest", "bilinear" or "bicubic" (Keys a = -0.75, as OpenCV)
     * \param coord "half_pixel" (OpenCV/torch align_corners=False), "align_corners" or
     *        "asymmetric" (src = dst*in/out)
     * \param border "replicate", "reflect" (OpenCV REFLECT), "reflect_101" or "constant"
     * \param border_value sample value outside the frame for border "constant"
     * \param mean per-channel mean: empty (0), one value, or `channels` values
     * \param std per-channel standard deviation (non-zero): empty (1), one value, or
     * `channels` \param scale factor applied to the interpolated value before mean/std
     * (1/255 for 8-bit frames) \param clip clamp scale*v to [clip_min, clip_max] before
     * mean/std (removes bicubic overshoot) \param half_output write IEEE binary16 items
     * (2 bytes per value) instead of float32 \param backend "automatic", "cpu" or "cuda"
     * \param device CUDA device index (>= 0)
     * \param clip_min lower clip bound (with clip)
     * \param clip_max upper clip bound (with clip), >= clip_min
     * \param batch most frames per GPU launch (0: ~32 MiB of input per launch). Ignored
     * on the CPU.
     */
    static sptr make(int in_height,
                     int in_width,
                     int out_height,
                     int out_width,
                     int channels = 1,
                     const std::string& method = "bilinear",
                     const std::string& coord = "half_pixel",
                     const std::string& border = "replicate",
                     float border_value = 0.0f,
                     const std::vector<float>& mean = std::vector<float>(),
                     const std::vector<float>& std = std::vector<float>(),
                     float scale = 1.0f,
                     bool clip = false,
                     bool half_output = false,
                     const std::string& backend = "automatic",
                     int device = 0,
                     float clip_min = 0.0f,
                     float clip_max = 1.0f,
                     int batch = 0,
                     bool device_buffers = false);

    //! \brief Make a frame resizer from one config (the same parameters, validated by
    //! kernel::resize_config::validate()).
    static sptr make(const kernel::resize_config& config);

    //! True when the ports use device buffers (make()'s `device_buffers`, GRC "Keep data on GPU":
    //! frames stay in device memory between gpuinterp blocks, docs/device_buffers.md).
    virtual bool device_buffers() const = 0;

    //! Replace mean and std together (validated as in make()).
    virtual void set_normalization(const std::vector<float>& mean,
                                   const std::vector<float>& std) = 0;
    virtual void set_mean(const std::vector<float>& mean) = 0;
    virtual void set_std(const std::vector<float>& std) = 0;
    virtual std::vector<float> mean() const = 0;
    virtual std::vector<float> std() const = 0;
    virtual void set_scale(float scale) = 0;
    virtual float scale() const = 0;
    virtual void set_clip(bool clip) = 0;
    virtual void set_clip_range(float clip_min, float clip_max) = 0;
    virtual bool clip() const = 0;
    virtual void set_border_value(float value) = 0;
    virtual float border_value() const = 0;
    virtual void set_method(const std::string& method) = 0;
    virtual std::string method() const = 0;
    virtual void set_coord(const std::string& coord) = 0;
    virtual std::string coord() const = 0;
    virtual void set_border(const std::string& border) = 0;
    virtual std::string border() const = 0;
    virtual void set_batch(int batch) = 0;
    virtual int batch() const = 0;
    virtual bool half_output() const = 0;
    //! The backend actually in use: "cpu" or "cuda".
    virtual std::string active_backend() const = 0;
};

typedef resize_2d<float> resize_2d_ff;
typedef resize_2d<std::uint8_t> resize_2d_bf;

} // namespace gpuinterp
} // namespace gr

#endif
