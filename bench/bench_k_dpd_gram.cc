/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The estimator kernel dpd_gram: one capture of 2^18 samples (GPUINTERP_BENCH_LOG2N
// overrides) accumulated into the Gram of a 500-coefficient memory polynomial
// (mp:K=5,M=100), then solved over the default lambda grid (27 values) with held-out rows
// (the last 20 % of the capture).
//  - gram_add/<backend>:   add() alone (basis chunks + zherk + zgemv), fit and held-out
//  rows;
//  - gram_solve/<backend>: solve() alone on the accumulated sums (normalisation, zheevd,
//  grid);
//  - gram_fit/<backend>:   both, what one estimate costs.
// Floor of add(): R K^2 complex multiply-adds for zherk's triangle = 4 R K^2 real FLOPs
// (2^18 x 500^2 x 4 = 2.6e11): 2.6 s at 100 GFLOP/s FP64 (a few CPU cores), 3.9 ms at 67
// TFLOP/s (H200 FP64 tensor cores). Counters: flops (zherk's) and items_per_second
// (samples).
#include "bench_util.h"
#include <gnuradio/gpuinterp/kernel/dpd_gram.h>
#include <benchmark/benchmark.h>
#include <cmath>
#include <complex>
#include <memory>

using namespace gr::gpuinterp;
using cd = std::complex<double>;

namespace {

struct capture {
    std::vector<cd> y, x;
    std::vector<uint8_t> fit, val;
    //! Adds the whole capture (its fit and validation masks) to g.
    void add_to(kernel::dpd_gram& g) const
    {
        g.add(y.data(), y.size(), x.data(), fit.data(), val.data());
    }
};

const capture& get_capture()
{
    static const capture c = [] {
        capture c;
        const size_t n = size_t(1) << gpuinterp_bench::log2n(18);
        const auto d = gpuinterp_bench::data<std::complex<float>>(n);
        c.y.resize(n);
        c.x.resize(n);
        c.fit.assign(n, 0);
        c.val.assign(n, 0);
        for (size_t i = 0; i < n; i++) {
            c.y[i] = cd(d[i].real(), d[i].imag()) * 0.5;
            // A mildly compressive PA with memory: enough for a non-trivial fit.
            const cd p = c.y[i] + (i ? 0.1 * c.y[i - 1] : cd(0));
            c.x[i] = p * (1.0 - 0.1 * std::norm(p));
            (i < n * 4 / 5 ? c.fit : c.val)[i] = 1;
        }
        return c;
    }();
    return c;
}

const kernel::dpd_model model = kernel::dpd_model::parse("mp:K=5,M=100");

void counters(benchmark::State& st, size_t n, size_t K, bool add)
{
    st.SetItemsProcessed(int64_t(st.iterations()) * int64_t(n));
    if (add)
        st.counters["flops"] = benchmark::Counter(4.0 * double(n) * double(K) *
                                                      double(K) * double(st.iterations()),
                                                  benchmark::Counter::kIsRate);
}

//! Times, per iteration, a reset and the add() of the whole capture, then `then(g)`.
template <typename F>
void time_capture_adds(benchmark::State& st, backend b, F&& then)
{
    if (gpuinterp_bench::skip_without_cuda(st, b == backend::cuda))
        return;
    const capture& c = get_capture();
    kernel::dpd_gram g(model, false, b, 0);
    for (auto _ : st) {
        g.reset();
        c.add_to(g);
        then(g);
    }
    counters(st, c.y.size(), g.num_columns(), true);
}

void gram_add(benchmark::State& st, backend b)
{
    time_capture_adds(st, b, [](kernel::dpd_gram& g) {
        benchmark::DoNotOptimize(g.fit_rows());
        (void)g.target_energy(0);
        // add() may return before the device finished: reading the (K-sized) rhs waits
        // for it.
        benchmark::DoNotOptimize(g.rhs(0)[0]);
    });
}

void gram_solve(benchmark::State& st, backend b)
{
    if (gpuinterp_bench::skip_without_cuda(st, b == backend::cuda))
        return;
    const capture& c = get_capture();
    kernel::dpd_gram g(model, false, b, 0);
    c.add_to(g);
    kernel::dpd_gram_solution s;
    for (auto _ : st) {
        s = g.solve();
        benchmark::DoNotOptimize(s.w.data());
    }
    st.counters["lambda"] = s.lambda;
    st.counters["condition"] = s.condition;
    st.counters["val_nmse_db"] = s.validation_nmse_db;
}

void gram_fit(benchmark::State& st, backend b)
{
    time_capture_adds(st, b, [](kernel::dpd_gram& g) {
        const auto s = g.solve();
        benchmark::DoNotOptimize(s.w.data());
    });
}

} // namespace

BENCHMARK_CAPTURE(gram_add, cpu, backend::cpu)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(gram_solve, cpu, backend::cpu)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(gram_fit, cpu, backend::cpu)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(gram_add, cuda, backend::cuda)->Apply(gpuinterp_bench::wall_timed);
BENCHMARK_CAPTURE(gram_solve, cuda, backend::cuda)->Apply(gpuinterp_bench::wall_timed);
BENCHMARK_CAPTURE(gram_fit, cuda, backend::cuda)->Apply(gpuinterp_bench::wall_timed);
