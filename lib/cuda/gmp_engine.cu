/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CUDA engine of the memory-polynomial predistorters (mp, gmp): streaming state and data movement
// around the kernel of gmp_kernels.cu, as the parallel-Hammerstein engine does it
// (dpd_predistorter.cu): host calls go through the two-slot pinned pipeline of host_pipeline.cuh
// (each chunk staged with its own H-sample history, optionally in mapped memory), device calls
// through device_history.cuh (history kept on the device). The program lives in one device
// buffer, replaced synchronously by set_program(): both entry points return only after their
// work has finished, so no kernel can be reading it.
#include "../common/parallel.h"
#include "cuda_engines.h"
#include "cuda_common.cuh"
#include "dpd_stream.cuh"
#include "gmp_launch.h"
#include <gnuradio/gpuinterp/kernel/stream_history.h>
#include <stdexcept>

namespace gr {
namespace gpuinterp {
namespace gpu {

namespace {

using cf = std::complex<float>;

class cuda_gmp_engine final : public dpd_stream_entry_points<kernel::gmp_engine, cuda_gmp_engine>
{
public:
    cuda_gmp_engine(int device, size_t batch, bool mapped)
        : d_device(device), d_stream(device, batch, mapped)
    {
    }

    void set_program(const kernel::gmp_program& p) override
    {
        device_guard guard(d_device);
        gmp_blob b = flatten(p);
        const bool first = d_blob_dev.capacity() == 0;
        if (first)
            d_plan = plan_gmp(b, d_device);
        d_blob_dev.reserve(b.words.size() / 4);
        GPUINTERP_CUDA_CHECK(
            cudaMemcpy(d_blob_dev.get(), b.words.data(), b.words.size() * sizeof(int), cudaMemcpyHostToDevice));
        d_blob = std::move(b);
        if (first)
            d_stream.set_history(p.H);
    }

    dpd_stream& stream() { return d_stream; }
    auto launcher()
    {
        return [this](const float2* x, float2* y, size_t cnt, cudaStream_t st) {
            launch_gmp(d_plan, d_blob, d_blob_dev.get(), x, y, cnt, st);
        };
    }

private:
    int d_device;
    gmp_plan d_plan;
    gmp_blob d_blob;
    device_buffer<int4> d_blob_dev;
    // Last member: its pipeline waits for both streams before d_blob_dev is freed.
    dpd_stream d_stream;
};

} // namespace

std::unique_ptr<kernel::gmp_engine> make_cuda_gmp_engine(int device, size_t batch, bool mapped)
{
    return std::make_unique<cuda_gmp_engine>(device, batch, mapped);
}

} // namespace gpu
} // namespace gpuinterp
} // namespace gr
