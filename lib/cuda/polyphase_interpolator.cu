/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CUDA kernels of the polyphase interpolator: the plan and the launches (the engine that runs
// them over a stream is fir_engine.cu).
//
// Kernel: a persistent grid walks tiles of TI input samples. Per tile, a block loads its input
// window (TI + M - 1 samples, history included) into shared memory once; the padded taps stay in
// shared memory for the block's lifetime (or are read through the read-only cache when they do not
// fit). A work item is one arm p and R consecutive inputs, so a thread computes R outputs of one arm:
// each tap is loaded once for R multiply-accumulates and the input window slides through registers
// (2R values, refreshed R at a time), which keeps shared-memory traffic at ~2 loads per R MACs.
// R is odd so the R-strided window loads of neighbouring items hit distinct banks. No
// multiplication by a stuffed zero happens anywhere. For L < 32, a warp's outputs are scattered
// (stride R*L), so they are staged in shared memory and written back as one contiguous, coalesced
// tile; for L >= 32 a warp already writes 32 consecutive outputs and writes directly.
// An sc16 input (X = short2) is expanded to complex float as the window is loaded into shared
// memory, so everything after the load is unchanged; those kernels live in fir_sc16_in.cu.
// Every launch is the channel kernel (gridDim.y = channel): one channel is a launch of one.
#include "fir_kernels.cuh"
#include "fir_launch.h"
#include <type_traits>

namespace gr {
namespace gpuinterp {
namespace gpu {

template <typename T, typename TAP>
fir_plan plan_fir(int device, unsigned L, size_t M)
{
    return plan_fir<T, TAP>(device, L, M, fir_tuning_for(compute_capability(device)));
}

template <typename T, typename TAP>
fir_plan plan_fir(int device, unsigned L, size_t M, const fir_tuning& t)
{
    // Every kernel the plan may launch: both stores and (complex samples) sc16 input. The
    // window in shared memory is T whatever the stored input: one geometry.
    const auto allow = [](const tile_geometry& g, int optin) {
        allow_smem(pick_kernel<T, T, TAP>(g), optin);
        if constexpr (std::is_same_v<T, float2>) {
            allow_smem(pick_kernel<T, T, TAP, fir_store_sc16>(g), optin);
            allow_fir_sc16_in<TAP>(g, optin);
        }
    };
    return plan_fir_shape<fir_build_shape, T, TAP>(device, L, M, t, allow);
}

template <typename T, typename TAP>
void launch_fir(
    const fir_plan& pl, const T* x, T* y, const TAP* taps, int n, cudaStream_t st)
{
    channel_pointers p{};
    p.x[0] = x;
    p.y[0] = y;
    launch_channels<T, T, TAP>(
        fir_call<TAP>{ pl, taps, n, {}, st }, p, 1, fir_store<T>{});
}

template <typename X, typename T, typename TAP>
void launch_fir_channels(const fir_call<TAP>& c,
                         const channel_pointers& p,
                         unsigned channels)
{
    if constexpr (!std::is_same_v<X, T>)
        launch_fir_channels_sc16_in<TAP>(c, p, channels);
    else
        with_store<T>(nullptr, c.formats, [&](const auto& proto) {
            launch_channels<T, T, TAP>(c, p, channels, proto);
        });
}

#define GPUINTERP_FIR_CHANNELS(X, T, TAP)         \
    template void launch_fir_channels<X, T, TAP>( \
        const fir_call<TAP>&, const channel_pointers&, unsigned);
GPUINTERP_FIR_CHANNELS(float2, float2, float)
GPUINTERP_FIR_CHANNELS(float, float, float)
GPUINTERP_FIR_CHANNELS(float2, float2, float2)
GPUINTERP_FIR_CHANNELS(short2, float2, float)
GPUINTERP_FIR_CHANNELS(short2, float2, float2)
#undef GPUINTERP_FIR_CHANNELS

#define GPUINTERP_PLAN_FIR(T, TAP)                             \
    template fir_plan plan_fir<T, TAP>(int, unsigned, size_t); \
    template fir_plan plan_fir<T, TAP>(int, unsigned, size_t, const fir_tuning&);
GPUINTERP_PLAN_FIR(float2, float)
GPUINTERP_PLAN_FIR(float, float)
GPUINTERP_PLAN_FIR(float2, float2)
#undef GPUINTERP_PLAN_FIR
template void launch_fir<float2, float>(
    const fir_plan&, const float2*, float2*, const float*, int, cudaStream_t);
template void launch_fir<float, float>(
    const fir_plan&, const float*, float*, const float*, int, cudaStream_t);
template void launch_fir<float2, float2>(
    const fir_plan&, const float2*, float2*, const float2*, int, cudaStream_t);

} // namespace gpu
} // namespace gpuinterp
} // namespace gr
