/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CUDA backend of the table lookup: precision `texture` is a real 1D texture object over
// a cudaArray (float or float2 texels), read with tex1D, so the texture unit does the
// addressing, the filtering and the 9-bit weights; precision `exact` is an ALU kernel
// over a linear copy of the table (double coordinate arithmetic, as the CPU backend).
//
// Why a 1D cudaArray: lookup tables are small (AM/AM curves: 256..4096 entries) and a
// cudaArray filters; the limit is the device's maximum 1D texture width (131072 on the
// H200), checked in set_table. Linear-memory 1D textures (tex1Dfetch) would hold more (their
// limit is cudaDeviceGetTexture1DLinearMaxWidth() in CUDA 13; cudaDeviceProp::maxTexture1DLinear
// is gone) but never filter.
//
// Host side: one stream; coordinates are staged through pinned memory in batches, then
// copied, looked up and copied back. Not double-buffered: a lookup is one read and one
// write per sample, so the copies dominate and a second stream would only overlap the
// (short) kernel with them.
#include "complex_ops.cuh"
#include "cuda_common.cuh"
#include "cuda_engines.h"
#include "table_lookup_tuning.h"
#include "texture_util.cuh"
#include <cstring>

namespace gr {
namespace gpuinterp {
namespace gpu {

namespace {

template <typename D>
__global__ void tex_lookup_kernel(cudaTextureObject_t tex,
                                  const float* __restrict__ x,
                                  D* __restrict__ y,
                                  size_t n)
{
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
         i += size_t(gridDim.x) * blockDim.x)
        y[i] = tex1D<D>(tex, x[i]);
}

template <typename D>
__device__ inline D texel_at(const D* t, long long n, long long i, bool border)
{
    if (i >= 0 && i < n)
        return t[i];
    if (border)
        return zero<D>();
    return t[i < 0 ? 0 : n - 1];
}

__device__ inline float lerp_d(float a0, float a1, double a)
{
    return float((1.0 - a) * a0 + a * a1);
}
__device__ inline float2 lerp_d(float2 a0, float2 a1, double a)
{
    return make_float2(lerp_d(a0.x, a1.x, a), lerp_d(a0.y, a1.y, a));
}

template <typename D>
__global__ void exact_lookup_kernel(const D* __restrict__ t,
                                    long long N,
                                    const float* __restrict__ x,
                                    D* __restrict__ y,
                                    size_t n,
                                    bool normalized,
                                    bool linear,
                                    bool border)
{
    for (size_t k = blockIdx.x * size_t(blockDim.x) + threadIdx.x; k < n;
         k += size_t(gridDim.x) * blockDim.x) {
        double xu = normalized ? double(x[k]) * double(N) : double(x[k]);
        if (isnan(xu))
            xu = 0;
        const double lim = 4.0 * double(N) + 1024.0;
        xu = fmin(fmax(xu, -lim), lim);
        if (linear) {
            const double xb = xu - 0.5;
            const double fl = floor(xb);
            const long long i = (long long)fl;
            y[k] =
                lerp_d(texel_at(t, N, i, border), texel_at(t, N, i + 1, border), xb - fl);
        } else {
            y[k] = texel_at(t, N, (long long)floor(xu), border);
        }
    }
}

template <typename D, typename H>
class cuda_lookup_engine final : public kernel::lookup_engine<H>
{
public:
    cuda_lookup_engine(int device, size_t batch, const table_lookup_tuning& t)
        : d_device(device), d_batch(batch), d_tuning(t), d_stream(device)
    {
        device_guard g(d_device);
        d_max_width = device_attribute(cudaDevAttrMaxTexture1DWidth, device);
        d_sms = device_attribute(cudaDevAttrMultiProcessorCount, device);
    }

    void set_table(const std::vector<H>& table, const kernel::lookup_config& cfg) override
    {
        if (table.size() > size_t(d_max_width))
            throw std::invalid_argument(
                "table: " + std::to_string(table.size()) +
                " entries exceed this device's 1D texture width (" +
                std::to_string(d_max_width) + ")");
        device_guard g(d_device);
        const cudaChannelFormatDesc desc = cudaCreateChannelDesc<D>();
        if (d_array.width() != table.size())
            d_array.allocate(desc, table.size());
        const size_t bytes = table.size() * sizeof(D);
        // Both copies complete before the next launch (see upload() in cuda_common.cuh).
        GPUINTERP_CUDA_CHECK(cudaMemcpy2DToArrayAsync(d_array.get(),
                                                      0,
                                                      0,
                                                      table.data(),
                                                      bytes,
                                                      bytes,
                                                      1,
                                                      cudaMemcpyHostToDevice,
                                                      cudaStreamPerThread));
        d_linear.reserve(table.size());
        upload(d_linear.get(), table.data(), table.size());
        cudaResourceDesc res;
        std::memset(&res, 0, sizeof(res));
        res.resType = cudaResourceTypeArray;
        res.res.array.array = d_array.get();
        cudaTextureDesc td;
        std::memset(&td, 0, sizeof(td));
        td.addressMode[0] = cfg.addr == kernel::texemu::address::clamp
                                ? cudaAddressModeClamp
                                : cudaAddressModeBorder;
        td.filterMode = cfg.filter == kernel::filter_mode::linear ? cudaFilterModeLinear
                                                                  : cudaFilterModePoint;
        td.readMode = cudaReadModeElementType;
        td.normalizedCoords = cfg.normalized ? 1 : 0;
        d_tex.create(res, td);
        d_cfg = cfg;
        d_n = table.size();
    }

    void lookup(H* out, const float* x, size_t n) override
    {
        device_guard g(d_device);
        const size_t chunk = std::min(n, d_batch);
        d_hx.reserve(chunk);
        d_hy.reserve(chunk);
        d_dx.reserve(chunk);
        d_dy.reserve(chunk);
        cudaStream_t st = d_stream.get();
        for (size_t pos = 0; pos < n; pos += chunk) {
            const size_t c = std::min(chunk, n - pos);
            std::memcpy(d_hx.get(), x + pos, c * sizeof(float));
            GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(
                d_dx.get(), d_hx.get(), c * sizeof(float), cudaMemcpyHostToDevice, st));
            launch(d_dx.get(), d_dy.get(), c, st);
            GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(
                d_hy.get(), d_dy.get(), c * sizeof(D), cudaMemcpyDeviceToHost, st));
            d_stream.synchronize();
            std::memcpy(static_cast<void*>(out + pos), d_hy.get(), c * sizeof(D));
        }
    }

    // Device-buffer entry point: coordinates and outputs already in device memory (GNU Radio
    // device buffers); one launch, then a synchronise of this engine's stream only.
    void lookup_device(H* out, const float* x, size_t n) override
    {
        device_guard g(d_device);
        cudaStream_t st = d_stream.get();
        for (size_t pos = 0; pos < n; pos += (size_t(1) << 30))
            launch(x + pos,
                   reinterpret_cast<D*>(out) + pos,
                   std::min(n - pos, size_t(1) << 30),
                   st);
        d_stream.synchronize();
    }

    void set_batch(size_t b) override { d_batch = b; }

private:
    void launch(const float* dx, D* dy, size_t c, cudaStream_t st)
    {
        const int threads = d_tuning.threads;
        const int blocks = int(std::min<size_t>((c + threads - 1) / threads,
                                                size_t(d_sms) * d_tuning.blocks_per_sm));
        if (d_cfg.precision == kernel::lookup_precision::texture)
            tex_lookup_kernel<D><<<blocks, threads, 0, st>>>(d_tex.get(), dx, dy, c);
        else
            exact_lookup_kernel<D><<<blocks, threads, 0, st>>>(
                d_linear.get(),
                (long long)d_n,
                dx,
                dy,
                c,
                d_cfg.normalized,
                d_cfg.filter == kernel::filter_mode::linear,
                d_cfg.addr == kernel::texemu::address::border);
        GPUINTERP_CUDA_CHECK_LAUNCH(st);
    }

    int d_device;
    size_t d_batch;
    const table_lookup_tuning d_tuning; // the device's row or a benchmark's (a copy)
    int d_max_width = 0, d_sms = 1;
    size_t d_n = 0;
    kernel::lookup_config d_cfg;
    cuda_array d_array;
    texture_object d_tex;
    device_buffer<D> d_linear, d_dy;
    device_buffer<float> d_dx;
    pinned_buffer<float> d_hx;
    pinned_buffer<D> d_hy;
    engine_stream d_stream; // last: destroyed (waited for) first
};

} // namespace

template <typename T>
std::unique_ptr<kernel::lookup_engine<T>>
make_cuda_lookup_engine(int device, size_t batch, const table_lookup_tuning& t)
{
    return std::make_unique<cuda_lookup_engine<device_t<T>, T>>(device, batch, t);
}

template <typename T>
std::unique_ptr<kernel::lookup_engine<T>> make_cuda_lookup_engine(int device,
                                                                  size_t batch)
{
    return make_cuda_lookup_engine<T>(
        device, batch, table_lookup_tuning_for(compute_capability(device)));
}

template std::unique_ptr<kernel::lookup_engine<float>>
make_cuda_lookup_engine<float>(int, size_t);
template std::unique_ptr<kernel::lookup_engine<std::complex<float>>>
make_cuda_lookup_engine<std::complex<float>>(int, size_t);
template std::unique_ptr<kernel::lookup_engine<float>>
make_cuda_lookup_engine<float>(int, size_t, const table_lookup_tuning&);
template std::unique_ptr<kernel::lookup_engine<std::complex<float>>>
make_cuda_lookup_engine<std::complex<float>>(int, size_t, const table_lookup_tuning&);

} // namespace gpu
} // namespace gpuinterp
} // namespace gr
