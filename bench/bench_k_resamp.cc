/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Resampler and table-lookup kernel benchmarks (complex64), rates r = 1.37 and 0.73
// (x1000 in the row name). items_per_second counts INPUT samples.
//  - cpu:        host buffers, the CPU backend, 2^20 inputs by default
//  (GPUINTERP_BENCH_LOG2N);
//  - cuda_kernel: device-resident 2^26 inputs (CUDA events): the kernel, plus for
//  `texture` the
//                 re-layout into the pitch-2D texture; counter floor_ms = bytes moved /
//                 4169 GB/s.
#ifdef GPUINTERP_HAVE_CUDA
#include "kernel_timing.h"
#endif
#include "bench_util.h"
#include <gnuradio/gpuinterp/kernel/resampler.h>
#include <gnuradio/gpuinterp/kernel/table_lookup.h>
#include <benchmark/benchmark.h>

using namespace gr::gpuinterp;
using cf = std::complex<float>;

static const kernel::resamp_method methods[] = { kernel::resamp_method::nearest,
                                                 kernel::resamp_method::linear,
                                                 kernel::resamp_method::texture,
                                                 kernel::resamp_method::cubic,
                                                 kernel::resamp_method::polyphase };

static void rows(benchmark::internal::Benchmark* b)
{
    b->ArgNames({ "method", "rate_x1000" });
    for (int m = 0; m < 5; m++)
        for (int r : { 1370, 730 })
            b->Args({ m, r });
}

static void BM_resamp_cpu_cc(benchmark::State& st)
{
    const auto m = methods[st.range(0)];
    const double r = st.range(1) / 1000.0;
    const size_t n = size_t(1) << gpuinterp_bench::log2n(20);
    auto x = gpuinterp_bench::data<cf>(n);
    std::vector<cf> y(size_t(double(n) * r) + 16);
    kernel::resampler_cc k(r, m, backend::cpu);
    void* out[] = { y.data() };
    for (auto _ : st) {
        size_t used = 0, pos = 0;
        while (pos < n) {
            const void* in[] = { x.data() + pos };
            const size_t got = k.resample_items(out, y.size(), in, n - pos, used);
            pos += used;
            benchmark::DoNotOptimize(got);
            if (used == 0)
                break;
        }
    }
    st.SetLabel(kernel::to_string(m));
    st.SetItemsProcessed(int64_t(st.iterations()) * n);
}
BENCHMARK(BM_resamp_cpu_cc)->Apply(rows)->Unit(benchmark::kMillisecond)->UseRealTime();

static void BM_table_lookup_cpu_fc(benchmark::State& st)
{
    const size_t n = size_t(1) << gpuinterp_bench::log2n(20);
    auto lut = gpuinterp_bench::data<cf>(4096);
    kernel::lookup_config c;
    c.normalized = true;
    c.precision =
        st.range(0) ? kernel::lookup_precision::texture : kernel::lookup_precision::exact;
    kernel::table_lookup_fc k(lut, c, backend::cpu);
    std::vector<float> x(n);
    for (size_t i = 0; i < n; i++)
        x[i] = float((i * 2654435761u) % 100000) * 1e-5f;
    std::vector<cf> y(n);
    for (auto _ : st) {
        k.lookup(y.data(), x.data(), n);
        benchmark::DoNotOptimize(y.data());
    }
    st.SetLabel(st.range(0) ? "texture (emulated)" : "exact");
    st.SetItemsProcessed(int64_t(st.iterations()) * n);
}
BENCHMARK(BM_table_lookup_cpu_fc)
    ->ArgName("texture")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

#ifdef GPUINTERP_HAVE_CUDA
//! One kernel row: gpu::time_resampler_kernel_ms() of 2^26 inputs (GPUINTERP_BENCH_LOG2N) at rate
//! r, median of 10, with its memory floor: read N inputs, write N*r outputs (8 B each); texture
//! also re-lays the input out (read + write N) before the texture reads it.
static void
resamp_kernel_row(benchmark::State& st, kernel::resamp_method m, double r, bool untiled)
{
    const size_t n = size_t(1) << gpuinterp_bench::log2n(26);
    const double ms = gpuinterp_bench::run_device_timed(
        st, [&] { return gpu::time_resampler_kernel_ms(0, m, r, n, 10, untiled); });
    st.SetItemsProcessed(int64_t(st.iterations()) * n);
    const double bytes =
        double(n) * 8 * (1 + r + (m == kernel::resamp_method::texture ? 2 : 0));
    st.counters["floor_ms"] = bytes / 4169e9 * 1e3;
    st.counters["kernel_ms"] = ms;
    st.counters["out_per_s"] = double(n) * r / (ms * 1e-3);
}

static void BM_resamp_cuda_kernel_cc(benchmark::State& st)
{
    if (gpuinterp_bench::skip_without_cuda(st))
        return;
    const auto m = methods[st.range(0)];
    resamp_kernel_row(st, m, st.range(1) / 1000.0, false);
    st.SetLabel(kernel::to_string(m));
}
BENCHMARK(BM_resamp_cuda_kernel_cc)->Apply(rows)->Apply(gpuinterp_bench::device_timed);

// The first polyphase kernel (one thread per output, arms read from global memory), kept
// for comparison with the tiled kernel the rows above run (resamp_cuda_variant::untiled).
static void BM_resamp_cuda_kernel_cc_polyphase_old(benchmark::State& st)
{
    if (gpuinterp_bench::skip_without_cuda(st))
        return;
    resamp_kernel_row(st, kernel::resamp_method::polyphase, st.range(0) / 1000.0, true);
    st.SetLabel("polyphase (old kernel)");
}
BENCHMARK(BM_resamp_cuda_kernel_cc_polyphase_old)
    ->ArgName("rate_x1000")
    ->Arg(1370)
    ->Arg(730)
    ->Apply(gpuinterp_bench::device_timed);
#endif
