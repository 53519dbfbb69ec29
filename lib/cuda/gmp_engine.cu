/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CUDA engine of the memory-polynomial predistorters (mp, gmp): streaming state and data movement
// around the kernel compiled for the model's structure (gmp_jit.cu) or, where that cannot be built
// or `interpreted` is asked for, the kernel of gmp_kernels.cu, as the parallel-Hammerstein engine does it
// (dpd_predistorter.cu): host calls go through the two-slot pinned pipeline of host_pipeline.cuh
// (each chunk staged with its own H-sample history, optionally in mapped memory), device calls
// through device_history.cuh (history kept on the device). The program lives in one device
// buffer, replaced synchronously by set_program(): both entry points return only after their
// work has finished, so no kernel can be reading it.
#include "../common/parallel.h"
#include "cuda_common.cuh"
#include "cuda_engines.h"
#include "dpd_stream.cuh"
#include "gmp_launch.h"
#include <gnuradio/gpuinterp/kernel/stream_history.h>
#include <stdexcept>

namespace gr {
namespace gpuinterp {
namespace gpu {

namespace {

using cf = std::complex<float>;

class cuda_gmp_engine final
    : public dpd_stream_engine<kernel::gmp_engine, cuda_gmp_engine, int4>
{
public:
    cuda_gmp_engine(int device, size_t batch, bool mapped)
        : dpd_stream_engine(device, batch, mapped),
          d_tuning(gmp_tuning_for(compute_capability(device)))
    {
    }
    // Every entry point returns after its work has finished, so nothing can still use the kernel.
    ~cuda_gmp_engine() override { release_gmp_jit(d_jit); }

    void set_program(const kernel::gmp_program& p) override
    {
        device_guard guard(d_device);
        gmp_blob b = flatten(p);
        if (!loaded())
            d_plan = plan_gmp(b, d_device);
        // The compiled kernel's coefficients travel as its launch parameters: each launch copies
        // d_params, so an update cannot reach a kernel already queued.
        gmp_jit_params(b, d_params);
        d_blob = std::move(b);
        store_model(d_blob.words.data(), d_blob.words.size(), p.H);
    }

    kernel::dpd_cuda_variant active_variant() const override
    {
        return d_jit.fn ? kernel::dpd_cuda_variant::compiled
                        : kernel::dpd_cuda_variant::interpreted;
    }
    std::string variant_note() const override
    {
        return d_jit_note.empty()
                   ? std::string()
                   : "mp/gmp: the interpreted CUDA kernel runs (" + d_jit_note + ")";
    }

    // What dpd_stream_engine calls: the launch, and its resolution for d_requested.
    auto launcher()
    {
        return [this](const float2* x, float2* y, size_t cnt, cudaStream_t st) {
            if (d_jit.fn)
                launch_gmp_jit(d_jit, d_params, { x, y, cnt, st });
            else
                launch_gmp(d_plan, d_blob, d_model.get(), { x, y, cnt, st });
        };
    }
    void configure()
    {
        const bool want = d_requested == kernel::dpd_cuda_variant::compiled ||
                          (d_requested != kernel::dpd_cuda_variant::interpreted &&
                           gmp_jit_preferred(d_blob, d_tuning));
        d_jit_note.clear();
        if (want && !d_jit.fn)
            d_jit = compile_gmp_jit(
                d_blob, d_device, gmp_jit_shape_for(d_blob, d_tuning), &d_jit_note);
        else if (!want && d_jit.fn)
            release_gmp_jit(
                d_jit); // no launch of it is queued: the entry points are synchronous
    }

private:
    const gmp_tuning& d_tuning; // the device's row, chosen once
    gmp_plan d_plan;
    gmp_blob d_blob;
    gmp_jit_kernel d_jit;
    std::string d_jit_note;
    std::vector<char> d_params;
};

} // namespace

std::unique_ptr<kernel::gmp_engine>
make_cuda_gmp_engine(int device, size_t batch, bool mapped)
{
    return std::make_unique<cuda_gmp_engine>(device, batch, mapped);
}

} // namespace gpu
} // namespace gpuinterp
} // namespace gr
