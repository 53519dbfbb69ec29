/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The parallel-Hammerstein lab (dpd_ph_lab.h): the CUDA variants kept for comparison only
// (benchmark and test targets, not the library), planned and launched from the library's launch
// plan (lib/cuda/dpd_ph_launch.h) and kernel templates (dpd_ph_kernels.cuh). The library's
// `automatic` runs tiled, which beat all of them on the H200 at every benchmark row
// (docs/performance.md, docs/dpd_predistorter.md describe each design).
//  - shuffle: a thread takes its neighbours' basis values from the registers of lane - k
//    (__shfl_up_sync); warps overlap by H = L-1 samples, so a warp yields 33-L outputs (L <= 32).
//  - shuffle_x: the same layout, lanes shuffle the samples and recompute their basis per tap.
//  - tiled8: the tiled kernel template with R = 8 and 128 threads per block; tiled_nt128,
//    tiled_nt512 and tiled8_nt256 change one of the library's (R = 5, 256 threads) at a time;
//    tiled_generic and tiled_unroll5 its unrolled orders (none, or up to 5 instead of all 8).
//  - smem_nt128, smem_nt512, smem_r3, smem_r5: the library's smem kernel template with one of
//    its build constants (256 threads, 7 register-blocked outputs) changed.
// Every variant plans from a ph_tuning row, the device's unless the caller passes one, so the
// benchmarks sweep the smem tile's run-time values through the library's own plan.
// Why they lost, by the issue model: per (order, tap), `shuffle` issues 2 shuffles and a
// coefficient load per 33-L outputs of a warp, while the library's `smem` with 5 outputs per
// thread issues a plane load and a coefficient load per 160 outputs and is left FMA-bound, so
// smem wins once the taps dominate; `shuffle_x` trades the shuffle traffic that limits `shuffle`
// at high orders for FMA work. tiled8 measured slower than tiled at every row.
// The library's variants (automatic, smem, tiled) go through plan_ph()/launch_ph() unchanged, so
// their rows time exactly what the library runs.
#include "cuda/cuda_common.cuh"
#include "cuda/dpd_ph_launch.h"
#include "dpd_ph_lab.h"
#include "launch_timing.cuh"
#include <algorithm>
#include <array>
#include <stdexcept>
#include <utility>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace gpu {

namespace {

//! The warp-shuffle variants. x: H + n samples (history first); y: n outputs. Needs H <= 31.
//! SHUFFLE_X false (shuffle): each lane computes its sample's basis once and takes its
//! neighbours' from the registers of lane - k; true (shuffle_x): the lanes shuffle the samples
//! and recompute their basis per tap.
template <int M, bool SHUFFLE_X>
__global__ void __launch_bounds__(THREADS)
    dpd_shuffle_kernel(const float2* __restrict__ x,
                       float2* __restrict__ y,
                       const float4* __restrict__ coef_g,
                       dev_model md,
                       long long n)
{
    extern __shared__ float4 coef[];
    load_coefficients(coef, coef_g, M * md.Lmax);
    const int lane = threadIdx.x & 31;
    const int per_warp = 32 - md.H; // outputs per warp
    const long long n_warps = (n + per_warp - 1) / per_warp;
    const long long stride = (long long)gridDim.x * (blockDim.x / 32);
    // The loop bound is the same for all lanes of a warp, so every shuffle sees a full warp.
    for (long long w = (long long)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
         w < n_warps;
         w += stride) {
        const long long i = w * per_warp + lane; // window index; output index i - H
        const float2 v = i < n + md.H ? x[i] : make_float2(0.f, 0.f);
        float re = md.cr, im = md.ci;
        if constexpr (SHUFFLE_X) {
            for (int k = 0; k < md.Lmax; k++) {
                const float2 u = make_float2(__shfl_up_sync(FULL, v.x, k),
                                             __shfl_up_sync(FULL, v.y, k));
                float2 psi[M];
                compute_basis<M>(u, psi);
#pragma unroll
                for (int m = 0; m < M; m++)
                    if (k <
                        md.taps
                            [m]) // uniform; the map is zero past an order's taps anyway
                        apply_map(re, im, coef[m * md.Lmax + k], psi[m].x, psi[m].y);
            }
        } else {
            float2 psi[M];
            compute_basis<M>(v, psi);
#pragma unroll
            for (int m = 0; m < M; m++) {
                const float4* c = coef + m * md.Lmax;
                const int L = md.taps[m];
#pragma unroll 4
                for (int k = 0; k < L; k++) {
                    const float pr = __shfl_up_sync(FULL, psi[m].x, k);
                    const float pi = __shfl_up_sync(FULL, psi[m].y, k);
                    apply_map(re, im, c[k], pr, pi);
                }
            }
        }
        if (lane >= md.H && i - md.H < n)
            y[i - md.H] = make_float2(re, im);
    }
}

//! The shuffle (SHUFFLE_X false) or shuffle_x kernels for M = 1 .. sizeof...(I), indexed by M - 1.
template <bool SHUFFLE_X, int... I>
std::array<const void*, sizeof...(I)> shuffle_kernels(std::integer_sequence<int, I...>)
{
    return { reinterpret_cast<const void*>(dpd_shuffle_kernel<I + 1, SHUFFLE_X>)... };
}

//! The shuffle (SHUFFLE_X false) or shuffle_x kernel of M orders (M <= 8).
template <bool SHUFFLE_X>
const void* shuffle_kernel(int M)
{
    static const auto table =
        shuffle_kernels<SHUFFLE_X>(std::make_integer_sequence<int, 8>());
    if (M < 1 || M > int(table.size()))
        throw std::invalid_argument(
            "P: orders above 15 are not supported by the CUDA backend");
    return table[M - 1];
}


using kernel::dpd_cuda_variant;

//! A lab variant resolved: the library's plan, or one the lab built in the same form.
struct lab_plan {
    ph_plan ph;
    dpd_lab_variant variant = dpd_lab_variant::smem; //!< the one that runs
    bool warp = false; //!< shuffle layout: launched here; all others by launch_ph()
};

lab_plan library_plan(
    const dev_model& md, int M, int device, dpd_cuda_variant v, const ph_tuning& row)
{
    lab_plan p;
    p.ph = plan_ph(md, M, device, v, row);
    // The library's variants keep their numbers in the lab's enum.
    p.variant = dpd_lab_variant(int(p.ph.variant));
    return p;
}

//! The tiled kernel template with R outputs per thread, NT threads per block and the unrolled
//! kernels up to UNROLL_M orders, planned as plan_ph() plans the library's; smem where it does
//! not fit.
template <int R, int NT, int UNROLL_M = TILED_UNROLL_M>
lab_plan
tiled_lab(const dev_model& md, int M, int device, dpd_lab_variant v, const ph_tuning& row)
{
    lab_plan p;
    if (!plan_tiled_tile(
            p.ph, { md, M, device }, tiled_for<R, NT, UNROLL_M>(M, md.Lmax), { R, NT })) {
        p.ph = plan_ph(md, M, device, dpd_cuda_variant::smem, row);
        return p;
    }
    // The tiled kernels share one launch (tile, threads, maps by value or from the device):
    // marked tiled, launch_ph() runs this kernel with the plan's own tile and block size.
    p.variant = v;
    finish_ph_plan(p.ph, device);
    return p;
}

//! The smem kernel template on NT threads with RB register-blocked outputs, planned as
//! plan_ph() plans the library's (NT = 256, RB = 5).
template <int NT, int RB>
lab_plan
smem_lab(const dev_model& md, int M, int device, dpd_lab_variant v, const ph_tuning& row)
{
    lab_plan p;
    p.variant = v;
    plan_smem_tile(p.ph, { md, M, device }, row, { RB, NT });
    p.ph.kernel = smem_kernel_for<NT, RB>(M, p.ph.R);
    finish_ph_plan(p.ph, device);
    return p;
}

lab_plan
plan_lab(const dev_model& md, int M, int device, dpd_lab_variant v, const ph_tuning& row)
{
    const size_t coef_bytes = size_t(M) * md.Lmax * sizeof(float4);
    switch (v) {
    case dpd_lab_variant::automatic:
        return library_plan(md, M, device, dpd_cuda_variant::automatic, row);
    case dpd_lab_variant::smem:
        return library_plan(md, M, device, dpd_cuda_variant::smem, row);
    case dpd_lab_variant::tiled:
        return library_plan(md, M, device, dpd_cuda_variant::tiled, row);
    case dpd_lab_variant::shuffle:
    case dpd_lab_variant::shuffle_x: {
        if (md.H > 31) // a warp cannot cover more than 32 taps
            return library_plan(md, M, device, dpd_cuda_variant::smem, row);
        lab_plan p;
        p.variant = v;
        p.warp = true;
        p.ph.M = M;
        p.ph.kernel = v == dpd_lab_variant::shuffle ? shuffle_kernel<false>(M)
                                                    : shuffle_kernel<true>(M);
        p.ph.threads = THREADS;
        p.ph.smem = coef_bytes;
        finish_ph_plan(p.ph, device);
        return p;
    }
    case dpd_lab_variant::tiled8:
        return tiled_lab<8, 128>(md, M, device, v, row);
    case dpd_lab_variant::tiled_nt128:
        return tiled_lab<5, 128>(md, M, device, v, row);
    case dpd_lab_variant::tiled_nt512:
        return tiled_lab<5, 512>(md, M, device, v, row);
    case dpd_lab_variant::tiled8_nt256:
        return tiled_lab<8, 256>(md, M, device, v, row);
    case dpd_lab_variant::tiled_generic:
        return tiled_lab<TILED_R, TILED_NT, 0>(md, M, device, v, row);
    case dpd_lab_variant::tiled_unroll5:
        return tiled_lab<TILED_R, TILED_NT, 5>(md, M, device, v, row);
    case dpd_lab_variant::smem_nt128:
        return smem_lab<128, SMEM_R>(md, M, device, v, row);
    case dpd_lab_variant::smem_nt512:
        return smem_lab<512, SMEM_R>(md, M, device, v, row);
    case dpd_lab_variant::smem_r3:
        return smem_lab<THREADS, 3>(md, M, device, v, row);
    case dpd_lab_variant::smem_r5:
        return smem_lab<THREADS, 5>(md, M, device, v, row);
    }
    throw std::invalid_argument(
        "variant: unknown parallel-Hammerstein lab variant " + std::to_string(int(v)) +
        ", expected 0 .. 14 (automatic, shuffle, smem, shuffle_x, tiled, "
        "tiled8, tiled_nt128, tiled_nt512, tiled8_nt256, tiled_generic, tiled_unroll5, "
        "smem_nt128, smem_nt512, smem_r3, smem_r5)");
}

//! One variant set up for launches on `device` (the caller's device_guard current): the model in
//! kernel form, the plan, the maps uploaded; `ran` receives the variant that runs.
struct lab_setup {
    const dev_model md;
    const lab_plan plan;
    const float* const
        hcoef; //!< the maps in host memory (the tiled kernels take them by value)
    device_buffer<float4> coef;

    lab_setup(int device, const dpd_lab_target& t)
        : md(make_dev_model(t.model)),
          plan(plan_lab(md,
                        int(t.model.M),
                        device,
                        t.variant,
                        t.row ? *t.row : ph_tuning_for(compute_capability(device)))),
          hcoef(t.model.abcd.data()),
          coef(t.model.abcd.size() / 4)
    {
        upload(reinterpret_cast<float*>(coef.get()),
               t.model.abcd.data(),
               t.model.abcd.size());
    }

    //! One launch over x (H + n samples, history first) into y (n outputs).
    void launch(const float2* x, float2* y, size_t n, cudaStream_t st) const
    {
        const float4* c = coef.get();
        if (!plan.warp) {
            launch_ph(plan.ph, md, c, hcoef, { x, y, n, st });
            return;
        }
        const long long nn = (long long)n;
        const long long per_warp = 32 - md.H;
        const long long blocks =
            ((nn + per_warp - 1) / per_warp + THREADS / 32 - 1) / (THREADS / 32);
        const int grid = int(std::min<long long>(blocks, plan.ph.max_blocks));
        void* args[] = {
            &x, &y, &c, const_cast<dev_model*>(&md), const_cast<long long*>(&nn)
        };
        GPUINTERP_CUDA_CHECK(cudaLaunchKernel(
            plan.ph.kernel, dim3(grid), dim3(THREADS), args, plan.ph.smem, st));
        GPUINTERP_CUDA_CHECK_LAUNCH(st);
    }
};

} // namespace

std::string to_string(dpd_lab_variant v)
{
    switch (v) {
    case dpd_lab_variant::automatic:
        return "automatic";
    case dpd_lab_variant::shuffle:
        return "shuffle";
    case dpd_lab_variant::smem:
        return "smem";
    case dpd_lab_variant::shuffle_x:
        return "shuffle_x";
    case dpd_lab_variant::tiled:
        return "tiled";
    case dpd_lab_variant::tiled8:
        return "tiled8";
    case dpd_lab_variant::tiled_nt128:
        return "tiled_nt128";
    case dpd_lab_variant::tiled_nt512:
        return "tiled_nt512";
    case dpd_lab_variant::tiled8_nt256:
        return "tiled8_nt256";
    case dpd_lab_variant::tiled_generic:
        return "tiled_generic";
    case dpd_lab_variant::tiled_unroll5:
        return "tiled_unroll5";
    case dpd_lab_variant::smem_nt128:
        return "smem_nt128";
    case dpd_lab_variant::smem_nt512:
        return "smem_nt512";
    case dpd_lab_variant::smem_r3:
        return "smem_r3";
    case dpd_lab_variant::smem_r5:
        return "smem_r5";
    }
    return "unknown (" + std::to_string(int(v)) + ")";
}

dpd_lab_variant run_dpd_lab(int device,
                            const dpd_lab_target& t,
                            const std::complex<float>* x,
                            std::complex<float>* y,
                            size_t n)
{
    device_guard guard(device);
    const lab_setup lab(device, t);
    if (n == 0)
        return lab.plan.variant;
    const size_t H = t.model.H;
    device_buffer<float2> dx(H + n), dy(n);
    upload(dx.get(), x, H + n);
    stream s;
    lab.launch(dx.get(), dy.get(), n, s.get());
    GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(
        y, dy.get(), n * sizeof(float2), cudaMemcpyDeviceToHost, s.get()));
    s.synchronize();
    return lab.plan.variant;
}

double time_dpd_lab_kernel_ms(
    int device, const dpd_lab_target& t, size_t n, int iters, dpd_lab_variant* ran)
{
    device_guard guard(device);
    const lab_setup lab(device, t);
    if (ran)
        *ran = lab.plan.variant;
    device_buffer<float2> x = test_signal(n + t.model.H), y(n);
    stream s;
    return median_launch_ms(
        s.get(), iters, [&] { lab.launch(x.get(), y.get(), n, s.get()); });
}

} // namespace gpu
} // namespace gpuinterp
} // namespace gr
