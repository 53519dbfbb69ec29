/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Flowgraph benchmark: null_source -> head(N) -> interpolator -> null_sink with large buffers,
// GNU Radio's interp_fir_filter_ccf next to gpuinterp's interp_fir_ccf on the CPU and CUDA backends.
// items_per_second counts OUTPUT samples. N = 2^22 inputs by default (GPUINTERP_BENCH_LOG2N).
#include "bench_fg_util.h"
#include "bench_util.h"
#include <gnuradio/filter/interp_fir_filter.h>
#include <gnuradio/gpuinterp/interp_fir.h>
#include <gnuradio/gpuinterp/kernel/backend.h>
#include <gnuradio/top_block.h>
#include <benchmark/benchmark.h>

using cf = std::complex<float>;

// 0: GNU Radio interp_fir_filter_ccf, 1: gpuinterp cpu, 2: gpuinterp cuda
static void BM_fg_interp(benchmark::State& st)
{
    const int which = int(st.range(0));
    const unsigned L = unsigned(st.range(1));
    const auto h = gpuinterp_bench::lowpass(L, st.range(2));
    const size_t n = size_t(1) << gpuinterp_bench::log2n(22);
    if (gpuinterp_bench::skip_without_cuda(st, which == 2))
        return;
    gpuinterp_bench::time_block_flowgraph(st, n, sizeof(cf), sizeof(cf), 1 << 20, [&] {
        return which == 0 ? gr::filter::interp_fir_filter_ccf::make(L, h)
                          : gr::block_sptr(gr::gpuinterp::interp_fir_ccf::make(
                                L, h, which == 1 ? "cpu" : "cuda"));
    });
    st.SetItemsProcessed(int64_t(st.iterations()) * n * L);
}
BENCHMARK(BM_fg_interp)
    ->ArgNames({ "impl", "L", "taps" })
    ->Args({ 0, 4, 64 })
    ->Args({ 1, 4, 64 })
    ->Args({ 2, 4, 64 })
    ->Args({ 0, 16, 256 })
    ->Args({ 1, 16, 256 })
    ->Args({ 2, 16, 256 })
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(2);
