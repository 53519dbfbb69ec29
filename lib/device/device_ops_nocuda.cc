/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Built when the module has no CUDA backend: only the simulated device exists.
#include "device_ops.h"
#include <stdexcept>

namespace gr {
namespace gpuinterp {
namespace gpu {

std::unique_ptr<device::device_ops> make_cuda_device_ops(int)
{
    throw std::runtime_error("device_buffers: a CUDA device buffer was requested but "
                             "gr-gpuinterp was built without CUDA");
}

void cuda_copy_between(
    const device_binding&, void*, const device_binding&, const void*, size_t)
{
    throw std::runtime_error(
        "device_buffers: copy involving CUDA memory in a build without CUDA");
}

std::pair<size_t, size_t> cuda_mem_info(int) { return { 0, 0 }; }

} // namespace gpu
} // namespace gpuinterp
} // namespace gr
