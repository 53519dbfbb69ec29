/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_KERNEL_FIR_ENGINE_H
#define INCLUDED_GPUINTERP_KERNEL_FIR_ENGINE_H

// Internal: what a backend implements for polyphase_interpolator. The front end validates,
// pads the taps, and owns nothing backend-specific.

#include <cstddef>
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
    virtual void filter_device(T* out, const T* in, size_t n_in) { filter(out, in, n_in); }
    virtual void reset() = 0;
    virtual void set_batch(size_t) {}
};

template <typename T, typename TAP>
std::unique_ptr<fir_engine<T, TAP>> make_cpu_fir_engine();

} // namespace kernel

namespace gpu {
// Defined in lib/cuda/polyphase_interpolator.cu (only in CUDA builds).
template <typename T, typename TAP>
std::unique_ptr<kernel::fir_engine<T, TAP>> make_cuda_fir_engine(int device, size_t batch);

//! Benchmark hook: milliseconds per launch of the interpolation kernel alone, on n_in random
//! inputs already resident on the device (CUDA events, median of `iters` launches).
template <typename T, typename TAP>
double time_fir_kernel_ms(int device, unsigned L, const std::vector<TAP>& taps, size_t n_in, int iters);
} // namespace gpu

} // namespace gpuinterp
} // namespace gr

#endif
