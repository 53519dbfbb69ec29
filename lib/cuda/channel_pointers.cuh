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

#include "cuda_common.cuh"
#include <gnuradio/gpuinterp/kernel/channels.h>
#include <algorithm>

namespace gr {
namespace gpuinterp {
namespace gpu {

constexpr int MAX_CHANNELS = int(kernel::max_channels);

struct channel_pointers {
    const void* x[MAX_CHANNELS]; //!< window start: the history, then the inputs
    void* y[MAX_CHANNELS];       //!< outputs
};

//! The grid of a launch of every channel (gridDim.y = channel): blocks of `per_block` items
//! covering one channel's n items, at most the `resident` blocks of the device shared out
//! between the channels (as the predistorter bank does); the blocks stride over the rest.
inline dim3
channels_grid(long long n, long long per_block, long long resident, unsigned channels)
{
    const long long share = std::max<long long>(1, (resident + channels - 1) / channels);
    return dim3(unsigned(std::max(1, capped_grid(n, per_block, int(share)))), channels);
}

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
