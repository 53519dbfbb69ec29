/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_CPU_AVX2_SWITCH_H
#define INCLUDED_GPUINTERP_CPU_AVX2_SWITCH_H

// The switch of an engine's AVX2/FMA code path: taken where the processor has both, unless a test
// turned it off to check the portable path (set_dpd_cpu_simd, set_gmp_cpu_simd in cpu_engines.h).

#include <atomic>

namespace gr {
namespace gpuinterp {
namespace cpu {

class avx2_switch
{
public:
    bool usable() const
    {
#if defined(__x86_64__) && defined(__GNUC__)
        static const bool yes =
            __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
        return yes && d_allow.load(std::memory_order_relaxed);
#else
        return false;
#endif
    }
    void allow(bool a) { d_allow.store(a, std::memory_order_relaxed); }

private:
    std::atomic<bool> d_allow{ true };
};

} // namespace cpu
} // namespace gpuinterp
} // namespace gr

#endif
