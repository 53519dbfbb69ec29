/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CPU backend of the predistorter: OpenMP threads over sample ranges, SIMD over the basis (the
// design the ARM/NEON reference uses, on x86).
//
// A thread owns a contiguous range of samples and walks it in tiles of `tile` samples. For each
// tile it computes the basis values psi_m (orders 1, 3, .., 2M-1) of every new sample once, from
// low to high order (|x|^2 once, each order one multiplication from the previous one), into a
// planar scratch tile (real and imaginary planes per order) that stays in L1. The last H values of
// a tile are moved to the front of the scratch for the next tile, so inside a range each sample's
// basis is computed exactly once; only the first tile of a range recomputes the H samples before
// it. This is the x86 translation of the document's register reuse (vextq of the previous
// iteration's vector): AVX2 has no cheap cross-lane extract over 8 lanes, but an unaligned load
// from L1 at offset -k gives the same shifted vector for tap k at two loads per cycle.
//
// The filter step keeps a group of G samples' outputs in registers (G/8 vectors each for real and
// imaginary parts), and for every (order, tap) pair broadcasts the packed 2x2 coefficient map
// (dpd_engine.h) and does 4 fused multiply-adds per 8 samples, so the conjugate branches reuse the
// main branches' basis values and cost nothing extra when they share an order and a delay.
// The AVX2/FMA path is written with intrinsics in functions compiled for that target and chosen at
// run time (__builtin_cpu_supports); a plain C++ version serves every other CPU. (GCC 12's
// target_clones, as in dot.h, lost the coefficient broadcasts here: they came out as 8 inserts.)
#include "../common/parallel.h"
#include "avx2_switch.h"
#include "cpu_engines.h"
#include <gnuradio/gpuinterp/kernel/stream_history.h>
#include <algorithm>
#include <atomic>
#include <cstring>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace gr {
namespace gpuinterp {
namespace kernel {

namespace {

using cf = std::complex<float>;

constexpr size_t tile = 512; // samples per tile: the planes of a tile stay in L1/L2
constexpr size_t G = 32;     // outputs kept in registers: 4 AVX vectors re + 4 im

//! Scratch of one thread: real and imaginary planes per order, each `S` floats:
//! [H values before the tile][tile][G of padding that a partial last group may read].
struct scratch {
    std::vector<float> b;
    std::vector<cf> hist; // the H samples before a range
    size_t S = 0;
};

// ---- portable version (any CPU; GCC vectorises the fixed-length inner loops for SSE) ----

//! Basis of `cnt` samples x into the planes at position `pos`, orders 0..M-1.
void basis_generic(float* __restrict b,
                   size_t S,
                   unsigned M,
                   size_t pos,
                   const cf* __restrict x,
                   size_t cnt)
{
    for (size_t j = 0; j < cnt; j++) {
        float pr = x[j].real(), pi = x[j].imag();
        const float a2 = pr * pr + pi * pi;
        float* r = b + pos + j;
        r[0] = pr;
        r[S] = pi;
        for (unsigned m = 1; m < M; m++) {
            pr *= a2;
            pi *= a2;
            r += 2 * S;
            r[0] = pr;
            r[S] = pi;
        }
    }
}

//! out[j] = c + sum_m sum_k map(m,k) psi_m[H + j - k] for j < cnt.
void filter_generic(cf* __restrict out,
                    const float* __restrict b,
                    size_t S,
                    const dpd_packed& md,
                    size_t cnt)
{
    const float* co = md.abcd.data();
    for (size_t g0 = 0; g0 < cnt; g0 += G) {
        float re[G], im[G];
        for (size_t j = 0; j < G; j++) {
            re[j] = md.cr;
            im[j] = md.ci;
        }
        for (unsigned m = 0; m < md.M; m++) {
            const float* pr = b + size_t(2 * m) * S + md.H + g0;
            const float* pi = pr + S;
            const float* c = co + size_t(m) * md.Lmax * 4;
            for (unsigned k = 0; k < md.taps[m]; k++, c += 4, pr--, pi--) {
                const float A = c[0], B = c[1], C = c[2], D = c[3];
                for (size_t j = 0; j < G; j++) {
                    const float xr = pr[j], xi = pi[j];
                    re[j] += A * xr;
                    re[j] += B * xi;
                    im[j] += C * xr;
                    im[j] += D * xi;
                }
            }
        }
        for (size_t j = 0; j < G && g0 + j < cnt; j++)
            out[g0 + j] = cf(re[j], im[j]);
    }
}

// ---- AVX2/FMA version (intrinsics: GCC's generic vectors lose their broadcasts in clones) ----
#if defined(__x86_64__) && defined(__GNUC__)
#define GPUINTERP_DPD_AVX2 1

__attribute__((target("avx2,fma"))) void basis_avx2(float* __restrict b,
                                                    size_t S,
                                                    unsigned M,
                                                    size_t pos,
                                                    const cf* __restrict x,
                                                    size_t cnt)
{
    const float* xf = reinterpret_cast<const float*>(x);
    size_t j = 0;
    for (; j + 8 <= cnt; j += 8) {
        const __m256 lo = _mm256_loadu_ps(xf + 2 * j),
                     hi = _mm256_loadu_ps(xf + 2 * j + 8);
        // (r0 r1 r4 r5 | r2 r3 r6 r7) -> r0..r7 by swapping the middle 64-bit pairs
        __m256 pr = _mm256_castpd_ps(_mm256_permute4x64_pd(
            _mm256_castps_pd(_mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0))), 0xD8));
        __m256 pi = _mm256_castpd_ps(_mm256_permute4x64_pd(
            _mm256_castps_pd(_mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(3, 1, 3, 1))), 0xD8));
        const __m256 a2 = _mm256_fmadd_ps(pr, pr, _mm256_mul_ps(pi, pi));
        float* r = b + pos + j;
        _mm256_storeu_ps(r, pr);
        _mm256_storeu_ps(r + S, pi);
        for (unsigned m = 1; m < M; m++) {
            pr = _mm256_mul_ps(pr, a2);
            pi = _mm256_mul_ps(pi, a2);
            r += 2 * S;
            _mm256_storeu_ps(r, pr);
            _mm256_storeu_ps(r + S, pi);
        }
    }
    basis_generic(b, S, M, pos + j, x + j, cnt - j);
}

__attribute__((target("avx2,fma"))) void filter_avx2(cf* __restrict out,
                                                     const float* __restrict b,
                                                     size_t S,
                                                     const dpd_packed& md,
                                                     size_t cnt)
{
    const float* co = md.abcd.data();
    const unsigned* taps = md.taps.data();
    float* of = reinterpret_cast<float*>(out);
    const unsigned M = md.M, Lmax = md.Lmax, H = md.H;
    for (size_t g0 = 0; g0 < cnt; g0 += G) {
        // G outputs as 4 vectors of 8 that share each broadcast tap. The u loops are
        // unrolled fully, so the 8 accumulators stay in ymm registers in the tap loop.
        __m256 re[4], im[4];
#pragma GCC unroll 4
        for (int u = 0; u < 4; u++) {
            re[u] = _mm256_set1_ps(md.cr);
            im[u] = _mm256_set1_ps(md.ci);
        }
        for (unsigned m = 0; m < M; m++) {
            const float* pr = b + size_t(2 * m) * S + H + g0;
            const float* pi = pr + S;
            const float* c = co + size_t(m) * Lmax * 4;
            const unsigned L = taps[m];
            for (unsigned k = 0; k < L; k++, c += 4, pr--, pi--) {
                const __m256 A = _mm256_broadcast_ss(c), B = _mm256_broadcast_ss(c + 1);
                const __m256 C = _mm256_broadcast_ss(c + 2),
                             D = _mm256_broadcast_ss(c + 3);
#pragma GCC unroll 4
                for (int u = 0; u < 4; u++) {
                    const __m256 xr = _mm256_loadu_ps(pr + 8 * u),
                                 xi = _mm256_loadu_ps(pi + 8 * u);
                    re[u] = _mm256_fmadd_ps(B, xi, _mm256_fmadd_ps(A, xr, re[u]));
                    im[u] = _mm256_fmadd_ps(D, xi, _mm256_fmadd_ps(C, xr, im[u]));
                }
            }
        }
        if (g0 + G <= cnt) {
            for (int v = 0; v < 4; v++) {
                // (r0 i0 r1 i1 | r4 i4 r5 i5), (r2 i2 r3 i3 | r6 i6 r7 i7) -> samples 0-3, 4-7
                const __m256 lo = _mm256_unpacklo_ps(re[v], im[v]),
                             hi = _mm256_unpackhi_ps(re[v], im[v]);
                _mm256_storeu_ps(of + 2 * (g0 + 8 * v),
                                 _mm256_permute2f128_ps(lo, hi, 0x20));
                _mm256_storeu_ps(of + 2 * (g0 + 8 * v) + 8,
                                 _mm256_permute2f128_ps(lo, hi, 0x31));
            }
        } else {
            alignas(32) float r[G], i[G];
            for (int v = 0; v < 4; v++) {
                _mm256_store_ps(r + 8 * v, re[v]);
                _mm256_store_ps(i + 8 * v, im[v]);
            }
            for (size_t j = 0; g0 + j < cnt; j++)
                out[g0 + j] = cf(r[j], i[j]);
        }
    }
}

#endif

void basis(float* b, size_t S, unsigned M, size_t pos, const cf* x, size_t cnt)
{
#ifdef GPUINTERP_DPD_AVX2
    if (cpu::simd_switch().usable())
        return basis_avx2(b, S, M, pos, x, cnt);
#endif
    basis_generic(b, S, M, pos, x, cnt);
}

void filter(cf* out, const float* b, size_t S, const dpd_packed& md, size_t cnt)
{
#ifdef GPUINTERP_DPD_AVX2
    if (cpu::simd_switch().usable())
        return filter_avx2(out, b, S, md, cnt);
#endif
    filter_generic(out, b, S, md, cnt);
}

class cpu_dpd_engine final : public dpd_engine
{
public:
    void set_model(const dpd_packed& m) override
    {
        d_m = m;
        d_hist.resize(m.H);
        d_S = (m.H + tile + G + 7) & ~size_t(7);
        d_pairs = 0;
        for (unsigned t : m.taps)
            d_pairs += t;
    }

    void process(cf* out, const cf* in, size_t n) override
    {
        if (d_work.size() < size_t(cpu::max_threads()))
            d_work.resize(cpu::max_threads());
        // Contiguous ranges keep the basis carry working inside each range (a range recomputes
        // only the H samples before it; cpu::parallel_ranges).
        cpu::parallel_ranges(
            n, tile, double(n) * d_pairs * 4, [&](int t, size_t s0, size_t s1) {
                run_range(d_work[t], out, in, s0, s1);
            });
        d_hist.advance(in, n);
    }

    void reset() override { d_hist.clear(); }

private:
    void run_range(scratch& w, cf* out, const cf* in, size_t s0, size_t s1)
    {
        const unsigned M = d_m.M;
        const size_t H = d_m.H;
        if (w.S != d_S || w.b.size() < size_t(2 * M) * d_S) {
            w.S = d_S;
            w.b.assign(size_t(2 * M) * d_S, 0.f);
        }
        w.hist.resize(H);
        d_hist.window(w.hist.data(), in, s0, 0);
        basis(w.b.data(), w.S, M, 0, w.hist.data(), H);
        for (size_t s = s0; s < s1; s += tile) {
            const size_t cnt = std::min(tile, s1 - s);
            if (s != s0 &&
                H) // carry: the previous tile's last H basis values move to the front
                for (unsigned p = 0; p < 2 * M; p++) {
                    float* plane = w.b.data() + size_t(p) * w.S;
                    std::memmove(plane, plane + tile, H * sizeof(float));
                }
            basis(w.b.data(), w.S, M, H, in + s, cnt);
            filter(out + s, w.b.data(), w.S, d_m, cnt);
        }
    }

    dpd_packed d_m;
    size_t d_S = 0;
    size_t d_pairs = 1;
    stream_history<cf> d_hist;
    std::vector<scratch> d_work; // one per thread, grown once
};

} // namespace

std::unique_ptr<dpd_engine> make_cpu_dpd_engine()
{
    return std::make_unique<cpu_dpd_engine>();
}

} // namespace kernel

cpu::avx2_switch& cpu::simd_switch()
{
    static avx2_switch s;
    return s;
}

} // namespace gpuinterp
} // namespace gr
