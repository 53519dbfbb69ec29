/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_BENCH_DPD_PH_LAB_H
#define INCLUDED_GPUINTERP_BENCH_DPD_PH_LAB_H

// The parallel-Hammerstein lab of bench_kernels and the kernel tests (CUDA builds): the CUDA
// variants that lost the measurements (shuffle, shuffle_x, tiled8; docs/performance.md) next to
// the library's own, launched on device-resident data from the library's launch plan
// (lib/cuda/dpd_ph_launch.h; bench/dpd_ph_lab.cu). The library runs only automatic, smem and
// tiled. Plain C++, so the tests include it without the CUDA headers.

#include "kernel/dpd_engine.h"
#include <complex>
#include <cstddef>
#include <string>

namespace gr {
namespace gpuinterp {
namespace gpu {

//! The library's ph variants keep their kernel::dpd_cuda_variant values and the lab's take the
//! ones they had while the library listed them, so benchmark rows and recorded results keep
//! their numbers.
enum class dpd_lab_variant {
    automatic = 0, //!< the library's choice (tiled; smem where tiled does not fit)
    shuffle = 1, //!< warp shuffles, warps overlapping by L-1 threads (L <= 32, else smem)
    smem = 2,    //!< the library's shared-memory tile with an L-1 halo
    shuffle_x =
        3, //!< warp shuffles of the samples, basis recomputed per tap (L <= 32, else smem)
    tiled = 4,  //!< the library's tiled kernel (R = 5, 256 threads)
    tiled8 = 5, //!< tiled with 8 outputs per thread, 128 threads per block (else smem)
    //! The tiled kernel with one of its build constants changed (else smem): 5 outputs per
    //! thread on 128 or 512 threads per block, or 8 outputs per thread on 256.
    tiled_nt128 = 6,
    tiled_nt512 = 7,
    tiled8_nt256 = 8,
    //! The tiled kernel with the unrolled kernels for no orders (always the generic one) or for
    //! up to 5 (the library's: all 8); else smem.
    tiled_generic = 9,
    tiled_unroll5 = 10,
    //! The smem kernel with one of its build constants changed: 128 or 512 threads per block (7
    //! register-blocked outputs), or 3 or 5 register-blocked outputs (256 threads).
    smem_nt128 = 11,
    smem_nt512 = 12,
    smem_r3 = 13,
    smem_r5 = 14,
};

struct ph_tuning; // cuda/dpd_ph_tuning.h

//! The variant's name, as kernel::to_string names the library's ("automatic", "smem", ..).
std::string to_string(dpd_lab_variant v);

//! What the lab runs: the packed model, the variant, and the tuning row to plan from (null: the
//! device's).
struct dpd_lab_target {
    const kernel::dpd_packed& model;
    dpd_lab_variant variant;
    const ph_tuning* row = nullptr;
};

//! One launch of t.variant, synchronously, staged through device buffers: x (host memory) holds
//! model.H history samples, then the n new ones (x[0 .. H+n)); y receives the n outputs.
//! Returns the variant that ran. Throws std::invalid_argument ("variant: ...") for a value
//! outside dpd_lab_variant.
dpd_lab_variant run_dpd_lab(int device,
                            const dpd_lab_target& t,
                            const std::complex<float>* x,
                            std::complex<float>* y,
                            size_t n);

//! The kernel of t.variant alone on n device-resident samples: milliseconds per launch (CUDA
//! events, median of `iters` after one warm-up). `ran` receives the variant that ran.
double time_dpd_lab_kernel_ms(int device,
                              const dpd_lab_target& t,
                              size_t n,
                              int iters,
                              dpd_lab_variant* ran = nullptr);

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
