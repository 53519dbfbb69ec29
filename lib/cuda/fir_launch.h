/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_GPU_FIR_LAUNCH_H
#define INCLUDED_GPUINTERP_GPU_FIR_LAUNCH_H

// Launch plan of the polyphase interpolation kernel (polyphase_interpolator.cu), used by its engine
// and by the benchmark's kernel timing (bench/kernel_timing.cu). Only .cu files include it.

#include "channel_pointers.cuh"
#include <cuda_runtime.h>
#include <cstddef>

namespace gr {
namespace gpuinterp {
namespace gpu {

//! The kernel's tile geometry (a kernel parameter).
struct tile_geometry {
    int TI;         //!< inputs per tile (multiple of the outputs per work item)
    int L, M;       //!< arms, taps per arm
    bool taps_smem; //!< taps resident in shared memory
    bool
        stage; //!< outputs staged in shared memory (L below fir_tuning::stage_below_arms)
};

//! Tile geometry, shared-memory size and grid cap for L arms of M taps on one device.
struct fir_plan {
    tile_geometry g{};
    size_t smem = 0;    //!< dynamic shared memory per block
    int max_blocks = 1; //!< resident blocks on the device (grid cap)
};

//! T: float2 or float; TAP: float or float2 (complex taps with complex samples only). Throws
//! std::invalid_argument ("taps: ...") when M taps per arm do not fit the device.
template <typename T, typename TAP>
fir_plan plan_fir(int device, unsigned L, size_t M);

//! x: M - 1 history inputs then n new ones (device memory); y: n * L outputs; taps: the prototype
//! zero-padded to M * L, tap k of arm p at k * L + p (device memory).
template <typename T, typename TAP>
void launch_fir(
    const fir_plan& plan, const T* x, T* y, const TAP* taps, int n, cudaStream_t st);

//! plan_fir() for the channel kernel (gridDim.y = channel), which the plan also sizes.
template <typename T, typename TAP>
fir_plan plan_fir_channels(int device, unsigned L, size_t M);

//! Every channel in one launch: p.x[c] is channel c's window (M - 1 history inputs, then n new
//! ones), p.y[c] its n * L outputs; the taps are shared. plan: from plan_fir_channels().
template <typename T, typename TAP>
void launch_fir_channels(const fir_plan& plan,
                         const channel_pointers& p,
                         unsigned channels,
                         const TAP* taps,
                         int n,
                         cudaStream_t st);
//! The same with sc16 outputs (complex samples); channel c counts at counts[2c], counts[2c + 1].
template <typename TAP>
void launch_fir_channels_sc16(const fir_plan& plan,
                              const channel_pointers& p,
                              unsigned channels,
                              const TAP* taps,
                              int n,
                              float scale,
                              unsigned long long* counts,
                              cudaStream_t st);

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
