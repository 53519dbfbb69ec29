/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Flowgraph benchmark of dpd_predistorter_cc: null_source -> head(N) -> predistorter -> null_sink
// with large buffers, on the CPU backend and on CUDA with pinned and with mapped staging.
// N = 2^24 samples by default (GPUINTERP_BENCH_LOG2N); items_per_second counts samples.
#include "bench_fg_util.h"
#include "bench_util.h"
#include <gnuradio/blocks/copy.h>
#include <gnuradio/gpuinterp/dpd_predistorter_cc.h>
#include <gnuradio/gpuinterp/kernel/backend.h>
#include <gnuradio/top_block.h>
#include <benchmark/benchmark.h>

using cf = std::complex<float>;

// impl 0: cpu, 1: cuda pinned, 2: cuda mapped (default batch), 3: cuda pinned, batch 2^20,
// 4: cuda mapped, batch 2^22, 5: GNU Radio's copy block in the same place (the flowgraph's own
// ceiling: null_source, head and null_sink move every sample too)
static void BM_fg_dpd(benchmark::State& st)
{
    const int which = int(st.range(0));
    const unsigned P = unsigned(st.range(1)), Q = unsigned(st.range(2)),
                   L = unsigned(st.range(3));
    const size_t n = size_t(1) << gpuinterp_bench::log2n(24);
    if (gpuinterp_bench::skip_without_cuda(st, which > 0))
        return;
    std::vector<cf> co((P + 1) / 2 * L + (Q ? (Q + 1) / 2 * L : 0), cf(0.01f, 0.002f));
    co[0] = 1.0f;
    const int batch = which == 3 ? 1 << 20 : which == 4 ? 1 << 22 : 0;
    gpuinterp_bench::time_block_flowgraph(st, n, sizeof(cf), sizeof(cf), 1 << 22, [&] {
        return which == 5 ? gr::blocks::copy::make(sizeof(cf))
                          : gr::block_sptr(gr::gpuinterp::dpd_predistorter_cc::make(
                                P,
                                Q,
                                L,
                                L,
                                co,
                                cf(0),
                                which == 0 ? "cpu" : "cuda",
                                0,
                                batch,
                                which == 2 || which == 4));
    });
    st.SetItemsProcessed(int64_t(st.iterations()) * n);
    static const char* labels[] = { "cpu",
                                    "cuda pinned",
                                    "cuda mapped",
                                    "cuda pinned batch 2^20",
                                    "cuda mapped batch 2^22",
                                    "GNU Radio copy (ceiling)" };
    st.SetLabel(labels[which]);
}
BENCHMARK(BM_fg_dpd)
    ->ArgNames({ "impl", "P", "Q", "L" })
    ->ArgsProduct({ { 0, 1, 2, 3, 4, 5 }, { 5 }, { 3 }, { 5 } })
    ->Args({ 1, 9, 5, 16 })
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(2);
