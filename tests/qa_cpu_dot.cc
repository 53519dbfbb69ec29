/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The CPU backend's dot products (lib/cpu/dot.h, VOLK where available) for every sample offset and
// tap count an engine can pass: arms stored with store_arm() at arm_stride() in a tap_vector, samples
// at any alignment. VOLK 2.5's u_ kernels crash on unaligned taps, so this also guards the layout.
#include "cpu/dot.h"
#include <gtest/gtest.h>
#include <complex>
#include <random>
#include <vector>

namespace {
using cf = std::complex<float>;
using namespace gr::gpuinterp;

template <typename T, typename TAP>
void check_all_offsets()
{
    std::mt19937 g(11);
    std::normal_distribution<float> d;
    auto rnd = [&](auto* v) {
        using V = std::remove_pointer_t<decltype(v)>;
        if constexpr (std::is_same_v<V, float>)
            *v = d(g);
        else
            *v = V(d(g), d(g));
    };
    for (size_t n = 1; n <= 70; n++) {
        const size_t arms = 3;
        const size_t stride = cpu::arm_stride<T, TAP>(n);
        cpu::tap_vector<TAP> store(arms * stride);
        std::vector<std::vector<TAP>> h(arms, std::vector<TAP>(n));
        for (size_t a = 0; a < arms; a++) {
            for (auto& v : h[a])
                rnd(&v);
            cpu::store_arm(
                store.data() + a * stride, h[a].data(), n, !std::is_same_v<T, float>);
        }
        std::vector<T> x(n + 16);
        for (auto& v : x)
            rnd(&v);
        for (size_t off = 0; off < 16; off++) {
            for (size_t a = 0; a < arms; a++) {
                T r;
                cpu::dot(&r, x.data() + off, store.data() + a * stride, n);
                std::complex<double> ref = 0, mag = 0;
                for (size_t i = 0; i < n; i++) {
                    ref +=
                        std::complex<double>(x[off + i]) * std::complex<double>(h[a][i]);
                    mag += std::abs(std::complex<double>(x[off + i])) *
                           std::abs(std::complex<double>(h[a][i]));
                }
                ASSERT_NEAR(std::abs(std::complex<double>(r) - ref),
                            0.0,
                            1e-5 * (1.0 + mag.real()))
                    << "n=" << n << " offset=" << off << " arm=" << a;
            }
        }
    }
}

TEST(cpu_dot, real_samples_real_taps) { check_all_offsets<float, float>(); }
TEST(cpu_dot, complex_samples_real_taps) { check_all_offsets<cf, float>(); }
TEST(cpu_dot, complex_samples_complex_taps) { check_all_offsets<cf, cf>(); }
} // namespace
