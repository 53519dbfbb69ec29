/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_GPU_FIR_LAUNCH_H
#define INCLUDED_GPUINTERP_GPU_FIR_LAUNCH_H

// Launch plan of the polyphase interpolation kernel (polyphase_interpolator.cu), used by its engines
// and by the benchmark's kernel timing (bench/kernel_timing.cu). Only .cu files include it.

#include "channel_pointers.cuh"
#include "fir_tuning.h"
#include "host_pipeline.cuh"
#include "sc16_counters.cuh"
#include <cuda_runtime.h>
#include <cstddef>
#include <memory>

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
//! std::invalid_argument ("taps: ...") when M taps per arm do not fit the device. The tuning is
//! the device's row (fir_tuning_for()); the benchmark's sweeps pass rows of their own.
template <typename T, typename TAP>
fir_plan plan_fir(int device, unsigned L, size_t M);
template <typename T, typename TAP>
fir_plan plan_fir(int device, unsigned L, size_t M, const fir_tuning& t);

//! One channel (a launch of the channel kernel, as the engine's at N = 1; what the benchmark's
//! kernel rows time). x: M - 1 history inputs then n new ones (device memory); y: n * L outputs;
//! taps: the prototype zero-padded to M * L, tap k of arm p at k * L + p (device memory).
template <typename T, typename TAP>
void launch_fir(
    const fir_plan& plan, const T* x, T* y, const TAP* taps, int n, cudaStream_t st);

//! The item formats of one launch around its complex float arithmetic: in_scale widens an sc16
//! input (each component times full scale / 32767, as the window loads); with `counts`, the
//! outputs are sc16 (rint(y * scale), saturated; channel c's counts at counts[2c], counts[2c + 1]).
struct fir_formats {
    float in_scale = 1.f;
    float scale = 1.f;
    unsigned long long* counts = nullptr; //!< non-null: sc16 output (complex samples)
};

//! What every launch takes: the plan, the taps (device memory, as launch_fir()'s), n new
//! inputs a channel, the item formats, the stream.
template <typename TAP>
struct fir_call {
    const fir_plan& plan;
    const TAP* taps;
    int n;
    fir_formats formats;
    cudaStream_t st;
};

//! Every channel in one launch: p.x[c] is channel c's window (M - 1 history inputs, then n new
//! ones) of X (T, or short2: sc16 input, complex samples), p.y[c] its n * L outputs; the taps are
//! shared.
template <typename X, typename T, typename TAP>
void launch_fir_channels(const fir_call<TAP>& call,
                         const channel_pointers& p,
                         unsigned channels);

//! The sc16-input kernels (fir_sc16_in.cu, a translation unit of their own so that the complex
//! float ones compile as they would without them): their shared-memory permission (plan_fir()
//! sets it) and their launch.
template <typename TAP>
void allow_fir_sc16_in(const tile_geometry& g, int optin);
template <typename TAP>
void launch_fir_channels_sc16_in(const fir_call<TAP>& call,
                                 const channel_pointers& p,
                                 unsigned channels);

// An engine's call with sc16 output: the counters (of `channels`) and the sc16 pipeline are
// made at the first such call, run(pipeline, counters) runs the call, and the counts come back
// on `st` (the pipeline has drained before run() returns; a device call's launches are on st).
template <typename X, typename Run>
void run_counted(int device,
                 unsigned channels,
                 sc16_counters& counters,
                 std::unique_ptr<host_pipeline<X, uint32_t>>& pipe16,
                 cudaStream_t st,
                 kernel::sc16_counts* counts,
                 Run&& run)
{
    device_guard guard(device);
    counters.ensure(channels, st);
    if (!pipe16)
        pipe16 = std::make_unique<host_pipeline<X, uint32_t>>(device);
    run(*pipe16, counters.get());
    counters.read(counts, st);
}

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
