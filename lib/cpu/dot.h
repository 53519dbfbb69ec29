/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_CPU_DOT_H
#define INCLUDED_GPUINTERP_CPU_DOT_H

// Dot products for the CPU backend, over an unaligned sample window and "duplicated" taps.
//
// Why not VOLK: VOLK 2.5 (Debian 12) volk_32fc_32f_dot_prod_32fc crashes on this project's
// development machines (AMD EPYC, avx2_64_mmx_orc) for unaligned input at n = 16 (reproduced with a
// ten-line program); GNU Radio avoids it by calling only the aligned variant with shifted tap copies.
// A window that slides one sample per output is rarely aligned, so we use our own loop instead: the
// complex input is read as interleaved floats against taps stored twice ([h0 h0 h1 h1 ...]), which is
// a plain float dot product with 16 independent lanes. GCC vectorises it to AVX2/FMA, and the
// target_clones attribute picks the AVX2 build at load time where the CPU has it (portable
// fallback elsewhere).

#include <complex>
#include <cstddef>

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
inline void dot_lanes(float lanes[16], const float* __restrict x, const float* __restrict h, size_t n)
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
inline void dot(std::complex<float>* r, const std::complex<float>* x, const float* hd, size_t n)
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
inline void dot(std::complex<float>* r, const std::complex<float>* x, const std::complex<float>* hd, size_t n)
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
inline void store_arm(std::complex<float>* dst, const std::complex<float>* h, size_t n, bool)
{
    float* f = reinterpret_cast<float*>(dst);
    for (size_t i = 0; i < n; i++) {
        f[2 * i] = f[2 * i + 1] = h[i].real();
        f[2 * n + 2 * i] = f[2 * n + 2 * i + 1] = h[i].imag();
    }
}

} // namespace cpu
} // namespace gpuinterp
} // namespace gr

#endif
