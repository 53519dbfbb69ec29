/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The resampler's device-buffer entry points as the block calls them, complex float out
// (resample_device) against sc16 out (resample_sc16 with device = true): polyphase x1.25, calls
// of 2^21 inputs into 2^22-item outputs, the history seam, the counters' copy and the final
// synchronise included. Items: inputs. The kernels alone are BM_resamp_cuda_kernel_cc's rows.
#ifdef GPUINTERP_HAVE_CUDA
#include "bench_util.h"
#include "device_channels.h"
#include <gnuradio/gpuinterp/kernel/resampler.h>
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
    const cf* in = dev.in()[0];
    void* out = dev.out()[0];
    size_t used = 0, produced = 0;
    auto call = [&] {
        if (sc16)
            return k.resample_sc16(
                static_cast<int16_t*>(out), max_out, in, n, used, 1.0f, true);
        return k.resample_device(static_cast<cf*>(out), max_out, in, n, used);
    };
    call(); // warm-up: kernels loaded, history on the device
    for (auto _ : st)
        produced += call();
    st.SetItemsProcessed(int64_t(st.iterations()) * int64_t(n));
    st.counters["outputs_per_call"] =
        double(produced) / double(std::max<int64_t>(1, st.iterations()));
    st.SetLabel(sc16 ? "sc16 out" : "fc32 out");
}
BENCHMARK(BM_resamp_cuda_device)
    ->ArgName("sc16")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

} // namespace
#endif
