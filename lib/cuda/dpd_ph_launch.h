/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_GPU_DPD_PH_LAUNCH_H
#define INCLUDED_GPUINTERP_GPU_DPD_PH_LAUNCH_H

// Launch plan of the parallel-Hammerstein kernels (dpd_ph_kernels.cuh), used by the engine in
// dpd_predistorter.cu and by the benchmarks' lab (bench/dpd_ph_lab.cu), which times the
// library's variants through it and plans its own in the same form. Only .cu files include it.

#include "../kernel/dpd_engine.h"
#include "dpd_io.h"
#include "dpd_ph_kernels.cuh"
#include <cuda_runtime.h>
#include <cstddef>

namespace gr {
namespace gpuinterp {
namespace gpu {

//! The kernel parameters of a packed model (orders, taps per order, history, LO leakage).
//! Throws std::invalid_argument ("P: ...") above the orders the CUDA kernels are built for.
dev_model make_dev_model(const kernel::dpd_packed& m);

//! One resolved configuration: which kernel, its tile, block size and shared memory.
struct ph_plan {
    const void* kernel = nullptr;
    kernel::dpd_cuda_variant variant =
        kernel::dpd_cuda_variant::smem; //!< the one that runs
    int M = 1;                          //!< orders
    size_t smem = 0;                    //!< dynamic shared memory per block
    int tile = 0;                       //!< outputs per tile
    int threads = 0;                    //!< per block
    int R = 1;                          //!< smem kernel: outputs per thread
    int max_blocks = 1;                 //!< resident blocks on the device (grid cap)
    bool param = false; //!< tiled, unrolled: maps passed as a kernel parameter
    //! The tiled kernels move samples as float4 pairs: x and y must be 16-byte aligned.
    bool tiled() const { return variant == kernel::dpd_cuda_variant::tiled; }
};

//! Resolves `requested` (automatic: tiled) for this structure on `device`, falling back to smem
//! where tiled does not fit. Throws std::invalid_argument naming `variant` for anything but
//! automatic, smem and tiled, or `Lp` when nothing fits.
ph_plan
plan_ph(const dev_model& md, int M, int device, kernel::dpd_cuda_variant requested);

//! The same from the tuning row `row` instead of the device's (the benchmarks' sweeps).
ph_plan plan_ph(const dev_model& md,
                int M,
                int device,
                kernel::dpd_cuda_variant requested,
                const ph_tuning& row);

//! What a plan is for: the model in kernel form, its orders, the device.
struct ph_target {
    const dev_model& md;
    int M;
    int device;
};

//! A kernel's build constants as its plan needs them: outputs per thread, threads per block.
struct ph_block {
    int R;
    int threads;
};

//! Sets the shared-memory limit of pl.kernel (the device's, for every engine alike) and
//! pl.max_blocks (resident blocks on the device at pl.threads and pl.smem): the last step of
//! every plan, the lab's included.
void finish_ph_plan(ph_plan& pl, int device);

//! The tiled kernel `tc` (b.R outputs per thread, blocks of b.threads) planned where it fits: its
//! tile needs one halo value per thread and its planes within the device's shared memory.
//! Sets pl.variant (tiled), M, kernel, param, tile, threads and smem and returns true, or returns
//! false and leaves pl as it was. plan_ph() plans the library's kernel with it, the lab its
//! other instantiations.
bool plan_tiled_tile(ph_plan& pl,
                     const ph_target& on,
                     const tiled_choice& tc,
                     ph_block b);

//! The smem kernel's tile for blocks of b.threads and b.R register-blocked outputs per thread,
//! from `row`: sets pl.variant (smem), M, threads, R (b.R or 1), tile and smem.
//! plan_ph() plans the library's kernel (ph_build) with it, the lab its other instantiations.
//! Throws std::invalid_argument naming `Lp` when not even R = 1 fits.
void plan_smem_tile(ph_plan& pl, const ph_target& on, const ph_tuning& row, ph_block b);

//! One launch over io (its x starts with md.H history samples; the tiled kernels need x and y
//! 16-byte aligned). coef: the packed maps on the device; hcoef: the same on the host (the
//! unrolled tiled kernels take them as a kernel parameter).
void launch_ph(const ph_plan& plan,
               const dev_model& md,
               const float4* coef,
               const float* hcoef,
               const dpd_io& io);

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
