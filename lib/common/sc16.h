/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_COMMON_SC16_H
#define INCLUDED_GPUINTERP_COMMON_SC16_H

// The fc32 <-> sc16 conversions (kernel/sample_format.h has the definitions), for the CUDA
// kernels' first load and last store and the CPU backends alike, so all of them round, saturate,
// count and scale the same way.

#include "host_device.h"
#include <type_traits>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gr {
namespace gpuinterp {

//! rint(v * scale) saturated to int16; sets `sat` when clipped, `bad` when v * scale is NaN.
GPUINTERP_HD inline int16_t sc16_component(float v, float scale, bool& sat, bool& bad)
{
    const float s = v * scale;
    if (s != s) {
        bad = true;
        return 0;
    }
    if (s >= 32767.5f) {
        sat = true;
        return 32767;
    }
    if (s < -32768.5f) {
        sat = true;
        return -32768;
    }
#if defined(__CUDA_ARCH__)
    return int16_t(__float2int_rn(s));
#else
    return int16_t(std::nearbyint(s));
#endif
}

//! n complex samples (anything with real() and imag()) to I/Q int16 pairs, out[2i], out[2i + 1];
//! adds to sat the samples with a clipped part and to bad those with a NaN part (the CPU paths).
template <typename C, typename Count>
inline void
sc16_convert(int16_t* out, const C* in, size_t n, float scale, Count& sat, Count& bad)
{
    for (size_t i = 0; i < n; i++) {
        bool s = false, b = false;
        out[2 * i] = sc16_component(in[i].real(), scale, s, b);
        out[2 * i + 1] = sc16_component(in[i].imag(), scale, s, b);
        sat += s;
        bad += b;
    }
}

//! n I/Q int16 pairs to complex float: v * inverse (inverse = full_scale / 32767, exact in the
//! int16 -> float step, one rounding in the product, as the CUDA load below).
template <typename C>
inline void sc16_expand(C* out, const int16_t* in, size_t n, float inverse)
{
    for (size_t i = 0; i < n; i++)
        out[i] = C(float(in[2 * i]) * inverse, float(in[2 * i + 1]) * inverse);
}

/*!
 * A complex float stage run with an sc16 side on the host (the CPU engines), a cache-sized chunk
 * at a time: n inputs in chunks of `chunk`; with `in_scale` set they are I/Q int16 pairs expanded
 * times *in_scale first; stage(y, x, m) writes m * per_in outputs; with `scale` set they are
 * converted to I/Q int16 pairs (saturated and invalid ones added to sat, bad) while still in
 * cache. The stage only ever sees complex float. The scratch grows once.
 */
class sc16_chunks
{
public:
    using complex = std::complex<float>;

    template <typename Count, typename Stage>
    void run(void* out,
             const void* in,
             size_t n,
             size_t per_in,
             size_t chunk,
             const float* in_scale,
             const float* scale,
             Count& sat,
             Count& bad,
             Stage&& stage)
    {
        for (size_t pos = 0; pos < n; pos += chunk) {
            const size_t m = n - pos < chunk ? n - pos : chunk;
            const complex* x = static_cast<const complex*>(in) + pos;
            if (in_scale) {
                d_in.resize(chunk);
                sc16_expand(
                    d_in.data(), static_cast<const int16_t*>(in) + 2 * pos, m, *in_scale);
                x = d_in.data();
            }
            if (!scale) {
                stage(static_cast<complex*>(out) + pos * per_in, x, m);
                continue;
            }
            d_out.resize(chunk * per_in);
            stage(d_out.data(), x, m);
            sc16_convert(static_cast<int16_t*>(out) + 2 * pos * per_in,
                         d_out.data(),
                         m * per_in,
                         *scale,
                         sat,
                         bad);
        }
    }

private:
    std::vector<complex> d_in, d_out;
};

#if defined(__CUDACC__)
//! The host layout of a kernel's input sample D: I, Q as int16 for short2 (sc16), complex float
//! for float2, D itself otherwise; what an engine's host-side history and staging hold.
template <typename D>
using host_sample_t = std::conditional_t<
    std::is_same<D, short2>::value,
    std::complex<int16_t>,
    std::conditional_t<std::is_same<D, float2>::value, std::complex<float>, D>>;

//! One sample of a kernel's first load.
__device__ __forceinline__ float2 sc16_expand(short2 v, float inverse)
{
    return make_float2(float(v.x) * inverse, float(v.y) * inverse);
}

//! One sample of a kernel's last store, counted in the thread's own registers.
__device__ __forceinline__ short2 sc16_convert(float2 v,
                                               float scale,
                                               unsigned& sat,
                                               unsigned& bad)
{
    bool s = false, b = false;
    const short re = sc16_component(v.x, scale, s, b);
    const short im = sc16_component(v.y, scale, s, b);
    sat += s;
    bad += b;
    return make_short2(re, im);
}
#endif

} // namespace gpuinterp
} // namespace gr

#endif
