/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The table lookup's CUDA entry point on device memory (lookup_device(), as the block calls it
// with device buffers: one launch and a synchronise), complex64 out, a 4096-entry table, 2^24
// inputs, texture (9-bit weights) and exact; next to the memory floor of its 12 bytes per item (a
// float in, a complex float out) at the device copy rate the GMP rows use. This is the
// measurement behind table_lookup_tuning.h's row: a row within a few per cent of the floor leaves
// no other block size or grid cap much to gain.
#ifdef GPUINTERP_HAVE_CUDA
#include "../lib/device/device_ops.h"
#include "bench_util.h"
#include <gnuradio/gpuinterp/kernel/table_lookup.h>
#include <benchmark/benchmark.h>

using namespace gr::gpuinterp;
using cf = std::complex<float>;

namespace {

void BM_table_lookup_cuda_device(benchmark::State& st)
{
    if (cuda_device_count() == 0) {
        st.SkipWithError("no CUDA device");
        return;
    }
    const bool texture = st.range(0) != 0;
    const size_t n = size_t(1) << gpuinterp_bench::log2n(24);
    kernel::lookup_config c;
    c.normalized = true;
    c.precision =
        texture ? kernel::lookup_precision::texture : kernel::lookup_precision::exact;
    kernel::table_lookup_fc k(gpuinterp_bench::data<cf>(4096), c, backend::cuda);
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
    // The memory floor at the H200's measured device copy rate (4169 GB/s, as BM_gmp_cuda_kernel's floor).
    st.counters["mem_floor_ms"] = double(n) * 12 / 4169e9 * 1e3;
    st.SetLabel(texture ? "texture" : "exact");
    ops->free_device(in);
    ops->free_device(out);
}
BENCHMARK(BM_table_lookup_cuda_device)
    ->ArgName("texture")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

} // namespace
#endif
