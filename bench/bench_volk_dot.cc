/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// VOLK's dot products against the own loop of lib/cpu/dot.h (included here without
// GPUINTERP_HAVE_VOLK, so cpu::dot is the loop), in the shape the polyphase
// interpolator and the resampler call them: one output per call over n taps (one polyphase arm),
// samples at an arbitrary (unaligned) offset since the window slides one sample per output, taps in
// aligned memory (volk_malloc: VOLK's u_ kernels still load the taps with aligned loads).
// Results and the decision they led to: docs/performance.md, "VOLK or the own dot product".
#include "cpu/dot.h"
#include <benchmark/benchmark.h>
#include <volk/volk.h>
#include <complex>
#include <random>
#include <vector>

namespace {
using cf = std::complex<float>;
using gr::gpuinterp::cpu::dot;
using gr::gpuinterp::cpu::store_arm;

template <typename T>
struct volk_buf {
    T* p;
    explicit volk_buf(size_t n)
        : p(static_cast<T*>(volk_malloc(n * sizeof(T), volk_get_alignment())))
    {
    }
    ~volk_buf() { volk_free(p); }
};

// samples the "window" slides over, so calls do not hit one line
constexpr size_t window = 4096;
constexpr size_t n_out = 256; // outputs per benchmark iteration

struct data {
    std::vector<cf> xc;
    std::vector<float> xf;
    std::vector<float> h;
    std::vector<cf> hc;
    explicit data(size_t n) : xc(window + n + 1), xf(window + n + 1), h(n), hc(n)
    {
        std::mt19937 g(7);
        std::normal_distribution<float> d;
        for (auto& v : xc)
            v = { d(g), d(g) };
        for (auto& v : xf)
            v = d(g);
        for (auto& v : h)
            v = d(g);
        for (auto& v : hc)
            v = { d(g), d(g) };
    }
};

// n_out calls per iteration at varying sample offsets (1 + 13k mod window: every alignment), the
// results summed so none is optimised away; reported as ns per call.
template <class Acc, class X, class H, class F>
void time_calls(benchmark::State& st, const X* x, const H* h, size_t n, F&& dotf)
{
    Acc acc{};
    for (auto _ : st) {
        for (size_t k = 0; k < n_out; k++) {
            Acc r;
            dotf(&r, x + 1 + (k * 13) % window, h, n);
            acc += r;
        }
        benchmark::DoNotOptimize(acc);
    }
    st.counters["ns/call"] =
        benchmark::Counter(double(st.iterations()) * n_out,
                           benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

//! The own loop over the complex samples with data's taps `h` (of st.range(0) taps), stored as
//! the interpolator stores an arm (store_arm).
template <class H>
void own_complex(benchmark::State& st, std::vector<H> data::*h)
{
    const data d(st.range(0));
    const size_t n = (d.*h).size();
    std::vector<H> hd(2 * n);
    store_arm(hd.data(), (d.*h).data(), n, true);
    time_calls<cf>(
        st, d.xc.data(), hd.data(), n, [](cf* r, const cf* x, const H* t, size_t m) {
            dot(r, x, t, m);
        });
}

//! VOLK's kernel `f` over data's samples `x`, its taps `h` copied into VOLK-aligned memory.
template <class Acc, class X, class H, class F>
void volk_kernel(benchmark::State& st,
                 std::vector<X> data::*x,
                 std::vector<H> data::*h,
                 F f)
{
    const data d(st.range(0));
    const size_t n = (d.*h).size();
    volk_buf<H> hv(n);
    std::copy((d.*h).begin(), (d.*h).end(), hv.p);
    time_calls<Acc>(st, (d.*x).data(), hv.p, n, f);
}

// complex samples, float taps (interp_fir_ccf, resampler_cc)
void BM_ccf_own(benchmark::State& st) { own_complex(st, &data::h); }
void BM_ccf_volk(benchmark::State& st)
{
    volk_kernel<lv_32fc_t>(st, &data::xc, &data::h, volk_32fc_32f_dot_prod_32fc);
}

// float samples, float taps (interp_fir_fff, resampler_ff)
void BM_fff_own(benchmark::State& st)
{
    const size_t n = st.range(0);
    const data d(n);
    time_calls<float>(
        st,
        d.xf.data(),
        d.h.data(),
        n,
        [](float* r, const float* x, const float* h, size_t m) { dot(r, x, h, m); });
}
void BM_fff_volk(benchmark::State& st)
{
    volk_kernel<float>(st, &data::xf, &data::h, volk_32f_x2_dot_prod_32f);
}

// complex samples, complex taps (interp_fir_ccc)
void BM_ccc_own(benchmark::State& st) { own_complex(st, &data::hc); }
void BM_ccc_volk(benchmark::State& st)
{
    volk_kernel<lv_32fc_t>(st, &data::xc, &data::hc, volk_32fc_x2_dot_prod_32fc);
}

#define TAPS ->Arg(4)->Arg(8)->Arg(16)->Arg(32)->Arg(64)->Arg(128)->Arg(512)
BENCHMARK(BM_ccf_own) TAPS;
BENCHMARK(BM_ccf_volk) TAPS;
BENCHMARK(BM_fff_own) TAPS;
BENCHMARK(BM_fff_volk) TAPS;
BENCHMARK(BM_ccc_own) TAPS;
BENCHMARK(BM_ccc_volk) TAPS;
} // namespace
