/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The polyphase interpolation kernels for sc16 input (complex samples): fir_kernels.cuh's body
// with the window expanded times full scale / 32767 as it is loaded. A translation unit of their
// own, so the complex float kernels in polyphase_interpolator.cu compile as they would without
// them.
#include "fir_kernels.cuh"

namespace gr {
namespace gpuinterp {
namespace gpu {

template <typename TAP>
void allow_fir_sc16_in(const tile_geometry& g, int optin)
{
    allow_smem(pick_kernel<short2, float2, TAP, fir_store<float2>>(g), optin);
    allow_smem(pick_kernel<short2, float2, TAP, fir_store_sc16>(g), optin);
    allow_smem(pick_channels_kernel<short2, float2, TAP, fir_store<float2>>(g), optin);
    allow_smem(pick_channels_kernel<short2, float2, TAP, fir_store_sc16>(g), optin);
}

template <typename TAP>
void launch_fir_sc16_in(const fir_plan& pl,
                        const short2* x,
                        void* y,
                        const TAP* taps,
                        int n,
                        const fir_formats& f,
                        cudaStream_t st)
{
    with_store<float2>(y, f, [&](const auto& out) {
        launch_one<short2, float2, TAP>(pl, x, out, taps, n, f.in_scale, st);
    });
}

template <typename TAP>
void launch_fir_channels_sc16_in(const fir_plan& pl,
                                 const channel_pointers& p,
                                 unsigned channels,
                                 const TAP* taps,
                                 int n,
                                 const fir_formats& f,
                                 cudaStream_t st)
{
    with_store<float2>(nullptr, f, [&](const auto& proto) {
        launch_channels<short2, float2, TAP>(
            pl, p, channels, proto, taps, n, f.in_scale, st);
    });
}

#define GPUINTERP_FIR_SC16_IN(TAP)                                          \
    template void allow_fir_sc16_in<TAP>(const tile_geometry&, int);        \
    template void launch_fir_sc16_in<TAP>(const fir_plan&,                  \
                                          const short2*,                    \
                                          void*,                            \
                                          const TAP*,                       \
                                          int,                              \
                                          const fir_formats&,               \
                                          cudaStream_t);                    \
    template void launch_fir_channels_sc16_in<TAP>(const fir_plan&,         \
                                                   const channel_pointers&, \
                                                   unsigned,                \
                                                   const TAP*,              \
                                                   int,                     \
                                                   const fir_formats&,      \
                                                   cudaStream_t);
GPUINTERP_FIR_SC16_IN(float)
GPUINTERP_FIR_SC16_IN(float2)
#undef GPUINTERP_FIR_SC16_IN

} // namespace gpu
} // namespace gpuinterp
} // namespace gr
