/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CUDA backend of the predistorter: one fused kernel per call (basis, taps and sum in one pass),
// in several variants.
//
// All kernels are one fused pass: a thread loads x[n], computes its basis
// values psi_m (orders 1, 3, .., 2M-1) from low to high order in registers (|x|^2 once, one
// multiplication per order), and accumulates the output with the packed 2x2 coefficient maps
// (dpd_engine.h: 4 FMAs per order and delay, conjugate branches folded in, so conj(psi) is never
// formed). Coefficients are copied into shared memory once per block (the reference design's choice);
// every thread of a warp reads the same map, a broadcast. They are not kept in __constant__
// memory: a __constant__ symbol is shared by every engine in the process, so two predistorters
// with different sets on different streams would race.
//
// The variants differ in how a thread gets its neighbours' basis values psi_m(x[n-k]):
//  - smem: a block computes the basis of a tile of T outputs plus an H-sample halo into shared
//    memory planes, synchronises, then each thread reads its L values per order from there.
//    Works for any L that fits; the halo costs H/T extra basis computations.
//  - tiled: smem retuned for issue and latency (R = 5 outputs per thread, prefetched tiles,
//    unrolled taps), described where it is defined (dpd_ph_kernels.cuh).
// The reference design's warp-shuffle layout (`shuffle`: neighbours' basis values from the
// registers of lane - k, warps overlapping by H samples, so L <= 32), its variant `shuffle_x`
// (lanes shuffle the samples and recompute the basis) and `tiled8` (tiled with R = 8) lost the
// measurements and are not in the library: they live in the benchmarks' lab (bench/dpd_ph_lab.cu),
// built from this file's plan. Measured on the H200 (docs/performance.md, 2^26 samples): smem
// beat both shuffle designs at every benchmark row — (5,3,5) 0.663 ms vs shuffle 0.824 /
// shuffle_x 0.924; (7,7,8) 0.914 vs 1.55 / 1.91; (9,5,16) 1.79 vs 5.41 / 6.49 — but still sat at
// 39 % of the memory floor at (5,3,5) and 5x off its FMA floor (latency and issue bound), hence
// tiled. `automatic` is `tiled` (its tuning row, dpd_ph_tuning.h): measured on the H200
// (2026-11-30) it is fastest at every row — (5,3,5) 0.334 ms (77 % of the memory floor) vs tiled8
// 0.368 / smem 0.658; (7,7,8) 0.520 vs 0.597 / 0.907; (9,5,16) 1.03 vs 1.34 / 1.78. Where tiled
// does not fit (L > 256), or for misaligned device-buffer pointers, it runs smem.
//
// Host pipeline: the two-slot pinned pipeline of host_pipeline.cuh, as in the FIR engine. Each
// chunk carries its own H-sample history (taken on the host), so the streams stay independent.
// Staging is pinned (copies are DMA, truly asynchronous), or with `mapped` it is mapped pinned
// memory that the kernel reads and writes directly over the bus (cudaHostAllocMapped, zero-copy:
// no device buffers and no copy engine; what a fused design does on integrated GPUs, where
// host and device share the memory). Both copies between GNU Radio's pageable buffers and the
// staging are split over threads (cpu::parallel_copy): one thread's memcpy would cap the block
// far below the bus.
#include "../common/parallel.h"
#include "cuda_common.cuh"
#include "cuda_engines.h"
#include "dpd_ph_kernels.cuh"
#include "dpd_ph_launch.h"
#include "dpd_stream.cuh"
#include <gnuradio/gpuinterp/kernel/stream_history.h>
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace gr {
namespace gpuinterp {
namespace gpu {

namespace {

using kernel::dpd_cuda_variant;
using cf = std::complex<float>;

// Only the variants the library runs reach the plan: a value cast from an integer (one of the
// numbers of the variants that left the library, say) is refused here rather than planned as
// something else.
void check_variant(dpd_cuda_variant v)
{
    if (v != dpd_cuda_variant::automatic && v != dpd_cuda_variant::smem &&
        v != dpd_cuda_variant::tiled)
        throw std::invalid_argument(
            "variant: unknown parallel-Hammerstein CUDA variant " +
            std::to_string(int(v)) + " (expected 'automatic', 'smem' or 'tiled')");
}

} // namespace

dev_model make_dev_model(const kernel::dpd_packed& m)
{
    if (int(m.M) > MAX_M)
        throw std::invalid_argument(
            "P: orders above 15 are not supported by the CUDA backend");
    dev_model md{};
    md.Lmax = int(m.Lmax);
    md.H = int(m.H);
    for (int i = 0; i < MAX_M; i++)
        md.taps[i] = i < int(m.M) ? int(m.taps[i]) : 0;
    md.cr = m.cr;
    md.ci = m.ci;
    return md;
}

void plan_smem_tile(ph_plan& pl, const ph_target& on, const ph_tuning& t, ph_block b)
{
    const dev_model& md = on.md;
    const int M = on.M, device = on.device, threads = b.threads, blocked_r = b.R;
    const int optin = device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    const int H = md.H, Lmax = md.Lmax;
    const size_t coef_bytes = size_t(M) * Lmax * sizeof(float4);
    // Register blocking pays where the taps dominate (Lmax above smem_blocking_above_taps);
    // with R = 1 a tile needs no staging. Tiles hold at least smem_outputs_per_halo outputs
    // per halo sample, which bounds the halo's extra basis work, fewer when shared memory
    // runs out; R = 1 is the last resort.
    auto need = [&](int t, int r) {
        return coef_bytes + size_t(M) * (t + H) * sizeof(float2) +
               (r > 1 ? size_t(t) * sizeof(float2) : 0);
    };
    int T = 0;
    for (int r : { Lmax > t.smem_blocking_above_taps ? blocked_r : 1, 1 }) {
        const int unit = threads * r;
        T = unit * std::max(1, (t.smem_outputs_per_halo * H + unit - 1) / unit);
        while (T > unit && need(T, r) > size_t(optin))
            T -= unit;
        pl.R = r;
        if (need(T, r) <= size_t(optin))
            break;
    }
    if (need(T, pl.R) > size_t(optin))
        throw std::invalid_argument("Lp: " + std::to_string(Lmax) + " taps with " +
                                    std::to_string(M) +
                                    " orders exceed the device's shared memory");
    pl.variant = dpd_cuda_variant::smem;
    pl.M = M;
    pl.threads = threads;
    pl.tile = T;
    pl.smem = need(T, pl.R);
}

bool plan_tiled_tile(ph_plan& pl, const ph_target& on, const tiled_choice& tc, ph_block b)
{
    const dev_model& md = on.md;
    const int M = on.M, device = on.device, R = b.R, threads = b.threads;
    const int optin = device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    const int T = R * threads;
    // padded<R>: even R pads the planes by one value per R (dpd_ph_kernels.cuh).
    auto pad = [&](int c) { return (R & 1) ? c : c + (c - 1) / R + 1; };
    const size_t coef_bytes = size_t(M) * md.Lmax * sizeof(float4);
    const size_t need = (tc.param ? 0 : coef_bytes) +
                        (size_t(M) * pad(T + md.H) + size_t(pad(T))) * sizeof(float2);
    // One halo value per thread.
    if (md.H >= threads || need > size_t(optin))
        return false;
    pl.variant = dpd_cuda_variant::tiled;
    pl.M = M;
    pl.kernel = tc.fn;
    pl.param = tc.param;
    pl.tile = T;
    pl.threads = threads;
    pl.smem = need;
    return true;
}

ph_plan plan_ph(const dev_model& md, int M, int device, dpd_cuda_variant requested)
{
    return plan_ph(md, M, device, requested, ph_tuning_for(compute_capability(device)));
}

ph_plan plan_ph(const dev_model& md,
                int M,
                int device,
                dpd_cuda_variant requested,
                const ph_tuning& t)
{
    check_variant(requested);
    device_guard guard(device);
    const dpd_cuda_variant v =
        requested == dpd_cuda_variant::automatic ? t.automatic : requested;
    ph_plan pl;
    const ph_target on{ md, M, device };
    // Longer filters than the tiled kernel's halo (or no room) take the smem kernel.
    if (!(v == dpd_cuda_variant::tiled &&
          plan_tiled_tile(
              pl, on, tiled_for<TILED_R, TILED_NT>(M, md.Lmax), { TILED_R, TILED_NT }))) {
        plan_smem_tile(pl, on, t, { SMEM_R, THREADS });
        pl.kernel = smem_kernel_for<THREADS, SMEM_R>(M, pl.R);
    }
    finish_ph_plan(pl, device);
    return pl;
}

void finish_ph_plan(ph_plan& pl, int device)
{
    // Per-kernel attribute shared by all engines: the device limit, so no engine lowers it
    // under another's need (see polyphase_interpolator.cu).
    GPUINTERP_CUDA_CHECK(cudaFuncSetAttribute(
        pl.kernel,
        cudaFuncAttributeMaxDynamicSharedMemorySize,
        device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, device)));
    int per_sm = 0;
    GPUINTERP_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, pl.kernel, pl.threads, pl.smem));
    pl.max_blocks =
        std::max(1, per_sm) * device_attribute(cudaDevAttrMultiProcessorCount, device);
}

void launch_ph(const ph_plan& pl,
               const dev_model& md,
               const float4* coef,
               const float* hcoef,
               const dpd_io& io)
{
    const float2* x = io.x;
    float2* y = io.y;
    const long long nn = (long long)io.n;
    const int grid = capped_grid(nn, pl.tile, pl.max_blocks);
    if (pl.tiled()) {
        // Unrolled kernels take the maps by value (the launch copies hcoef, so a later model
        // update cannot reach a kernel in flight); the generic one from the device.
        void* args[] = { &x,
                         &y,
                         pl.param ? const_cast<float*>(hcoef) : static_cast<void*>(&coef),
                         const_cast<dev_model*>(&md),
                         const_cast<long long*>(&nn) };
        GPUINTERP_CUDA_CHECK(cudaLaunchKernel(
            pl.kernel, dim3(grid), dim3(pl.threads), args, pl.smem, io.st));
        GPUINTERP_CUDA_CHECK_LAUNCH(io.st);
        return;
    }
    int T = pl.tile;
    void* args[] = {
        &x, &y, &coef, const_cast<dev_model*>(&md), const_cast<long long*>(&nn), &T
    };
    GPUINTERP_CUDA_CHECK(
        cudaLaunchKernel(pl.kernel, dim3(grid), dim3(pl.threads), args, pl.smem, io.st));
    GPUINTERP_CUDA_CHECK_LAUNCH(io.st);
}

namespace {

class cuda_dpd_engine final
    : public dpd_stream_engine<kernel::dpd_engine, cuda_dpd_engine, float4>
{
public:
    cuda_dpd_engine(int device, size_t batch, bool mapped)
        : dpd_stream_engine(device, batch, mapped) // staging mapped or not
    {
    }

    void set_model(const kernel::dpd_packed& m) override
    {
        device_guard guard(d_device);
        d_md = make_dev_model(m); // checks the order
        d_M = int(m.M);
        d_hcoef = m.abcd;
        store_model(m.abcd.data(), m.abcd.size(), m.H);
    }

    void set_variant(dpd_cuda_variant v) override
    {
        check_variant(v);
        dpd_stream_engine::set_variant(v);
    }

    dpd_cuda_variant active_variant() const override { return d_plan.variant; }

    // What dpd_stream_engine calls: the launch, and its resolution for d_requested.
    auto launcher()
    {
        return [this](const float2* x, float2* y, size_t cnt, cudaStream_t st) {
            // The tiled kernels move samples as float4 pairs and need 16-byte aligned x and y;
            // device-buffer calls (process_device) hand over GNU Radio buffer pointers at any
            // 8-byte offset, and those take the smem plan.
            const bool misaligned =
                (reinterpret_cast<uintptr_t>(x) | reinterpret_cast<uintptr_t>(y)) & 15;
            launch_ph(d_plan.tiled() && misaligned ? d_fallback : d_plan,
                      d_md,
                      d_model.get(),
                      d_hcoef.data(),
                      { x, y, cnt, st });
        };
    }
    void configure()
    {
        d_plan = plan_ph(d_md, d_M, d_device, d_requested);
        if (d_plan.tiled())
            d_fallback = plan_ph(d_md, d_M, d_device, dpd_cuda_variant::smem);
    }

private:
    int d_M = 1;
    ph_plan d_plan{},
        d_fallback{}; //!< the fallback: smem, for misaligned pointers (tiled only)
    std::vector<float> d_hcoef; //!< host copy of the maps for the unrolled tiled kernels
    dev_model d_md{};
};

} // namespace

std::unique_ptr<kernel::dpd_engine>
make_cuda_dpd_engine(int device, size_t batch, bool mapped)
{
    return std::make_unique<cuda_dpd_engine>(device, batch, mapped);
}

} // namespace gpu
} // namespace gpuinterp
} // namespace gr
