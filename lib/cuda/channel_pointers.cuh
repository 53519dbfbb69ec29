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

#include "../common/parallel.h"
#include "cuda_common.cuh"
#include "device_history.cuh"
#include <gnuradio/gpuinterp/kernel/channels.h>
#include <gnuradio/gpuinterp/kernel/stream_history.h>
#include <type_traits>
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace gpu {

constexpr int MAX_CHANNELS = int(kernel::max_channels);

//! The channel count a channels engine's constructor accepts; `engine` names it in the
//! message ("the CUDA resampler").
inline void check_engine_channels(unsigned channels, const char* engine)
{
    if (channels < 1 || channels > unsigned(MAX_CHANNELS))
        throw std::invalid_argument(std::string("channels: ") + engine + " takes 1 to " +
                                    std::to_string(MAX_CHANNELS));
}

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

/*!
 * Device buffers: the launches of one call over every channel's n device-resident inputs. Each
 * channel's first min(n, H) items read its seam [history, in[0 ..)] (device_history.cuh), the
 * rest read `in` in place; launch(p, count) runs the items of one span of every channel, p.x[c]
 * pointing H samples before channel c's first item of the span and p.y[c] at out(c, first).
 * The new histories are saved on `st` (by the seams' launches); nothing is synchronised.
 */
template <typename D, typename HD, typename Out, typename Launch>
void launch_channels_device(std::vector<device_history<D, HD>>& dev,
                            std::vector<kernel::stream_history<HD>>& hist,
                            const D* const* in,
                            size_t n,
                            cudaStream_t st,
                            Out&& out,
                            Launch&& launch)
{
    const unsigned N = unsigned(hist.size());
    const size_t H = hist[0].size(), s = std::min(n, H);
    channel_pointers p{};
    for (unsigned c = 0; c < N; c++) {
        p.x[c] = dev[c].seam(hist[c], in[c], n, n, st);
        p.y[c] = out(c, size_t(0));
    }
    if (s > 0)
        launch(p, s);
    const size_t max_launch = size_t(1) << 28; // launch sizes stay well inside int
    for (size_t pos = s; pos < n; pos += max_launch) {
        for (unsigned c = 0; c < N; c++) {
            p.x[c] = in[c] + pos - H;
            p.y[c] = out(c, pos);
        }
        launch(p, std::min(max_launch, n - pos));
    }
}

//! Host buffers: items [pos, pos + cnt) of every channel staged channel-major at `w0`, channel
//! c's window (H history values, then the items) at w0 + c * (H + cnt).
template <typename HT>
void stage_channel_windows(HT* w0,
                           const std::vector<kernel::stream_history<HT>>& hist,
                           const HT* const* in,
                           size_t pos,
                           size_t cnt)
{
    const size_t H = hist[0].size();
    for (size_t c = 0; c < hist.size(); c++) {
        HT* w = w0 + c * (H + cnt);
        hist[c].window(w, in[c], pos, 0);
        cpu::parallel_copy(w + H, in[c] + pos, cnt * sizeof(HT));
    }
}

/*!
 * Host buffers: one call over every channel's n host inputs through `pipe` (host_pipeline.cuh),
 * `chunk` items to a launch, an item being one input of every channel and `per` outputs of
 * each. Each chunk's windows are staged channel-major (stage_channel_windows); launch(p, cnt,
 * st) runs the chunk with p.x[c] at channel c's window and p.y[c] at its cnt * per outputs;
 * the outputs are scattered to out[c] (arrays of the pipeline's output type) and the
 * histories advanced past the n inputs.
 */
template <typename Pipe, typename HT, typename Launch>
void run_channels_host(Pipe& pipe,
                       std::vector<kernel::stream_history<HT>>& hist,
                       const HT* const* in,
                       void* const* out,
                       size_t n,
                       size_t chunk,
                       size_t per,
                       Launch&& launch)
{
    const size_t N = hist.size(), H = hist[0].size();
    pipe.run_to(
        n,
        chunk,
        { N * H, N, N * per },
        [&](auto* pinned, size_t pos, size_t cnt) {
            stage_channel_windows(reinterpret_cast<HT*>(pinned), hist, in, pos, cnt);
        },
        [&](const auto* x, auto* y, size_t cnt, cudaStream_t st) {
            channel_pointers p{};
            for (size_t c = 0; c < N; c++) {
                p.x[c] = x + c * (H + cnt);
                p.y[c] = y + c * cnt * per;
            }
            launch(p, cnt, st);
        },
        [&](const auto* staged, size_t pos, size_t cnt) {
            using Out = std::remove_const_t<std::remove_pointer_t<decltype(staged)>>;
            for (size_t c = 0; c < N; c++)
                cpu::parallel_copy(static_cast<Out*>(out[c]) + pos * per,
                                   staged + c * cnt * per,
                                   cnt * per * sizeof(Out));
        });
    for (size_t c = 0; c < N; c++)
        hist[c].advance(in[c], n);
}

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
