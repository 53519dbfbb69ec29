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
}

template <typename TAP>
void launch_fir_channels_sc16_in(const fir_call<TAP>& c,
                                 const channel_pointers& p,
                                 unsigned channels)
{
    with_store<float2>(nullptr, c.formats, [&](const auto& proto) {
        launch_channels<short2, float2, TAP>(c, p, channels, proto);
    });
}

#define GPUINTERP_FIR_SC16_IN(TAP)                                   \
    template void allow_fir_sc16_in<TAP>(const tile_geometry&, int); \
    template void launch_fir_channels_sc16_in<TAP>(                  \
        const fir_call<TAP>&, const channel_pointers&, unsigned);
GPUINTERP_FIR_SC16_IN(float)
GPUINTERP_FIR_SC16_IN(float2)
#undef GPUINTERP_FIR_SC16_IN

} // namespace gpu
} // namespace gpuinterp
} // namespace gr
