/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_BENCH_DEVICE_CHANNELS_H
#define INCLUDED_GPUINTERP_BENCH_DEVICE_CHANNELS_H

// The device-resident inputs and outputs of the multi-channel kernel benchmarks (CUDA builds).

#include "../lib/device/device_ops.h"
#include <complex>
#include <cstddef>
#include <memory>
#include <vector>

namespace gpuinterp_bench {

//! N channels in the memory of CUDA device 0: every input a copy of x (uploaded when the
//! constructor returns), every output out_bytes; freed with the object.
class device_channels
{
public:
    device_channels(unsigned N,
                    const std::vector<std::complex<float>>& x,
                    size_t out_bytes)
        : d_ops(gr::gpuinterp::device::make_device_ops(
              { gr::gpuinterp::memory_kind::cuda, 0 })),
          d_in(N),
          d_out(N)
    {
        const size_t in_bytes = x.size() * sizeof(x[0]);
        for (unsigned c = 0; c < N; c++) {
            d_in[c] = static_cast<std::complex<float>*>(d_ops->alloc_device(in_bytes));
            d_ops->copy_async(d_in[c],
                              x.data(),
                              in_bytes,
                              gr::gpuinterp::device::copy_dir::host_to_device);
            d_out[c] = d_ops->alloc_device(out_bytes);
        }
        d_ops->wait();
    }
    ~device_channels()
    {
        for (size_t c = 0; c < d_in.size(); c++) {
            d_ops->free_device(d_in[c]);
            d_ops->free_device(d_out[c]);
        }
    }
    device_channels(const device_channels&) = delete;
    device_channels& operator=(const device_channels&) = delete;

    const std::complex<float>* const* in() const { return d_in.data(); }
    //! The outputs as arrays of T.
    template <typename T = void>
    std::vector<T*> out() const
    {
        std::vector<T*> o;
        for (void* p : d_out)
            o.push_back(static_cast<T*>(p));
        return o;
    }

private:
    std::unique_ptr<gr::gpuinterp::device::device_ops> d_ops;
    std::vector<std::complex<float>*> d_in;
    std::vector<void*> d_out;
};

} // namespace gpuinterp_bench

#endif
