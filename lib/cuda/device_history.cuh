/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_GPU_DEVICE_HISTORY_CUH
#define INCLUDED_GPUINTERP_GPU_DEVICE_HISTORY_CUH

// Streaming history for kernels called with device pointers (GNU Radio device buffers, see
// docs/device_buffers.md). Our kernels want the H history samples directly in front of the chunk,
// which a GNU Radio buffer does not provide. So the first min(n, H) inputs — the only ones whose
// window reaches into the history — go through a small "seam" array [history, in[0..s)], and the
// rest is processed in place, reading its window from `in` itself. Between device calls the
// history stays on the device; a host call (or a parameter change) pulls it back into the
// engine's host-side stream_history first, so both entry points can be mixed on one stream.

#include "cuda_common.cuh"
#include <gnuradio/gpuinterp/kernel/stream_history.h>
#include <algorithm>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace gpu {

template <typename T, typename HT>
class device_history
{
public:
    static_assert(sizeof(T) == sizeof(HT), "device and host sample types must share a layout");

    /*!
     * Run `launch(x, first, count)` over the n device-resident inputs `in`, where x points at the
     * input `first` of the call with H valid samples in front of it. Launches go to stream `st`;
     * the new history is saved on the device at the end (ordered on `st`, not synchronised).
     */
    template <typename Launch>
    void run(kernel::stream_history<HT>& host, const T* in, size_t n, cudaStream_t st, Launch&& launch)
    {
        const size_t H = host.size();
        if (!d_on_device) {
            d_hist.reserve(std::max<size_t>(H, 1));
            if (H)
                GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(
                    d_hist.get(), host.values().data(), H * sizeof(T), cudaMemcpyHostToDevice, st));
            d_on_device = true;
        }
        const size_t s = std::min(n, H);
        if (s > 0) {
            d_seam.reserve(H + s);
            GPUINTERP_CUDA_CHECK(
                cudaMemcpyAsync(d_seam.get(), d_hist.get(), H * sizeof(T), cudaMemcpyDeviceToDevice, st));
            GPUINTERP_CUDA_CHECK(
                cudaMemcpyAsync(d_seam.get() + H, in, s * sizeof(T), cudaMemcpyDeviceToDevice, st));
            launch(static_cast<const T*>(d_seam.get() + H), size_t(0), s);
        }
        // Launch sizes stay well inside int.
        const size_t max_launch = size_t(1) << 28;
        for (size_t pos = s; pos < n; pos += max_launch)
            launch(in + pos, pos, std::min(max_launch, n - pos));
        if (H > 0) {
            const T* newest = n >= H ? in + (n - H) : d_seam.get() + n;
            GPUINTERP_CUDA_CHECK(
                cudaMemcpyAsync(d_hist.get(), newest, H * sizeof(T), cudaMemcpyDeviceToDevice, st));
        }
    }

    //! Bring the history back into `host` when the last call was a device call.
    void pull(kernel::stream_history<HT>& host)
    {
        if (!d_on_device)
            return;
        const size_t H = host.size();
        std::vector<HT> h(H);
        if (H)
            GPUINTERP_CUDA_CHECK(cudaMemcpy(h.data(), d_hist.get(), H * sizeof(T), cudaMemcpyDeviceToHost));
        host.advance(h.data(), H);
        d_on_device = false;
    }

    //! The host history was reset: forget the device copy.
    void invalidate() { d_on_device = false; }

private:
    device_buffer<T> d_hist, d_seam;
    bool d_on_device = false;
};

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
