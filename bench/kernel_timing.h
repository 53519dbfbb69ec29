/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_BENCH_KERNEL_TIMING_H
#define INCLUDED_GPUINTERP_BENCH_KERNEL_TIMING_H

// The production kernels alone on device-resident data, for bench_kernels: each family's launch
// plan from the library (lib/cuda/*_launch.h) driven directly, without an engine's staging or
// history seam. Milliseconds per launch, CUDA events, median of `iters` after one warm-up. The
// parallel-Hammerstein kernels are timed by their lab (dpd_ph_lab.h), which runs the library's
// variants and the ones that lost side by side.

#include "cuda/fir_tuning.h"
#include "cuda/resamp_tuning.h"
#include "kernel/dpd_engine.h"
#include "kernel/gmp_engine.h"
#include <gnuradio/gpuinterp/kernel/resampler.h>
#include <cstddef>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace gpu {

//! The resampler's kernel for method m at `rate` on n_in inputs (n_in * rate outputs; the texture
//! method includes its pitch-2D re-layout). untiled: polyphase runs the untiled kernel
//! (resamp_cuda_variant::untiled) instead of the tiled one.
double time_resampler_kernel_ms(int device,
                                kernel::resamp_method m,
                                double rate,
                                size_t n_in,
                                int iters,
                                bool untiled = false);

//! time_resampler_kernel_ms() with the tuning row `t` instead of the device's, for the BM_tuning
//! sweeps; tile: the outputs per tile of the tiled polyphase kernel that ran (0: an untiled
//! kernel ran). tiled_threads: the tiled kernel's block, one of resamp_lab_tiled_threads
//! (resamp_lab.h; the library builds only resamp_build's).
struct resamp_tuned_timing {
    double ms = 0;
    int tile = 0;
};
resamp_tuned_timing
time_resampler_kernel_tuned(int device,
                            kernel::resamp_method m,
                            double rate,
                            size_t n_in,
                            int iters,
                            const resamp_tuning& t,
                            bool untiled = false,
                            int tiled_threads = resamp_build.tiled_threads);

//! Which mp/gmp kernel to time: the interpreted one, or the one compiled for the model's structure
//! as the engine builds it (V = 0) or with V outputs per thread and the coefficients in shared
//! memory or the constant bank; waves: its grid in device-fulls of blocks (0: the tuning row's);
//! threads, outputs: the compiled kernel's block and outputs per thread (0: gmp_build's), on top
//! of either shape.
struct gmp_kernel_choice {
    bool compiled = true;
    int V = 0;
    bool shared = false;
    int waves = 0;
    int constant_count =
        0; //!< with shared: the first this many coefficients from the constant bank
    int threads = 0;
    int outputs = 0;
};
//! The compiled mp/gmp kernel's blocks and tiles the lab builds (gmp_kernel_choice::threads and
//! outputs; gmp_build's first): T = 2048 as the library's on 128 and 512 threads, and T = 1024.
//! 256 x 16 and 512 x 8 (T = 4096) do not fit: the static tile alone would pass 48 KiB.
struct gmp_lab_block {
    int threads, outputs;
};
constexpr gmp_lab_block gmp_lab_blocks[] = {
    { 256, 8 }, { 128, 16 }, { 512, 4 }, { 128, 8 }, { 256, 4 }
};
//! The chosen mp/gmp kernel on n samples (a compiled one that cannot be built throws
//! std::runtime_error with the reason).
double time_gmp_kernel_ms(int device,
                          const kernel::gmp_program& program,
                          size_t n,
                          int iters,
                          const gmp_kernel_choice& choice);

//! The polyphase interpolation kernel (L arms, prototype `taps`) on n_in inputs; T, TAP: host
//! types (std::complex<float> or float).
template <typename T, typename TAP>
double time_fir_kernel_ms(
    int device, unsigned L, const std::vector<TAP>& taps, size_t n_in, int iters);

//! time_fir_kernel_ms() with the tuning row `t` instead of the device's, for the BM_tuning
//! sweeps, and what the plan made of the row: its inputs per tile and whether it stages the
//! outputs in shared memory.
struct fir_tuned_timing {
    double ms = 0;
    int TI = 0;
    bool stage = false;
};
template <typename T, typename TAP>
fir_tuned_timing time_fir_kernel_tuned(int device,
                                       unsigned L,
                                       const std::vector<TAP>& taps,
                                       size_t n_in,
                                       int iters,
                                       const fir_tuning& t);

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
