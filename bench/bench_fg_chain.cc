/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Transmit-chain benchmark: null_source -> head(N) -> interp x8 (128 taps) ->
// predistorter (P,Q,L) = (5,3,5) [-> resampler x1.25] -> null_sink.
//   stages 2: interp + DPD; stages 3: interp + DPD + resampler (polyphase, 32 arms x 32 taps).
//   impl 0: GNU Radio's CPU blocks: interp_fir_filter_ccf x8; GNU Radio has no DPD block, so a
//   48-tap 1:1 FIR of similar cost (~25 complex MACs per sample) stands in; and
//   pfb_arb_resampler_ccf(1.25) with 32 arms (firdes::low_pass_2, 80 dB)
//   impl 1: gpuinterp, backend cuda, host buffers (each block copies in and out over the bus)
//   impl 2: gpuinterp, backend cuda, device buffers (the chain crosses the bus once in, once
//   out)
//   impl 3: gpuinterp, backend cpu, host buffers
//   impl 4: gpuinterp, backend cpu, device buffers (simulated device: what the buffers cost on
//   a CPU)
// log2buf: the blocks' min output buffer, 2^22 items unless given (0).
// sc16: 1 makes the resampler (stages 3, gpuinterp rows) emit sc16 (output_format "sc16"), the
// item a radio takes: the chain's last hop carries 4 bytes per sample instead of 8. Its rows sit
// next to the same chain's fc32 row.
// source: 0 (default) null_source -> head(N), GNU Radio's own way to feed N items; 1 a source
// that hands out N items without writing them (count_source, bench_fg_util.h), so the chain's rate is not
// bounded by the host side's memset and memcpy of 8-byte items (GNU Radio's host-buffer ceiling,
// BM_fg_dpd_format's copy rows): the device-buffer chain's own rate.
// busy0, busy1, ...: the share of the run each chain block spent inside work() (GNU Radio's
// performance counters; with GR_CONF_PERFCOUNTERS_ON=True and GR_CONF_PERFCOUNTERS_CLOCK=monotonic
// they are wall time, else absent): the block near 1 is the one the chain waits for. (GNU Radio's
// items-per-call counters are moving averages, not means, so calls are counted from the
// timeline.) With GPUINTERP_CUPTI_TRACE=<dir> each row's first run writes its GPU timeline there
// (cupti_trace.h, bench/cupti_timeline.py).
// items_per_second counts INPUT samples; out_Msps the chain's output. N = 2^28 inputs for
// the GPU rows (GPUINTERP_BENCH_LOG2N), 2^min(log2n, GPUINTERP_BENCH_CPU_LOG2N=22) for
// the CPU rows (the rate is what is compared). BM_bus_ceiling measures pinned copy
// bandwidth in the same process: the device-buffer chain cannot beat min(H2D/8 B, D2H/(8
// B * output/input)) input samples per second.
#include "../lib/device/device_ops.h"
#include "bench_fg_util.h"
#include "bench_util.h"
#include "cupti_trace.h"
#include <gnuradio/blocks/head.h>
#include <gnuradio/blocks/null_sink.h>
#include <gnuradio/blocks/null_source.h>
#include <gnuradio/filter/firdes.h>
#include <gnuradio/filter/interp_fir_filter.h>
#include <gnuradio/filter/pfb_arb_resampler_ccf.h>
#include <gnuradio/gpuinterp/dpd_predistorter_cc.h>
#include <gnuradio/gpuinterp/interp_fir.h>
#include <gnuradio/gpuinterp/kernel/backend.h>
#include <gnuradio/gpuinterp/resampler.h>
#include <gnuradio/io_signature.h>
#include <gnuradio/sync_block.h>
#include <gnuradio/top_block.h>
#include <benchmark/benchmark.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>

using cf = std::complex<float>;

namespace {

int cpu_log2n(int log2n)
{
    const char* v = std::getenv("GPUINTERP_BENCH_CPU_LOG2N");
    return std::min(log2n, v ? std::atoi(v) : 22);
}

constexpr double resamp_rate = 1.25;

void BM_fg_chain(benchmark::State& st)
{
    const int which = int(st.range(0));
    const int stages = int(st.range(1));
    // log2 of the blocks' min output buffer (items); 22 unless a row asks for another.
    const int log2buf = st.range(2) ? int(st.range(2)) : 22;
    const bool sc16 = st.range(3) != 0;
    const bool counted = st.range(4) != 0;
    if (sc16 && (which == 0 || stages != 3)) {
        st.SkipWithError("sc16: the gpuinterp 3-stage chain only");
        return;
    }
    const auto h1 = gpuinterp_bench::lowpass(8, 128);
    const auto h2 = gpuinterp_bench::lowpass(1, 48);
    const int log2n = gpuinterp_bench::log2n(28);
    const bool gpu = which == 1 || which == 2;
    const size_t n = size_t(1) << (gpu ? log2n : cpu_log2n(log2n));
    if (gpuinterp_bench::skip_without_cuda(st, gpu))
        return;
    const double out_per_in = 8 * (stages == 3 ? resamp_rate : 1.0);
    const std::string row = "chain_impl" + std::to_string(which) + "_stages" +
                            std::to_string(stages) + "_log2buf" +
                            std::to_string(log2buf) + (sc16 ? "_sc16" : "_fc32") +
                            (counted ? "_count" : "_head");
    for (auto _ : st) {
        st.PauseTiming();
        auto tb = gr::make_top_block("chain");
        gr::block_sptr src = gr::blocks::null_source::make(sizeof(cf));
        gr::block_sptr head = gr::blocks::head::make(sizeof(cf), n);
        if (counted) {
            src = gnuradio::make_block_sptr<gpuinterp_bench::count_source>(sizeof(cf), n);
            head = src;
        }
        auto snk = gr::blocks::null_sink::make(sc16 ? 2 * sizeof(int16_t) : sizeof(cf));
        std::vector<gr::block_sptr> chain;
        if (which == 0) {
            chain.push_back(gr::filter::interp_fir_filter_ccf::make(8, h1));
            chain.push_back(gr::filter::interp_fir_filter_ccf::make(1, h2));
            if (stages == 3)
                chain.push_back(gr::filter::pfb_arb_resampler_ccf::make(
                    float(resamp_rate),
                    gr::filter::firdes::low_pass_2(32, 32, 0.5, 0.2, 80),
                    32));
        } else {
            const std::string be = which >= 3 ? "cpu" : "cuda";
            const bool dev = which == 2 || which == 4;
            chain.push_back(gr::gpuinterp::interp_fir_ccf::make(8, h1, be, 0, 0, dev));
            std::vector<cf> co(3 * 5 + 2 * 5, cf(0.01f, 0.002f));
            co[0] = 1.0f;
            chain.push_back(gr::gpuinterp::dpd_predistorter_cc::make(
                5, 3, 5, 5, co, cf(0), be, 0, 0, false, dev));
            if (stages == 3)
                chain.push_back(
                    gr::gpuinterp::resampler_cc::make(resamp_rate,
                                                      "polyphase",
                                                      32,
                                                      32,
                                                      80.0,
                                                      be,
                                                      0,
                                                      dev,
                                                      sc16 ? "sc16" : "fc32"));
        }
        // Large buffers for every row: per-call overhead is not what is compared.
        head->set_min_output_buffer(1 << 19);
        for (auto& b : chain)
            b->set_min_output_buffer(1 << log2buf);
        if (!counted)
            tb->connect(src, 0, head, 0);
        gr::block_sptr prev = head;
        for (auto& b : chain) {
            tb->connect(prev, 0, b, 0);
            prev = b;
        }
        tb->connect(prev, 0, snk, 0);
        st.ResumeTiming();
        const auto t0 = std::chrono::steady_clock::now();
        {
            gpuinterp_bench::cupti_trace trace(
                st.iterations() == 0 ? gpuinterp_bench::cupti_trace_path(row) : "");
            tb->run();
        }
        const double wall_ns = std::chrono::duration<double, std::nano>(
                                   std::chrono::steady_clock::now() - t0)
                                   .count();
        for (size_t i = 0; i < chain.size(); i++)
            if (chain[i]->pc_work_time_total() > 0)
                st.counters["busy" + std::to_string(i)] =
                    chain[i]->pc_work_time_total() / wall_ns;
    }
    st.SetItemsProcessed(int64_t(st.iterations()) * int64_t(n));
    st.counters["out_Msps"] =
        benchmark::Counter(double(st.iterations()) * double(n) * out_per_in / 1e6,
                           benchmark::Counter::kIsRate);
    st.counters["log2n"] = std::log2(double(n));
}
BENCHMARK(BM_fg_chain)
    ->ArgNames({ "impl", "stages", "log2buf", "sc16", "source" })
    ->Args({ 0, 2, 0, 0, 0 })
    ->Args({ 1, 2, 0, 0, 0 })
    ->Args({ 2, 2, 0, 0, 0 })
    ->Args({ 3, 2, 0, 0, 0 })
    ->Args({ 4, 2, 0, 0, 0 })
    ->Args({ 0, 3, 0, 0, 0 })
    ->Args({ 1, 3, 0, 0, 0 })
    ->Args({ 1, 3, 0, 1, 0 })
    ->Args({ 2, 3, 0, 0, 0 })
    ->Args({ 2, 3, 0, 1, 0 })
    ->Args({ 3, 3, 0, 0, 0 })
    ->Args({ 4, 3, 0, 0, 0 })
    ->Args({ 4, 3, 0, 1, 0 })
    // Where the device chain loses its time: the same chain with other buffer sizes.
    ->Args({ 2, 3, 20, 0, 0 })
    ->Args({ 2, 3, 24, 0, 0 })
    // The same device chains fed by a source that costs nothing per item.
    ->Args({ 2, 2, 0, 0, 1 })
    ->Args({ 2, 3, 0, 0, 1 })
    ->Args({ 2, 3, 0, 1, 1 })
    // and with 2^24-item buffers
    ->Args({ 2, 3, 24, 0, 1 })
    ->Args({ 2, 3, 24, 1, 1 })
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(2);

// The bus ceiling: pinned host<->device copy bandwidth (256 MiB copies, median of 10).
void BM_bus_ceiling(benchmark::State& st)
{
    if (gpuinterp_bench::skip_without_cuda(st))
        return;
    double h2d = 0, d2h = 0;
    for (auto _ : st) {
        h2d = gr::gpuinterp::gpu::cuda_pinned_copy_gbps(0, size_t(256) << 20, true, 10);
        d2h = gr::gpuinterp::gpu::cuda_pinned_copy_gbps(0, size_t(256) << 20, false, 10);
    }
    st.counters["h2d_GBps"] = h2d;
    st.counters["d2h_GBps"] = d2h;
    // input samples/s the chain could reach if only the bus mattered (complex64 = 8
    // bytes)
    st.counters["ceiling_2stages_Msps_in"] = std::min(h2d / 8, d2h / (8 * 8)) * 1e3;
    st.counters["ceiling_3stages_Msps_in"] =
        std::min(h2d / 8, d2h / (8 * 8 * resamp_rate)) * 1e3;
    // the 3-stage chain ending in sc16: 4 bytes per output sample come back
    st.counters["ceiling_3stages_sc16_Msps_in"] =
        std::min(h2d / 8, d2h / (4 * 8 * resamp_rate)) * 1e3;
}
BENCHMARK(BM_bus_ceiling)->Unit(benchmark::kMillisecond)->Iterations(1);

} // namespace
