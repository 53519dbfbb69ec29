/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Kernel benchmarks of the neural families (docs/neural_models.md), complex64 in and out:
//  - neural_cpu:          the CPU engine, 2^18 samples by default (the gru's recursion on one thread,
//                         the tdnn over OpenMP ranges); bench/neural_torch_peer.py runs the same
//                         models in PyTorch on the CPU, its peer;
//  - neural_cuda_device:  process_device() on device buffers, 2^24 samples by default, with the
//                         gru's warm-up at its default, in one call (call = 0) or in calls of
//                         2^call samples, as a flowgraph's work() hands them over (a gru call
//                         pays a whole warm-up however short it is).
// Rows: a compact tdnn predistorter (tdnn:M=5,H=10,N=1), a small gru predistorter
// (gru:H=10,C=4,D=1), the Arena `best` preset's size (gru:H=24,C=4,D=1) and the APA_200MHz
// judge's size (gru:H=32,C=4,D=16). Weights are random and
// small (the cost does not depend on their values). items_per_second counts samples;
// GPUINTERP_BENCH_LOG2N overrides the problem size.
#include "bench_util.h"
#include "device_channels.h"
#include <gnuradio/gpuinterp/kernel/dpd_predistorter.h>
#include <benchmark/benchmark.h>
#include <random>

using namespace gr::gpuinterp;
using cf = std::complex<float>;

namespace {

const char* const neural_rows[] = {
    "tdnn:M=5,H=10,N=1", "gru:H=10,C=4,D=1", "gru:H=24,C=4,D=1", "gru:H=32,C=4,D=16"
};

std::vector<cf> signal(size_t n)
{
    std::mt19937 g(3);
    std::normal_distribution<float> d(0.0f, 0.25f);
    std::vector<cf> x(n);
    for (auto& v : x)
        v = cf(d(g), d(g));
    return x;
}

void each_row(benchmark::internal::Benchmark* b)
{
    for (int64_t r = 0; r < int64_t(std::size(neural_rows)); r++)
        b->Arg(r);
}

void BM_neural_cpu(benchmark::State& st)
{
    const auto m = kernel::dpd_model::parse(neural_rows[st.range(0)]);
    const size_t n = size_t(1) << gpuinterp_bench::log2n(18);
    kernel::dpd_predistorter k(m, gpuinterp_bench::random_weights(m), backend::cpu);
    const auto x = signal(n);
    std::vector<cf> y(n);
    for (auto _ : st)
        k.process(y.data(), x.data(), n);
    st.SetItemsProcessed(int64_t(st.iterations()) * n);
    st.SetLabel(m.to_string());
}
BENCHMARK(BM_neural_cpu)->Apply(each_row)->Apply(gpuinterp_bench::wall_timed);

void BM_neural_cuda_device(benchmark::State& st)
{
    if (gpuinterp_bench::skip_without_cuda(st))
        return;
    const auto m = kernel::dpd_model::parse(neural_rows[st.range(0)]);
    const size_t n = size_t(1) << gpuinterp_bench::log2n(24);
    kernel::dpd_predistorter k(m, gpuinterp_bench::random_weights(m), backend::cuda);
    const gpuinterp_bench::device_channels dev(1, signal(n), n * sizeof(cf));
    const cf* din = dev.in()[0];
    cf* dout = dev.out<cf>()[0];
    const size_t call = st.range(1) ? std::min(n, size_t(1) << st.range(1)) : n;
    auto all = [&] {
        for (size_t pos = 0; pos < n; pos += call)
            k.process_device(dout + pos, din + pos, std::min(call, n - pos));
    };
    all(); // warm-up
    for (auto _ : st)
        all();
    st.SetItemsProcessed(int64_t(st.iterations()) * n);
    st.SetLabel(m.to_string() + " warmup " + std::to_string(k.warmup()) + " calls of " +
                std::to_string(call));
}
BENCHMARK(BM_neural_cuda_device)
    ->ArgNames({ "row", "call" })
    ->ArgsProduct({ { 0, 1, 2, 3 }, { 0, 16, 20 } })
    ->Apply(gpuinterp_bench::wall_timed);

} // namespace
