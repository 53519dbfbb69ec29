/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "../common/env.h"
#include "device_query.h"
#include <gnuradio/gpuinterp/kernel/backend.h>
#include <cstdlib>

namespace gr {
namespace gpuinterp {

bool built_with_cuda() { return gpu::built_with_cuda(); }
int cuda_device_count() { return gpu::device_count(); }

std::string cuda_unavailable_reason()
{
    return gpu::device_count() > 0 ? std::string() : gpu::last_error();
}

namespace {
void check_device_index(int device, int n)
{
    if (device < 0)
        throw std::invalid_argument("device: CUDA device index must be >= 0, got " +
                                    std::to_string(device));
    if (device >= n)
        throw std::invalid_argument("device: CUDA device index " +
                                    std::to_string(device) + " out of range (" +
                                    std::to_string(n) + " device(s) found)");
}
} // namespace

std::string cuda_device_name(int device)
{
    const int n = gpu::device_count();
    if (n == 0)
        throw std::runtime_error("cuda_device_name: no usable CUDA device: " +
                                 gpu::last_error());
    check_device_index(device, n);
    return gpu::device_name(device);
}

backend_choice select_backend(backend requested, int device)
{
    if (device < 0)
        throw std::invalid_argument("device: CUDA device index must be >= 0, got " +
                                    std::to_string(device));
    if (requested == backend::cpu)
        return { backend::cpu, "" };
    if (requested != backend::automatic && requested != backend::cuda)
        throw std::invalid_argument("backend: invalid enumerator");

    const bool forced_cpu = env::force_cpu();
    if (requested == backend::automatic && forced_cpu)
        return { backend::cpu, "GPUINTERP_BACKEND=cpu is set; using the CPU backend" };

    std::string why;
    const int n = gpu::device_count();
    if (n == 0)
        why = gpu::last_error();
    else
        check_device_index(device, n);
    if (why.empty())
        return { backend::cuda, "" };
    if (requested == backend::cuda)
        throw std::runtime_error("backend 'cuda' requested but " + why);
    return { backend::cpu, why + "; using the CPU backend" };
}

} // namespace gpuinterp
} // namespace gr
