/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Sweeps of build constants (lib/cuda/*_tuning.h, the *_build structs) that docs/performance.md
// ("Tuning tables") lists without a comparison: the library's kernel templates instantiated by
// the benchmark with other values, the library's value one row of each sweep, at the production
// rows' sizes. kernel_ms: median launch (CUDA events), as theirs.
//  - BM_tuning_resamp_build: the tiled polyphase kernel (BM_tuning_resamp_tiles' rows: r = 1.25,
//    1.37, 0.73 on 2^26 inputs, the sm_90 row's tiles) on 128, 256 (resamp_build.tiled_threads)
//    and 512 threads per block; tile_used: the tile that fit.
//  - BM_tuning_fir_build: the polyphase interpolation kernel's (lib/cuda/fir_tuning.h, fir_build)
//    R outputs of one arm per work item and threads per block against the other pairs of the lab
//    (bench/fir_lab.h), on BM_interp_cuda_kernel_ccf's shapes (complex64, float taps, 2^24 inputs,
//    the device's tuning row), the library's pair (R = 7, 256 threads) among them. Counters TI,
//    stage and taps_smem: what the plan made of the pair (the tile holds items_per_thread *
//    threads work items of R inputs).
//  - BM_tuning_gmp_build (bench_k_dpd.cc, beside the mp/gmp rows it shares): the compiled mp/gmp
//    kernel's threads x outputs per thread.
#ifdef GPUINTERP_HAVE_CUDA
#include "bench_util.h"
#include "fir_lab.h"
#include "kernel_timing.h"
#include <benchmark/benchmark.h>

using namespace gr::gpuinterp;

namespace {

void BM_tuning_resamp_build(benchmark::State& st)
{
    if (gpuinterp_bench::skip_without_cuda(st))
        return;
    const gpu::resamp_tuning t = gpu::resamp_tuning_for(90);
    const int threads = int(st.range(0));
    const double r = st.range(1) / 1000.0;
    const size_t n = size_t(1) << gpuinterp_bench::log2n(26);
    gpu::resamp_tuned_timing res;
    gpuinterp_bench::run_device_timed(st, [&] {
        res = gpu::time_resampler_kernel_tuned(
            0, kernel::resamp_method::polyphase, r, n, 10, t, false, threads);
        return res.ms;
    });
    st.SetItemsProcessed(int64_t(st.iterations()) * n);
    st.counters["kernel_ms"] = res.ms;
    st.counters["tile_used"] = res.tile;
    st.SetLabel("polyphase, tiled kernel on " + std::to_string(threads) + " threads");
}
BENCHMARK(BM_tuning_resamp_build)
    ->ArgNames({ "threads", "rate_x1000" })
    ->ArgsProduct({ { 128, 256, 512 }, { 1250, 1370, 730 } })
    ->Apply(gpuinterp_bench::device_timed);

void BM_tuning_fir_build(benchmark::State& st)
{
    if (gpuinterp_bench::skip_without_cuda(st))
        return;
    const unsigned L = unsigned(st.range(0));
    const gpu::fir_lab_shape s{ int(st.range(2)), int(st.range(3)) };
    const size_t n = size_t(1) << gpuinterp_bench::log2n(24);
    const gpu::fir_lab_problem p{ s, L, gpuinterp_bench::lowpass(L, st.range(1)) };
    gpu::fir_lab_timing r;
    gpuinterp_bench::run_device_timed(st, [&] {
        r = gpu::time_fir_lab_kernel(0, p, n, 20);
        return r.ms;
    });
    st.SetItemsProcessed(int64_t(st.iterations()) * n * L);
    st.counters["kernel_ms"] = r.ms;
    st.counters["TI"] = r.TI;
    st.counters["stage"] = r.stage;
    st.counters["taps_smem"] = r.taps_smem;
    st.SetLabel(gpu::fir_lab_is_library(s) ? "library" : "lab");
}
void fir_build_rows(benchmark::internal::Benchmark* b)
{
    b->ArgNames({ "L", "taps", "R", "threads" });
    for (auto r : std::vector<std::pair<int, int>>{
             { 2, 12 }, { 4, 64 }, { 8, 128 }, { 16, 256 } })
        for (const gpu::fir_lab_shape& s : gpu::fir_lab_shapes())
            b->Args({ r.first, r.second, s.R, s.threads });
}
BENCHMARK(BM_tuning_fir_build)
    ->Apply(fir_build_rows)
    ->Apply(gpuinterp_bench::device_timed);

} // namespace
#endif
