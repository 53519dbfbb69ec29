/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CUDA kernel of the memory-polynomial predistorters (mp, gmp) and its launch plan: the program
// of gmp_engine.h, evaluated per output sample.
//
// A block walks tiles of T = R * 256 outputs (grid-stride, at most as many blocks as are resident,
// so the program is copied to shared memory once per block, not once per tile). Per tile the
// block stages the T + H input samples and their |x| (one square root per sample) in shared
// memory, then thread t computes outputs t, t + 256, .., t + (R-1) * 256 of the tile: strided, so
// the envelope and sample reads of a warp are consecutive words (no bank conflicts) and the stores
// are coalesced. The program (lags, entries, coefficients) sits in shared memory too; every
// thread of a warp reads the same entry and coefficient, a broadcast, and each coefficient load
// feeds 2R fused multiply-adds (Horner's rule over the powers of |x|, real envelope times
// complex coefficient). The coefficients are not in __constant__ memory: that symbol would be
// shared by every engine in the process (see dpd_predistorter.cu).
//
// Floors at 2^24 samples (docs/performance.md): 16 bytes per sample (read x, write y), and
// fmas_per_sample() = 2 per coefficient + 4 per signal lag at the FP32 rate.
#include "cuda_common.cuh"
#include "gmp_launch.h"
#include <algorithm>
#include <complex>
#include <cstring>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpuinterp {
namespace gpu {

namespace {

constexpr int NT = 256;

template <int R>
__global__ void __launch_bounds__(NT) gmp_kernel(const float2* __restrict__ x,
                                                 float2* __restrict__ y,
                                                 const int4* __restrict__ blob,
                                                 int blob_words4,
                                                 int lag_words4,
                                                 int nl,
                                                 int ne,
                                                 int H,
                                                 float cr,
                                                 float ci,
                                                 long long n)
{
    extern __shared__ int4 sm[];
    constexpr int T = R * NT;
    for (int i = threadIdx.x; i < blob_words4; i += NT)
        sm[i] = blob[i];
    const int2* lags = reinterpret_cast<const int2*>(sm);
    const int4* ent = sm + lag_words4;
    const float2* co = reinterpret_cast<const float2*>(ent + ne);
    float2* xs = reinterpret_cast<float2*>(sm + blob_words4);
    float* es = reinterpret_cast<float*>(xs + T + H);

    for (long long base = (long long)blockIdx.x * T; base < n; base += (long long)gridDim.x * T) {
        __syncthreads(); // the previous tile's readers are done (and the program is in place)
        const long long avail = n - base + H; // inputs of this tile that exist
        for (int i = threadIdx.x; i < T + H; i += NT) {
            const float2 v = i < avail ? __ldg(x + base + i) : make_float2(0.f, 0.f);
            xs[i] = v;
            es[i] = sqrtf(fmaf(v.x, v.x, v.y * v.y));
        }
        __syncthreads();

        float ar[R], ai[R];
#pragma unroll
        for (int r = 0; r < R; r++) {
            ar[r] = cr;
            ai[r] = ci;
        }
        const int o = H + threadIdx.x; // this thread's first output, in tile coordinates
        int first = 0;
        for (int li = 0; li < nl; li++) {
            const int2 L = lags[li];
            float gr[R], gi[R];
#pragma unroll
            for (int r = 0; r < R; r++)
                gr[r] = gi[r] = 0.f;
            for (int ei = first; ei < L.y; ei++) {
                const int4 E = ent[ei]; // e, k0, cnt, off
                float ev[R], hr[R], hi[R];
                const float2* cp = co + E.w + E.z - 1;
                float2 c = *cp;
#pragma unroll
                for (int r = 0; r < R; r++) {
                    ev[r] = es[o + r * NT - E.x];
                    hr[r] = c.x;
                    hi[r] = c.y;
                }
                for (int t = E.z - 1; t > 0; t--) {
                    c = *--cp;
#pragma unroll
                    for (int r = 0; r < R; r++) {
                        hr[r] = fmaf(hr[r], ev[r], c.x);
                        hi[r] = fmaf(hi[r], ev[r], c.y);
                    }
                }
                // g += h |x|^k0: the last power folds into the accumulation (2 FMAs either way).
                if (E.y == 0) {
#pragma unroll
                    for (int r = 0; r < R; r++) {
                        gr[r] += hr[r];
                        gi[r] += hi[r];
                    }
                } else {
                    for (int k = 1; k < E.y; k++)
#pragma unroll
                        for (int r = 0; r < R; r++) {
                            hr[r] *= ev[r];
                            hi[r] *= ev[r];
                        }
#pragma unroll
                    for (int r = 0; r < R; r++) {
                        gr[r] = fmaf(hr[r], ev[r], gr[r]);
                        gi[r] = fmaf(hi[r], ev[r], gi[r]);
                    }
                }
            }
            first = L.y;
#pragma unroll
            for (int r = 0; r < R; r++) {
                const float2 v = xs[o + r * NT - L.x];
                ar[r] = fmaf(v.x, gr[r], fmaf(-v.y, gi[r], ar[r]));
                ai[r] = fmaf(v.x, gi[r], fmaf(v.y, gr[r], ai[r]));
            }
        }
#pragma unroll
        for (int r = 0; r < R; r++) {
            const long long i = base + threadIdx.x + r * NT;
            if (i < n)
                y[i] = make_float2(ar[r], ai[r]);
        }
    }
}

using kernel_fn = void (*)(const float2*, float2*, const int4*, int, int, int, int, int, float, float, long long);

kernel_fn kernel_for(int R)
{
    switch (R) {
    case 4:
        return gmp_kernel<4>;
    case 8:
        return gmp_kernel<8>;
    default:
        throw std::invalid_argument("R: the mp/gmp kernel runs 4 or 8 outputs per thread, got " + std::to_string(R));
    }
}

} // namespace

gmp_blob flatten(const kernel::gmp_program& p)
{
    gmp_blob b;
    b.nl = int(p.lags.size());
    b.ne = int(p.entries.size());
    b.H = int(p.H);
    b.cr = p.cr;
    b.ci = p.ci;
    b.lag_words4 = (2 * b.nl + 3) / 4;
    const size_t coef_words4 = (2 * p.coef.size() + 3) / 4;
    b.words.assign(4 * (size_t(b.lag_words4) + b.ne + coef_words4), 0);
    for (int i = 0; i < b.nl; i++) {
        b.words[2 * i] = p.lags[i].s;
        b.words[2 * i + 1] = p.lags[i].end;
    }
    int* e = b.words.data() + 4 * b.lag_words4;
    for (int i = 0; i < b.ne; i++) {
        const auto& E = p.entries[i];
        e[4 * i] = E.e;
        e[4 * i + 1] = E.k0;
        e[4 * i + 2] = E.cnt;
        e[4 * i + 3] = E.off;
    }
    static_assert(sizeof(float) == sizeof(int), "coefficients share the int words");
    std::memcpy(e + 4 * b.ne, p.coef.data(), p.coef.size() * sizeof(std::complex<float>));
    return b;
}

gmp_plan plan_gmp(const gmp_blob& b, int device, int R)
{
    gmp_plan pl;
    if (R == 0) {
        // Policy: where the coefficient work dominates (a coefficient load per 2R FMAs), 8 outputs
        // per thread; below, 4 (smaller tiles, more resident blocks to hide the staging).
        const size_t nc = (b.words.size() / 4 - b.lag_words4 - b.ne) * 2;
        R = nc >= 64 ? 8 : 4;
    }
    pl.R = R;
    pl.threads = NT;
    const kernel_fn k = kernel_for(R);
    const size_t tile = size_t(R) * NT + b.H;
    pl.smem = b.words.size() * sizeof(int) + tile * (sizeof(float2) + sizeof(float));
    device_guard guard(device);
    int optin = 48 * 1024, sms = 1;
    GPUINTERP_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    GPUINTERP_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    if (pl.smem > size_t(optin))
        throw std::invalid_argument("model: needs " + std::to_string(pl.smem) +
                                    " bytes of shared memory per block, the device has " + std::to_string(optin));
    // Per-kernel attribute shared by all engines: the device limit (see polyphase_interpolator.cu).
    GPUINTERP_CUDA_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
    int per_sm = 0;
    GPUINTERP_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, NT, pl.smem));
    pl.max_blocks = std::max(1, per_sm) * sms;
    return pl;
}

void launch_gmp(const gmp_plan& plan,
                const gmp_blob& b,
                const int4* blob,
                const float2* x,
                float2* y,
                size_t n,
                cudaStream_t st)
{
    if (n == 0)
        return;
    const long long T = (long long)plan.R * NT;
    const int grid = int(std::min<long long>(((long long)n + T - 1) / T, plan.max_blocks));
    kernel_for(plan.R)<<<grid, NT, plan.smem, st>>>(x, y, blob, int(b.words.size() / 4), b.lag_words4, b.nl,
                                                   b.ne, b.H, b.cr, b.ci, (long long)n);
    GPUINTERP_CUDA_CHECK_LAUNCH(st);
}

} // namespace gpu
} // namespace gpuinterp
} // namespace gr
