/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Kernel tests of the parallel-Hammerstein predistorter against a naive double-precision reference
//     z[n] = sum_p sum_k h_{p,k} psi_p(x[n-k]) + sum_q sum_k g_{q,k} conj(psi_q(x[n-k])) + c,
//     psi_p(x) = x |x|^(p-1), zero history,
// on the CPU and, when a device is present, on every CUDA kernel variant of the library, the default and
// the mapped pipeline, and on the lab's variants (bench/dpd_ph_lab.h) launched without an engine.
#include "common/parallel.h"
#include "cpu/cpu_engines.h"
#include "test_util.h"
#include <gnuradio/gpuinterp/kernel/dpd_predistorter.h>
#include <array>
#include <functional>
#ifdef GPUINTERP_DPD_LAB
#include "../bench/dpd_ph_lab.h" // the lab's variants: bench/dpd_ph_lab.cu
#include "cuda/dpd_ph_tuning.h"
#endif

using namespace gpuinterp_test;
using gr::gpuinterp::kernel::dpd_cuda_variant;
using gr::gpuinterp::kernel::dpd_predistorter;

namespace {

struct model {
    unsigned P, Q, Lp, Lq;
    std::vector<cf> co;
    cf c;
};

//! z (double) and, per sample, S = |c| + sum |coef| |psi|: the scale float rounding errors live on.
struct reference_out {
    std::vector<cd> z;
    std::vector<double> S;
};

//! The reference at the outputs `at` only (in that order); all outputs when `at` is empty.
reference_out
reference(const model& m, const std::vector<cf>& x, const std::vector<size_t>& at = {})
{
    reference_out r;
    const size_t count = at.empty() ? x.size() : at.size();
    r.z.assign(count, to_d(m.c));
    r.S.assign(count, std::abs(to_d(m.c)));
    auto psi = [](cd v, unsigned p) { return v * std::pow(std::norm(v), (p - 1) / 2.0); };
    const unsigned Rp = (m.P + 1) / 2;
    for (size_t j = 0; j < count; j++) {
        const size_t n = at.empty() ? j : at[j];
        for (unsigned p = 1; p <= m.P; p += 2)
            for (unsigned k = 0; k < m.Lp && k <= n; k++) {
                const cd h = to_d(m.co[(p - 1) / 2 * m.Lp + k]);
                const cd b = psi(to_d(x[n - k]), p);
                r.z[j] += h * b;
                r.S[j] += std::abs(h) * std::abs(b);
            }
        for (unsigned q = 1; m.Q && q <= m.Q; q += 2)
            for (unsigned k = 0; k < m.Lq && k <= n; k++) {
                const cd g = to_d(m.co[Rp * m.Lp + (q - 1) / 2 * m.Lq + k]);
                const cd b = std::conj(psi(to_d(x[n - k]), q));
                r.z[j] += g * b;
                r.S[j] += std::abs(g) * std::abs(b);
            }
    }
    return r;
}

/*
 * Tolerance, per sample: |z - z_ref| <= 2 (3M + 3 + 2T) 2^-24 S[n], with M = (max(P,Q)+1)/2 orders
 * and T taps in total over the orders (the float kernel does 4T fused multiply-adds per output,
 * 2T per component chain). It is the first-order worst-case bound of the float computation:
 * psi_m has a relative error of at most ~3m 2^-24 per component (|x|^2 with 2 roundings, then one
 * multiply per order), each component is a chain of 2T+1 multiply-adds whose rounding errors are
 * bounded by the chain length times 2^-24 times the sum of the absolute terms, and the factor 2
 * covers the two components of a complex value and the 2x2 packing of h and g (<= sqrt2 * S each).
 * Measuring against S rather than |z| matters: with random taps and |x| up to 4, psi_9 reaches
 * 2.6e5 and terms cancel, so |z| can be far below the rounding noise of its largest terms; S is
 * what any float implementation (numpy complex64 included) is accurate to. A wrong tap, order or
 * delay changes z by a whole term, orders of magnitude above this bound (the identity/delay tests
 * below check exact placement on top).
 */
::testing::AssertionResult matches(const std::vector<cf>& got,
                                   const reference_out& want,
                                   const model& m,
                                   size_t from = 0)
{
    if (got.size() != want.z.size())
        return ::testing::AssertionFailure()
               << "size " << got.size() << " != " << want.z.size();
    const unsigned M = (std::max(m.P, m.Q) + 1) / 2;
    unsigned T = 0;
    for (unsigned o = 0; o < M; o++)
        T +=
            std::max(o < (m.P + 1) / 2 ? m.Lp : 0u, m.Q && o < (m.Q + 1) / 2 ? m.Lq : 0u);
    const double u = std::ldexp(1.0, -24);
    const double gamma = 2.0 * (3 * M + 3 + 2 * T) * u;
    double sum2 = 0;
    for (size_t i = from; i < got.size(); i++) {
        const double err = std::abs(to_d(got[i]) - want.z[i]);
        const double tol = gamma * want.S[i] + 1e-30;
        if (!(err <= tol))
            return ::testing::AssertionFailure()
                   << "P=" << m.P << " Q=" << m.Q << " Lp=" << m.Lp << " Lq=" << m.Lq
                   << " index " << i << ": got " << got[i] << " want " << want.z[i]
                   << " err " << err << " > tol " << tol;
        sum2 += (err / (want.S[i] + 1e-30)) * (err / (want.S[i] + 1e-30));
    }
    // The worst-case bound above is loose (measured worst cases are 3-6 u S); rounding errors
    // average out, and the RMS of err/S is about 1 u. 16 u on the RMS keeps a wide margin while a
    // misplaced or missing term anywhere in the signal pushes it far above.
    const double rms =
        got.size() > from ? std::sqrt(sum2 / double(got.size() - from)) : 0;
    if (!(rms <= 16 * u))
        return ::testing::AssertionFailure()
               << "P=" << m.P << " Q=" << m.Q << " Lp=" << m.Lp << " Lq=" << m.Lq
               << ": rms(err/S) = " << rms / u << " u > 16 u";
    return ::testing::AssertionSuccess();
}

model random_model(unsigned P, unsigned Q, unsigned Lp, unsigned Lq)
{
    model m{ P, Q, Lp, Lq, {}, random_value<cf>(0.1f) };
    m.co = random_vector<cf>(ph_num_coefficients(P, Q, Lp, Lq));
    return m;
}

//! Samples with |x| <= peak (components uniform in +-peak/sqrt2, never zero).
std::vector<cf> random_signal(size_t n, float peak)
{
    return random_vector<cf>(n, peak / std::sqrt(2.f));
}

template <typename V>
V pick(std::initializer_list<V> v)
{
    return *(v.begin() + random_size(0, v.size() - 1));
}

struct config {
    backend b;
    dpd_cuda_variant variant;
    bool mapped;
    const char* name;
    //! A gr::gpuinterp::gpu::dpd_lab_variant that the lab launches instead of the engine (0: the
    //! engine, in `variant`). The lab's variants are not in the library, so no engine runs them.
    int lab = 0;
};
void PrintTo(const config& c, std::ostream* os) { *os << c.name; }

class Dpd : public ::testing::TestWithParam<config>
{
protected:
    void SetUp() override
    {
        GPUINTERP_SKIP_WITHOUT_DEVICE(GetParam().b);
#ifndef GPUINTERP_DPD_LAB
        if (GetParam().lab)
            GTEST_SKIP() << "the lab (bench/dpd_ph_lab.cu) is not linked";
#endif
    }

    std::unique_ptr<dpd_predistorter> make(const model& m, size_t batch = 0)
    {
        auto k = std::make_unique<dpd_predistorter>(ph_of(m.P, m.Q, m.Lp, m.Lq),
                                                    m.co,
                                                    m.c,
                                                    GetParam().b,
                                                    0,
                                                    batch,
                                                    GetParam().mapped);
        k->set_cuda_variant(GetParam().variant);
        EXPECT_EQ(k->active_backend(), GetParam().b);
        return k;
    }

    static size_t chunk(const model& m, size_t left, bool chunked)
    {
        return chunked ? std::min(left, random_size(0, 3 * std::max(m.Lp, m.Lq) + 40))
                       : left;
    }

    //! Run x through a fresh kernel, in random chunks when `chunked`, into a NaN-poisoned output.
    std::vector<cf>
    run(const model& m, const std::vector<cf>& x, bool chunked, size_t batch = 0)
    {
        if (GetParam().lab)
            return run_lab(m, x, chunked);
        auto k = make(m, batch);
        std::vector<cf> y(x.size());
        poison(y);
        size_t pos = 0;
        while (pos < x.size()) {
            const size_t c = chunk(m, x.size() - pos, chunked);
            k->process(y.data() + pos, x.data() + pos, c);
            pos += c;
        }
        return y;
    }

    //! The lab's kernel, one launch per chunk with the chunk's H-sample history in front (zeros
    //! before the stream), as the engine's pipeline stages it.
    std::vector<cf> run_lab(const model& m, const std::vector<cf>& x, bool chunked)
    {
        std::vector<cf> y(x.size());
        poison(y);
#ifdef GPUINTERP_DPD_LAB
        namespace gpu = gr::gpuinterp::gpu;
        const auto p =
            gr::gpuinterp::kernel::pack_dpd(ph_of(m.P, m.Q, m.Lp, m.Lq), m.co, m.c);
        const auto v = gpu::dpd_lab_variant(GetParam().lab);
        std::vector<cf> window;
        size_t pos = 0;
        while (pos < x.size()) {
            const size_t c = chunk(m, x.size() - pos, chunked);
            window.assign(p.H + c, cf(0));
            for (size_t i = 0; i < window.size(); i++)
                if (pos + i >= p.H)
                    window[i] = x[pos + i - p.H];
            const gpu::dpd_lab_variant ran =
                gpu::run_dpd_lab(0, { p, v }, window.data(), y.data() + pos, c);
            // Short filters must run the lab's kernel itself, not the smem fallback.
            if (p.H <= 31)
                EXPECT_EQ(gpu::to_string(ran), gpu::to_string(v)) << "H=" << p.H;
            pos += c;
        }
#endif
        return y;
    }

    //! The lab launches kernels without an engine: state across calls is the engine's to test.
    bool in_lab() const { return GetParam().lab != 0; }
};

TEST_P(Dpd, RandomConfigurationsMatchReference)
{
    // The grid the bound was asked for: P in {1..9}, Q in {0,1,3,5}, L in {1,2,5,8,33}, peak |x| up to 4.
    for (int trial = 0; trial < 60; trial++) {
        const unsigned P = pick({ 1u, 3u, 5u, 7u, 9u }), Q = pick({ 0u, 1u, 3u, 5u });
        const unsigned Lp = pick({ 1u, 2u, 5u, 8u, 33u }),
                       Lq = pick({ 1u, 2u, 5u, 8u, 33u });
        const float peak = pick({ 0.5f, 1.0f, 4.0f });
        const model m = random_model(P, Q, Lp, Lq);
        const auto x = random_signal(random_size(1, 2500), peak);
        EXPECT_TRUE(matches(run(m, x, trial % 2 == 1), reference(m, x), m))
            << "peak " << peak;
    }
}

TEST_P(Dpd, CornerConfigurations)
{
    for (auto [P, Q, Lp, Lq] : std::vector<std::array<unsigned, 4>>{
             { 1, 0, 1, 1 },
             { 9, 5, 33, 33 },
             { 9, 5, 33, 1 },
             { 1, 5, 1, 33 },
             { 15, 15, 32, 32 },
             { 15, 11, 8, 8 }, // 8 orders: unrolled (tiled_unroll5: generic)
             { 5, 3, 5, 5 },
             { 7, 7, 8, 8 },
             { 9, 5, 16, 16 },
             { 3, 9, 2, 7 },
             { 1, 1, 100, 100 },
             { 3,
               1,
               300,
               300 } }) { // the last: H >= 256, the tiled variants fall back to smem
        const model m = random_model(P, Q, Lp, Lq);
        for (float peak : { 1.0f, 4.0f }) {
            if (std::max(P, Q) > 9 &&
                peak > 1) // |x|^14 at |x| = 4 is 2.7e8: still finite, but pointless
                continue;
            const auto x = random_signal(5000, peak);
            EXPECT_TRUE(matches(run(m, x, false), reference(m, x), m)) << "peak " << peak;
        }
    }
}

TEST_P(Dpd, RandomChunkingEqualsOneCall)
{
    for (int trial = 0; trial < 10; trial++) {
        const model m = random_model(pick({ 1u, 5u, 9u }),
                                     pick({ 0u, 3u }),
                                     pick({ 1u, 5u, 33u }),
                                     pick({ 2u, 8u }));
        const auto x = random_signal(random_size(100, 4000), 1.5f);
        const auto one = run(m, x, false), chunked = run(m, x, true);
        const auto ref = reference(m, x);
        EXPECT_TRUE(matches(one, ref, m));
        EXPECT_TRUE(matches(chunked, ref, m));
    }
}

TEST_P(Dpd, ExactPlacementOfTapsAndBranches)
{
    // h_{1,3} = 1: a pure delay of 3; g_{1,2} = 1: conj(x[n-2]); h_{3,0} = 1: x|x|^2. With a single
    // non-zero map entry equal to +-1, the float result is exact.
    const auto x = random_signal(300, 2.0f);
    auto one_hot =
        [&](unsigned P, unsigned Q, unsigned Lp, unsigned Lq, size_t idx, cf c) {
            model m{
                P, Q, Lp, Lq, std::vector<cf>(ph_num_coefficients(P, Q, Lp, Lq), cf(0)), c
            };
            m.co[idx] = 1;
            return run(m, x, true);
        };
    auto delay = one_hot(3, 1, 5, 4, ph_main_index(3, 5, 1, 3), 0);
    auto conj = one_hot(3, 1, 5, 4, ph_conj_index(3, 5, 4, 1, 2), 0);
    auto cubic = one_hot(3, 0, 1, 1, ph_main_index(3, 1, 3, 0), cf(0.25f, -0.5f));
    for (size_t n = 0; n < x.size(); n++) {
        EXPECT_EQ(delay[n], n >= 3 ? x[n - 3] : cf(0)) << n;
        EXPECT_EQ(conj[n], n >= 2 ? std::conj(x[n - 2]) : cf(0)) << n;
        const float a2 = std::norm(x[n]);
        EXPECT_NEAR(cubic[n].real(), x[n].real() * a2 + 0.25f, 4e-6f * (a2 * 2.f + 1))
            << n;
        EXPECT_NEAR(cubic[n].imag(), x[n].imag() * a2 - 0.5f, 4e-6f * (a2 * 2.f + 1))
            << n;
    }
}

TEST_P(Dpd, CoefficientChangeAtAnExactSample)
{
    if (in_lab())
        GTEST_SKIP()
            << "state across calls is the engine's; the lab launches without one";
    for (size_t n0 : { size_t(0), size_t(1), size_t(37), size_t(1000), size_t(2047) }) {
        const model a = random_model(5, 3, 5, 4);
        model b = random_model(5, 3, 5, 4);
        const auto x = random_signal(2048, 1.2f);
        const auto y = process_switching_at(*make(a), x, n0, b.co, b.c);
        // Outputs before n0 follow set a; from n0 on, set b with memory reaching into the old samples.
        const auto ra = reference(a, x);
        EXPECT_TRUE(matches(y, spliced_at(ra, reference(b, x), n0), b)) << "n0=" << n0;
        // and the old set really differs from the new one after n0 (the test can fail)
        if (n0 < x.size())
            EXPECT_GT(std::abs(to_d(y[n0]) - ra.z[n0]), 1e-3);
    }
}

TEST_P(Dpd, LongStreamManyLaunchesAndThreads)
{
    // Longer than one GPU launch (the batch) so the two-slot pipeline wraps many times, and long
    // enough that the CPU splits it over OpenMP ranges (each range recomputes its own history).
    const model m = random_model(7, 5, 6, 3);
    const auto x = random_signal(300001, 1.0f);
    EXPECT_TRUE(matches(run(m, x, false, 4096), reference(m, x), m));
}

TEST_P(Dpd, LargeCallsLoopOverTilesWithPartialLastTile)
{
    // One call of ~2^20 samples: more tiles than resident blocks, so each GPU block loops over
    // tiles (the tiled kernels prefetch the next one during the current one), and an odd length
    // leaves a last tile with an odd number of outputs (the float4 pair stores' scalar tail).
    // The benchmark rows (unrolled tap loops), one with Lp != Lq (orders with fewer taps than
    // the longest) and one with a length that is not unrolled.
    for (auto [P, Q, Lp, Lq] : std::vector<std::array<unsigned, 4>>{ { 5, 3, 5, 5 },
                                                                     { 7, 7, 8, 8 },
                                                                     { 9, 5, 16, 16 },
                                                                     { 7, 3, 8, 3 },
                                                                     { 5, 1, 11, 11 } }) {
        const model m = random_model(P, Q, Lp, Lq);
        const auto x =
            random_signal((size_t(1) << 20) + 2 * random_size(0, 700) + 1, 1.0f);
        const auto y = run(m, x, false, size_t(1) << 22); // one launch
        // The double reference at every output would take a minute per configuration: check every
        // 61st output (61 is prime to every tile size, so each tile and thread position is hit) and
        // all of the last 4096; every output must have been written (finite: the buffer is NaN-poisoned).
        std::vector<size_t> at;
        for (size_t n = 0; n < x.size(); n += (n + 4096 < x.size() ? 61 : 1))
            at.push_back(n);
        std::vector<cf> got;
        for (size_t n : at)
            got.push_back(y[n]);
        EXPECT_TRUE(matches(got, reference(m, x, at), m));
        size_t non_finite = 0;
        for (const cf& v : y)
            non_finite += !(std::isfinite(v.real()) && std::isfinite(v.imag()));
        EXPECT_EQ(non_finite, 0u);
    }
}

TEST_P(Dpd, ResetRestartsFromZeroHistory)
{
    if (in_lab())
        GTEST_SKIP()
            << "state across calls is the engine's; the lab launches without one";
    const model m = random_model(5, 3, 8, 8);
    const auto x = random_signal(500, 1.f);
    auto k = make(m);
    auto a = k->process(x);
    auto b = k->process(x); // continues from a's history: differs in the first 7 outputs
    EXPECT_NE(a[0], b[0]);
    k->reset();
    auto c = k->process(x);
    EXPECT_EQ(a, c);
}

TEST_P(Dpd, EmptyInputIsANoOp)
{
    if (in_lab())
        GTEST_SKIP()
            << "state across calls is the engine's; the lab launches without one";
    const model m = random_model(3, 1, 4, 4);
    auto k = make(m);
    k->process(nullptr, nullptr, 0);
    const auto x = random_signal(50, 1.f);
    EXPECT_TRUE(matches(k->process(x), reference(m, x), m));
}

TEST_P(Dpd, NonFiniteSamplesStayLocal)
{
    const model m = random_model(3, 1, 4, 2);
    auto x = random_signal(100, 1.f);
    x[40] = cf(std::numeric_limits<float>::quiet_NaN(), 0);
    auto y = run(m, x, false);
    for (size_t n = 0; n < y.size(); n++) {
        const bool touched = n >= 40 && n < 44;
        EXPECT_EQ(std::isfinite(y[n].real()) && std::isfinite(y[n].imag()), !touched)
            << n;
    }
}

INSTANTIATE_TEST_SUITE_P(
    Backends,
    Dpd,
    ::testing::Values(
        config{ backend::cpu, dpd_cuda_variant::automatic, false, "cpu" },
        config{ backend::cuda, dpd_cuda_variant::automatic, false, "cuda_shuffle", 1 },
        config{ backend::cuda, dpd_cuda_variant::smem, false, "cuda_smem" },
        config{ backend::cuda, dpd_cuda_variant::automatic, false, "cuda_shuffle_x", 3 },
        config{ backend::cuda, dpd_cuda_variant::tiled, false, "cuda_tiled" },
        config{ backend::cuda, dpd_cuda_variant::automatic, false, "cuda_tiled8", 5 },
        config{
            backend::cuda, dpd_cuda_variant::automatic, false, "cuda_tiled_nt128", 6 },
        config{
            backend::cuda, dpd_cuda_variant::automatic, false, "cuda_tiled_nt512", 7 },
        config{
            backend::cuda, dpd_cuda_variant::automatic, false, "cuda_tiled8_nt256", 8 },
        config{
            backend::cuda, dpd_cuda_variant::automatic, false, "cuda_tiled_generic", 9 },
        config{
            backend::cuda, dpd_cuda_variant::automatic, false, "cuda_tiled_unroll5", 10 },
        config{
            backend::cuda, dpd_cuda_variant::automatic, false, "cuda_smem_nt128", 11 },
        config{
            backend::cuda, dpd_cuda_variant::automatic, false, "cuda_smem_nt512", 12 },
        config{ backend::cuda, dpd_cuda_variant::automatic, false, "cuda_smem_r3", 13 },
        config{ backend::cuda, dpd_cuda_variant::automatic, false, "cuda_smem_r5", 14 },
        config{ backend::cuda, dpd_cuda_variant::automatic, false, "cuda_default" },
        config{ backend::cuda, dpd_cuda_variant::automatic, true, "cuda_mapped" }),
    [](const ::testing::TestParamInfo<config>& i) { return std::string(i.param.name); });

TEST(DpdCpu, PortablePathMatchesReference)
{
    // The non-AVX2 code path (what CPUs without AVX2/FMA run), forced through the test hook.
    gr::gpuinterp::kernel::set_cpu_simd(false);
    for (auto [P, Q, Lp, Lq] : std::vector<std::array<unsigned, 4>>{
             { 5, 3, 5, 5 }, { 9, 5, 33, 2 }, { 1, 0, 1, 1 }, { 3, 1, 8, 8 } }) {
        const model m = random_model(P, Q, Lp, Lq);
        const auto x = random_signal(20000, 2.0f);
        dpd_predistorter k(ph_of(P, Q, Lp, Lq), m.co, m.c);
        std::vector<cf> y(x.size());
        poison(y);
        for (size_t pos = 0; pos < x.size();) {
            const size_t c = std::min(x.size() - pos, random_size(0, 3000));
            k.process(y.data() + pos, x.data() + pos, c);
            pos += c;
        }
        EXPECT_TRUE(matches(y, reference(m, x), m));
    }
    gr::gpuinterp::kernel::set_cpu_simd(true);
}

TEST(DpdCpu, LabVariantNamesAreUnknown)
{
    // shuffle, shuffle_x and tiled8 left the library for the lab (bench/dpd_ph_lab.h): the
    // library no longer knows their names.
    using gr::gpuinterp::kernel::dpd_cuda_variant_from_string;
    for (const std::string name : { "shuffle", "shuffle_x", "tiled8" }) {
        const std::string e =
            invalid_argument_message([&] { dpd_cuda_variant_from_string(name); });
        EXPECT_EQ(e.rfind("variant: unknown value '" + name +
                              "' (expected 'automatic', 'smem', 'tiled'",
                          0),
                  0u)
            << e;
    }
}

TEST(DpdCuda, LabVariantNumbersAreRefused)
{
    // Their old numbers, cast into the enum, are refused rather than planned as something else.
    GPUINTERP_SKIP_WITHOUT_CUDA();
    dpd_predistorter k(ph_of(1, 0, 1, 1), { cf(1) }, 0, backend::cuda);
    for (int v : { 1, 3, 5 }) {
        EXPECT_EQ(invalid_argument_message([&] {
                      k.set_cuda_variant(dpd_cuda_variant(v));
                  }).rfind("variant:", 0),
                  0u)
            << v;
        EXPECT_EQ(k.cuda_variant(), dpd_cuda_variant::automatic);
    }
    EXPECT_NO_THROW(k.set_cuda_variant(dpd_cuda_variant::smem));
    const std::vector<cf> x = random_vector<cf>(100, 1.0f);
    EXPECT_EQ(k.process(x), x);
}

#ifdef GPUINTERP_DPD_LAB
TEST(DpdLabCuda, SmemPlansFromOtherRowsMatchReference)
{
    // The smem kernel planned from rows other than the device's, as the benchmarks' sweeps plan
    // it: register blocking from every tap count or from none, and tiles of 1 to 16 outputs per
    // halo sample. Each row changes the tile and R only, so every result must still match.
    GPUINTERP_SKIP_WITHOUT_CUDA();
    namespace gpu = gr::gpuinterp::gpu;
    for (auto [P, Q, L] : std::vector<std::array<unsigned, 3>>{
             { 5, 3, 2 }, { 5, 3, 8 }, { 3, 1, 300 }, { 5, 0, 700 } })
        for (int blocking : { 0, 1 << 20 })
            for (int halo : { 1, 16 }) {
                gpu::ph_tuning row = gpu::ph_tuning_for(90);
                row.smem_blocking_above_taps = blocking;
                row.smem_outputs_per_halo = halo;
                const model m = random_model(P, Q, L, L);
                const auto p =
                    gr::gpuinterp::kernel::pack_dpd(ph_of(P, Q, L, L), m.co, m.c);
                const auto x = random_signal(20000, 1.0f);
                std::vector<cf> window(p.H + x.size(), cf(0)), y(x.size());
                std::copy(x.begin(), x.end(), window.begin() + p.H);
                poison(y);
                const gpu::dpd_lab_variant ran =
                    gpu::run_dpd_lab(0,
                                     { p, gpu::dpd_lab_variant::smem, &row },
                                     window.data(),
                                     y.data(),
                                     x.size());
                EXPECT_EQ(gpu::to_string(ran), "smem");
                EXPECT_TRUE(matches(y, reference(m, x), m))
                    << "blocking above " << blocking << ", " << halo
                    << " outputs per halo";
            }
}
#endif

TEST(CpuUtil, ParallelCopyCopiesEveryByte)
{
    // Several 1 MiB pieces plus a ragged tail, so the threaded split and the remainder both run.
    std::vector<char> a(5 * (1 << 20) + 123), b(a.size(), 0);
    for (size_t i = 0; i < a.size(); i++)
        a[i] = char(i * 7 + 3);
    gr::gpuinterp::cpu::parallel_copy(b.data(), a.data(), a.size());
    EXPECT_EQ(a, b);
}

TEST(DpdParams, LayoutMatchesTheDocumentedExample)
{
    // P=3, Q=1, Lp=2, Lq=3: [h10 h11 h30 h31 g10 g11 g12], read from the model's terms()
    const auto t = ph_of(3, 1, 2, 3).terms();
    const std::vector<std::array<unsigned, 3>> want = {
        { 1, 0, 0 }, { 1, 1, 0 }, { 3, 0, 0 }, { 3, 1, 0 },
        { 1, 0, 1 }, { 1, 1, 1 }, { 1, 2, 1 }
    }; // order, lag, conjugate
    ASSERT_EQ(t.size(), want.size());
    for (size_t i = 0; i < t.size(); i++)
        EXPECT_TRUE(t[i].power + 1 == want[i][0] && t[i].signal_lag == want[i][1] &&
                    t[i].envelope_lag == int(want[i][1]) &&
                    t[i].conjugate == bool(want[i][2]))
            << i;
    EXPECT_EQ(ph_of(5, 0, 4, 9).num_coefficients(), 12u); // Q = 0: no conjugate taps
    EXPECT_EQ(ph_of(5, 3, 5, 5).num_coefficients(), 25u);
    dpd_predistorter k(ph_of(5, 0, 4, 9), std::vector<cf>(12, cf(0.1f)));
    EXPECT_EQ(k.history(), 3u); // Lq does not count without conjugate branches
    dpd_predistorter k2(ph_of(1, 1, 2, 9), std::vector<cf>(11, cf(0.1f)));
    EXPECT_EQ(k2.history(), 8u);
}

TEST(DpdParams, BadParametersThrowNamingTheParameter)
{
    const std::vector<cf> ok(ph_num_coefficients(3, 1, 2, 2), cf(0.5f));
    auto make = [&](unsigned P,
                    unsigned Q,
                    unsigned Lp,
                    unsigned Lq,
                    std::vector<cf> co,
                    cf c = 0) {
        return invalid_argument_message(
            [=] { dpd_predistorter(ph_of(P, Q, Lp, Lq), co, c); });
    };
    EXPECT_EQ(make(4, 1, 2, 2, ok).rfind("P: must be odd", 0), 0u)
        << make(4, 1, 2, 2, ok);
    EXPECT_EQ(make(0, 1, 2, 2, ok).rfind("P:", 0), 0u);
    EXPECT_EQ(make(17, 1, 2, 2, ok).rfind("P:", 0), 0u);
    EXPECT_EQ(make(3, 2, 2, 2, ok).rfind("Q:", 0), 0u);
    EXPECT_EQ(make(3, 1, 0, 2, ok).rfind("Lp:", 0), 0u);
    EXPECT_EQ(make(3, 1, 2, 0, ok).rfind("Lq:", 0), 0u);
    EXPECT_EQ(make(3, 0, 2, 0, ok).rfind("Lq:", 0), 0u);
    EXPECT_EQ(make(3, 1, 2, 2, std::vector<cf>(5)),
              "coefficients: expected 6 values for ph:P=3,Q=1,Lp=2,Lq=2 (got 5)");
    EXPECT_EQ(make(3, 1, 2, 2, {}).rfind("coefficients: expected 6 values", 0), 0u);
    auto bad = ok;
    bad[3] = cf(0, std::numeric_limits<float>::infinity());
    EXPECT_EQ(make(3, 1, 2, 2, bad), "coefficients: element 3 is not finite");
    bad[3] = cf(std::numeric_limits<float>::quiet_NaN(), 0);
    EXPECT_EQ(make(3, 1, 2, 2, bad).rfind("coefficients:", 0), 0u);
    EXPECT_EQ(make(3, 1, 2, 2, ok, cf(NAN, 0)).rfind("lo_leakage:", 0), 0u);
    EXPECT_EQ(invalid_argument_message([&] {
                  dpd_predistorter(ph_of(3, 1, 2, 2), ok, 0, backend::cpu, -1);
              }).rfind("device:", 0),
              0u);
    EXPECT_EQ(invalid_argument_message([] {
                  gr::gpuinterp::kernel::dpd_cuda_variant_from_string("fast");
              }).rfind("variant:", 0),
              0u);

    dpd_predistorter k(ph_of(3, 1, 2, 2), ok, cf(0.1f));
    EXPECT_EQ(invalid_argument_message([&] {
                  k.set_coefficients(std::vector<cf>(7), 0);
              }).rfind("coefficients: expected 6", 0),
              0u);
    EXPECT_EQ(invalid_argument_message([&] {
                  k.set_coefficients(ok, cf(INFINITY, 0));
              }).rfind("lo_leakage:", 0),
              0u);
    EXPECT_EQ(k.coefficients(), ok); // unchanged after refused updates
    EXPECT_EQ(k.lo_leakage(), cf(0.1f));
    EXPECT_EQ(invalid_argument_message([&] { k.set_batch(0); }).rfind("batch:", 0), 0u);
}

TEST(DpdParams, CudaWithoutDeviceFailsClearly)
{
    const std::vector<cf> co(5, cf(0.1f));
    if (gr::gpuinterp::cuda_device_count() > 0) {
        EXPECT_EQ(invalid_argument_message([&] {
                      dpd_predistorter(ph_of(9, 0, 1, 1), co, 0, backend::cuda, 1000);
                  }).rfind("device:", 0),
                  0u);
        return;
    }
    EXPECT_THROW(dpd_predistorter(ph_of(9, 0, 1, 1), co, 0, backend::cuda),
                 std::runtime_error);
    dpd_predistorter k(ph_of(9, 0, 1, 1), co, 0, backend::automatic);
    EXPECT_EQ(k.active_backend(), backend::cpu);
    EXPECT_FALSE(k.backend_note().empty());
}

} // namespace
