/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Line rate at the radio. Flowgraphs as a multi-channel transmitter builds them:
//   BM_fg_linerate: N x (null_source -> head(n) -> interp x8, 128 taps) -> one predistorter with
//     N channels (ph (5,3,5), each channel its own coefficients) -> N x null_sink, device
//     buffers through the chain, the output in fc32 or sc16 (what a usrp_sink with cpu_format
//     sc16 takes). out_Msps_per_channel next to the radio rates 245.76 and 491.52 Msample/s.
//     one_fir = 1: the N interpolators are ONE interp block with N channels (one launch for all).
//   BM_fg_dpd_format: the single-stream predistorter with host buffers (pinned staging), fc32
//     against sc16 out, and GNU Radio's copy block of the same item sizes (the flowgraph's own
//     ceiling for 8-byte and 4-byte items).
// n = 2^24 inputs per channel (GPUINTERP_BENCH_LOG2N), i.e. 2^27 outputs per channel.
#include "bench_fg_util.h"
#include "bench_util.h"
#include <gnuradio/blocks/copy.h>
#include <gnuradio/blocks/head.h>
#include <gnuradio/blocks/null_sink.h>
#include <gnuradio/blocks/null_source.h>
#include <gnuradio/gpuinterp/dpd_predistorter_cc.h>
#include <gnuradio/gpuinterp/interp_fir.h>
#include <gnuradio/gpuinterp/kernel/backend.h>
#include <gnuradio/top_block.h>
#include <benchmark/benchmark.h>
#include <cmath>

using cf = std::complex<float>;

namespace {

std::vector<cf> ph_coefficients(unsigned channel)
{
    std::vector<cf> co(3 * 5 + 2 * 5, cf(0.01f, 0.002f));
    co[0] = cf(1.0f + 0.01f * channel, 0.0f);
    return co;
}

void BM_fg_linerate(benchmark::State& st)
{
    if (gpuinterp_bench::skip_without_cuda(st))
        return;
    const unsigned N = unsigned(st.range(0));
    const bool sc16 = st.range(1) != 0;
    const bool one_fir = st.range(2) != 0;
    const size_t n = size_t(1) << gpuinterp_bench::log2n(24);
    const size_t out_bytes = sc16 ? 4 : 8;
    const auto h = gpuinterp_bench::lowpass(8, 128);
    for (auto _ : st) {
        st.PauseTiming();
        auto tb = gr::make_top_block("linerate");
        auto dpd = gr::gpuinterp::dpd_predistorter_cc::make(5,
                                                            3,
                                                            5,
                                                            5,
                                                            ph_coefficients(0),
                                                            cf(0),
                                                            "cuda",
                                                            0,
                                                            0,
                                                            false,
                                                            true,
                                                            "",
                                                            N,
                                                            sc16 ? "sc16" : "fc32",
                                                            1.5f);
        dpd->set_min_output_buffer(1 << 22);
        auto make_interp = [&](unsigned channels) {
            auto b = gr::gpuinterp::interp_fir_ccf::make(
                8, h, "cuda", 0, 0, true, "fc32", 1.0f, int(channels));
            b->set_min_output_buffer(1 << 22);
            return b;
        };
        const auto shared = one_fir ? make_interp(N) : nullptr;
        for (unsigned c = 0; c < N; c++) {
            dpd->set_channel_coefficients(c, ph_coefficients(c), cf(0));
            auto src = gr::blocks::null_source::make(sizeof(cf));
            auto head = gr::blocks::head::make(sizeof(cf), n);
            auto interp = one_fir ? shared : make_interp(1);
            const int port = one_fir ? int(c) : 0;
            auto snk = gr::blocks::null_sink::make(out_bytes);
            head->set_min_output_buffer(1 << 19);
            tb->connect(src, 0, head, 0);
            tb->connect(head, 0, interp, port);
            tb->connect(interp, port, dpd, int(c));
            tb->connect(dpd, int(c), snk, 0);
        }
        st.ResumeTiming();
        tb->run();
    }
    const double out = double(st.iterations()) * double(n) * 8;
    st.counters["out_Msps_per_channel"] =
        benchmark::Counter(out / 1e6, benchmark::Counter::kIsRate);
    st.counters["radio_491.52_share"] =
        benchmark::Counter(out / 491.52e6, benchmark::Counter::kIsRate);
    st.counters["channels"] = N;
    st.SetLabel(std::string(sc16 ? "sc16" : "fc32") + (one_fir ? ", one FIR block" : ""));
}
BENCHMARK(BM_fg_linerate)
    ->ArgNames({ "channels", "sc16", "one_fir" })
    ->ArgsProduct({ { 1, 4 }, { 0, 1 }, { 0 } })
    ->Args({ 4, 0, 1 })
    ->Args({ 4, 1, 1 })
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(2);

// impl 0: predistorter, cuda, pinned staging; 1: GNU Radio's copy block (the ceiling).
// formats 0: complex float in and out; 1: complex float in, sc16 out; 2: sc16 in and out.
void BM_fg_dpd_format(benchmark::State& st)
{
    const int which = int(st.range(0));
    const int formats = int(st.range(1));
    if (gpuinterp_bench::skip_without_cuda(st, which == 0))
        return;
    const size_t n = size_t(1) << gpuinterp_bench::log2n(26);
    const size_t out_bytes = formats > 0 ? 4 : 8;
    // The copy rows move items of the output's size end to end, as the DPD row's sink does.
    const size_t in_bytes = which == 1 || formats == 2 ? out_bytes : sizeof(cf);
    gpuinterp_bench::time_block_flowgraph(
        st, n, in_bytes, out_bytes, 1 << 22, [&]() -> gr::block_sptr {
            if (which == 1)
                return gr::blocks::copy::make(out_bytes);
            return gr::gpuinterp::dpd_predistorter_cc::make(5,
                                                            3,
                                                            5,
                                                            5,
                                                            ph_coefficients(0),
                                                            cf(0),
                                                            "cuda",
                                                            0,
                                                            0,
                                                            false,
                                                            false,
                                                            "",
                                                            1,
                                                            formats > 0 ? "sc16" : "fc32",
                                                            1.5f,
                                                            formats == 2 ? "sc16"
                                                                         : "fc32");
        });
    st.SetItemsProcessed(int64_t(st.iterations()) * int64_t(n));
    static const char* const names[] = { ", fc32 in, fc32 out",
                                         ", fc32 in, sc16 out",
                                         ", sc16 in, sc16 out" };
    st.SetLabel(std::string(which == 1 ? "GNU Radio copy" : "dpd cuda pinned") +
                (which == 1 ? (out_bytes == 4 ? ", 4-byte items" : ", 8-byte items")
                            : names[formats]));
}
BENCHMARK(BM_fg_dpd_format)
    ->ArgNames({ "impl", "formats" })
    ->Args({ 0, 0 })
    ->Args({ 0, 1 })
    ->Args({ 0, 2 })
    ->Args({ 1, 0 })
    ->Args({ 1, 1 })
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(2);

} // namespace
