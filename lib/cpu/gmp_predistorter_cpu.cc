/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CPU backend of the memory-polynomial predistorters (mp, gmp), running the program of
// gmp_engine.h.
//
// A thread owns a contiguous range of samples and walks it in tiles. Per tile it writes three
// planes, real part, imaginary part and |x| of every new sample, behind the H values carried from
// the previous tile, so |x| (one square root) is computed once per sample. Outputs are produced in
// groups of G = 16 consecutive samples held in two 8-lane vectors per component: for each signal
// lag s the group's g_s is built entry by entry, each entry a Horner chain over its powers with
// the coefficient broadcast and the envelope vector loaded unaligned from the |x| plane at offset
// -e, then multiplied by the samples at offset -s. So each coefficient costs 2 fused multiply-adds
// per sample and no power of |x| is ever stored.
//
// The group loop is written once with GCC vector types and compiled twice, for AVX2/FMA and for the
// baseline, chosen at run time (__builtin_cpu_supports), as the parallel-Hammerstein backend does.
#include "../common/parallel.h"
#include "avx2_switch.h"
#include "cpu_engines.h"
#include <gnuradio/gpuinterp/kernel/stream_history.h>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>

namespace gr {
namespace gpuinterp {
namespace kernel {

namespace {

using cf = std::complex<float>;

constexpr size_t G = 16; // outputs per group: two 8-lane vectors per component

typedef float v8 __attribute__((vector_size(32)));
// Every function taking or returning v8 is always inlined, so no call crosses the two ABIs GCC
// warns about.
#pragma GCC diagnostic ignored "-Wpsabi"

struct scratch {
    std::vector<float> planes; // xr, xi, |x|: each S floats [H carried][tile][G padding]
    std::vector<cf> hist;
    size_t S = 0;
};

GPUINTERP_SIMD_INLINE v8 load8(const float* p)
{
    v8 v;
    __builtin_memcpy(&v, p, sizeof v);
    return v;
}

GPUINTERP_SIMD_INLINE void planes_body(float* __restrict xr,
                                       float* __restrict xi,
                                       float* __restrict ev,
                                       const cf* __restrict x,
                                       size_t cnt)
{
    for (size_t j = 0; j < cnt; j++) {
        const float r = x[j].real(), i = x[j].imag();
        xr[j] = r;
        xi[j] = i;
        ev[j] = std::sqrt(r * r + i * i);
    }
}

//! out[j] for j < cnt, with the planes' position 0 at output 0 (the H carried values before it).
GPUINTERP_SIMD_INLINE void filter_body(cf* __restrict out,
                                       const float* __restrict xr,
                                       const float* __restrict xi,
                                       const float* __restrict ev,
                                       const gmp_program& p,
                                       size_t cnt)
{
    const gmp_program::lag* lags = p.lags.data();
    const gmp_program::entry* ent = p.entries.data();
    const float* co = reinterpret_cast<const float*>(p.coef.data());
    const size_t nl = p.lags.size();
    for (size_t g0 = 0; g0 < cnt; g0 += G) {
        v8 ar0 = v8{} + p.cr, ar1 = ar0, ai0 = v8{} + p.ci, ai1 = ai0;
        for (size_t li = 0; li < nl; li++) {
            const gmp_program::lag L = lags[li];
            v8 gr0 = v8{}, gr1 = v8{}, gi0 = v8{}, gi1 = v8{};
            for (int ei = L.first; ei < L.end; ei++) {
                const gmp_program::entry E = ent[ei];
                const float* ep = ev + g0 - E.e;
                const v8 e0 = load8(ep), e1 = load8(ep + 8);
                const float* c = co + 2 * (E.off + E.cnt - 1);
                v8 hr0 = v8{} + c[0], hr1 = hr0, hi0 = v8{} + c[1], hi1 = hi0;
                for (int t = E.cnt - 1; t > 0; t--) {
                    c -= 2;
                    const float cre = c[0], cim = c[1];
                    hr0 = hr0 * e0 + cre;
                    hr1 = hr1 * e1 + cre;
                    hi0 = hi0 * e0 + cim;
                    hi1 = hi1 * e1 + cim;
                }
                if (E.k0 == 0) {
                    gr0 += hr0;
                    gr1 += hr1;
                    gi0 += hi0;
                    gi1 += hi1;
                } else { // g += h |x|^k0, the last power folded into the accumulation
                    for (int k = 1; k < E.k0; k++) {
                        hr0 *= e0;
                        hr1 *= e1;
                        hi0 *= e0;
                        hi1 *= e1;
                    }
                    gr0 += hr0 * e0;
                    gr1 += hr1 * e1;
                    gi0 += hi0 * e0;
                    gi1 += hi1 * e1;
                }
            }
            const v8 x0 = load8(xr + g0 - L.s), x1 = load8(xr + g0 - L.s + 8);
            const v8 y0 = load8(xi + g0 - L.s), y1 = load8(xi + g0 - L.s + 8);
            ar0 += x0 * gr0 - y0 * gi0;
            ar1 += x1 * gr1 - y1 * gi1;
            ai0 += x0 * gi0 + y0 * gr0;
            ai1 += x1 * gi1 + y1 * gr1;
        }
        float re[G], im[G];
        __builtin_memcpy(re, &ar0, 32);
        __builtin_memcpy(re + 8, &ar1, 32);
        __builtin_memcpy(im, &ai0, 32);
        __builtin_memcpy(im + 8, &ai1, 32);
        const size_t m = std::min(G, cnt - g0);
        for (size_t j = 0; j < m; j++)
            out[g0 + j] = cf(re[j], im[j]);
    }
}

// One tile: the planes of x's cnt samples at xr, xi, ev, then (with a program) the predistorted
// outputs of those samples, reading the planes' H values before them as history.
struct tile_args {
    cf* out;
    float *xr, *xi, *ev;
    const cf* x;
    const gmp_program* p; //!< null: the planes only
    size_t cnt;
};

GPUINTERP_SIMD_INLINE void tile_body(const tile_args& a)
{
    planes_body(a.xr, a.xi, a.ev, a.x, a.cnt);
    if (a.p)
        filter_body(a.out, a.xr, a.xi, a.ev, *a.p, a.cnt);
}

GPUINTERP_AVX2_DISPATCH(tile, tile_args, tile_body)

class cpu_gmp_engine final : public gmp_engine
{
public:
    void set_program(const gmp_program& p) override
    {
        d_p = p;
        d_hist.resize(p.H);
        // A tile at least as long as the history, so carrying the H values costs <= one tile.
        d_tile = std::max<size_t>(512, (p.H + G - 1) / G * G);
        d_S = (p.H + d_tile + G + 7) & ~size_t(7);
    }

    void process(cf* out, const cf* in, size_t n) override
    {
        if (d_work.size() < size_t(cpu::max_threads()))
            d_work.resize(cpu::max_threads());
        // Ranges recompute only the planes of the H samples before them (cpu::parallel_ranges).
        cpu::parallel_ranges(
            n,
            d_tile,
            double(n) * d_p.fmas_per_sample(),
            [&](int t, size_t s0, size_t s1) { run_range(d_work[t], out, in, s0, s1); });
        d_hist.advance(in, n);
    }

    void reset() override { d_hist.clear(); }

private:
    void run_range(scratch& w, cf* out, const cf* in, size_t s0, size_t s1)
    {
        const size_t H = d_p.H, S = d_S;
        if (w.S != S) {
            w.S = S;
            w.planes.assign(
                3 * S,
                0.f); // zeroed once: the padding a partial group reads stays finite
        }
        float* xr = w.planes.data();
        float* xi = xr + S;
        float* ev = xi + S;
        w.hist.resize(H);
        d_hist.window(w.hist.data(), in, s0, 0);
        tile({ nullptr, xr, xi, ev, w.hist.data(), nullptr, H }); // the history's planes
        for (size_t s = s0; s < s1; s += d_tile) {
            const size_t cnt = std::min(d_tile, s1 - s);
            if (s != s0 && H)
                for (float* pl : { xr, xi, ev })
                    std::memmove(pl, pl + d_tile, H * sizeof(float));
            tile({ out + s, xr + H, xi + H, ev + H, in + s, &d_p, cnt });
        }
    }

    gmp_program d_p;
    size_t d_tile = 512, d_S = 0;
    stream_history<cf> d_hist;
    std::vector<scratch> d_work;
};

} // namespace

std::unique_ptr<gmp_engine> make_cpu_gmp_engine()
{
    return std::make_unique<cpu_gmp_engine>();
}

} // namespace kernel
} // namespace gpuinterp
} // namespace gr
