/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_BENCH_UTIL_H
#define INCLUDED_GPUINTERP_BENCH_UTIL_H

#include <gnuradio/gpuinterp/kernel/backend.h>
#include <gnuradio/gpuinterp/kernel/dpd_model.h>
#include <benchmark/benchmark.h>
#include <complex>
#include <cstddef>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace gpuinterp_bench {

//! Problem-size exponent from the environment (GPUINTERP_BENCH_LOG2N), else the default.
inline int log2n(int dflt)
{
    const char* v = std::getenv("GPUINTERP_BENCH_LOG2N");
    return v ? std::atoi(v) : dflt;
}

//! Whether the benchmark is to be skipped for want of a CUDA device: when it `needs_cuda` and none
//! is there, it is marked skipped ("no CUDA device") and this returns true.
inline bool skip_without_cuda(benchmark::State& st, bool needs_cuda = true)
{
    if (!needs_cuda || gr::gpuinterp::cuda_device_count() > 0)
        return false;
    st.SkipWithError("no CUDA device");
    return true;
}

//! A benchmark timed on the device: every iteration's time is what `timed_ms()` measured with
//! events around its launches (the host's clock would add launch and synchronisation overhead).
//! Returns the last measurement, for the counters.
template <typename F>
double run_device_timed(benchmark::State& st, F&& timed_ms)
{
    double ms = 0;
    for (auto _ : st) {
        ms = timed_ms();
        st.SetIterationTime(ms * 1e-3);
    }
    return ms;
}

//! The registration of a run_device_timed() benchmark (->Apply(device_timed)): one iteration of
//! manual time, in ms (each measurement is already a median over many launches).
inline void device_timed(benchmark::internal::Benchmark* b)
{
    b->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(1);
}

//! The registration of a benchmark timed by the host's wall clock (->Apply(wall_timed)), in ms:
//! what a caller waits for, work on the device or on other threads included, which the CPU time
//! of the benchmark's thread would miss.
inline void wall_timed(benchmark::internal::Benchmark* b)
{
    b->Unit(benchmark::kMillisecond)->UseRealTime();
}

//! Deterministic non-zero test data.
template <typename T>
std::vector<T> data(size_t n)
{
    std::vector<T> v(n);
    for (size_t i = 0; i < n; i++) {
        const float a = float((i * 2654435761u) % 2001) * 1e-3f - 1.0005f;
        if constexpr (std::is_same_v<T, std::complex<float>>)
            v[i] = { a, float((i * 40503u) % 1999) * 1e-3f - 0.9995f };
        else
            v[i] = a;
    }
    return v;
}

//! A neural model's weights for timing: small and random (N(0, 0.1), seeded), as a trained set is;
//! the cost does not depend on their values.
inline std::vector<float> random_weights(const gr::gpuinterp::kernel::dpd_model& m)
{
    std::mt19937 g(7);
    std::normal_distribution<float> d(0.0f, 0.1f);
    std::vector<float> w(m.num_weights());
    for (auto& v : w)
        v = d(g);
    return w;
}

//! Windowed-sinc low-pass taps with gain L (shape matters little for speed; kept realistic).
inline std::vector<float> lowpass(unsigned L, size_t ntaps)
{
    std::vector<float> h(ntaps);
    const double fc = 0.5 / L, c = (ntaps - 1) / 2.0;
    for (size_t i = 0; i < ntaps; i++) {
        const double t = i - c;
        const double s = t == 0 ? 2 * fc : std::sin(2 * M_PI * fc * t) / (M_PI * t);
        const double w =
            0.54 - 0.46 * std::cos(2 * M_PI * i / std::max<size_t>(1, ntaps - 1));
        h[i] = float(L * s * w);
    }
    return h;
}

} // namespace gpuinterp_bench

namespace gr {
namespace gpuinterp {
namespace gpu {
//! Measured pinned copy bandwidth in GB/s for `bytes` per copy (median of `iters`), h2d or d2h:
//! bench/bus_timing.cu in CUDA builds (linked into bench_flowgraphs); 0 without CUDA.
#ifdef GPUINTERP_HAVE_CUDA
double cuda_pinned_copy_gbps(int device, size_t bytes, bool host_to_device, int iters);
#else
inline double cuda_pinned_copy_gbps(int, size_t, bool, int) { return 0; }
#endif
} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
