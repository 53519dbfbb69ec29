/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_GPU_DPD_PH_LAB_H
#define INCLUDED_GPUINTERP_GPU_DPD_PH_LAB_H

// The parallel-Hammerstein CUDA variants that lost the measurements (shuffle, shuffle_x, tiled8;
// docs/performance.md) are not in the library: they live in bench/dpd_ph_lab.cu, which the
// benchmarks and the kernel tests link and register here, so the engine can still launch them
// through set_cuda_variant() for comparison. Without a registration the engine refuses them.

namespace gr {
namespace gpuinterp {
namespace gpu {

//! (outputs per thread, threads per block) of tiled8.
constexpr int TILED8_R = 8, TILED8_NT = 128;

struct dpd_lab_kernel {
    const void* fn = nullptr;
    bool param = false; //!< tiled kernels: maps as a kernel parameter (unrolled taps)
};

struct dpd_lab_variants {
    const void* (*shuffle)(int M) = nullptr;   //!< dpd_shuffle_kernel<M>
    const void* (*shuffle_x)(int M) = nullptr; //!< dpd_shuffle_x_kernel<M>
    dpd_lab_kernel (*tiled8)(int M,
                             int Lmax) = nullptr; //!< tiled with R = 8, 128 threads
};

//! Defined in dpd_predistorter.cu.
void set_dpd_lab_variants(const dpd_lab_variants& v);
const dpd_lab_variants& dpd_lab();

//! Defined in bench/dpd_ph_lab.cu: registers its kernels with set_dpd_lab_variants().
void register_dpd_lab_variants();

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
