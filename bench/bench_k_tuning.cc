/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Sweeps of the run-time tuning values that docs/performance.md ("Tuning tables") lists without
// a comparison: the production kernels on device-resident data, each launch plan built from a
// row of the benchmark's (lib/cuda/*_tuning.h) instead of the device's. A row varies the sm_90
// row (the one measured) in the named fields, whatever device runs it; one filter selects every
// sweep: --benchmark_filter=BM_tuning. Sizes are those of the production rows, so the row that
// equals the default checks against them. kernel_ms: median launch (CUDA events), as theirs.
//  - BM_tuning_fir: BM_interp_cuda_kernel_ccf's shapes (complex64, float taps, 2^24 inputs) by
//    fir_tuning::items_per_thread; stage_below_arms 16 and 32 at L = 16 only (a smaller L is
//    staged under either). Counters TI and stage: what the plan made of the row.
//  - BM_tuning_resamp: BM_resamp_cuda_kernel_cc's linear and cubic rows at r = 1.37 (method:
//    its resamp_method value; 2^26 inputs) by resamp_tuning::threads and blocks_per_sm.
//  - BM_tuning_resamp_tiles: the tiled polyphase kernel with poly_tiles[0] = tile (the smaller
//    fall-backs as the row's), r = 1.25, 1.37 and 0.73; tile_used: the tile that fit (0: none
//    did, the untiled kernel ran).
//  - BM_tuning_lookup (bench_k_resamp_device.cc, beside the production row whose loop it
//    shares): table_lookup_tuning::threads and blocks_per_sm, exact and texture.
#ifdef GPUINTERP_HAVE_CUDA
#include "bench_util.h"
#include "kernel_timing.h"
#include <benchmark/benchmark.h>

using namespace gr::gpuinterp;
using cf = std::complex<float>;

namespace {

// The rows of the sweeps vary this compute capability's row.
constexpr int tuned_sm = 90;

void BM_tuning_fir(benchmark::State& st)
{
    if (gpuinterp_bench::skip_without_cuda(st))
        return;
    gpu::fir_tuning t = gpu::fir_tuning_for(tuned_sm);
    t.items_per_thread = int(st.range(2));
    t.stage_below_arms = int(st.range(3));
    const unsigned L = unsigned(st.range(0));
    const size_t n = size_t(1) << gpuinterp_bench::log2n(24);
    const auto h = gpuinterp_bench::lowpass(L, st.range(1));
    gpu::fir_tuned_timing r;
    gpuinterp_bench::run_device_timed(st, [&] {
        r = gpu::time_fir_kernel_tuned<cf, float>(0, L, h, n, 20, t);
        return r.ms;
    });
    st.SetItemsProcessed(int64_t(st.iterations()) * n * L);
    st.counters["kernel_ms"] = r.ms;
    st.counters["TI"] = r.TI;
    st.counters["stage"] = r.stage;
}
void fir_rows(benchmark::internal::Benchmark* b)
{
    b->ArgNames({ "L", "taps", "items", "stage" });
    for (auto r : std::vector<std::pair<int, int>>{
             { 2, 12 }, { 4, 64 }, { 8, 128 }, { 16, 256 } })
        for (int items = 1; items <= 4; items++)
            for (int stage : { 16, 32 })
                if (stage == 32 || r.first == 16)
                    b->Args({ r.first, r.second, items, stage });
}
BENCHMARK(BM_tuning_fir)->Apply(fir_rows)->Apply(gpuinterp_bench::device_timed);

// One resampler row: method m at rate r on 2^26 inputs (GPUINTERP_BENCH_LOG2N) with the row t.
void resamp_row(benchmark::State& st,
                kernel::resamp_method m,
                double r,
                const gpu::resamp_tuning& t)
{
    const size_t n = size_t(1) << gpuinterp_bench::log2n(26);
    gpu::resamp_tuned_timing res;
    gpuinterp_bench::run_device_timed(st, [&] {
        res = gpu::time_resampler_kernel_tuned(0, m, r, n, 10, t);
        return res.ms;
    });
    st.SetItemsProcessed(int64_t(st.iterations()) * n);
    st.counters["kernel_ms"] = res.ms;
    if (m == kernel::resamp_method::polyphase)
        st.counters["tile_used"] = res.tile;
    st.SetLabel(kernel::to_string(m));
}

void BM_tuning_resamp(benchmark::State& st)
{
    if (gpuinterp_bench::skip_without_cuda(st))
        return;
    gpu::resamp_tuning t = gpu::resamp_tuning_for(tuned_sm);
    t.threads = int(st.range(1));
    t.blocks_per_sm = int(st.range(2));
    resamp_row(st, kernel::resamp_method(st.range(0)), 1.37, t);
}
BENCHMARK(BM_tuning_resamp)
    ->ArgNames({ "method", "threads", "bps" })
    ->ArgsProduct({ { int(kernel::resamp_method::linear),
                      int(kernel::resamp_method::cubic) },
                    { 128, 256, 512 },
                    { 8, 16, 32 } })
    ->Apply(gpuinterp_bench::device_timed);

void BM_tuning_resamp_tiles(benchmark::State& st)
{
    if (gpuinterp_bench::skip_without_cuda(st))
        return;
    gpu::resamp_tuning t = gpu::resamp_tuning_for(tuned_sm);
    t.poly_tiles[0] = int(st.range(0));
    resamp_row(st, kernel::resamp_method::polyphase, st.range(1) / 1000.0, t);
}
BENCHMARK(BM_tuning_resamp_tiles)
    ->ArgNames({ "tile", "rate_x1000" })
    ->ArgsProduct({ { 256, 512, 1024 }, { 1250, 1370, 730 } })
    ->Apply(gpuinterp_bench::device_timed);

} // namespace
#endif
