/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_KERNEL_CHANNELS_H
#define INCLUDED_GPUINTERP_KERNEL_CHANNELS_H

// The channel count of the multi-channel kernels (FIR interpolator, resampler): N inputs, N
// outputs, one launch per call on CUDA. The bound comes from that launch, which carries every
// channel's input and output pointer as one kernel parameter (lib/cuda/channel_pointers.cuh).

#include <gnuradio/gpuinterp/kernel/validate.h>
#include <string>

namespace gr {
namespace gpuinterp {
namespace kernel {

//! Most channels one kernel object takes (the same bound as dpd_bank::max_channels).
constexpr unsigned max_channels = 64;

//! `channels`, or std::invalid_argument ("channels: ...") outside 1 .. max_channels.
inline unsigned check_channels(long long channels)
{
    if (channels < 1 || channels > (long long)max_channels)
        invalid_parameter("channels",
                          "must be 1 .. " + std::to_string(max_channels) + ", got " +
                              std::to_string(channels));
    return unsigned(channels);
}

} // namespace kernel
} // namespace gpuinterp
} // namespace gr

#endif
