/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Kernel benchmarks of the polyphase interpolator (complex64 in/out, float taps):
//  - cpu:        host buffers, the CPU backend (VOLK + OpenMP), 2^20 inputs by default;
//  - cuda_kernel: the CUDA kernel alone on device-resident data, 2^24 inputs (CUDA-event timing);
//  - cuda_host:  the whole host-to-host pipeline (pinned staging, copies, kernel), 2^24 inputs.
//  - cuda_channels: one kernel object with N = 1, 4, 16, 64 channels, host or device memory.
// items_per_second counts OUTPUT samples. Rows: (L, taps) = (2,12), (4,64), (8,128), (16,256).
#ifdef GPUINTERP_HAVE_CUDA
#include "device_channels.h"
#include "kernel_timing.h"
#endif
#include "bench_util.h"
#include <gnuradio/gpuinterp/kernel/polyphase_interpolator.h>
#include <benchmark/benchmark.h>

using namespace gr::gpuinterp;
using cf = std::complex<float>;

static void rows(benchmark::internal::Benchmark* b)
{
    b->ArgNames({ "L", "taps" });
    for (auto r : std::vector<std::pair<int, int>>{
             { 2, 12 }, { 4, 64 }, { 8, 128 }, { 16, 256 } })
        b->Args({ r.first, r.second });
}

static void BM_interp_cpu_ccf(benchmark::State& st)
{
    const unsigned L = unsigned(st.range(0));
    const size_t n = size_t(1) << gpuinterp_bench::log2n(20);
    kernel::polyphase_interpolator_ccf k(
        L, gpuinterp_bench::lowpass(L, st.range(1)), backend::cpu);
    auto x = gpuinterp_bench::data<cf>(n);
    std::vector<cf> y(n * L);
    void* o[] = { y.data() };
    const void* i[] = { x.data() };
    for (auto _ : st) {
        k.filter_items(o, i, n);
        benchmark::DoNotOptimize(y.data());
    }
    st.SetItemsProcessed(int64_t(st.iterations()) * n * L);
}
BENCHMARK(BM_interp_cpu_ccf)->Apply(rows)->Unit(benchmark::kMillisecond)->UseRealTime();

#ifdef GPUINTERP_HAVE_CUDA
static void BM_interp_cuda_kernel_ccf(benchmark::State& st)
{
    if (gpuinterp_bench::skip_without_cuda(st))
        return;
    const unsigned L = unsigned(st.range(0));
    const size_t n = size_t(1) << gpuinterp_bench::log2n(24);
    const auto h = gpuinterp_bench::lowpass(L, st.range(1));
    const double ms = gpuinterp_bench::run_device_timed(
        st, [&] { return gpu::time_fir_kernel_ms<cf, float>(0, L, h, n, 20); });
    st.SetItemsProcessed(int64_t(st.iterations()) * n * L);
    // Memory floor: read N inputs + write N*L outputs (8 B each) at 4169 GB/s (measured D2D copy).
    st.counters["floor_ms"] = double(n) * 8 * (1 + L) / 4169e9 * 1e3;
    st.counters["kernel_ms"] = ms;
}
BENCHMARK(BM_interp_cuda_kernel_ccf)->Apply(rows)->Apply(gpuinterp_bench::device_timed);

static void BM_interp_cuda_host_ccf(benchmark::State& st)
{
    if (gpuinterp_bench::skip_without_cuda(st))
        return;
    const unsigned L = unsigned(st.range(0));
    const size_t n = size_t(1) << gpuinterp_bench::log2n(24);
    kernel::polyphase_interpolator_ccf k(L,
                                         gpuinterp_bench::lowpass(L, st.range(1)),
                                         backend::cuda,
                                         0,
                                         size_t(st.range(2)));
    auto x = gpuinterp_bench::data<cf>(n);
    std::vector<cf> y(n * L);
    void* o[] = { y.data() };
    const void* i[] = { x.data() };
    k.filter_items(o, i, n); // warm-up: page faults, pinned allocations
    for (auto _ : st) {
        k.filter_items(o, i, n);
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

#ifdef GPUINTERP_HAVE_CUDA
// Channels: one kernel object with N channels (one launch per call for all of them), L = 8 and
// 128 taps. device = 1: device-resident inputs and outputs (filter_items(..., true)), 0: the
// host pipeline with channel-major staging. 2^24 inputs in all, split over the channels;
// items_per_second counts OUTPUT samples of all channels.
static void BM_interp_cuda_channels_ccf(benchmark::State& st)
{
    if (gpuinterp_bench::skip_without_cuda(st))
        return;
    const unsigned N = unsigned(st.range(0)), L = 8;
    const bool dev = st.range(1) != 0;
    const size_t n = (size_t(1) << gpuinterp_bench::log2n(24)) / N; // per channel
    kernel::polyphase_interpolator_ccf k(
        L, gpuinterp_bench::lowpass(L, 128), backend::cuda, 0, 0, N);
    const auto x = gpuinterp_bench::data<cf>(n);
    std::unique_ptr<gpuinterp_bench::device_channels> on_device;
    std::vector<std::vector<cf>> host_out(dev ? 0 : N);
    std::vector<const cf*> in(N, x.data());
    std::vector<cf*> out(N);
    if (dev) {
        on_device =
            std::make_unique<gpuinterp_bench::device_channels>(N, x, n * L * sizeof(cf));
        in.assign(on_device->in(), on_device->in() + N);
        out = on_device->out<cf>();
    } else {
        for (unsigned c = 0; c < N; c++) {
            host_out[c].resize(n * L);
            out[c] = host_out[c].data();
        }
    }
    const auto o = reinterpret_cast<void* const*>(out.data());
    const auto i = reinterpret_cast<const void* const*>(in.data());
    k.filter_items(o, i, n, kernel::sample_format::fc32, 1.0f, dev); // warm-up
    for (auto _ : st) {
        k.filter_items(o, i, n, kernel::sample_format::fc32, 1.0f, dev);
        benchmark::DoNotOptimize(out.data());
    }
    st.SetItemsProcessed(int64_t(st.iterations()) * n * L * N);
}
BENCHMARK(BM_interp_cuda_channels_ccf)
    ->ArgNames({ "channels", "device" })
    ->ArgsProduct({ { 1, 4, 16, 64 }, { 0, 1 } })
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

#endif
