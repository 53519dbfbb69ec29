/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_GPU_RESAMP_ENGINE_BASE_CUH
#define INCLUDED_GPUINTERP_GPU_RESAMP_ENGINE_BASE_CUH

// What the window-at-a-time and the one-launch CUDA resampler engines (resamp_engine.cuh,
// resamp_channels.cu) hold alike: the device, the batch, the device's tuning row and the
// limits the launch plans read, read once; the polyphase prototype and the kernel choice;
// and the setters of those.

#include "../kernel/resamp_engines.h"
#include "cuda_common.cuh"
#include "resamp_tuning.h"
#include <cstddef>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace gpu {

//! `Interface`: kernel::resamp_engine<H> (the one-launch channels engine) or its
//! resamp_window_engine<H> (the engine of one window at a time).
//! `Proto`: the prototype table on the device (resamp_prototype), set through its set().
template <typename Interface, typename Proto>
class resamp_engine_base : public Interface
{
public:
    void set_prototype(const std::vector<float>& table, unsigned K, unsigned P) override
    {
        device_guard g(d_device);
        d_proto.set(table, K, P);
    }
    void set_cuda_variant(kernel::resamp_cuda_variant v) override
    {
        d_untiled = v == kernel::resamp_cuda_variant::untiled;
    }
    void set_batch(size_t b) override { d_batch = b; }

protected:
    //! With the device's tuning row, or `t` (the benchmark's sweeps).
    resamp_engine_base(int device, size_t batch)
        : resamp_engine_base(device, batch, resamp_tuning_for(compute_capability(device)))
    {
    }
    resamp_engine_base(int device, size_t batch, const resamp_tuning& t)
        : d_device(device),
          d_batch(batch),
          d_tuning(t),
          d_sms(device_attribute(cudaDevAttrMultiProcessorCount, device)),
          d_smem_optin(device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, device))
    {
    }

    int d_device;
    size_t d_batch;
    const resamp_tuning d_tuning; // the device's row or a benchmark's (a copy)
    int d_sms;
    int d_smem_optin;
    Proto d_proto;
    bool d_untiled = false;
};

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
