/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_KERNEL_FIR_ENGINE_H
#define INCLUDED_GPUINTERP_KERNEL_FIR_ENGINE_H

// Internal: what a backend implements for polyphase_interpolator. The front end validates,
// pads the taps, and owns nothing backend-specific: one engine serves all its channels.

#include <gnuradio/gpuinterp/kernel/sample_format.h>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace kernel {

/*!
 * The polyphase interpolator's engine, one per kernel object whatever its channel count: the
 * channels share the taps and each has its own history. in[c] holds channel c's n_in inputs and
 * out[c] receives its n_in * L outputs. `device`: the pointers are in the backend's own memory
 * (CUDA device memory, GNU Radio device buffers; for the CPU, which is what its simulated device
 * hands out, host memory); the call returns once the outputs are written. An engine made for
 * sc16 input takes filter_from_sc16() only, one made for complex float input the others only.
 */
template <typename T, typename TAP>
class fir_engine
{
public:
    virtual ~fir_engine() = default;
    //! padded: M*L taps in GNU Radio order (arm p, tap k at index k*L + p).
    virtual void set_taps(const std::vector<TAP>& padded, unsigned L, size_t M) = 0;
    virtual void filter(T* const* out, const T* const* in, size_t n_in, bool device) = 0;
    /*!
     * Complex samples with sc16 output (kernel/sample_format.h; scale = 32767 / full scale):
     * 2 x int16 per output, channel c's saturated and invalid outputs added to counts[c].
     */
    virtual void filter_sc16(int16_t* const* out,
                             const T* const* in,
                             size_t n_in,
                             float scale,
                             sc16_counts* counts,
                             bool device) = 0;
    /*!
     * Complex samples, sc16 input: in[c] holds n_in I/Q int16 pairs, each component expanded
     * times in_scale (full scale / 32767) as the window is loaded. out[c]: n_in * L outputs, T,
     * or with `counts` (one per channel) sc16 converted with `scale` as filter_sc16().
     */
    virtual void filter_from_sc16(void* const* out,
                                  const int16_t* const* in,
                                  size_t n_in,
                                  float in_scale,
                                  float scale,
                                  sc16_counts* counts,
                                  bool device) = 0;
    virtual void reset() = 0;
    //! The CUDA engines' most inputs per launch; the CPU's ignores it.
    virtual void set_batch(size_t) {}
};

} // namespace kernel

} // namespace gpuinterp
} // namespace gr

#endif
