/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Kernel benchmarks of the polyphase interpolator (complex64 in/out, float taps):
//  - cpu:        host buffers, the CPU backend (VOLK + OpenMP), 2^20 inputs by default;
//  - cuda_kernel: the CUDA kernel alone on device-resident data, 2^24 inputs (CUDA-event timing);
//  - cuda_host:  the whole host-to-host pipeline (pinned staging, copies, kernel), 2^24 inputs.
// items_per_second counts OUTPUT samples. Rows: (L, taps) = (2,12), (4,64), (8,128), (16,256).
#ifdef GPUINTERP_HAVE_CUDA
#include "kernel_timing.h"
#endif
#include "bench_util.h"
#include <benchmark/benchmark.h>
#include <gnuradio/gpuinterp/kernel/polyphase_interpolator.h>

using namespace gr::gpuinterp;
using cf = std::complex<float>;

static void rows(benchmark::internal::Benchmark* b)
{
    b->ArgNames({ "L", "taps" });
    for (auto r : std::vector<std::pair<int, int>>{ { 2, 12 }, { 4, 64 }, { 8, 128 }, { 16, 256 } })
        b->Args({ r.first, r.second });
}

static void BM_interp_cpu_ccf(benchmark::State& st)
{
    const unsigned L = unsigned(st.range(0));
    const size_t n = size_t(1) << gpuinterp_bench::log2n(20);
    kernel::polyphase_interpolator_ccf k(L, gpuinterp_bench::lowpass(L, st.range(1)), backend::cpu);
    auto x = gpuinterp_bench::data<cf>(n);
    std::vector<cf> y(n * L);
    for (auto _ : st) {
        k.filter(y.data(), x.data(), n);
        benchmark::DoNotOptimize(y.data());
    }
    st.SetItemsProcessed(int64_t(st.iterations()) * n * L);
}
BENCHMARK(BM_interp_cpu_ccf)->Apply(rows)->Unit(benchmark::kMillisecond)->UseRealTime();

#ifdef GPUINTERP_HAVE_CUDA
static void BM_interp_cuda_kernel_ccf(benchmark::State& st)
{
    if (cuda_device_count() == 0) {
        st.SkipWithError("no CUDA device");
        return;
    }
    const unsigned L = unsigned(st.range(0));
    const size_t n = size_t(1) << gpuinterp_bench::log2n(24);
    const auto h = gpuinterp_bench::lowpass(L, st.range(1));
    double ms = 0;
    for (auto _ : st) {
        ms = gpu::time_fir_kernel_ms<cf, float>(0, L, h, n, 20);
        st.SetIterationTime(ms * 1e-3);
    }
    st.SetItemsProcessed(int64_t(st.iterations()) * n * L);
    // Memory floor: read N inputs + write N*L outputs (8 B each) at 4169 GB/s (measured D2D copy).
    st.counters["floor_ms"] = double(n) * 8 * (1 + L) / 4169e9 * 1e3;
    st.counters["kernel_ms"] = ms;
}
BENCHMARK(BM_interp_cuda_kernel_ccf)->Apply(rows)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(1);

static void BM_interp_cuda_host_ccf(benchmark::State& st)
{
    if (cuda_device_count() == 0) {
        st.SkipWithError("no CUDA device");
        return;
    }
    const unsigned L = unsigned(st.range(0));
    const size_t n = size_t(1) << gpuinterp_bench::log2n(24);
    kernel::polyphase_interpolator_ccf k(L, gpuinterp_bench::lowpass(L, st.range(1)), backend::cuda,
                                         0, size_t(st.range(2)));
    auto x = gpuinterp_bench::data<cf>(n);
    std::vector<cf> y(n * L);
    k.filter(y.data(), x.data(), n); // warm-up: page faults, pinned allocations
    for (auto _ : st) {
        k.filter(y.data(), x.data(), n);
        benchmark::DoNotOptimize(y.data());
    }
    st.SetItemsProcessed(int64_t(st.iterations()) * n * L);
}
BENCHMARK(BM_interp_cuda_host_ccf)
    ->ArgNames({ "L", "taps", "batch" })
    ->Args({ 4, 64, 1 << 16 })
    ->Args({ 4, 64, 1 << 18 })
    ->Args({ 4, 64, 1 << 20 })
    ->Args({ 16, 256, 1 << 16 })
    ->Args({ 16, 256, 1 << 18 })
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
#endif
