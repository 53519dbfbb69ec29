/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_KERNEL_CHANNEL_MAJOR_H
#define INCLUDED_GPUINTERP_KERNEL_CHANNEL_MAJOR_H

// Internal: what the multi-channel kernels share about their channels: a channel index is checked
// one way, and the vector conveniences take every channel's samples channel-major, in one vector
// of equal runs.

#include <gnuradio/gpuinterp/kernel/validate.h>
#include <cstddef>
#include <string>

namespace gr {
namespace gpuinterp {
namespace kernel {

//! A channel index of a kernel with `channels` channels; std::invalid_argument naming `channel`.
inline void check_channel_index(unsigned channel, unsigned channels)
{
    if (channel >= channels)
        invalid_parameter("channel",
                          std::to_string(channel) + " does not exist (the kernel has " +
                              std::to_string(channels) + " channel(s))");
}

//! Samples per channel of a channel-major vector of `values` values, `per_sample` values a
//! sample, for `channels` channels; std::invalid_argument naming `in` when it does not split.
inline size_t channel_run(size_t values, unsigned channels, size_t per_sample = 1)
{
    if (values % (size_t(channels) * per_sample))
        invalid_parameter(
            "in",
            "length " + std::to_string(values) +
                " is not a multiple of the channel count " + std::to_string(channels) +
                (per_sample > 1 ? " times " + std::to_string(per_sample) : ""));
    return values / (size_t(channels) * per_sample);
}

} // namespace kernel
} // namespace gpuinterp
} // namespace gr

#endif
