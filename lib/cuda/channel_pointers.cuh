/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_GPU_CHANNEL_POINTERS_CUH
#define INCLUDED_GPUINTERP_GPU_CHANNEL_POINTERS_CUH

// Per-channel pointers of a launch that runs every channel (gridDim.y = channel). Passed by
// value as a __grid_constant__ kernel parameter: 1 KiB at 64 channels, read from the constant
// bank, so no per-call upload of a pointer table is needed. GNU Radio hands each port its own
// buffer, at any offset, so the kernels check alignment per channel.

#include <gnuradio/gpuinterp/kernel/channels.h>

namespace gr {
namespace gpuinterp {
namespace gpu {

constexpr int MAX_CHANNELS = int(kernel::max_channels);

struct channel_pointers {
    const void* x[MAX_CHANNELS]; //!< window start: the history, then the inputs
    void* y[MAX_CHANNELS];       //!< outputs
};

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
