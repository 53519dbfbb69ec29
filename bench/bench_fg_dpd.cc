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
#include <gnuradio/blocks/null_sink.h>
#include <gnuradio/gpuinterp/dpd_predistorter_cc.h>
#include <gnuradio/gpuinterp/kernel/backend.h>
#include <gnuradio/gpuinterp/kernel/dpd_model.h>
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

// The line-rate rows: one channel of a predistorter by model spec, CUDA, fed by a source that
// costs nothing per item (count_source) into a null_sink, so the row is the block's own rate with
// its input crossing the bus in and its output out. buffers 0: host buffers (pinned staging), 1:
// device buffers (the block's ports are cuda_buffers; GNU Radio's buffer layer makes the two
// crossings). Rows: the Arena preset `compact` (a 26-coefficient gmp), a compact tdnn, a small gru
// and the `best` preset's gru:H=24 (random weights: the cost does not depend on their values).
// buffer_log2: the blocks' minimum output buffer, 2^22 or 2^24 items. A longer buffer allows longer
// work() calls, which amortise a recurrent predistorter's warm-ups, and lets the blocks overlap less;
// both sizes are rows so that docs/performance.md can say which wins. items_per_second counts
// samples.
static const char* const fg_model_rows[] = {
    "gmp:Ka=1,La=14,Kb=2,Lb=3,Mb=1,Kc=2,Lc=3,Mc=1",
    "tdnn:M=5,H=10,N=1",
    "gru:H=10,C=4,D=1",
    "gru:H=24,C=4,D=1"
};

static void BM_fg_dpd_model(benchmark::State& st)
{
    if (gpuinterp_bench::skip_without_cuda(st))
        return;
    const std::string spec = fg_model_rows[st.range(0)];
    const bool dev = st.range(1) != 0;
    const int buffer = 1 << st.range(2);
    const size_t n = size_t(1) << gpuinterp_bench::log2n(26);
    const auto m = gr::gpuinterp::kernel::dpd_model::parse(spec);
    const std::vector<float> w =
        gpuinterp_bench::random_weights(m); // empty for a polynomial
    std::vector<cf> co(m.num_coefficients(), cf(0.01f, 0.002f));
    if (!co.empty())
        co[0] = 1.0f;
    for (auto _ : st) {
        st.PauseTiming();
        auto tb = gr::make_top_block("bench");
        auto src =
            gnuradio::make_block_sptr<gpuinterp_bench::count_source>(sizeof(cf), n);
        auto snk = gr::blocks::null_sink::make(sizeof(cf));
        auto blk = gr::gpuinterp::dpd_predistorter_cc::make(0,
                                                            0,
                                                            1,
                                                            1,
                                                            co,
                                                            cf(0),
                                                            "cuda",
                                                            0,
                                                            0,
                                                            false,
                                                            dev,
                                                            spec,
                                                            1,
                                                            "fc32",
                                                            1.0f,
                                                            "fc32",
                                                            w);
        src->set_min_output_buffer(buffer);
        blk->set_min_output_buffer(buffer);
        tb->connect(src, 0, blk, 0);
        tb->connect(blk, 0, snk, 0);
        st.ResumeTiming();
        tb->run();
    }
    st.SetItemsProcessed(int64_t(st.iterations()) * int64_t(n));
    st.SetLabel(spec + (dev ? " device buffers" : " host buffers"));
}
BENCHMARK(BM_fg_dpd_model)
    ->ArgNames({ "row", "device_buffers", "buffer_log2" })
    ->ArgsProduct({ { 0, 1, 2, 3 }, { 0, 1 }, { 22, 24 } })
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(2);
