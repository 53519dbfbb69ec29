/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_TEST_DEVICE_UTIL_H
#define INCLUDED_GPUINTERP_TEST_DEVICE_UTIL_H

// Tests that hand a kernel device memory, as GNU Radio's device buffers do.
#include "device/device_ops.h"
#include "test_util.h"

namespace gpuinterp_test {

/*!
 * x through the predistorter k (process() / process_device()) in chunks of chunk(it) samples,
 * chunk `it` on host pointers when host(it), else on device copies of x (on backend b's memory:
 * device memory on CUDA, host memory on the CPU): a flowgraph whose buffers change between calls.
 */
template <class Kernel, class Chunk, class Host>
std::vector<cf>
process_mixed(Kernel& k, backend b, const std::vector<cf>& x, Chunk&& chunk, Host&& host)
{
    namespace gi = gr::gpuinterp;
    const gi::device_binding bind = b == backend::cuda
                                        ? gi::device_binding{ gi::memory_kind::cuda, 0 }
                                        : gi::device_binding{};
    auto ops = gi::device::make_device_ops(bind);
    const size_t total = x.size(), bytes = total * sizeof(cf);
    auto* din = static_cast<cf*>(ops->alloc_device(bytes));
    auto* dout = static_cast<cf*>(ops->alloc_device(bytes));
    ops->copy_async(din, x.data(), bytes, gi::device::copy_dir::host_to_device);
    ops->wait();
    std::vector<cf> got(total, cf(std::nanf(""), 0));
    size_t pos = 0;
    for (int it = 0; pos < total; it++) {
        const size_t n = std::min(total - pos, size_t(chunk(it)));
        if (host(it)) {
            k.process(got.data() + pos, x.data() + pos, n);
        } else {
            k.process_device(dout + pos, din + pos, n);
            ops->copy_async(got.data() + pos,
                            dout + pos,
                            n * sizeof(cf),
                            gi::device::copy_dir::device_to_host);
            ops->wait();
        }
        pos += n;
    }
    ops->free_device(din);
    ops->free_device(dout);
    return got;
}

} // namespace gpuinterp_test

#endif
