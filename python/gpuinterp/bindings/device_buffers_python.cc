/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Diagnostics for device buffers: live allocations (leak checks from Python).
#include <gnuradio/gpuinterp/device_binding.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

void bind_device_buffers(py::module& m)
{
    m.def(
        "device_memory_usage",
        [] {
            const auto s = gr::gpuinterp::device_memory_usage();
            py::dict d;
            d["buffers"] = s.buffers;
            d["sim_device_allocs"] = s.sim_device_allocs;
            d["sim_host_allocs"] = s.sim_host_allocs;
            d["sim_device_bytes"] = s.sim_device_bytes;
            d["sim_host_bytes"] = s.sim_host_bytes;
            d["cuda_device_allocs"] = s.cuda_device_allocs;
            d["cuda_host_allocs"] = s.cuda_host_allocs;
            d["cuda_device_bytes"] = s.cuda_device_bytes;
            d["cuda_host_bytes"] = s.cuda_host_bytes;
            return d;
        },
        "Live gpuinterp device buffers and their allocations "
        "(simulated and CUDA, device and pinned host), as a dict. Used to check that "
        "flowgraphs release their buffers.");
}
