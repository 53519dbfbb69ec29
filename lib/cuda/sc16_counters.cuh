/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_GPU_SC16_COUNTERS_CUH
#define INCLUDED_GPUINTERP_GPU_SC16_COUNTERS_CUH

// The device counters of saturated and invalid sc16 samples of a multi-channel engine: two per
// channel (counts[2c] saturated, counts[2c + 1] invalid), added to by the kernels' stores. They
// only grow: each read hands out what they grew by, so no call has to clear them (and wait for
// the clear) before its launches. They reach the host through pinned memory by a one-block
// kernel's stores, as the predistorter bank's do.

#include "cuda_common.cuh"
#include "host_publish.cuh"
#include <gnuradio/gpuinterp/kernel/sample_format.h>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace gpu {

class sc16_counters
{
public:
    //! The first time: allocate and clear, on `st`, the stream the kernels count on (a plain
    //! cudaMemset runs on the legacy default stream, which a non-blocking stream does not wait
    //! for).
    void ensure(unsigned channels, cudaStream_t st)
    {
        if (d_dev.get())
            return;
        d_N = channels;
        d_dev.reserve(2 * d_N);
        d_pinned.reserve(2 * d_N);
        d_seen.assign(2 * d_N, 0);
        GPUINTERP_CUDA_CHECK(
            cudaMemsetAsync(d_dev.get(), 0, 2 * d_N * sizeof(unsigned long long), st));
    }
    unsigned long long* get() const { return d_dev.get(); }
    //! After the call's launches (ordered before `st`): waits for `st` and adds what channel c's
    //! counters grew by to counts[c].
    void read(kernel::sc16_counts* counts, cudaStream_t st)
    {
        // A kernel's stores, not a device-to-host copy (host_publish.cuh says why).
        publish_to_host(d_dev.get(), d_pinned.get(), int(2 * d_N), st);
        GPUINTERP_CUDA_CHECK(cudaStreamSynchronize(st));
        for (unsigned c = 0; c < d_N; c++) {
            const unsigned long long* k = d_pinned.get() + 2 * c;
            counts[c].saturated += k[0] - d_seen[2 * c];
            counts[c].invalid += k[1] - d_seen[2 * c + 1];
            d_seen[2 * c] = k[0];
            d_seen[2 * c + 1] = k[1];
        }
    }

private:
    unsigned d_N = 0;
    device_buffer<unsigned long long> d_dev;
    pinned_buffer<unsigned long long> d_pinned;
    std::vector<unsigned long long> d_seen; //!< the totals already handed out
};

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
