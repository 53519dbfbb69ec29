/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_DEVICE_BINDING_H
#define INCLUDED_GPUINTERP_DEVICE_BINDING_H

// Where a device buffer's "device" memory lives. No GNU Radio and no CUDA types here
// (this header is shared with the kernel library, which builds without GNU Radio).

#include <cstddef>
#include <string>

namespace gr {
namespace gpuinterp {

/*!
 * \brief simulated: host memory standing in for a device (blocks on the CPU backend, CI
 * without a GPU); cuda: memory of CUDA device `device`.
 */
enum class memory_kind { simulated = 0, cuda = 1 };

struct device_binding {
    memory_kind kind = memory_kind::simulated;
    int device = 0;
    bool operator==(const device_binding& o) const
    {
        return kind == o.kind && (kind == memory_kind::simulated || device == o.device);
    }
    bool operator!=(const device_binding& o) const { return !(*this == o); }
};

__attribute__((visibility("default"))) std::string to_string(const device_binding& b);

//! Live allocations made for device buffers (both kinds), for leak checks.
struct device_memory_stats {
    long sim_device_allocs = 0, sim_host_allocs = 0;
    size_t sim_device_bytes = 0, sim_host_bytes = 0;
    long cuda_device_allocs = 0, cuda_host_allocs = 0;
    size_t cuda_device_bytes = 0, cuda_host_bytes = 0;
    long buffers = 0; //!< gpuinterp cuda_buffer objects alive
};
__attribute__((visibility("default"))) device_memory_stats device_memory_usage();

} // namespace gpuinterp
} // namespace gr

#endif
