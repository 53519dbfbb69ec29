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
//  - shuffle: from the registers of lane - k with __shfl_up_sync. A warp covers 32 consecutive
//    samples, of which the first H = L-1 only produce basis values for the others (warps overlap
//    by H samples, the reference design's redundant threads), so a warp yields 33-L outputs and L <= 32.
//  - smem: a block computes the basis of a tile of T outputs plus an H-sample halo into shared
//    memory planes, synchronises, then each thread reads its L values per order from there.
//    Works for any L that fits; the halo costs H/T extra basis computations.
//  - shuffle_x (not in the reference design; for comparison): the same warp layout, but lanes shuffle the
//    samples x[n-k] themselves (2 shuffles per tap instead of 2 per tap and order) and recompute
//    their basis, trading shuffle traffic, which limits `shuffle` at high orders, for FMA work.
// Which is faster depends on L. Per (order, tap), `shuffle` issues 2 shuffles and a coefficient
// load per 33-L outputs of a warp, while `smem` with 5 outputs per thread issues a plane load and a
// coefficient load per 160 outputs and is left FMA-bound, so by that model smem wins once the taps
// dominate. Measured on the H200 (docs/performance.md, 2^26 samples): smem is fastest at every
// benchmark row — (5,3,5) 0.663 ms vs shuffle 0.824 / shuffle_x 0.924; (7,7,8) 0.914 vs 1.55 / 1.91;
// (9,5,16) 1.79 vs 5.41 / 6.49. smem at (5,3,5) still sat at 39 % of the memory floor and 5x off
// its FMA floor (latency and issue bound), hence two retuned variants of it, `tiled` (R = 5) and
// `tiled8` (R = 8), described where they are defined. `automatic` is `tiled`: measured on the
// H200 (2026-11-30) it is fastest at every row — (5,3,5) 0.334 ms (77 % of the memory floor) vs
// tiled8 0.368 / smem 0.658; (7,7,8) 0.520 vs 0.597 / 0.907; (9,5,16) 1.03 vs 1.34 / 1.78. Where
// tiled does not fit (L > 256), or for misaligned device-buffer pointers, it runs smem.
// The library holds tiled and smem only (kernels in dpd_ph_kernels.cuh); shuffle, shuffle_x and
// tiled8 live in bench/dpd_ph_lab.cu and run here only when a benchmark or test registers them
// (dpd_ph_lab.h).
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
#include "dpd_ph_lab.h"
#include "dpd_ph_launch.h"
#include "dpd_stream.cuh"
#include <gnuradio/gpuinterp/kernel/stream_history.h>
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace gr {
namespace gpuinterp {
namespace gpu {

namespace {

using kernel::dpd_cuda_variant;
using cf = std::complex<float>;

dpd_lab_variants& lab_registry()
{
    static dpd_lab_variants v;
    return v;
}

bool is_lab_variant(dpd_cuda_variant v)
{
    return v == dpd_cuda_variant::shuffle || v == dpd_cuda_variant::shuffle_x ||
           v == dpd_cuda_variant::tiled8;
}

void check_variant(dpd_cuda_variant v)
{
    if (is_lab_variant(v) && !lab_registry().tiled8)
        throw std::invalid_argument(
            "variant: '" + kernel::to_string(v) +
            "' is a benchmark-only variant (bench/dpd_ph_lab.cu); the library runs "
            "automatic, smem or tiled");
}

using kernel_fn = const void*;

template <int M>
kernel_fn pick(dpd_cuda_variant v, int R)
{
    switch (v) {
    case dpd_cuda_variant::shuffle:
        return lab_registry().shuffle(M);
    case dpd_cuda_variant::shuffle_x:
        return lab_registry().shuffle_x(M);
    default:
        return R == 1 ? reinterpret_cast<kernel_fn>(dpd_smem_kernel<M, 1>)
                      : reinterpret_cast<kernel_fn>(dpd_smem_kernel<M, SMEM_R>);
    }
}

kernel_fn kernel_for(int M, dpd_cuda_variant v, int R)
{
    switch (M) {
    case 1:
        return pick<1>(v, R);
    case 2:
        return pick<2>(v, R);
    case 3:
        return pick<3>(v, R);
    case 4:
        return pick<4>(v, R);
    case 5:
        return pick<5>(v, R);
    case 6:
        return pick<6>(v, R);
    case 7:
        return pick<7>(v, R);
    case 8:
        return pick<8>(v, R);
    default:
        throw std::invalid_argument(
            "P: orders above 15 are not supported by the CUDA backend");
    }
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

ph_plan plan_ph(const dev_model& md, int M, int device, dpd_cuda_variant requested)
{
    check_variant(requested);
    device_guard guard(device);
    int sms = 1, optin = 48 * 1024;
    GPUINTERP_CUDA_CHECK(
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    GPUINTERP_CUDA_CHECK(
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    const int H = md.H, Lmax = md.Lmax;
    dpd_cuda_variant v = requested;
    if (v == dpd_cuda_variant::
                 automatic) // measured fastest at every row (docs/performance.md)
        v = dpd_cuda_variant::tiled;
    const bool warp_layout =
        v == dpd_cuda_variant::shuffle || v == dpd_cuda_variant::shuffle_x;
    if (warp_layout && H > 31) // a warp cannot cover more than 32 taps
        v = dpd_cuda_variant::smem;
    const size_t coef_bytes = size_t(M) * Lmax * sizeof(float4);
    ph_plan pl;
    pl.M = M;
    pl.threads = THREADS;
    pl.smem = coef_bytes;
    auto finish = [&] {
        // Per-kernel attribute shared by all engines: the device limit, so no engine lowers it
        // under another's need (see polyphase_interpolator.cu).
        GPUINTERP_CUDA_CHECK(cudaFuncSetAttribute(
            pl.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
        int per_sm = 0;
        GPUINTERP_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &per_sm, pl.kernel, pl.threads, pl.smem));
        pl.max_blocks = std::max(1, per_sm) * sms;
        return pl;
    };
    if (v == dpd_cuda_variant::tiled || v == dpd_cuda_variant::tiled8) {
        const bool eight = v == dpd_cuda_variant::tiled8;
        const int R = eight ? TILED8_R : TILED_R, NT = eight ? TILED8_NT : TILED_NT;
        tiled_choice tc;
        if (eight) {
            const dpd_lab_kernel k = lab_registry().tiled8(M, Lmax);
            tc = tiled_choice{ k.fn, k.param };
        } else {
            tc = tiled_for<TILED_R, TILED_NT>(M, Lmax);
        }
        const int T = R * NT;
        auto pad = [&](int c) { return (R & 1) ? c : c + (c - 1) / R + 1; }; // padded<R>
        const size_t need = (tc.param ? 0 : coef_bytes) +
                            (size_t(M) * pad(T + H) + size_t(pad(T))) * sizeof(float2);
        // One halo value per thread; longer filters (or no room) take the smem kernel.
        if (H < NT && need <= size_t(optin)) {
            pl.variant = v;
            pl.kernel = tc.fn;
            pl.param = tc.param;
            pl.tile = T;
            pl.threads = NT;
            pl.smem = need;
            return finish();
        }
        v = dpd_cuda_variant::smem;
    }
    if (v == dpd_cuda_variant::smem) {
        // Register blocking pays where the taps dominate (L > 4); with R = 1 a tile needs no
        // staging. Tiles hold at least 4 outputs per halo sample so the halo's extra basis work
        // stays <= 25%, fewer when shared memory runs out; R = 1 is the last resort.
        auto need = [&](int t, int r) {
            return coef_bytes + size_t(M) * (t + H) * sizeof(float2) +
                   (r > 1 ? size_t(t) * sizeof(float2) : 0);
        };
        int T = 0;
        for (int r : { Lmax > 4 ? SMEM_R : 1, 1 }) {
            const int unit = THREADS * r;
            T = unit * std::max(1, (4 * H + unit - 1) / unit);
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
        pl.tile = T;
        pl.smem = need(T, pl.R);
    }
    pl.variant = v;
    pl.kernel = kernel_for(M, v, pl.R);
    return finish();
}

void launch_ph(const ph_plan& pl,
               const dev_model& md,
               const float2* x,
               float2* y,
               const float4* coef,
               const float* hcoef,
               size_t n,
               cudaStream_t st)
{
    const long long nn = (long long)n;
    long long blocks;
    const bool warp_layout = pl.variant == dpd_cuda_variant::shuffle ||
                             pl.variant == dpd_cuda_variant::shuffle_x;
    if (pl.tiled()) {
        blocks = (nn + pl.tile - 1) / pl.tile;
        const int grid = int(std::min<long long>(blocks, pl.max_blocks));
        // Unrolled kernels take the maps by value (the launch copies hcoef, so a later model
        // update cannot reach a kernel in flight); the generic one from the device.
        void* args[] = { &x,
                         &y,
                         pl.param ? const_cast<float*>(hcoef) : static_cast<void*>(&coef),
                         const_cast<dev_model*>(&md),
                         const_cast<long long*>(&nn) };
        GPUINTERP_CUDA_CHECK(
            cudaLaunchKernel(pl.kernel, dim3(grid), dim3(pl.threads), args, pl.smem, st));
        GPUINTERP_CUDA_CHECK_LAUNCH(st);
        return;
    }
    if (warp_layout) {
        const long long per_warp = 32 - md.H;
        blocks = ((nn + per_warp - 1) / per_warp + THREADS / 32 - 1) / (THREADS / 32);
    } else {
        blocks = (nn + pl.tile - 1) / pl.tile;
    }
    const int grid = int(std::min<long long>(blocks, pl.max_blocks));
    void* args_shuffle[] = {
        &x, &y, &coef, const_cast<dev_model*>(&md), const_cast<long long*>(&nn)
    };
    int T = pl.tile;
    void* args_smem[] = {
        &x, &y, &coef, const_cast<dev_model*>(&md), const_cast<long long*>(&nn), &T
    };
    GPUINTERP_CUDA_CHECK(cudaLaunchKernel(pl.kernel,
                                          dim3(grid),
                                          dim3(THREADS),
                                          warp_layout ? args_shuffle : args_smem,
                                          pl.smem,
                                          st));
    GPUINTERP_CUDA_CHECK_LAUNCH(st);
}

namespace {

class cuda_dpd_engine final
    : public dpd_stream_entry_points<kernel::dpd_engine, cuda_dpd_engine>
{
public:
    cuda_dpd_engine(int device, size_t batch, bool mapped)
        : d_device(device), d_stream(device, batch, mapped) // staging mapped or not
    {
    }

    void set_model(const kernel::dpd_packed& m) override
    {
        device_guard guard(d_device);
        const dev_model md = make_dev_model(m); // checks the order
        const bool first = d_coef.capacity() == 0;
        d_coef.reserve(m.abcd.size() / 4);
        // process() drains both slots before it returns, so no kernel reads it now; upload() lands
        // it before the next one.
        upload(reinterpret_cast<float*>(d_coef.get()), m.abcd.data(), m.abcd.size());
        d_hcoef = m.abcd;
        d_md = md;
        d_M = int(m.M);
        if (first) {
            d_stream.set_history(m.H);
            configure();
        }
    }

    void set_variant(dpd_cuda_variant v) override
    {
        check_variant(v);
        d_requested = v;
        if (d_coef.capacity())
            configure();
    }

    dpd_cuda_variant active_variant() const override { return d_plan.variant; }

    dpd_stream& stream() { return d_stream; }
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
                      x,
                      y,
                      d_coef.get(),
                      d_hcoef.data(),
                      cnt,
                      st);
        };
    }

private:
    void configure()
    {
        d_plan = plan_ph(d_md, d_M, d_device, d_requested);
        if (d_plan.tiled())
            d_fallback = plan_ph(d_md, d_M, d_device, dpd_cuda_variant::smem);
    }

    int d_device;
    int d_M = 1;
    ph_plan d_plan{},
        d_fallback{}; //!< the fallback: smem, for misaligned pointers (tiled only)
    std::vector<float> d_hcoef; //!< host copy of the maps for the unrolled tiled kernels
    dev_model d_md{};
    dpd_cuda_variant d_requested = dpd_cuda_variant::automatic;
    device_buffer<float4> d_coef;
    // Last member, so destroyed first: its pipeline waits for both streams before the members
    // above free memory that queued work may still use.
    dpd_stream d_stream;
};

} // namespace

void set_dpd_lab_variants(const dpd_lab_variants& v) { lab_registry() = v; }
const dpd_lab_variants& dpd_lab() { return lab_registry(); }

std::unique_ptr<kernel::dpd_engine>
make_cuda_dpd_engine(int device, size_t batch, bool mapped)
{
    return std::make_unique<cuda_dpd_engine>(device, batch, mapped);
}

} // namespace gpu
} // namespace gpuinterp
} // namespace gr
