/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The interpreted CUDA kernel of the memory-polynomial predistorters (mp, gmp) and its launch plan:
// one kernel for every model, walking the program of gmp_engine.h per output sample. The engine
// runs it for models with long entries (where it ties with the kernel compiled for the structure,
// gmp_jit.cu, and needs no compiler), when `interpreted` is asked for, and wherever the compiled
// one cannot be built.
//
// A block walks tiles of T = R * NT outputs (grid-stride, at most as many blocks as are resident,
// so the program is copied to shared memory once per block, not once per tile). Per tile the
// block stages the T + H input samples and their |x| (one square root per sample) in shared
// memory, then thread t computes outputs t, t + NT, .., t + (R-1) * NT of the tile: strided, so
// the envelope and sample reads of a warp are consecutive words (no bank conflicts) and the stores
// are coalesced. The next tile's samples are loaded into registers while the current one is
// computed, so the global-memory latency is hidden behind the arithmetic even at small programs.
//
// The program (lags, entries, coefficients) sits in shared memory too; every thread of a warp reads
// the same entry and coefficient, a broadcast, and each coefficient load feeds 2R fused
// multiply-adds. The instruction budget is what binds (one FP32 FMA per scheduler and clock), so
// flatten() reshapes the program to leave as little besides FMAs as it can:
//  - the constant term of every aligned (k0 = 0) entry is summed into one constant per signal lag,
//    so every entry starts at power 1 and ends in g = h |x| + g, one FMA per component;
//  - that constant is the addend of the lag's first entry, so g needs no initialising copy;
//  - Horner starts with an FMA on the two top coefficients, so h needs no copy either;
//  - its remaining steps run two per loop pass.
// The coefficients are not in __constant__ memory: that symbol would be shared by every engine in
// the process (see dpd_predistorter.cu).
//
// Floors at 2^24 samples (docs/performance.md): 16 bytes per sample (read x, write y), and
// fmas_per_sample() at the FP32 rate.
#include "cuda_common.cuh"
#include "gmp_launch.h"
#include "gmp_tuning.h"
#include <algorithm>
#include <complex>
#include <cstring>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpuinterp {
namespace gpu {

namespace {

// Outputs per thread and threads per block (gmp_tuning.h). 16 outputs per thread amortise each
// broadcast load (entry, coefficient) over 2R = 32 FMAs; at 168 registers three blocks of 128
// threads stay resident. On the H200 this beat 8 outputs x 256 threads and 4 x 256 on every
// benchmark row (docs/performance.md), so it is the only configuration built.
constexpr int R = gmp_build.outputs_per_thread;
constexpr int NT = gmp_build.threads;
constexpr int T = R * NT; // outputs per tile

// One entry of a signal lag: g = |x(n-e)| (c_0 + c_1 |x(n-e)| + .. + c_{t+1} |x(n-e)|^(t+1)) + a,
// where a is the lag's constant (FIRST) or the g of the entries before (see flatten()).
template <bool FIRST>
__device__ __forceinline__ void gmp_entry(const int4 E, // e, t = coefficients - 2, off
                                          const float2* __restrict__ co,
                                          const float* es,
                                          int o,
                                          float lr,
                                          float li,
                                          float (&gr)[R],
                                          float (&gi)[R])
{
    float ev[R], hr[R], hi[R];
#pragma unroll
    for (int r = 0; r < R; r++)
        ev[r] = es[o + r * NT - E.x];
    const float2* cb = co + E.z; // c_0
    int t = E.y;
    const float2 top = cb[t + 1], next = cb[t];
#pragma unroll
    for (int r = 0; r < R; r++) {
        hr[r] = fmaf(top.x, ev[r], next.x);
        hi[r] = fmaf(top.y, ev[r], next.y);
    }
    auto step = [&](const float2 c) {
#pragma unroll
        for (int r = 0; r < R; r++) {
            hr[r] = fmaf(hr[r], ev[r], c.x);
            hi[r] = fmaf(hi[r], ev[r], c.y);
        }
    };
    // The remaining t steps, two per pass (one first if t is odd): entries are short (t is
    // K - 2 or so), so this costs less than a jump into a straight line.
    const float2* cp = cb + t;
    if (t & 1)
        step(*--cp);
    for (int k = t >> 1; k > 0; k--) {
        step(cp[-1]);
        step(cp[-2]);
        cp -= 2;
    }
#pragma unroll
    for (int r = 0; r < R; r++) {
        gr[r] = fmaf(hr[r], ev[r], FIRST ? lr : gr[r]);
        gi[r] = fmaf(hi[r], ev[r], FIRST ? li : gi[r]);
    }
}

__global__ void __launch_bounds__(NT) gmp_kernel(const float2* __restrict__ x,
                                                 float2* __restrict__ y,
                                                 const int4* __restrict__ blob,
                                                 int blob_words4,
                                                 int nl,
                                                 int ne,
                                                 int H,
                                                 float cr,
                                                 float ci,
                                                 long long n)
{
    extern __shared__ int4 sm[];
    for (int i = threadIdx.x; i < blob_words4; i += NT)
        sm[i] = blob[i];
    const int4* lags = sm; // s, end of its entries, constant (re, im bits)
    const int4* ent = sm + nl;
    const float2* co = reinterpret_cast<const float2*>(ent + ne);
    float2* xs = reinterpret_cast<float2*>(sm + blob_words4);
    float* es = reinterpret_cast<float*>(xs + T + H);

    // Tile staging, software-pipelined: slot r < R holds tile position threadIdx.x + r * NT, slot
    // R the position T + threadIdx.x of the history tail (H <= NT is the common case; deeper
    // tails are read directly).
    const long long stride = (long long)gridDim.x * T;
    float2 nx[R + 1];
    auto fetch = [&](long long b) {
        const long long avail = n - b + H; // inputs of the tile at b that exist
#pragma unroll
        for (int r = 0; r <= R; r++) {
            const int i = threadIdx.x + r * NT;
            nx[r] = (i < avail && (r < R || threadIdx.x < H)) ? __ldg(x + b + i)
                                                              : make_float2(0.f, 0.f);
        }
    };
    long long base = (long long)blockIdx.x * T;
    if (base < n)
        fetch(base);
    for (; base < n; base += stride) {
        __syncthreads(); // the previous tile's readers are done (and the program is in place)
#pragma unroll
        for (int r = 0; r <= R; r++) {
            const int i = threadIdx.x + r * NT;
            if (r < R || threadIdx.x < H) {
                xs[i] = nx[r];
                es[i] = sqrtf(fmaf(nx[r].x, nx[r].x, nx[r].y * nx[r].y));
            }
        }
        const long long avail = n - base + H;
        for (int i = T + NT + threadIdx.x; i < T + H; i += NT) {
            const float2 v = i < avail ? __ldg(x + base + i) : make_float2(0.f, 0.f);
            xs[i] = v;
            es[i] = sqrtf(fmaf(v.x, v.x, v.y * v.y));
        }
        if (base + stride < n)
            fetch(base + stride);
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
            const int4 L = lags[li];
            const float lr = __int_as_float(L.z), lim = __int_as_float(L.w);
            float gr[R], gi[R];
            if (first < L.y) {
                // Each entry's header is read one entry ahead, so its address arithmetic is not
                // on the critical path (the word after the last entry is a coefficient: unused).
                int4 E = ent[first], En = ent[first + 1];
                gmp_entry<true>(E, co, es, o, lr, lim, gr, gi);
                for (int ei = first + 1; ei < L.y; ei++) {
                    E = En;
                    En = ent[ei + 1];
                    gmp_entry<false>(E, co, es, o, 0.f, 0.f, gr, gi);
                }
            } else {
#pragma unroll
                for (int r = 0; r < R; r++) {
                    gr[r] = lr;
                    gi[r] = lim;
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

} // namespace

gmp_blob flatten(const kernel::gmp_program& p)
{
    gmp_blob b;
    b.nl = int(p.lags.size());
    b.H = int(p.H);
    b.cr = p.cr;
    b.ci = p.ci;
    // Every entry is brought to one shape: its lowest power is 1 and it has at least two
    // coefficients. The constant term of an aligned (k0 = 0) entry moves into its lag's constant
    // (an entry left with nothing is dropped); an entry starting above power 1 gets zero
    // coefficients below; an entry of one coefficient gets a zero one above. The zeros cost an
    // FMA each and are rare (k0 > 1 does not occur in mp/gmp; one coefficient means K = 1 or 2).
    using cf = std::complex<float>;
    std::vector<cf> lag_const(b.nl), coef;
    std::vector<int> ents, ends(b.nl);
    for (int l = 0; l < b.nl; l++) {
        const auto& L = p.lags[l];
        for (int i = L.first; i < L.end; i++) {
            const auto& E = p.entries[i];
            int first = 0;
            if (E.k0 == 0) {
                lag_const[l] += p.coef[E.off];
                first = 1;
            }
            if (first == E.cnt)
                continue;
            const int off = int(coef.size());
            for (int k = 1; k < E.k0; k++)
                coef.push_back(cf(0.f, 0.f));
            coef.insert(coef.end(),
                        p.coef.begin() + E.off + first,
                        p.coef.begin() + E.off + E.cnt);
            if (coef.size() - off == 1)
                coef.push_back(cf(0.f, 0.f));
            ents.insert(ents.end(), { E.e, int(coef.size()) - off - 2, off, 0 });
        }
        ends[l] = int(ents.size() / 4);
    }
    b.ne = int(ents.size() / 4);
    b.nc = int(coef.size());
    const size_t coef_words4 = (2 * coef.size() + 3) / 4;
    b.words.assign(4 * (size_t(b.nl) + b.ne + coef_words4), 0);
    static_assert(sizeof(float) == sizeof(int), "coefficients share the int words");
    for (int i = 0; i < b.nl; i++) {
        b.words[4 * i] = p.lags[i].s;
        b.words[4 * i + 1] = ends[i];
        std::memcpy(&b.words[4 * i + 2], &lag_const[i], sizeof(cf));
    }
    std::copy(ents.begin(), ents.end(), b.words.begin() + 4 * b.nl);
    std::memcpy(
        b.words.data() + 4 * (b.nl + b.ne), coef.data(), coef.size() * sizeof(cf));
    return b;
}

gmp_plan plan_gmp(const gmp_blob& b, int device)
{
    gmp_plan pl;
    pl.outputs_per_thread = R;
    pl.threads = NT;
    const size_t tile = size_t(T) + b.H;
    pl.smem = b.words.size() * sizeof(int) + tile * (sizeof(float2) + sizeof(float));
    device_guard guard(device);
    const int optin = device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    const int sms = device_attribute(cudaDevAttrMultiProcessorCount, device);
    if (pl.smem > size_t(optin))
        throw std::invalid_argument("model: needs " + std::to_string(pl.smem) +
                                    " bytes of shared memory per block, the device has " +
                                    std::to_string(optin));
    // Per-kernel attribute shared by all engines: the device limit (see polyphase_interpolator.cu).
    GPUINTERP_CUDA_CHECK(cudaFuncSetAttribute(
        gmp_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
    int per_sm = 0;
    GPUINTERP_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, gmp_kernel, NT, pl.smem));
    pl.max_blocks = std::max(1, per_sm) * sms;
    return pl;
}

void launch_gmp(const gmp_plan& plan,
                const gmp_blob& b,
                const int4* blob,
                const dpd_io& io)
{
    if (io.n == 0)
        return;
    const long long n = (long long)io.n;
    const int grid = capped_grid(n, T, plan.max_blocks);
    gmp_kernel<<<grid, NT, plan.smem, io.st>>>(
        io.x, io.y, blob, int(b.words.size() / 4), b.nl, b.ne, b.H, b.cr, b.ci, n);
    GPUINTERP_CUDA_CHECK_LAUNCH(io.st);
}

} // namespace gpu
} // namespace gpuinterp
} // namespace gr
