/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The polyphase interpolation kernel's build constants (lib/cuda/fir_tuning.h, fir_build: R
// outputs of one arm per work item, threads per block) against the other pairs of the lab
// (bench/fir_lab.h): BM_interp_cuda_kernel_ccf's shapes (complex64, float taps, 2^24 inputs, the
// device's tuning row), one row per (shape, pair), the library's pair (R = 9, 256 threads) among
// them; one filter selects the sweep: --benchmark_filter=BM_tuning_fir_build. kernel_ms: median
// launch (CUDA events), as the production rows. Counters TI, stage and taps_smem: what the plan
// made of the pair (the tile holds items_per_thread * threads work items of R inputs).
#ifdef GPUINTERP_HAVE_CUDA
#include "bench_util.h"
#include "fir_lab.h"
#include <benchmark/benchmark.h>

using namespace gr::gpuinterp;

namespace {

void BM_tuning_fir_build(benchmark::State& st)
{
    if (gpuinterp_bench::skip_without_cuda(st))
        return;
    const unsigned L = unsigned(st.range(0));
    const gpu::fir_lab_shape s{ int(st.range(2)), int(st.range(3)) };
    const size_t n = size_t(1) << gpuinterp_bench::log2n(24);
    const auto h = gpuinterp_bench::lowpass(L, st.range(1));
    gpu::fir_lab_timing r;
    gpuinterp_bench::run_device_timed(st, [&] {
        r = gpu::time_fir_lab_kernel(0, s, L, h, n, 20);
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
