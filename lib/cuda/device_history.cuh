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
//
// One call's seam and its new history are written by one small kernel (seam_kernel) rather than
// three device-to-device copies: a device-buffer work() pays a fixed cost per queued operation,
// and this is on every call of every device-buffer block. The history is kept twice (ping-pong),
// so the kernel reads the old one while it writes the new one.

#include "cuda_common.cuh"
#include <gnuradio/gpuinterp/kernel/stream_history.h>
#include <algorithm>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace gpu {

namespace {
//! seam = [old (H), in[0 .. s)]; fresh = the newest H samples of [old, in[0 .. used)].
template <typename T>
__global__ void seam_kernel(const T* __restrict__ old,
                            const T* __restrict__ in,
                            T* __restrict__ seam,
                            T* __restrict__ fresh,
                            unsigned H,
                            unsigned s,
                            unsigned used)
{
    const unsigned total = H + s + H;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < total;
         i += gridDim.x * blockDim.x) {
        if (i < H + s) {
            seam[i] = i < H ? old[i] : in[i - H];
        } else {
            const unsigned j = used + (i - H - s); // index into [old, in]
            fresh[i - H - s] = j < H ? old[j] : in[j - H];
        }
    }
}
} // namespace

template <typename T, typename HT>
class device_history
{
public:
    static_assert(sizeof(T) == sizeof(HT),
                  "device and host sample types must share a layout");

    /*!
     * Run `launch(x, first, count)` over the n device-resident inputs `in`, where x points at the
     * input `first` of the call with H valid samples in front of it. Launches go to stream `st`;
     * the new history is saved on the device at the end (ordered on `st`, not synchronised).
     */
    template <typename Launch>
    void run(kernel::stream_history<HT>& host,
             const T* in,
             size_t n,
             cudaStream_t st,
             Launch&& launch)
    {
        const size_t H = host.size();
        const T* sm = seam(host, in, n, n, st);
        const size_t s = std::min(n, H);
        if (s > 0)
            launch(sm + H, size_t(0), s);
        // Launch sizes stay well inside int.
        const size_t max_launch = size_t(1) << 28;
        for (size_t pos = s; pos < n; pos += max_launch)
            launch(in + pos, pos, std::min(max_launch, n - pos));
    }

    /*!
     * The seam of a call with n device-resident inputs: [history (H samples), in[0 .. min(n, H))],
     * on the device, ordered on `st`. Returns its start (the oldest history sample); every window
     * that reaches back into the history lies inside it. The same launch makes the history the
     * newest H samples of [history, in[0 .. used)] (used <= n: the inputs the call consumes); `in`
     * must stay unchanged until the stream has run the call. Also loads the history onto the
     * device when the last call was a host call.
     */
    const T* seam(kernel::stream_history<HT>& host,
                  const T* in,
                  size_t n,
                  size_t used,
                  cudaStream_t st)
    {
        const size_t H = host.size();
        if (!d_on_device) {
            d_hist[d_cur].reserve(std::max<size_t>(H, 1));
            if (H)
                GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(d_hist[d_cur].get(),
                                                     host.values().data(),
                                                     H * sizeof(T),
                                                     cudaMemcpyHostToDevice,
                                                     st));
            d_on_device = true;
        }
        const size_t s = std::min(n, H);
        d_seam.reserve(std::max<size_t>(H + s, 1));
        if (H == 0)
            return d_seam.get();
        const unsigned next = 1 - d_cur;
        d_hist[next].reserve(H);
        const unsigned total = unsigned(2 * H + s), threads = 256;
        seam_kernel<<<(total + threads - 1) / threads, threads, 0, st>>>(
            d_hist[d_cur].get(),
            in,
            d_seam.get(),
            d_hist[next].get(),
            unsigned(H),
            unsigned(s),
            unsigned(used));
        GPUINTERP_CUDA_CHECK_LAUNCH(st);
        d_cur = next;
        return d_seam.get();
    }

    //! Bring the history back into `host` when the last call was a device call.
    void pull(kernel::stream_history<HT>& host)
    {
        if (!d_on_device)
            return;
        const size_t H = host.size();
        std::vector<HT> h(H);
        if (H)
            GPUINTERP_CUDA_CHECK(cudaMemcpy(
                h.data(), d_hist[d_cur].get(), H * sizeof(T), cudaMemcpyDeviceToHost));
        host.advance(h.data(), H);
        d_on_device = false;
    }

    //! The host history was reset: forget the device copy.
    void invalidate() { d_on_device = false; }

private:
    device_buffer<T> d_hist[2], d_seam; // d_hist[d_cur]: the current history
    unsigned d_cur = 0;
    bool d_on_device = false;
};

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
