/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The resampler's device-buffer call as the block makes it, complex float out against sc16 out
// (resample_items with device = true): polyphase x1.25, calls of 2^21 inputs into 2^22-item
// outputs, the history seam, the counters' copy and the final synchronise included. Items:
// inputs. The kernels alone are BM_resamp_cuda_kernel_cc's rows.
//
// The table lookup's device entry point the same way (lookup_device(): one launch and a
// synchronise), complex64 out, a 4096-entry table, 2^24 inputs, exact and texture (9-bit
// weights), next to the memory floor of its 12 bytes per item (a float in, a complex float out)
// at the device copy rate of the GMP rows' floor (4169 GB/s): the GPU figure behind
// table_lookup_tuning.h's row. BM_tuning_lookup: the same call on an engine built from another
// row, threads and blocks_per_sm varied (a sweep of bench_k_tuning.cc's, kept here to share the
// loop).
#ifdef GPUINTERP_HAVE_CUDA
#include "../lib/device/device_ops.h"
#include "bench_util.h"
#include "cuda/cuda_engines.h"
#include "device_channels.h"
#include <gnuradio/gpuinterp/kernel/resampler.h>
#include <gnuradio/gpuinterp/kernel/table_lookup.h>
#include <benchmark/benchmark.h>

using namespace gr::gpuinterp;
using cf = std::complex<float>;

namespace {

void BM_resamp_cuda_device(benchmark::State& st)
{
    if (gpuinterp_bench::skip_without_cuda(st))
        return;
    const bool sc16 = st.range(0) != 0;
    const size_t n = size_t(1) << gpuinterp_bench::log2n(21), max_out = 2 * n;
    kernel::polyphase_params pp;
    pp.nfilts = 32;
    pp.taps_per_arm = 32;
    kernel::resampler_cc k(1.25, kernel::resamp_method::polyphase, backend::cuda, 0, pp);
    const gpuinterp_bench::device_channels dev(
        1, std::vector<cf>(n, cf(0.1f, -0.2f)), max_out * sizeof(cf));
    const void* in[] = { dev.in()[0] };
    void* out[] = { dev.out()[0] };
    size_t used = 0, produced = 0;
    const auto format = sc16 ? kernel::sample_format::sc16 : kernel::sample_format::fc32;
    auto call = [&] {
        return k.resample_items(out, max_out, in, n, used, format, 1.0f, true);
    };
    call(); // warm-up: kernels loaded, history on the device
    for (auto _ : st)
        produced += call();
    st.SetItemsProcessed(int64_t(st.iterations()) * int64_t(n));
    st.counters["outputs_per_call"] =
        double(produced) / double(std::max<int64_t>(1, st.iterations()));
    st.SetLabel(sc16 ? "sc16 out" : "fc32 out");
}
// Two rows, the argument off and on.
void off_and_on(benchmark::internal::Benchmark* b)
{
    b->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();
}
BENCHMARK(BM_resamp_cuda_device)->ArgName("sc16")->Apply(off_and_on);

// The lookup of these rows: normalized coordinates, exact or texture precision.
kernel::lookup_config lookup_rows_config(bool texture)
{
    kernel::lookup_config c;
    c.normalized = true;
    c.precision =
        texture ? kernel::lookup_precision::texture : kernel::lookup_precision::exact;
    return c;
}

// One row of lookup_device() calls on `k` (the front end, or an engine), its table set.
template <typename Lookup>
void lookup_device_row(benchmark::State& st, Lookup& k, bool texture)
{
    const size_t n = size_t(1) << gpuinterp_bench::log2n(24);
    auto ops = device::make_device_ops(device_binding{ memory_kind::cuda, 0 });
    std::vector<float> x(n);
    for (size_t i = 0; i < n; i++)
        x[i] = float((i * 2654435761u) % 100000) * 1e-5f;
    auto* in = static_cast<float*>(ops->alloc_device(n * sizeof(float)));
    ops->copy_async(in, x.data(), n * sizeof(float), device::copy_dir::host_to_device);
    auto* out = static_cast<cf*>(ops->alloc_device(n * sizeof(cf)));
    ops->wait();
    k.lookup_device(out, in, n); // warm-up: table uploaded, kernels loaded
    for (auto _ : st)
        k.lookup_device(out, in, n);
    st.SetItemsProcessed(int64_t(st.iterations()) * int64_t(n));
    // The memory floor (file comment).
    st.counters["mem_floor_ms"] = double(n) * 12 / 4169e9 * 1e3;
    st.SetLabel(texture ? "texture" : "exact");
    ops->free_device(in);
    ops->free_device(out);
}

void BM_table_lookup_cuda_device(benchmark::State& st)
{
    if (gpuinterp_bench::skip_without_cuda(st))
        return;
    const bool texture = st.range(0) != 0;
    kernel::table_lookup_fc k(
        gpuinterp_bench::data<cf>(4096), lookup_rows_config(texture), backend::cuda);
    lookup_device_row(st, k, texture);
}
BENCHMARK(BM_table_lookup_cuda_device)->ArgName("texture")->Apply(off_and_on);

// The sm_90 row (the one measured) with threads and blocks_per_sm of the row's arguments.
void BM_tuning_lookup(benchmark::State& st)
{
    if (gpuinterp_bench::skip_without_cuda(st))
        return;
    const bool texture = st.range(0) != 0;
    gpu::table_lookup_tuning t = gpu::table_lookup_tuning_for(90);
    t.threads = int(st.range(1));
    t.blocks_per_sm = int(st.range(2));
    auto k =
        gpu::make_cuda_lookup_engine<cf>(0, kernel::table_lookup_fc::default_batch, t);
    k->set_table(gpuinterp_bench::data<cf>(4096), lookup_rows_config(texture));
    lookup_device_row(st, *k, texture);
}
BENCHMARK(BM_tuning_lookup)
    ->ArgNames({ "texture", "threads", "bps" })
    ->ArgsProduct({ { 0, 1 }, { 128, 256, 512 }, { 8, 16, 32 } })
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

} // namespace
#endif
