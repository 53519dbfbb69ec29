/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_CPU_AVX2_SWITCH_H
#define INCLUDED_GPUINTERP_CPU_AVX2_SWITCH_H

// The switch of the CPU engines' AVX2/FMA code paths: taken where the processor has both, unless a
// test turned them off to check the portable paths (set_cpu_simd in cpu_engines.h).

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

//! The one switch every CPU engine reads (defined in dpd_predistorter_cpu.cc).
avx2_switch& simd_switch();

//! A function body that GPUINTERP_AVX2_DISPATCH builds twice: always inlined, so each build
//! compiles it with its own instruction set.
#define GPUINTERP_SIMD_INLINE inline __attribute__((always_inline))

//! Defines `void fn(const Args& a)` running `body(a)`, a GPUINTERP_SIMD_INLINE function, built
//! twice: for AVX2/FMA, taken where simd_switch() allows it, and portable (the only build off
//! x86-64).
#if defined(__x86_64__) && defined(__GNUC__)
#define GPUINTERP_AVX2_DISPATCH(fn, Args, body)                                    \
    __attribute__((target("avx2,fma"))) void fn##_avx2(const Args& a) { body(a); } \
    void fn##_portable(const Args& a) { body(a); }                                 \
    void fn(const Args& a)                                                         \
    {                                                                              \
        cpu::simd_switch().usable() ? fn##_avx2(a) : fn##_portable(a);             \
    }
#else
#define GPUINTERP_AVX2_DISPATCH(fn, Args, body) \
    void fn(const Args& a) { body(a); }
#endif

} // namespace cpu
} // namespace gpuinterp
} // namespace gr

#endif
