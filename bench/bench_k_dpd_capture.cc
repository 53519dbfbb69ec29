/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// One DPD update of the hardware example (examples/dpd_loop_uhd.grc): a 2^19-sample
// loopback capture (GPUINTERP_BENCH_LOG2N overrides) whose delay is 150000 samples,
// searched over max_delay 200000, then the fit of its ph:P=7,Q=0,Lp=4,Lq=1 predistorter
// (16 coefficients and the LO-leakage constant):
//  - dpd_align/<backend>/<hint>: dpd_capture::align() alone (conditioning, delay search,
//    frequency, receiver correction, shift, gain); hint 1 is the steady state, where the
//    previous capture's delay is the hint;
//  - dpd_fit/<backend>: a fit alone, on the aligned capture, lambda chosen on the held-out
//    last 20 % and refitted on every row (the loop's fit before K-fold, kept for its history
//    in docs/performance.md);
//  - dpd_update/<backend>/<hint>: align() and that fit, capture to coefficients;
//  - dpd_step/<backend>: the loop's step as the estimator runs it, kernel::dpd_adapt::step()
//    (conditioning with the hint, the loop NMSE of the set in use, the K-fold fit reading the
//    capture where align() left it, the update and its gain check), the |G| already latched;
//    with GPUINTERP_CUPTI_TRACE set, one further CUDA step's CUPTI timeline is written there.
#include "bench_util.h"
#include "cupti_trace.h"
#include <gnuradio/gpuinterp/kernel/dpd_adapt.h>
#include <gnuradio/gpuinterp/kernel/dpd_capture.h>
#include <gnuradio/gpuinterp/kernel/dpd_gram.h>
#include <benchmark/benchmark.h>
#include <cmath>
#include <complex>
#include <random>
#include <string>

using namespace gr::gpuinterp;
using cd = std::complex<double>;

namespace {
constexpr double true_delay = 150000.0;

struct loop_capture {
    std::vector<cd> x, y;
};

// x: Gaussian noise smoothed by a 4-tap average (a band-limited-enough PA input); y: a
// compressive PA with memory, delayed by true_delay (a fraction would be put in by linear
// interpolation), rotated by a frequency offset, with a receiver image and DC.
const loop_capture& get_capture()
{
    static const loop_capture c = [] {
        loop_capture c;
        const size_t n = size_t(1) << gpuinterp_bench::log2n(19);
        // Seeded Gaussian noise, not bench_util's data(): that pattern repeats with periods
        // near 2000 samples, which every delay search would find.
        std::mt19937 g(7);
        std::normal_distribution<double> nd(0.0, 0.3);
        std::vector<cd> d(n + 4);
        for (auto& v : d)
            v = cd(nd(g), nd(g));
        c.x.resize(n);
        for (size_t i = 0; i < n; i++)
            c.x[i] = 0.25 * (d[i] + d[i + 1] + d[i + 2] + d[i + 3]);
        std::vector<cd> pa(n);
        for (size_t i = 0; i < n; i++) {
            const cd q = c.x[i] + (i ? 0.05 * c.x[i - 1] : cd(0));
            pa[i] = 0.7 * q * (1.0 - 0.1 * std::norm(q));
        }
        const long D = long(std::floor(true_delay));
        const double f = true_delay - double(D);
        c.y.assign(n, 0.0);
        for (long i = D + 1; i < long(n); i++)
            c.y[size_t(i)] = (1 - f) * pa[size_t(i - D)] + f * pa[size_t(i - D - 1)];
        for (size_t i = 0; i < n; i++) {
            c.y[i] *= std::polar(1.0, 2 * 3.141592653589793 * 3e-6 * double(i) + 0.3);
            c.y[i] += cd(0, 0.02) * std::conj(c.y[i]) + cd(0.01, -0.005);
        }
        return c;
    }();
    return c;
}

const kernel::dpd_model model = kernel::dpd_model::parse("ph:P=7,Q=0,Lp=4,Lq=1");

kernel::dpd_capture_options options(bool hint)
{
    kernel::dpd_capture_options o;
    o.max_delay = 200000;
    o.has_delay_hint = hint;
    o.delay_hint = true_delay;
    return o;
}

// Adaptation's fit: the rows whose basis window lies inside the capture and touches no bad
// sample, lambda chosen on the last 20 % (held out, continuing the capture's state), then
// the refit on every row at that lambda.
kernel::dpd_gram_solution fit(kernel::dpd_gram& g, const kernel::dpd_aligned_capture& a)
{
    const size_t n = a.xa.size(), back = model.history(), ahead = model.lookahead();
    std::vector<uint8_t> fit_rows(n, 0), val_rows(n, 0);
    std::vector<size_t> bad_prefix(n + 1, 0);
    for (size_t i = 0; i < n; i++)
        bad_prefix[i + 1] = bad_prefix[i] + a.bad[i];
    const size_t cut = size_t(double(n) * 0.8);
    for (size_t i = back; i + ahead < n; i++)
        if (bad_prefix[i + ahead + 1] == bad_prefix[i - back])
            (i < cut ? fit_rows : val_rows)[i] = 1;
    g.reset();
    g.add(a.yn.data(), n, a.xa.data(), fit_rows.data(), val_rows.data());
    kernel::dpd_gram_options o;
    o.mode = kernel::dpd_gram_options::mode_t::validation;
    const auto pre = g.solve(o);
    g.fold_validation();
    o.mode = kernel::dpd_gram_options::mode_t::fixed;
    o.regularization = pre.lambda;
    return g.solve(o);
}

void dpd_align(benchmark::State& st, backend b)
{
    if (gpuinterp_bench::skip_without_cuda(st, b == backend::cuda))
        return;
    const auto& c = get_capture();
    kernel::dpd_capture k(b);
    const auto o = options(st.range(0) != 0);
    kernel::dpd_aligned_capture a;
    for (auto _ : st) {
        a = k.align(c.x.data(), c.y.data(), c.x.size(), o);
        benchmark::DoNotOptimize(a.xa.data());
    }
    st.counters["delay"] = a.delay;
    st.SetItemsProcessed(int64_t(st.iterations()) * int64_t(c.x.size()));
}

void dpd_fit(benchmark::State& st, backend b)
{
    if (gpuinterp_bench::skip_without_cuda(st, b == backend::cuda))
        return;
    const auto& c = get_capture();
    kernel::dpd_capture k(b);
    const auto a = k.align(c.x.data(), c.y.data(), c.x.size(), options(true));
    kernel::dpd_gram g(model, true, b);
    kernel::dpd_gram_solution s;
    for (auto _ : st) {
        s = fit(g, a);
        benchmark::DoNotOptimize(s.w.data());
    }
    st.counters["lambda"] = s.lambda;
    st.SetItemsProcessed(int64_t(st.iterations()) * int64_t(a.xa.size()));
}

void dpd_update(benchmark::State& st, backend b)
{
    if (gpuinterp_bench::skip_without_cuda(st, b == backend::cuda))
        return;
    const auto& c = get_capture();
    kernel::dpd_capture k(b);
    kernel::dpd_gram g(model, true, b);
    const auto o = options(st.range(0) != 0);
    kernel::dpd_gram_solution s;
    double delay = 0;
    for (auto _ : st) {
        const auto a = k.align(c.x.data(), c.y.data(), c.x.size(), o);
        s = fit(g, a);
        delay = a.delay;
        benchmark::DoNotOptimize(s.w.data());
    }
    st.counters["delay"] = delay;
    st.counters["lambda"] = s.lambda;
    st.counters["fit_nmse_db"] = s.fit_nmse_db;
    st.SetItemsProcessed(int64_t(st.iterations()) * int64_t(c.x.size()));
}

void dpd_step(benchmark::State& st, backend b)
{
    if (gpuinterp_bench::skip_without_cuda(st, b == backend::cuda))
        return;
    const auto& c = get_capture();
    kernel::dpd_adapt_options o;
    o.requested = b;
    o.capture = options(false);
    // The same capture every step: no rollback or gain refusal may skip the fit being timed.
    o.rollback_tolerance_db = 1e9;
    o.max_gain_db = 1e9;
    kernel::dpd_adapt k(model, o);
    for (int latch = 0; latch < 2; latch++)
        k.step(c.x.data(), c.x.size(), c.y.data(), c.y.size());
    kernel::dpd_step_result r;
    for (auto _ : st) {
        r = k.step(c.x.data(), c.x.size(), c.y.data(), c.y.size());
        benchmark::DoNotOptimize(r.coefficients.data());
    }
    if (r.status != "updated")
        st.SkipWithError(("dpd_step: " + r.status + ": " + r.reason).c_str());
    if (b == backend::cuda) {
        // One more step, untimed, recorded with CUPTI when GPUINTERP_CUPTI_TRACE names a
        // directory: what crosses the bus in a step (bench/cupti_timeline.py sums it).
        gpuinterp_bench::cupti_trace t(
            gpuinterp_bench::cupti_trace_path("dpd_step_cuda"));
        k.step(c.x.data(), c.x.size(), c.y.data(), c.y.size());
    }
    st.counters["delay"] = r.delay;
    st.counters["fit_nmse_db"] = r.fit_nmse_db;
    st.SetItemsProcessed(int64_t(st.iterations()) * int64_t(c.x.size()));
}

} // namespace

BENCHMARK_CAPTURE(dpd_step, cpu, backend::cpu)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(dpd_step, cuda, backend::cuda)->Apply(gpuinterp_bench::wall_timed);
BENCHMARK_CAPTURE(dpd_align, cpu, backend::cpu)
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(dpd_update, cpu, backend::cpu)
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(dpd_fit, cpu, backend::cpu)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(dpd_fit, cuda, backend::cuda)->Apply(gpuinterp_bench::wall_timed);
BENCHMARK_CAPTURE(dpd_align, cuda, backend::cuda)
    ->Arg(0)
    ->Arg(1)
    ->Apply(gpuinterp_bench::wall_timed);
BENCHMARK_CAPTURE(dpd_update, cuda, backend::cuda)
    ->Arg(0)
    ->Arg(1)
    ->Apply(gpuinterp_bench::wall_timed);
