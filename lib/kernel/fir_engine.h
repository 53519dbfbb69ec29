/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_KERNEL_FIR_ENGINE_H
#define INCLUDED_GPUINTERP_KERNEL_FIR_ENGINE_H

// Internal: what a backend implements for polyphase_interpolator. The front end validates,
// pads the taps, and owns nothing backend-specific.

#include <gnuradio/gpuinterp/kernel/sample_format.h>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace kernel {

template <typename T, typename TAP>
class fir_engine
{
public:
    virtual ~fir_engine() = default;
    //! padded: M*L taps in GNU Radio order (arm p, tap k at index k*L + p).
    virtual void set_taps(const std::vector<TAP>& padded, unsigned L, size_t M) = 0;
    virtual void filter(T* out, const T* in, size_t n_in) = 0;
    //! Device-resident variant for device buffers: `in` and `out` live in the backend's own memory
    //! (CUDA device memory for cuda; host memory for the CPU backend, which is what the simulated
    //! device hands out), and the call returns once `out` is written. Same streaming semantics.
    virtual void filter_device(T* out, const T* in, size_t n_in)
    {
        filter(out, in, n_in);
    }
    virtual void reset() = 0;
    virtual void set_batch(size_t) {}
    /*!
     * Complex samples with sc16 output (kernel/sample_format.h; scale = 32767 / full scale),
     * converted inside the engine's kernel; `counts` accumulates. `device`: pointers in the
     * backend's memory, as filter_device(). Returns false when the engine has no fused form (the
     * CPU's: the front end then converts each chunk while it is in cache).
     */
    virtual bool filter_sc16(int16_t* /*out*/,
                             const T* /*in*/,
                             size_t /*n_in*/,
                             float /*scale*/,
                             sc16_counts& /*counts*/,
                             bool /*device*/)
    {
        return false;
    }
    /*!
     * Complex samples, sc16 input (an engine made for it: its history is kept in sc16): in holds
     * n_in I/Q int16 pairs, each component expanded times in_scale (full scale / 32767) as the
     * kernel loads its window. out: n_in * L outputs, T, or with `counts` sc16 converted with
     * `scale` as filter_sc16() (counts accumulates). `device` as filter_sc16(). Returns false
     * when the engine has no fused form (the CPU's: the front end then expands each chunk while
     * it is in cache and runs filter()).
     */
    virtual bool filter_from_sc16(void* /*out*/,
                                  const int16_t* /*in*/,
                                  size_t /*n_in*/,
                                  float /*in_scale*/,
                                  float /*scale*/,
                                  sc16_counts* /*counts*/,
                                  bool /*device*/)
    {
        return false;
    }
};

/*!
 * Every channel of a multi-channel polyphase_interpolator in one launch per call (CUDA). The
 * channels share the taps; each has its own history. out[c] receives channel c's n_in * L
 * outputs: T, or with filter_sc16() 2 x int16 per output (scale = 32767 / full scale), channel
 * c's saturated and invalid outputs added to counts[c]. `device`: pointers in the backend's
 * memory (GNU Radio device buffers), as fir_engine::filter_device(). An engine made for sc16
 * input takes filter_from_sc16() only, one made for complex float input the others only.
 */
template <typename T, typename TAP>
class fir_channels_engine
{
public:
    virtual ~fir_channels_engine() = default;
    virtual void set_taps(const std::vector<TAP>& padded, unsigned L, size_t M) = 0;
    virtual void filter(T* const* out, const T* const* in, size_t n_in, bool device) = 0;
    virtual void filter_sc16(int16_t* const* out,
                             const T* const* in,
                             size_t n_in,
                             float scale,
                             sc16_counts* counts,
                             bool device) = 0;
    //! sc16 input (an engine made for it), as fir_engine::filter_from_sc16(); counts: one per
    //! channel, or null for complex float output.
    virtual void filter_from_sc16(void* const* out,
                                  const int16_t* const* in,
                                  size_t n_in,
                                  float in_scale,
                                  float scale,
                                  sc16_counts* counts,
                                  bool device) = 0;
    virtual void reset() = 0;
    virtual void set_batch(size_t batch) = 0;
};

} // namespace kernel

} // namespace gpuinterp
} // namespace gr

#endif
