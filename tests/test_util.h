/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_TEST_UTIL_H
#define INCLUDED_GPUINTERP_TEST_UTIL_H

// Shared by the kernel tests: random data (never zeros), backend parametrisation with a clean skip
// when no CUDA device exists, NaN poisoning of output buffers, and tolerance checks.

#include <gnuradio/gpuinterp/kernel/backend.h>
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpuinterp_test {

using cf = std::complex<float>;
using cd = std::complex<double>;
using gr::gpuinterp::backend;

//! The bit pattern of v: the texture tests compare floats to the bit.
inline uint32_t bits(float v)
{
    uint32_t u;
    std::memcpy(&u, &v, 4);
    return u;
}

//! The message of the std::invalid_argument that f throws ("no exception" when it throws none): the
//! tests compare a parameter error's exact text.
inline std::string invalid_argument_message(const std::function<void()>& f)
{
    try {
        f();
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "no exception";
}

inline std::mt19937& rng()
{
    static std::mt19937 g(12345);
    return g;
}

//! n complex values uniform in [-a, a] from a generator seeded here, not the shared one: every
//! qa_*.cc joins one program, and drawing from the shared generator would change the data of the
//! tests that run after the caller.
inline std::vector<cf> seeded_signal(size_t n, float a, unsigned seed)
{
    std::mt19937 g(seed);
    std::uniform_real_distribution<float> d(-a, a);
    std::vector<cf> v(n);
    for (auto& x : v)
        x = { d(g), d(g) };
    return v;
}

template <typename T>
T random_value(float scale = 1.0f);
template <>
inline float random_value<float>(float scale)
{
    std::uniform_real_distribution<float> d(-scale, scale);
    float v;
    do
        v = d(rng());
    while (v == 0.f);
    return v;
}
template <>
inline cf random_value<cf>(float scale)
{
    return { random_value<float>(scale), random_value<float>(scale) };
}

template <typename T>
std::vector<T> random_vector(size_t n, float scale = 1.0f)
{
    std::vector<T> v(n);
    for (auto& x : v)
        x = random_value<T>(scale);
    return v;
}

inline size_t random_size(size_t lo, size_t hi)
{
    return std::uniform_int_distribution<size_t>(lo, hi)(rng());
}

template <typename T>
void poison(std::vector<T>& v)
{
    std::fill(v.begin(), v.end(), T(std::numeric_limits<float>::quiet_NaN()));
}

inline double to_d(float v) { return v; }
inline cd to_d(cf v) { return { v.real(), v.imag() }; }

inline std::string backend_name(const testing::TestParamInfo<backend>& info)
{
    return gr::gpuinterp::to_string(info.param);
}

//! One sc16 component by the tests' own rule (kernel/sample_format.h, written independently of
//! lib/common/sc16.h): float product, round half to even, clip; counts what clipped or was NaN.
inline int16_t sc16_ref(float v, float fs, uint64_t& sat, uint64_t& bad)
{
    const float s = v * (32767.0f / fs);
    if (std::isnan(s)) {
        bad++;
        return 0;
    }
    const double r = std::nearbyint(double(s)); // default rounding: half to even
    if (r > 32767 || r < -32768) {
        sat++;
        return r > 0 ? 32767 : -32768;
    }
    return int16_t(r);
}

//! Skip a CUDA-parametrised test when no device is usable.
#define GPUINTERP_SKIP_WITHOUT_DEVICE(b)               \
    do {                                               \
        if ((b) == ::gr::gpuinterp::backend::cuda &&   \
            ::gr::gpuinterp::cuda_device_count() == 0) \
            GTEST_SKIP() << "no usable CUDA device";   \
    } while (0)

//! max |got - want| <= atol + rtol * max|want| over the vector, reported with the worst index.
template <typename G, typename W>
::testing::AssertionResult
all_close(const std::vector<G>& got, const std::vector<W>& want, double rtol, double atol)
{
    if (got.size() != want.size())
        return ::testing::AssertionFailure()
               << "size " << got.size() << " != " << want.size();
    double scale = 0;
    for (auto& w : want)
        scale = std::max(scale, double(std::abs(w)));
    const double tol = atol + rtol * scale;
    for (size_t i = 0; i < got.size(); i++) {
        const double err = std::abs(to_d(got[i]) - want[i]);
        if (!(err <= tol))
            return ::testing::AssertionFailure()
                   << "index " << i << ": got " << got[i] << " want " << want[i]
                   << " err " << err << " > tol " << tol;
    }
    return ::testing::AssertionSuccess();
}

//! n sc16 samples (I, Q int16 pairs) uniform in [-peak, peak], the first one (-32768, 32767).
inline std::vector<int16_t> random_sc16(size_t n, unsigned seed, int peak)
{
    std::mt19937 g(seed);
    std::uniform_int_distribution<int> d(-peak, peak);
    std::vector<int16_t> v(2 * n);
    std::generate(v.begin() + 2, v.end(), [&] { return int16_t(d(g)); });
    v[0] = -32768;
    v[1] = 32767;
    return v;
}

//! What sc16 inputs stand for (kernel/sample_format.h), computed in double: an int16 times a
//! float is exact there, so one rounding to float gives the correctly rounded float product.
inline cf sc16_value(const int16_t* iq, double inverse)
{
    return { float(iq[0] * inverse), float(iq[1] * inverse) };
}
inline std::vector<cf> sc16_values(const std::vector<int16_t>& iq, float full_scale)
{
    std::vector<cf> z(iq.size() / 2);
    for (size_t i = 0; i < z.size(); i++)
        z[i] = sc16_value(&iq[2 * i], double(full_scale / 32767.0f));
    return z;
}

} // namespace gpuinterp_test

#endif
