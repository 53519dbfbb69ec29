/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Kernel benchmarks of the parallel-Hammerstein predistorter (complex64 in, complex64 out).
//  - dpd_cpu:          the CPU fast path (AVX2 + OpenMP), 2^20 samples by default;
//  - dpd_cpu_scalar:   a plain scalar loop over the equation (what the fast path is measured against);
//  - dpd_cuda_kernel:  the fused CUDA kernel alone on device-resident data, 2^26 samples, per variant
//                      (1 = shuffle, 2 = smem halo, 3 = shuffle_x, 4 = tiled, 5 = tiled8, 0 = automatic,
//                      6 / 7 = tiled on 128 / 512 threads, 8 = tiled with 8 outputs on 256 threads; the
//                      label names the kernel that ran), through the lab (bench/dpd_ph_lab.h: 1, 3 and 5
//                      lost the measurements and are not in the library), with the memory floor
//                      (16 B/sample at 4169 GB/s);
//  - dpd_cuda_host:    host-to-host through the kernel front end, pinned staging vs mapped zero-copy.
// Rows (P, Q, L) with Lp = Lq = L: (5,3,5), (7,7,8), (9,5,16), plus (1,0,1) and (9,5,33) on the CPU.
// Generalised memory polynomial (mp/gmp engine), rows of ~30, 95 and 500 complex coefficients and
// the APA scoreboard's mp predistorter (gmp_rows below):
//  - gmp_cpu:          the CPU engine (AVX2 + OpenMP), 2^20 samples by default;
//  - gmp_cuda_kernel:  the kernel alone on device-resident data (bench/kernel_timing.cu), 2^24
//                      samples, compiled for the model (kernel:0 as the engine picks, 2/3/4 with 1/2/4
//                      outputs per thread) or interpreted (kernel:1), against both floors:
//                      memory (16 B/sample at 4169 GB/s, the measured D2D copy) and FMA (the
//                      program's fused multiply-adds per sample at 30e12 FMA/s = 60 TFLOP/s FP32);
//                      `of_bound` is the binding floor over the measured time;
//  - tuning_gmp_build: the compiled kernel as kernel:0 with other blocks and tiles (threads x
//                      outputs per thread, gmp_build's 256 x 8 among them), 2^24 samples;
//  - gmp_cuda_device:  process_device() on device buffers (history seam included), 2^24 samples.
// items_per_second counts samples. GPUINTERP_BENCH_LOG2N overrides the problem size.
#include "../lib/device/device_ops.h"
#include "../lib/kernel/dpd_bank_engine.h"
#include "../lib/kernel/engine_factory.h"
#include "../lib/kernel/gmp_engine.h"
#include "device_channels.h"
#ifdef GPUINTERP_HAVE_CUDA
#include "../lib/cuda/cuda_engines.h"
#include "cuda/dpd_ph_tuning.h"
#include "dpd_ph_lab.h"
#include "kernel_timing.h"
#endif
#include "bench_util.h"
#include <gnuradio/gpuinterp/kernel/dpd_bank.h>
#include <gnuradio/gpuinterp/kernel/dpd_predistorter.h>
#include <benchmark/benchmark.h>
#include <algorithm>
#include <array>
#include <iterator>

using namespace gr::gpuinterp;
using cf = std::complex<float>;

namespace {

//! Coefficients of a plausible predistorter: unit linear tap, small memory and nonlinear taps.
std::vector<cf> coeffs(unsigned P, unsigned Q, unsigned L)
{
    std::vector<cf> c(kernel::dpd_model::ph_params(P, Q, L, L).num_coefficients());
    for (size_t i = 0; i < c.size(); i++)
        c[i] = cf(0.01f * float((i * 7) % 11) - 0.05f, 0.003f * float((i * 5) % 7));
    c[0] = 1.0f;
    return c;
}

std::vector<cf> signal(size_t n)
{
    auto x = gpuinterp_bench::data<cf>(n);
    for (auto& v : x)
        v *= 0.5f;
    return x;
}

void rows_cpu(benchmark::internal::Benchmark* b)
{
    b->ArgNames({ "P", "Q", "L" });
    for (auto r : std::vector<std::array<int64_t, 3>>{
             { 5, 3, 5 }, { 7, 7, 8 }, { 9, 5, 16 }, { 1, 0, 1 }, { 9, 5, 33 } })
        b->Args({ r[0], r[1], r[2] });
}

//! Times k.process() over n samples of signal(n) per iteration.
void run_process(benchmark::State& st, kernel::dpd_predistorter& k, size_t n)
{
    auto x = signal(n);
    std::vector<cf> y(n);
    for (auto _ : st) {
        k.process(y.data(), x.data(), n);
        benchmark::DoNotOptimize(y.data());
    }
    st.SetItemsProcessed(int64_t(st.iterations()) * n);
}

void BM_dpd_cpu(benchmark::State& st)
{
    const unsigned P = unsigned(st.range(0)), Q = unsigned(st.range(1)),
                   L = unsigned(st.range(2));
    const size_t n = size_t(1) << gpuinterp_bench::log2n(20);
    kernel::dpd_predistorter k(kernel::dpd_model::ph_params(P, Q, L, L),
                               coeffs(P, Q, L),
                               cf(0.01f, -0.02f),
                               backend::cpu);
    run_process(st, k, n);
}
BENCHMARK(BM_dpd_cpu)->Apply(rows_cpu)->Apply(gpuinterp_bench::wall_timed);

//! The equation as written, one sample at a time (complex<float>, pow-free powers): the baseline.
void BM_dpd_cpu_scalar(benchmark::State& st)
{
    const unsigned P = unsigned(st.range(0)), Q = unsigned(st.range(1)),
                   L = unsigned(st.range(2));
    const size_t n = size_t(1) << gpuinterp_bench::log2n(20);
    const auto co = coeffs(P, Q, L);
    const cf c(0.01f, -0.02f);
    const unsigned Rp = (P + 1) / 2;
    auto x = signal(n);
    std::vector<cf> y(n);
    for (auto _ : st) {
        for (size_t i = 0; i < n; i++) {
            cf z = c;
            for (unsigned k = 0; k < L && k <= i; k++) {
                const cf v = x[i - k];
                const float a2 = std::norm(v);
                cf b = v;
                for (unsigned p = 1; p <= std::max(P, Q); p += 2, b *= a2) {
                    if (p <= P)
                        z += co[(p - 1) / 2 * L + k] * b;
                    if (Q && p <= Q)
                        z += co[Rp * L + (p - 1) / 2 * L + k] * std::conj(b);
                }
            }
            y[i] = z;
        }
        benchmark::DoNotOptimize(y.data());
    }
    st.SetItemsProcessed(int64_t(st.iterations()) * n);
}
BENCHMARK(BM_dpd_cpu_scalar)
    ->ArgNames({ "P", "Q", "L" })
    ->Args({ 5, 3, 5 })
    ->Apply(gpuinterp_bench::wall_timed);

const char* const gmp_rows[] = {
    "gmp:Ka=5,La=6",                                   // 30: aligned terms only
    "gmp:Ka=5,La=10,Kb=3,Lb=5,Mb=2,Kc=3,Lc=5,Mc=1",    // 95
    "gmp:Ka=10,La=20,Kb=5,Lb=10,Mb=3,Kc=5,Lc=10,Mc=3", // 500
    "mp:K=5,M=100", // 500: the APA scoreboard's predistorter
    // 26 + LO: the Arena preset `compact` (data/models/dpd_compact_apa200b.json)
    "gmp:Ka=1,La=14,Kb=2,Lb=3,Mb=1,Kc=2,Lc=3,Mc=1",
};

std::vector<cf> gmp_coeffs(const kernel::dpd_model& m)
{
    std::vector<cf> c(m.num_coefficients());
    for (size_t i = 0; i < c.size(); i++)
        c[i] = cf(0.01f * float((i * 7) % 11) - 0.05f, 0.003f * float((i * 5) % 7));
    c[0] = 1.0f;
    return c;
}

//! One run per model of gmp_rows, the argument "row".
void each_gmp_row(benchmark::internal::Benchmark* b)
{
    b->ArgName("row")->DenseRange(0, int64_t(std::size(gmp_rows)) - 1);
}

void BM_gmp_cpu(benchmark::State& st)
{
    const auto m = kernel::dpd_model::parse(gmp_rows[st.range(0)]);
    const size_t n = size_t(1) << gpuinterp_bench::log2n(20);
    kernel::dpd_predistorter k(m, gmp_coeffs(m), cf(0.01f, -0.02f), backend::cpu);
    run_process(st, k, n);
    st.counters["coefficients"] = double(m.num_coefficients());
    st.SetLabel(m.to_string());
}
BENCHMARK(BM_gmp_cpu)->Apply(each_gmp_row)->Apply(gpuinterp_bench::wall_timed);

#ifdef GPUINTERP_HAVE_CUDA
// kernel: 0 as the engine picks (gmp_jit_shape_for and the tuning row's grid), 1 interpreted,
// then compiled: 2..4 V = 1, 2, 4 with the coefficients in the constant bank; 5, 6 V = 2, 4 with
// all of them in shared memory; V = 2 with the grid of 1 (7 constant bank, 8 shared) or 4 (9, 10)
// device-fulls of blocks or of one tile per block (11, shared); 12 V = 2 with the first 256
// coefficients from the constant bank and the rest from shared memory, 13..15 the same after 64,
// 96, 192; 16 after 128 (the sm_90 row's) on 8 device-fulls of blocks.
const gpu::gmp_kernel_choice kernel_arg[] = {
    {},
    { false },
    { true, 1 },
    { true, 2 },
    { true, 4 },
    { true, 2, true },
    { true, 4, true },
    { true, 2, false, 1 },
    { true, 2, true, 1 },
    { true, 2, false, 4 },
    { true, 2, true, 4 },
    { true, 2, true, 1 << 20 },
    { true, 2, true, 0, 256 },
    { true, 2, true, 0, 64 },
    { true, 2, true, 0, 96 },
    { true, 2, true, 0, 192 },
    { true, 2, true, 8, 128 },
};
const char* const kernel_name[] = { "compiled",
                                    "interpreted",
                                    "compiled V=1",
                                    "compiled V=2",
                                    "compiled V=4",
                                    "compiled V=2 shared",
                                    "compiled V=4 shared",
                                    "compiled V=2, 1 wave",
                                    "compiled V=2 shared, 1 wave",
                                    "compiled V=2, 4 waves",
                                    "compiled V=2 shared, 4 waves",
                                    "compiled V=2 shared, a tile per block",
                                    "compiled V=2 shared after 256 constant",
                                    "compiled V=2 shared after 64 constant",
                                    "compiled V=2 shared after 96 constant",
                                    "compiled V=2 shared after 192 constant",
                                    "compiled V=2 shared after 128 constant, 8 waves" };

//! One row of the compiled/interpreted kernel comparisons: `choice` on gmp_rows[row].
void time_gmp_row(benchmark::State& st,
                  int row,
                  const gpu::gmp_kernel_choice& choice,
                  const std::string& name)
{
    if (gpuinterp_bench::skip_without_cuda(st))
        return;
    const auto m = kernel::dpd_model::parse(gmp_rows[row]);
    const auto prog = kernel::make_gmp_program(m, gmp_coeffs(m), cf(0.01f, -0.02f));
    const size_t n = size_t(1) << gpuinterp_bench::log2n(24);
    const double ms = gpuinterp_bench::run_device_timed(
        st, [&] { return gpu::time_gmp_kernel_ms(0, prog, n, 20, choice); });
    st.SetItemsProcessed(int64_t(st.iterations()) * n);
    const double mem_ms = double(n) * 16 / 4169e9 * 1e3;
    const double fma_ms = double(n) * double(prog.fmas_per_sample()) / 30e12 * 1e3;
    st.counters["coefficients"] = double(m.num_coefficients());
    st.counters["fma_per_sample"] = double(prog.fmas_per_sample());
    st.counters["mem_floor_ms"] = mem_ms;
    st.counters["fma_floor_ms"] = fma_ms;
    st.counters["kernel_ms"] = ms;
    st.counters["Gsps"] = double(n) / (ms * 1e-3) / 1e9;
    st.counters["of_bound"] = std::max(mem_ms, fma_ms) / ms;
    st.SetLabel(std::string(mem_ms >= fma_ms ? "memory-bound" : "FMA-bound") + " " +
                name);
}

void BM_gmp_cuda_kernel(benchmark::State& st)
{
    time_gmp_row(st, int(st.range(0)), kernel_arg[st.range(1)], kernel_name[st.range(1)]);
}
BENCHMARK(BM_gmp_cuda_kernel)
    ->ArgNames({ "row", "kernel" })
    ->ArgsProduct({ { 0, 1, 2, 3 },
                    { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 } })
    ->Args({ 4, 0 })
    ->Args({ 4, 1 })
    ->Apply(gpuinterp_bench::device_timed);

// The compiled kernel's block and tile (gmp_build.jit_threads x jit_outputs) in the shape the
// engine picks for the row (kernel:0 above), for each of gmp_lab_blocks (kernel_timing.h), the
// library's 256 x 8 first.
void BM_tuning_gmp_build(benchmark::State& st)
{
    gpu::gmp_kernel_choice c;
    c.threads = int(st.range(1));
    c.outputs = int(st.range(2));
    time_gmp_row(st,
                 int(st.range(0)),
                 c,
                 "compiled, " + std::to_string(c.threads) + " threads x " +
                     std::to_string(c.outputs) + " outputs");
}
BENCHMARK(BM_tuning_gmp_build)
    ->ArgNames({ "row", "threads", "outputs" })
    ->Apply([](benchmark::internal::Benchmark* b) {
        for (int64_t row : { 0, 1, 2, 3 })
            for (const auto& p : gpu::gmp_lab_blocks)
                b->Args({ row, p.threads, p.outputs });
    })
    ->Apply(gpuinterp_bench::device_timed);

void BM_gmp_cuda_device(benchmark::State& st)
{
    if (gpuinterp_bench::skip_without_cuda(st))
        return;
    const auto m = kernel::dpd_model::parse(gmp_rows[st.range(0)]);
    const size_t n = size_t(1) << gpuinterp_bench::log2n(24);
    kernel::dpd_predistorter k(m, gmp_coeffs(m), cf(0.01f, -0.02f), backend::cuda);
    const gpuinterp_bench::device_channels dev(1, signal(n), n * sizeof(cf));
    const cf* din = dev.in()[0];
    cf* dout = dev.out<cf>()[0];
    k.process_device(dout, din, n); // warm-up
    for (auto _ : st)
        k.process_device(dout, din, n);
    st.SetItemsProcessed(int64_t(st.iterations()) * n);
    st.SetLabel(m.to_string());
}
BENCHMARK(BM_gmp_cuda_device)->Apply(each_gmp_row)->Apply(gpuinterp_bench::wall_timed);

void rows_gpu(benchmark::internal::Benchmark* b)
{
    b->ArgNames({ "P", "Q", "L", "variant" });
    // shuffle, smem, shuffle_x, tiled, tiled8, automatic, tiled_nt128, tiled_nt512, tiled8_nt256
    for (int64_t v : { 1, 2, 3, 4, 5, 0, 6, 7, 8 })
        for (auto r : std::vector<std::array<int64_t, 3>>{
                 { 5, 3, 5 }, { 7, 7, 8 }, { 9, 5, 16 } })
            b->Args({ r[0], r[1], r[2], v });
}

void BM_dpd_cuda_kernel(benchmark::State& st)
{
    if (gpuinterp_bench::skip_without_cuda(st))
        return;
    const unsigned P = unsigned(st.range(0)), Q = unsigned(st.range(1)),
                   L = unsigned(st.range(2));
    const auto v = gpu::dpd_lab_variant(st.range(3));
    const size_t n = size_t(1) << gpuinterp_bench::log2n(26);
    const auto m = kernel::pack_dpd(
        kernel::dpd_model::ph_params(P, Q, L, L), coeffs(P, Q, L), cf(0.01f, -0.02f));
    gpu::dpd_lab_variant used = v;
    const double ms = gpuinterp_bench::run_device_timed(st, [&] {
        return gpu::time_dpd_lab_kernel_ms(0, { m, v }, n, 20, &used);
    });
    st.SetItemsProcessed(int64_t(st.iterations()) * n);
    // Memory floor: 8 B read + 8 B written per sample at 4169 GB/s (measured D2D copy on the H200).
    const double floor_ms = double(n) * 16 / 4169e9 * 1e3;
    st.counters["floor_ms"] = floor_ms;
    st.counters["kernel_ms"] = ms;
    st.counters["Gsps"] = double(n) / (ms * 1e-3) / 1e9;
    st.counters["of_floor"] = floor_ms / ms;
    st.SetLabel(gpu::to_string(used));
}
BENCHMARK(BM_dpd_cuda_kernel)->Apply(rows_gpu)->Apply(gpuinterp_bench::device_timed);

// The sweeps of the build and run-time values of the ph tuning table (cuda/dpd_ph_tuning.h) that
// the variant rows above do not cover, as BM_dpd_cuda_kernel times them (2^26 samples, median
// launch). variant: a dpd_lab_variant (4 tiled, 9 tiled_generic, 10 tiled_unroll5, 2 smem, 11
// smem_nt128, 12 smem_nt512, 13 smem_r3, 14 smem_r5); blocking / halo: the row's
// smem_blocking_above_taps / smem_outputs_per_halo, -1 for the device's. The rows:
//  - the tiled kernel's unrolled orders (none / up to 5 / all 8, the library's), M = 3 .. 8;
//  - the smem kernel's block and register blocking, at the tiled rows (where smem runs for
//    misaligned device buffers) and at filters longer than tiled's halo (where automatic runs it);
//  - register blocking from L = 5 (the row) against from L = 1 and never, L = 2 .. 8;
//  - outputs per halo sample 1 .. 16 on the long filters.
void BM_tuning_ph(benchmark::State& st)
{
    if (gpuinterp_bench::skip_without_cuda(st))
        return;
    const unsigned P = unsigned(st.range(0)), Q = unsigned(st.range(1)),
                   L = unsigned(st.range(2));
    const auto v = gpu::dpd_lab_variant(st.range(3));
    gpu::ph_tuning row = gpu::ph_tuning_for(90);
    if (st.range(4) >= 0)
        row.smem_blocking_above_taps = int(st.range(4));
    if (st.range(5) >= 0)
        row.smem_outputs_per_halo = int(st.range(5));
    const size_t n = size_t(1) << gpuinterp_bench::log2n(26);
    const auto m = kernel::pack_dpd(
        kernel::dpd_model::ph_params(P, Q, L, L), coeffs(P, Q, L), cf(0.01f, -0.02f));
    gpu::dpd_lab_variant used = v;
    const double ms = gpuinterp_bench::run_device_timed(st, [&] {
        return gpu::time_dpd_lab_kernel_ms(0, { m, v, &row }, n, 20, &used);
    });
    st.SetItemsProcessed(int64_t(st.iterations()) * n);
    st.counters["kernel_ms"] = ms;
    st.SetLabel(gpu::to_string(used));
}
void tuning_ph_rows(benchmark::internal::Benchmark* b)
{
    b->ArgNames({ "P", "Q", "L", "variant", "blocking", "halo" });
    using row = std::array<int64_t, 3>;
    for (auto r : std::vector<row>{
             { 5, 3, 5 }, { 7, 7, 8 }, { 9, 5, 16 }, { 11, 0, 4 }, { 15, 11, 8 } })
        for (int64_t v : { 4, 9, 10 })
            b->Args({ r[0], r[1], r[2], v, -1, -1 });
    for (auto r :
         std::vector<row>{ { 5, 3, 5 }, { 9, 5, 16 }, { 3, 1, 300 }, { 5, 3, 700 } })
        for (int64_t v : { 2, 11, 12, 13, 14 })
            b->Args({ r[0], r[1], r[2], v, -1, -1 });
    for (int64_t L : { 2, 3, 4, 5, 8 })
        for (int64_t blocking : { 0, 1 << 20 })
            b->Args({ 5, 3, L, 2, blocking, -1 });
    for (auto r : std::vector<row>{ { 3, 1, 300 }, { 5, 3, 700 }, { 1, 0, 1024 } })
        for (int64_t halo : { 1, 2, 4, 8, 16 })
            b->Args({ r[0], r[1], r[2], 2, -1, halo });
}
BENCHMARK(BM_tuning_ph)->Apply(tuning_ph_rows)->Apply(gpuinterp_bench::device_timed);

void BM_dpd_cuda_host(benchmark::State& st)
{
    if (gpuinterp_bench::skip_without_cuda(st))
        return;
    const unsigned P = 5, Q = 3, L = 5;
    const bool mapped = st.range(1) != 0;
    const size_t n = size_t(1) << gpuinterp_bench::log2n(26);
    kernel::dpd_predistorter k(kernel::dpd_model::ph_params(P, Q, L, L),
                               coeffs(P, Q, L),
                               cf(0.01f, -0.02f),
                               backend::cuda,
                               0,
                               size_t(st.range(0)),
                               mapped);
    auto x = signal(n);
    std::vector<cf> y(n);
    k.process(y.data(), x.data(), n); // warm-up: page faults, pinned allocations
    for (auto _ : st) {
        k.process(y.data(), x.data(), n);
        benchmark::DoNotOptimize(y.data());
    }
    st.SetItemsProcessed(int64_t(st.iterations()) * n);
    st.SetLabel(mapped ? "mapped" : "pinned");
}
BENCHMARK(BM_dpd_cuda_host)
    ->ArgNames({ "batch", "mapped" })
    ->ArgsProduct({ { 1 << 16, 1 << 18, 1 << 20, 1 << 22 }, { 0, 1 } })
    ->Apply(gpuinterp_bench::wall_timed);

// The predistorter bank (kernel/dpd_bank.h) on device buffers: N channels of ph (5,3,5), each
// with its own coefficients, 2^22 samples per channel, fc32 or sc16 out; process_device() as the
// block calls it (history seams, the counters' copy and the final synchronise included). Items:
// samples of all channels, so items/s compares per-sample throughput across N.
void BM_dpd_bank_cuda_device(benchmark::State& st)
{
    if (gpuinterp_bench::skip_without_cuda(st))
        return;
    const unsigned N = unsigned(st.range(0));
    const auto fmt =
        st.range(1) ? kernel::sample_format::sc16 : kernel::sample_format::fc32;
    const size_t n = size_t(1) << gpuinterp_bench::log2n(22),
                 bytes = kernel::sample_bytes(fmt);
    const auto m = kernel::dpd_model::parse("ph:P=5,Q=3,Lp=5,Lq=5");
    kernel::dpd_bank k(m, N, coeffs(5, 3, 5), cf(0.01f, -0.02f), [&] {
        kernel::dpd_bank::options o(backend::cuda);
        o.output_format = fmt;
        return o;
    }());
    for (unsigned c = 0; c < N; c++) {
        auto h = coeffs(5, 3, 5);
        h[0] *= 1.0f + 0.01f * c;
        k.set_coefficients(c, h, cf(0));
    }
    const gpuinterp_bench::device_channels dev(N, signal(n), n * bytes);
    const auto out = dev.out();
    k.process_device(out.data(), dev.in(), n); // warm-up
    for (auto _ : st)
        k.process_device(out.data(), dev.in(), n);
    st.SetItemsProcessed(int64_t(st.iterations()) * n * N);
    st.SetLabel(std::string(kernel::to_string(fmt)) +
                (k.one_launch() ? ", one launch" : ""));
}
BENCHMARK(BM_dpd_bank_cuda_device)
    ->ArgNames({ "channels", "sc16" })
    ->ArgsProduct({ { 1, 4, 16, 64 }, { 0, 1 } })
    ->Apply(gpuinterp_bench::wall_timed);

// One channel of ph (5,3,5), fc32, device buffers, 2^22 samples: the single-channel engine the bank
// uses at N = 1 (engine 0) against the bank's one-launch engine given one channel (engine 1), the
// same packed values. Whether the single-channel engine earns its place is this pair of rows.
void BM_dpd_engine_n1(benchmark::State& st)
{
    if (gpuinterp_bench::skip_without_cuda(st))
        return;
    const bool bank = st.range(0) != 0;
    const size_t n = size_t(1) << gpuinterp_bench::log2n(22);
    const auto m = kernel::dpd_model::parse("ph:P=5,Q=3,Lp=5,Lq=5");
    const auto packed = kernel::pack_dpd(m, coeffs(5, 3, 5), cf(0.01f, -0.02f));
    const gpuinterp_bench::device_channels dev(1, signal(n), n * sizeof(cf));
    const auto out = dev.out();
    std::unique_ptr<kernel::dpd_bank_engine> b;
    std::unique_ptr<kernel::dpd_engine> e;
    if (bank) {
        b = gpu::make_cuda_dpd_bank_engine(
            { 0, 1, {}, kernel::dpd_predistorter::default_batch, false }, packed);
        b->set_model(0, packed);
    } else {
        e = kernel::make_dpd_engine(
            backend::cuda, 0, kernel::dpd_predistorter::default_batch, false);
        e->set_model(packed);
    }
    const auto run = [&] {
        if (bank)
            b->process(
                out.data(), reinterpret_cast<const void* const*>(dev.in()), n, true);
        else
            e->process_device(static_cast<cf*>(out[0]), dev.in()[0], n);
    };
    run(); // warm-up
    for (auto _ : st)
        run();
    st.SetItemsProcessed(int64_t(st.iterations()) * n);
    st.SetLabel(bank ? "bank engine, one channel" : "single-channel engine");
}
BENCHMARK(BM_dpd_engine_n1)
    ->ArgNames({ "engine" })
    ->DenseRange(0, 1)
    ->Apply(gpuinterp_bench::wall_timed);
#endif

} // namespace
