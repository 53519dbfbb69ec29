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
#include "../cpu/parallel.h"
#include "cuda_common.cuh"
#include "device_history.cuh"
#include "gmp_launch.h"
#include "host_pipeline.cuh"
#include <gnuradio/gpuinterp/kernel/stream_history.h>
#include <stdexcept>

namespace gr {
namespace gpuinterp {
namespace gpu {

namespace {

using cf = std::complex<float>;

class cuda_gmp_engine final : public kernel::gmp_engine
{
public:
    cuda_gmp_engine(int device, size_t batch, bool mapped)
        : d_device(device), d_batch(batch), d_pipe(device, mapped)
    {
        if (mapped) {
            device_guard guard(d_device);
            int can_map = 0;
            GPUINTERP_CUDA_CHECK(cudaDeviceGetAttribute(&can_map, cudaDevAttrCanMapHostMemory, device));
            if (!can_map)
                throw std::runtime_error("mapped: device " + std::to_string(device) + " cannot map host memory");
        }
    }

    void set_program(const kernel::gmp_program& p) override { set_program(p, 0); }

    void set_program(const kernel::gmp_program& p, int R)
    {
        device_guard guard(d_device);
        gmp_blob b = flatten(p);
        const bool first = d_blob_dev.capacity() == 0;
        if (first || R)
            d_plan = plan_gmp(b, d_device, R);
        d_blob_dev.reserve(b.words.size() / 4);
        GPUINTERP_CUDA_CHECK(
            cudaMemcpy(d_blob_dev.get(), b.words.data(), b.words.size() * sizeof(int), cudaMemcpyHostToDevice));
        d_blob = std::move(b);
        if (first)
            d_hist.resize(p.H);
    }

    void process_device(cf* out, const cf* in, size_t n) override
    {
        device_guard guard(d_device);
        const size_t H = d_hist.size();
        cudaStream_t st = d_pipe.stream0();
        float2* y = reinterpret_cast<float2*>(out);
        d_dev_hist.run(d_hist, reinterpret_cast<const float2*>(in), n, st,
                       [&](const float2* x, size_t first, size_t count) {
                           launch_gmp(d_plan, d_blob, d_blob_dev.get(), x - H, y + first, count, st);
                       });
        GPUINTERP_CUDA_CHECK(cudaStreamSynchronize(st));
    }

    void process(cf* out, const cf* in, size_t n) override
    {
        device_guard guard(d_device);
        d_dev_hist.pull(d_hist);
        const size_t H = d_hist.size();
        d_pipe.run(reinterpret_cast<float2*>(out), n, d_batch, { H, 1, 1 },
                   [&](float2* pinned, size_t pos, size_t cnt) {
                       cf* staged = reinterpret_cast<cf*>(pinned);
                       d_hist.window(staged, in, pos, 0);
                       cpu::parallel_copy(staged + H, in + pos, cnt * sizeof(cf));
                   },
                   [&](const float2* x, float2* y, size_t cnt, cudaStream_t st) {
                       launch_gmp(d_plan, d_blob, d_blob_dev.get(), x, y, cnt, st);
                   });
        d_hist.advance(in, n);
    }

    void reset() override
    {
        d_hist.clear();
        d_dev_hist.invalidate();
    }
    void set_batch(size_t b) override { d_batch = b; }

    //! Device-resident timing: the kernel alone over n samples, median of iters launches.
    double time_kernel_ms(size_t n, int iters)
    {
        device_guard guard(d_device);
        const size_t H = d_hist.size();
        device_buffer<float2> x(n + H), y(n);
        std::vector<cf> hx(n + H);
        for (size_t i = 0; i < hx.size(); i++) // |x| <= ~0.7, deterministic
            hx[i] = cf(float((i * 2654435761u) % 1000) * 1e-3f - 0.5f, float((i * 40503u) % 997) * 1e-3f - 0.5f);
        GPUINTERP_CUDA_CHECK(cudaMemcpy(x.get(), hx.data(), hx.size() * sizeof(float2), cudaMemcpyHostToDevice));
        cudaStream_t st = d_pipe.stream0();
        return median_launch_ms(st, iters, [&] { launch_gmp(d_plan, d_blob, d_blob_dev.get(), x.get(), y.get(), n, st); });
    }
    int outputs_per_thread() const { return d_plan.R; }

private:
    int d_device;
    size_t d_batch;
    gmp_plan d_plan;
    gmp_blob d_blob;
    device_buffer<int4> d_blob_dev;
    kernel::stream_history<cf> d_hist;
    device_history<float2, cf> d_dev_hist;
    // Last member, so destroyed first: waits for both streams before the buffers above are freed.
    host_pipeline<float2, float2> d_pipe;
};

} // namespace

std::unique_ptr<kernel::gmp_engine> make_cuda_gmp_engine(int device, size_t batch, bool mapped)
{
    return std::make_unique<cuda_gmp_engine>(device, batch, mapped);
}

double time_gmp_kernel_ms(int device, const kernel::gmp_program& program, size_t n, int iters, int R, int* used_R)
{
    cuda_gmp_engine e(device, 1, false);
    e.set_program(program, R);
    if (used_R)
        *used_R = e.outputs_per_thread();
    return e.time_kernel_ms(n, iters);
}

} // namespace gpu
} // namespace gpuinterp
} // namespace gr
