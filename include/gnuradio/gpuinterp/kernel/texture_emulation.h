/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_KERNEL_TEXTURE_EMULATION_H
#define INCLUDED_GPUINTERP_KERNEL_TEXTURE_EMULATION_H

/*
 * CPU emulation of a CUDA 1D float / float2 texture fetch (tex1D) with point or linear
 * filtering, clamp or border addressing, unnormalised or normalised coordinates, so the CPU
 * backend of `precision = texture` returns the bits the GPU returns.
 *
 * The hardware (CUDA Programming Guide, "Texture Fetching"):
 *   point:  tex(x) = T[floor(x)]
 *   linear: tex(x) = (1 - a) T[i] + a T[i+1],  x_B = x - 0.5,  i = floor(x_B),  a = frac(x_B)
 * with a held in 9-bit fixed point (a = k/256, k = 0..256). Out-of-range texels read the edge
 * texel (clamp) or zero (border); normalised coordinates are scaled by the width first.
 *
 * The guide leaves three details open: how the weighted sum is rounded, how a is rounded at a
 * tie, and how a normalised coordinate is scaled. Each is a field of `model`, so one GPU test
 * (TextureBitExact.*, tests/qa_texture_emulation.cc) can measure every candidate against the
 * hardware; `hardware_model` is the one it asserts. How the candidates were told apart, and the
 * match rates, are in docs/performance.md ("Texture unit emulation").
 *
 * Everything here is plain C++ (no CUDA); both the CPU backends and the tests use it.
 */

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace gr {
namespace gpuinterp {
namespace kernel {
namespace texemu {

enum class lerp_rounding { fused_exact, fma_second, lerp_fma, separate, fused_ties_away };
enum class tie_rule { half_up, half_even };
enum class point_rule { floor_exact, fixed8 };
enum class norm_scaling {
    fp32_product,
    exact_product,
    fixed21_product,
    truncated_product
};
enum class address { clamp, border };

struct model {
    lerp_rounding lerp = lerp_rounding::fused_ties_away;
    tie_rule tie = tie_rule::half_up;
    point_rule point = point_rule::floor_exact;
    norm_scaling norm = norm_scaling::truncated_product;
};

//! The model the CPU backends use; the GPU test asserts that the hardware agrees with it.
constexpr model hardware_model{};

//! Keeps the compiler from fusing a product into a following addition
//! (-ffp-contract=fast).
inline float opaque(float v)
{
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    __asm__("" : "+x"(v));
#elif defined(__GNUC__)
    __asm__("" : "+w"(v));
#else
    volatile float t = v;
    v = t;
#endif
    return v;
}

//! round-to-nearest of a + b (doubles) to float with a single rounding of the exact sum;
//! an exact tie goes to even, or away from zero with `ties_away` (what the H200's texture
//! unit does, see the file comment).
inline float round_sum_to_float(double a, double b, bool ties_away = false)
{
    const double s = a + b;
    const double bb = s - a;
    const double e = (a - (s - bb)) + (b - bb); // TwoSum: s + e == a + b exactly
    float r = static_cast<float>(s);
    if (e != 0.0 && static_cast<double>(r) != s && std::isfinite(r)) {
        // Rounding s (not s + e) to float differs from one rounding of s + e only when s
        // sits exactly on the midpoint of two floats: then e decides the side.
        const float other = std::nextafter(r,
                                           s > static_cast<double>(r)
                                               ? std::numeric_limits<float>::infinity()
                                               : -std::numeric_limits<float>::infinity());
        const double mid = 0.5 * (static_cast<double>(r) + static_cast<double>(other));
        if (s == mid)
            r = e > 0 ? std::max(r, other) : std::min(r, other);
    } else if (ties_away && e == 0.0 && static_cast<double>(r) != s && std::isfinite(r)) {
        const float other = std::nextafter(r,
                                           s > static_cast<double>(r)
                                               ? std::numeric_limits<float>::infinity()
                                               : -std::numeric_limits<float>::infinity());
        if (s == 0.5 * (static_cast<double>(r) + static_cast<double>(other)))
            r = std::abs(other) > std::abs(r) ? other : r;
    }
    return r;
}

//! (1 - k/256) t0 + (k/256) t1 in the given evaluation order; k in 0..256.
inline float lerp9(float t0, float t1, int k, lerp_rounding how = hardware_model.lerp)
{
    const float a = static_cast<float>(k) * (1.0f / 256.0f);
    const float b = static_cast<float>(256 - k) * (1.0f / 256.0f);
    switch (how) {
    case lerp_rounding::fused_exact:
    case lerp_rounding::fused_ties_away:
        // (9-bit weight) x (24-bit value) = 33 bits: both products are exact in double.
        return round_sum_to_float(static_cast<double>(b) * t0,
                                  static_cast<double>(a) * t1,
                                  how == lerp_rounding::fused_ties_away);
    case lerp_rounding::fma_second:
        return std::fma(a, t1, opaque(b * t0));
    case lerp_rounding::lerp_fma:
        return std::fma(a, opaque(t1 - t0), t0);
    case lerp_rounding::separate:
    default:
        return opaque(b * t0) + opaque(a * t1);
    }
}

//! floor() for |v| < 2^62 without a libm call (x86-64 baseline has no SSE4.1 roundsd); exact.
inline double fast_floor(double v)
{
    const double t = static_cast<double>(static_cast<long long>(v));
    return t > v ? t - 1.0 : t;
}

//! round(v) with the tie rule, exact for any double v (v = 256 x: 8-bit fixed point).
inline double round_fixed(double v, tie_rule tie)
{
    const double fl = fast_floor(v);
    const double rem = v - fl; // exact
    if (rem > 0.5)
        return fl + 1.0;
    if (rem < 0.5)
        return fl;
    if (tie == tie_rule::half_up) // exact tie (rare): fmod only here, it is slow
        return fl + 1.0;
    return std::fmod(fl, 2.0) != 0.0 ? fl + 1.0 : fl;
}

//! Texel-space (unnormalised) coordinate as the hardware sees it, kept in double (exact).
inline double texel_coordinate(float x, size_t n, bool normalized, norm_scaling norm)
{
    // The texture unit flushes denormal coordinates to zero (measured: point/border at
    // x = -1.4e-45 reads texel 0, not the border).
    if (std::fpclassify(x) == FP_SUBNORMAL)
        x = 0.0f;
    double xu;
    if (!normalized)
        xu = x;
    else if (norm == norm_scaling::fp32_product)
        xu = static_cast<double>(opaque(x * static_cast<float>(n)));
    else if (norm == norm_scaling::fixed21_product)
        // 21 fractional bits whatever the width (what a single width, n = 1000, suggests).
        xu = std::floor(static_cast<double>(x) * 2097152.0) / 2097152.0 *
             static_cast<double>(n);
    else if (norm == norm_scaling::truncated_product) {
        // The unit truncates the normalised coordinate to F fractional bits, F = 21 for
        // n <= 2^13, 22 for n <= 2^16 and 23 above, then scales by the width exactly
        // (measured on the H200, docs/performance.md).
        const double scale = n <= 8192 ? 2097152.0 : (n <= 65536 ? 4194304.0 : 8388608.0);
        xu = std::floor(static_cast<double>(x) * scale) / scale * static_cast<double>(n);
    } else
        xu = static_cast<double>(x) * static_cast<double>(n);
    if (std::isnan(xu))
        xu =
            0; // unverified on hardware; tables are read at 0 rather than propagating NaN
    // Far outside the table every coordinate gives the same answer; keep floor() in int64
    // range.
    const double lim = 4.0 * static_cast<double>(n) + 1024.0;
    return std::min(std::max(xu, -lim), lim);
}

template <typename T>
inline T texel(const T* t, size_t n, int64_t i, address mode)
{
    if (i >= 0 && i < static_cast<int64_t>(n))
        return t[i];
    if (mode == address::border)
        return T(0);
    return t[i < 0 ? 0 : n - 1];
}

//! Index and weight numerator k (0..256) of a linear fetch at texel-space coordinate xu.
inline void linear_index(double xu, tie_rule tie, int64_t& i, int& k)
{
    const double xb = xu - 0.5; // exact: |xu| < 2^52
    const double fl = fast_floor(xb);
    i = static_cast<int64_t>(fl);
    k = static_cast<int>(round_fixed((xb - fl) * 256.0, tie));
}

inline int64_t point_index(double xu, const model& m)
{
    if (m.point == point_rule::fixed8) // coordinate first rounded to 8 fractional bits
        return static_cast<int64_t>(fast_floor(round_fixed(xu * 256.0, m.tie) / 256.0));
    return static_cast<int64_t>(fast_floor(xu));
}

inline float lerp9_value(float t0, float t1, int k, lerp_rounding how)
{
    return lerp9(t0, t1, k, how);
}
inline std::complex<float>
lerp9_value(std::complex<float> t0, std::complex<float> t1, int k, lerp_rounding how)
{
    return { lerp9(t0.real(), t1.real(), k, how), lerp9(t0.imag(), t1.imag(), k, how) };
}

//! tex1D with point filtering.
template <typename T>
inline T fetch_point(const T* table,
                     size_t n,
                     float x,
                     bool normalized,
                     address mode,
                     const model& m = hardware_model)
{
    const double xu = texel_coordinate(x, n, normalized, m.norm);
    return texel(table, n, point_index(xu, m), mode);
}

//! tex1D with linear filtering (9-bit weights).
template <typename T>
inline T fetch_linear(const T* table,
                      size_t n,
                      float x,
                      bool normalized,
                      address mode,
                      const model& m = hardware_model)
{
    const double xu = texel_coordinate(x, n, normalized, m.norm);
    int64_t i;
    int k;
    linear_index(xu, m.tie, i, k);
    return lerp9_value(texel(table, n, i, mode), texel(table, n, i + 1, mode), k, m.lerp);
}

} // namespace texemu
} // namespace kernel
} // namespace gpuinterp
} // namespace gr

#endif
