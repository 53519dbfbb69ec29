/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_CPU_DOT_H
#define INCLUDED_GPUINTERP_CPU_DOT_H

// Dot products for the CPU backend: each output is one dot product of a sample window with one arm
// of taps. The window slides one sample per output, so the samples sit at any offset; the arms are
// stored by the engines with store_arm() at arm_stride() intervals in a tap_vector.
//
// With VOLK (GPUINTERP_HAVE_VOLK) the products are VOLK's, which measured as fast as or faster than
// our own loop on every tap count (bench/bench_volk_dot.cc; numbers in docs/performance.md). VOLK's
// unaligned ("u_") kernels still load the *taps* with aligned loads (in VOLK 2.5.2
// volk_32fc_32f_dot_prod_32fc_u_avx2_fma segfaults on taps that are not 32-byte aligned, whatever
// the sample offset), so the taps live in volk_malloc memory (tap_vector) and every arm starts on
// VOLK's alignment (arm_stride); the samples need no alignment.
//
// Without VOLK: our own loop. The complex input is read as interleaved floats against taps stored
// twice ([h0 h0 h1 h1 ...]), a plain float dot product with 16 independent lanes that GCC
// vectorises; target_clones picks the AVX2/FMA build at load time where the CPU has it.

#include <type_traits>
#include <complex>
#include <cstddef>
#include <vector>
#ifdef GPUINTERP_HAVE_VOLK
#include <volk/volk.h>
#include <volk/volk_alloc.hh>
#endif

namespace gr {
namespace gpuinterp {
namespace cpu {

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define GPUINTERP_SIMD_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define GPUINTERP_SIMD_CLONES
#endif

//! Sums x[i]*h[i] over n floats into 16 lanes (lane = i mod 16; parity = i mod 2 survives).
GPUINTERP_SIMD_CLONES
inline void
dot_lanes(float lanes[16], const float* __restrict x, const float* __restrict h, size_t n)
{
    float acc[16] = { 0 };
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        for (int j = 0; j < 16; j++)
            acc[j] += x[i + j] * h[i + j];
    for (int j = 0; i < n; i++, j++)
        acc[j] += x[i] * h[i];
    for (int j = 0; j < 16; j++)
        lanes[j] = acc[j];
}

#ifdef GPUINTERP_HAVE_VOLK

//! Tap storage: volk_malloc memory, aligned for VOLK's tap loads.
template <typename TAP>
using tap_vector = volk::vector<TAP>;

//! TAPs between the starts of two arms of M taps: M rounded up so that every arm stays aligned.
template <typename T, typename TAP>
inline size_t arm_stride(size_t M)
{
    const size_t a = volk_get_alignment() / sizeof(TAP);
    return a > 1 ? (M + a - 1) / a * a : M;
}

inline void dot(float* r, const float* x, const float* h, size_t n)
{
    volk_32f_x2_dot_prod_32f(r, x, h, static_cast<unsigned>(n));
}
inline void
dot(std::complex<float>* r, const std::complex<float>* x, const float* h, size_t n)
{
    volk_32fc_32f_dot_prod_32fc(r, x, h, static_cast<unsigned>(n));
}
inline void dot(std::complex<float>* r,
                const std::complex<float>* x,
                const std::complex<float>* h,
                size_t n)
{
    volk_32fc_x2_dot_prod_32fc(r, x, h, static_cast<unsigned>(n));
}

//! Store arm `h` (n taps) as dot() reads it: as they are.
template <typename TAP>
inline void store_arm(TAP* dst, const TAP* h, size_t n, bool /*complex_samples*/)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = h[i];
}

#else // own loop

template <typename TAP>
using tap_vector = std::vector<TAP>;

//! TAPs between the starts of two arms of M taps (taps stored twice for complex samples).
template <typename T, typename TAP>
inline size_t arm_stride(size_t M)
{
    return M * (std::is_same_v<T, float> ? 1 : 2);
}

//! float taps for real samples: stored as they are.
inline void dot(float* r, const float* x, const float* h, size_t n)
{
    float l[16];
    dot_lanes(l, x, h, n);
    float s = 0;
    for (float v : l)
        s += v;
    *r = s;
}

//! float taps for complex samples: hd = [h0 h0 h1 h1 ...] (2n floats).
inline void
dot(std::complex<float>* r, const std::complex<float>* x, const float* hd, size_t n)
{
    float l[16];
    dot_lanes(l, reinterpret_cast<const float*>(x), hd, 2 * n);
    float re = 0, im = 0;
    for (int j = 0; j < 16; j += 2) {
        re += l[j];
        im += l[j + 1];
    }
    *r = { re, im };
}

//! complex taps for complex samples: hd = [re h0, re h0, ..., re h(n-1)] then [im h0, im h0, ...]
//! (4n floats). x*h = (xr hr - xi hi, xi hr + xr hi).
inline void dot(std::complex<float>* r,
                const std::complex<float>* x,
                const std::complex<float>* hd,
                size_t n)
{
    const float* h = reinterpret_cast<const float*>(hd);
    float a[16], b[16];
    dot_lanes(a, reinterpret_cast<const float*>(x), h, 2 * n);         // (xr hr, xi hr)
    dot_lanes(b, reinterpret_cast<const float*>(x), h + 2 * n, 2 * n); // (xr hi, xi hi)
    float re = 0, im = 0;
    for (int j = 0; j < 16; j += 2) {
        re += a[j] - b[j + 1];
        im += a[j + 1] + b[j];
    }
    *r = { re, im };
}

//! Store arm `h` (n taps) in the layout dot(T*, ...) expects: duplicated for complex samples.
inline void store_arm(float* dst, const float* h, size_t n, bool complex_samples)
{
    for (size_t i = 0; i < n; i++) {
        if (complex_samples) {
            dst[2 * i] = h[i];
            dst[2 * i + 1] = h[i];
        } else {
            dst[i] = h[i];
        }
    }
}
inline void
store_arm(std::complex<float>* dst, const std::complex<float>* h, size_t n, bool)
{
    float* f = reinterpret_cast<float*>(dst);
    for (size_t i = 0; i < n; i++) {
        f[2 * i] = f[2 * i + 1] = h[i].real();
        f[2 * n + 2 * i] = f[2 * n + 2 * i + 1] = h[i].imag();
    }
}

#endif // GPUINTERP_HAVE_VOLK

} // namespace cpu
} // namespace gpuinterp
} // namespace gr

#endif
