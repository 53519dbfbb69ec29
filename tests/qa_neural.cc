/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The neural families (gru, tdnn; docs/neural_models.md): their specs in kernel::dpd_model, and
// the predistorter running them, against a naive double-precision forward pass written here from
// the document's equations, on the CPU and, when a device is present, on CUDA (host and
// device-resident entry points, the gru's chunk-parallel warm-up).
#include "cpu/cpu_engines.h"
#include "device_util.h"
#include "test_util.h"
#include <gnuradio/gpuinterp/kernel/dpd_model.h>
#include <gnuradio/gpuinterp/kernel/dpd_predistorter.h>
#include <cmath>

using namespace gpuinterp_test;
namespace gi = gr::gpuinterp;
using gi::kernel::dpd_model;
using gi::kernel::dpd_predistorter;

namespace {

// ---- spec ----

TEST(NeuralModel, ParseAndCanonicalPrinting)
{
    EXPECT_EQ(dpd_model::parse("gru:H=8,C=4,D=2").to_string(), "gru:H=8,C=4,D=2");
    EXPECT_EQ(dpd_model::parse(" gru : D=3 , C=2,H=16").to_string(), "gru:H=16,C=2,D=3");
    // D is ignored without a skip path and written as 1.
    EXPECT_EQ(dpd_model::parse("gru:H=8,C=0,D=77").to_string(), "gru:H=8,C=0,D=1");
    EXPECT_EQ(dpd_model::parse("gru:H=8,C=0,D=0"), dpd_model::make_gru(8, 0, 5));
    EXPECT_EQ(dpd_model::parse("tdnn:N=2,H=16,M=4").to_string(), "tdnn:M=4,H=16,N=2");
    // The bounds round-trip with the other families' specs (qa_dpd_model.cc).
    for (const dpd_model& m :
         { dpd_model::make_gru(1, 0, 1), dpd_model::make_tdnn(1024, 256, 8) }) {
        EXPECT_TRUE(m.is_neural());
        EXPECT_EQ(m.num_coefficients(), 0u);
        EXPECT_TRUE(m.terms().empty());
    }
    EXPECT_EQ(dpd_model::make_tdnn(4, 16, 2), dpd_model::parse("tdnn:M=4,H=16,N=2"));
    EXPECT_NE(dpd_model::parse("gru:H=8,C=1,D=2"), dpd_model::parse("gru:H=8,C=1,D=3"));
    EXPECT_EQ(gi::kernel::to_string(dpd_model::family_t::gru), "gru");
    EXPECT_EQ(gi::kernel::to_string(dpd_model::family_t::tdnn), "tdnn");
}

TEST(NeuralModel, WeightsLookaheadAndHistory)
{
    // Counts of docs/neural_models.md: 3H*6 + 3H*H + 6H + 2H + 2 + 8C; 4MH + H + (N-1)(H^2+H) + 2H + 2.
    EXPECT_EQ(dpd_model::parse("gru:H=8,C=0,D=1").num_weights(),
              size_t(144 + 192 + 48 + 16 + 2));
    EXPECT_EQ(dpd_model::parse("gru:H=8,C=4,D=2").num_weights(),
              size_t(144 + 192 + 48 + 16 + 2 + 32));
    EXPECT_EQ(dpd_model::parse("tdnn:M=4,H=16,N=1").num_weights(),
              size_t(256 + 16 + 32 + 2));
    EXPECT_EQ(dpd_model::parse("tdnn:M=4,H=16,N=3").num_weights(),
              size_t(256 + 16 + 2 * (256 + 16) + 32 + 2));
    EXPECT_EQ(dpd_model::parse("gmp:Ka=5,La=6").num_weights(), 0u);
    EXPECT_FALSE(dpd_model::parse("gmp:Ka=5,La=6").is_neural());
    // Look-ahead max(1, D if C > 0); history: the look-ahead plus the skip's reach back.
    EXPECT_EQ(dpd_model::parse("gru:H=8,C=0,D=9").lookahead(), 1u);
    EXPECT_EQ(dpd_model::parse("gru:H=8,C=0,D=9").history(), 1u);
    EXPECT_EQ(dpd_model::parse("gru:H=8,C=2,D=5").lookahead(), 5u);
    EXPECT_EQ(dpd_model::parse("gru:H=8,C=2,D=5").history(), 10u);
    EXPECT_EQ(dpd_model::parse("gru:H=8,C=2,D=1").lookahead(), 1u);
    EXPECT_EQ(dpd_model::parse("tdnn:M=7,H=3,N=2").lookahead(), 0u);
    EXPECT_EQ(dpd_model::parse("tdnn:M=7,H=3,N=2").history(), 6u);
    // The polynomial families are untouched.
    EXPECT_EQ(dpd_model::parse("gmp:Ka=5,La=10,Kb=3,Lb=5,Mb=2,Kc=3,Lc=5,Mc=1")
                  .num_coefficients(),
              size_t(50 + 30 + 15));
}

// ---- reference: the document's equations in double precision ----

double sigmoid(double t) { return 1 / (1 + std::exp(-t)); }
double hardswish(double t) { return t * std::min(std::max(t + 3, 0.0), 6.0) / 6; }

//! Weights uniform in +-1/sqrt(fan-in) (PyTorch's default initialisation), from their own seed.
std::vector<float> random_weights(const dpd_model& m, unsigned seed, float gain = 1.f)
{
    std::mt19937 g(seed);
    const double fan = m.family == dpd_model::family_t::gru ? m.H : 4.0 * m.M;
    std::uniform_real_distribution<float> d(-gain / float(std::sqrt(fan)),
                                            gain / float(std::sqrt(fan)));
    std::vector<float> w(m.num_weights());
    for (auto& v : w)
        v = d(g);
    return w;
}

//! Streaming double reference: out[i] = y[i - L] (0 for i < L), weights `w[k]` from output
//! `from[k]` on (from[0] = 0), the gru's state carried through the switches.
std::vector<cd> reference(const dpd_model& m,
                          const std::vector<std::vector<float>>& w,
                          const std::vector<size_t>& from,
                          const std::vector<cf>& xin)
{
    const size_t n = xin.size();
    const size_t L = m.lookahead();
    auto x = [&](long long t) -> cd {
        return t < 0 || t >= (long long)n ? cd(0) : cd(xin[t].real(), xin[t].imag());
    };
    auto weights_at = [&](size_t i) -> const std::vector<float>& {
        size_t k = 0;
        while (k + 1 < from.size() && i >= from[k + 1])
            k++;
        return w[k];
    };
    std::vector<cd> out(n, cd(0));
    if (m.family == dpd_model::family_t::gru) {
        const size_t H = m.H, C = m.C, D = m.D;
        std::vector<double> h(H, 0.0), hn(H);
        for (size_t i = L; i < n; i++) {
            const long long t = (long long)(i - L);
            const std::vector<float>& W = weights_at(i);
            const float* wih = W.data();
            const float* whh = wih + 18 * H;
            const float* bih = whh + 3 * H * H;
            const float* bhh = bih + 3 * H;
            const float* wo = bhh + 3 * H;
            const float* bo = wo + 2 * H;
            const float* K = bo + 2;
            const float* P = K + 6 * C;
            const double a = std::abs(x(t));
            const double u[6] = { x(t).real(), x(t).imag(),     a,
                                  a * a * a,   x(t + 1).real(), x(t + 1).imag() };
            for (size_t j = 0; j < H; j++) {
                double gi3[3], gh3[3];
                for (size_t gate = 0; gate < 3; gate++) {
                    const size_t row = gate * H + j;
                    double si = bih[row], sh = bhh[row];
                    for (size_t c = 0; c < 6; c++)
                        si += double(wih[row * 6 + c]) * u[c];
                    for (size_t k = 0; k < H; k++)
                        sh += double(whh[row * H + k]) * h[k];
                    gi3[gate] = si;
                    gh3[gate] = sh;
                }
                const double r = sigmoid(gi3[0] + gh3[0]), z = sigmoid(gi3[1] + gh3[1]);
                const double g = std::tanh(gi3[2] + r * gh3[2]);
                hn[j] = (1 - z) * g + z * h[j];
            }
            h = hn;
            double y[2];
            for (size_t o = 0; o < 2; o++) {
                y[o] = bo[o];
                for (size_t k = 0; k < H; k++)
                    y[o] += double(wo[o * H + k]) * h[k];
            }
            for (size_t c = 0; c < C; c++) {
                const cd tap[3] = { x(t - (long long)D), x(t), x(t + (long long)D) };
                double v = 0;
                for (size_t j = 0; j < 3; j++)
                    v += double(K[(c * 2 + 0) * 3 + j]) * tap[j].real() +
                         double(K[(c * 2 + 1) * 3 + j]) * tap[j].imag();
                v = hardswish(v);
                for (size_t o = 0; o < 2; o++)
                    y[o] += double(P[o * C + c]) * v;
            }
            out[i] = cd(y[0], y[1]);
        }
        return out;
    }
    const size_t M = m.M, H = m.H, N = m.N;
    std::vector<double> u(4 * M), g(H), g2(H);
    for (size_t i = 0; i < n; i++) {
        const std::vector<float>& W = weights_at(i);
        for (size_t k = 0; k < M; k++) {
            const cd v = x((long long)i - (long long)k);
            const double a = std::abs(v);
            u[4 * k] = v.real();
            u[4 * k + 1] = v.imag();
            u[4 * k + 2] = a;
            u[4 * k + 3] = a * a * a;
        }
        size_t o = 0;
        const std::vector<double>* in = &u;
        for (size_t l = 0; l < N; l++) {
            const size_t cols = l == 0 ? 4 * M : H;
            std::vector<double>& dst = (l % 2 == 0) ? g : g2;
            for (size_t r = 0; r < H; r++) {
                double s = W[o + H * cols + r];
                for (size_t c = 0; c < cols; c++)
                    s += double(W[o + r * cols + c]) * (*in)[c];
                dst[r] = std::tanh(s);
            }
            o += H * cols + H;
            in = &dst;
        }
        double y[2];
        for (size_t q = 0; q < 2; q++) {
            y[q] = W[o + 2 * H + q];
            for (size_t k = 0; k < H; k++)
                y[q] += double(W[o + q * H + k]) * (*in)[k];
        }
        out[i] = cd(y[0], y[1]) + x((long long)i);
    }
    return out;
}

//! Whether two outputs are equal to the bit (same length, every float's bits).
bool same_bits(const std::vector<cf>& a, const std::vector<cf>& b)
{
    return a.size() == b.size() &&
           std::equal(a.begin(), a.end(), b.begin(), [](cf u, cf v) {
               return bits(u.real()) == bits(v.real()) &&
                      bits(u.imag()) == bits(v.imag());
           });
}

//! max |got - want| over the outputs, relative to the RMS of want (printed with the model).
double relative_error(const std::vector<cf>& got, const std::vector<cd>& want)
{
    double e = 0, p = 0;
    for (size_t i = 0; i < got.size(); i++) {
        e = std::max(e, std::abs(cd(got[i].real(), got[i].imag()) - want[i]));
        p += std::norm(want[i]);
    }
    return e / std::sqrt(p / double(std::max<size_t>(1, got.size())));
}

// The bound: float32 rounding (2^-24 ~ 6e-8 per operation) over dot products of H + 6 terms and
// the transcendental functions; a gru's step errors pass through the recursion but decay as its
// state forgets, so the error stays near one step's (measured about 1e-6 for these models).
constexpr double tolerance = 1e-5;

const std::vector<std::string> specs = {
    "gru:H=8,C=0,D=1",  "gru:H=16,C=4,D=3",  "gru:H=1,C=1,D=1",    "gru:H=48,C=8,D=17",
    "tdnn:M=1,H=1,N=1", "tdnn:M=4,H=16,N=2", "tdnn:M=25,H=32,N=3",
};

class NeuralKernel : public backend_param
{
protected:
    std::vector<cf> run(dpd_predistorter& k, const std::vector<cf>& x, size_t max_chunk)
    {
        std::mt19937 g(7);
        std::vector<cf> y(x.size());
        poison(y);
        for (size_t pos = 0; pos < x.size();) {
            const size_t c = std::min(
                x.size() - pos, std::uniform_int_distribution<size_t>(0, max_chunk)(g));
            k.process(y.data() + pos, x.data() + pos, c);
            pos += c;
        }
        return y;
    }
};

TEST_P(NeuralKernel, MatchesDoubleReferenceInRandomChunks)
{
    unsigned seed = 1;
    for (const auto& spec : specs) {
        const dpd_model m = dpd_model::parse(spec);
        const auto w = random_weights(m, seed++);
        const auto x = seeded_signal(3000, 0.7f, seed++); // |x| up to 1
        dpd_predistorter k(m, w, GetParam());
        EXPECT_EQ(k.delay(), m.lookahead());
        EXPECT_EQ(k.history(), m.history());
        const auto want = reference(m, { w }, { 0 }, x);
        const double e = relative_error(run(k, x, 300), want);
        std::cout << "[ neural   ] " << spec << " " << gi::to_string(GetParam())
                  << " max error / rms " << e << "\n";
        EXPECT_LE(e, tolerance) << spec;
        EXPECT_EQ(k.weights(), w);
    }
}

TEST_P(NeuralKernel, EqualBitForBitInAnyChunkingAndEitherCpuBuild)
{
    unsigned seed = 100;
    for (const auto& spec : specs) {
        const dpd_model m = dpd_model::parse(spec);
        const auto w = random_weights(m, seed++);
        const auto x = seeded_signal(2000, 0.7f, seed++);
        // Warm-up 0: the CUDA gru runs each call as one exact chunk (with a warm-up, a long call's
        // later chunks restart from a zero state, which agrees within the tolerance, not in bits;
        // the CPU ignores it).
        dpd_predistorter one(m, w, GetParam());
        one.set_warmup(0);
        const auto y1 = one.process(x);
        dpd_predistorter many(m, w, GetParam());
        many.set_warmup(0);
        const auto y2 = run(many, x, 37);
        EXPECT_TRUE(same_bits(y1, y2)) << spec;
        // The first lookahead() outputs are the model before time 0: zero.
        for (size_t i = 0; i < m.lookahead(); i++)
            EXPECT_EQ(y1[i], cf(0)) << spec;
        // reset() starts the stream again.
        one.reset();
        EXPECT_EQ(one.process(x), y1) << spec;
        if (GetParam() == backend::cpu) {
            // The CPU engine's portable build (what a processor without AVX2/FMA runs) adds the
            // same products in the same order as its AVX2/FMA build: equal to the bit.
            gi::kernel::set_cpu_simd(false);
            dpd_predistorter portable(m, w, GetParam());
            const auto y3 = portable.process(x);
            gi::kernel::set_cpu_simd(true);
            EXPECT_TRUE(same_bits(y1, y3)) << spec << ": the portable build";
        }
    }
}

TEST_P(NeuralKernel, WeightSwitchBetweenCallsKeepsTheState)
{
    unsigned seed = 200;
    for (const auto& spec : { "gru:H=12,C=3,D=4", "tdnn:M=6,H=8,N=2" }) {
        const dpd_model m = dpd_model::parse(spec);
        const auto w1 = random_weights(m, seed++), w2 = random_weights(m, seed++);
        const auto x = seeded_signal(1500, 0.7f, seed++);
        const size_t n0 = 611;
        dpd_predistorter k(m, w1, GetParam());
        std::vector<cf> y(x.size());
        poison(y);
        k.process(y.data(), x.data(), n0);
        k.set_weights(w2);
        EXPECT_EQ(k.weights(), w2);
        k.process(y.data() + n0, x.data() + n0, x.size() - n0);
        const double e = relative_error(y, reference(m, { w1, w2 }, { 0, n0 }, x));
        EXPECT_LE(e, tolerance) << spec;
    }
}

TEST_P(NeuralKernel, LongStreamInBatches)
{
    // Several launches per call for the tdnn (batch 4096); many chunks of the gru on CUDA (whose
    // batches the engine lengthens to 4 warm-ups a chunk, so one launch per call here), and its
    // warm-up of 256 steps must make the chunked recursion agree with the sequential reference:
    // with weights of PyTorch's initial scale the state forgets by orders of magnitude within
    // tens of steps.
    unsigned seed = 300;
    for (const auto& spec : { "gru:H=32,C=2,D=2", "tdnn:M=8,H=24,N=2" }) {
        const dpd_model m = dpd_model::parse(spec);
        const auto w = random_weights(m, seed++);
        const auto x = seeded_signal(100000, 0.7f, seed++);
        dpd_predistorter k(m, w, GetParam(), 0, 4096);
        k.set_warmup(256);
        const auto want = reference(m, { w }, { 0 }, x);
        const double e = relative_error(run(k, x, 30000), want);
        std::cout << "[ neural   ] " << spec << " " << gi::to_string(GetParam())
                  << " 1e5 samples, warm-up 256: max error / rms " << e << "\n";
        EXPECT_LE(e, tolerance) << spec;
    }
}

TEST_P(NeuralKernel, DeviceEntryPointMatchesHost)
{
    for (const auto& spec : { "gru:H=16,C=2,D=3", "tdnn:M=5,H=8,N=2" }) {
        const dpd_model m = dpd_model::parse(spec);
        const auto w = random_weights(m, 400);
        const auto x = seeded_signal(20000, 0.7f, 401);
        dpd_predistorter k(m, w, GetParam());
        std::mt19937 g(402);
        const auto got = process_mixed(
            k,
            GetParam(),
            x,
            [&](int) { return std::uniform_int_distribution<size_t>(1, 3000)(g); },
            [](int it) { return it % 3 == 2; });
        EXPECT_LE(relative_error(got, reference(m, { w }, { 0 }, x)), tolerance) << spec;
    }
}

GPUINTERP_BACKEND_SUITE(NeuralKernel);

TEST(NeuralCuda, ChunkedGruMatchesSequentialAndWarmupZeroIsExact)
{
    GPUINTERP_SKIP_WITHOUT_CUDA();
    const dpd_model m = dpd_model::parse("gru:H=64,C=4,D=2");
    const auto w = random_weights(m, 500);
    const auto x = seeded_signal(300000, 0.7f, 501);
    dpd_predistorter seq(m, w, backend::cuda);
    seq.set_warmup(0); // one block: the sequential recursion
    const auto y0 = seq.process(x);
    const auto want = reference(m, { w }, { 0 }, x);
    EXPECT_LE(relative_error(y0, want), tolerance);
    for (size_t W : { 32, 128, 512 }) {
        dpd_predistorter k(m, w, backend::cuda);
        k.set_warmup(W);
        EXPECT_EQ(k.warmup(), W);
        const auto y = k.process(x);
        const double e = relative_error(y, want);
        std::cout << "[ neural   ] gru H=64 warm-up " << W << ": max error / rms " << e
                  << "\n";
        EXPECT_LE(e, tolerance) << "warm-up " << W;
    }
}

// The CUDA gru's two kernels (neural_engine.cu): gru_lanes for the hidden sizes it is compiled for
// (4, 6, 8, 10, 12, 16, 20, 24, 32: H / U lanes per chunk, U = 2 up to 12, else 1, so groups of
// 2, 3, 4, 5, 6, 16, 20, 24 and 32 lanes), gru_chunks for the others (7, 48). Batches of 16384
// (several launches per call, the state and history carried between them on the device), chunks
// of 32 outputs and up at these sizes (hundreds per launch). Every size against the float64
// reference, with:
//  - warm-up 0: each launch one exact chunk, so one call and any chunking agree bit for bit;
//  - warm-up 64 and the default 512, one call and random calls: a chunk's zero-state start is
//    forgotten geometrically; in float64 with these weights (PyTorch's initial scale) the start's
//    error after 32 steps reaches 2e-5 of the output RMS (H = 10), after 64 steps below 1e-9, so
//    64 keeps the tolerance's float32-rounding budget to itself; 32 would not;
//  - new weights mid-stream (the state kept), with the default warm-up.
TEST(NeuralCuda, GruKernelsEverySizeChunkedCarriedAndSwitched)
{
    GPUINTERP_SKIP_WITHOUT_CUDA();
    unsigned seed = 700;
    for (const char* spec : { "gru:H=4,C=0,D=1",
                              "gru:H=6,C=2,D=1",
                              "gru:H=8,C=1,D=7",
                              "gru:H=10,C=4,D=1",
                              "gru:H=12,C=3,D=2",
                              "gru:H=16,C=0,D=1",
                              "gru:H=20,C=2,D=5",
                              "gru:H=24,C=4,D=1",
                              "gru:H=32,C=4,D=16",
                              "gru:H=7,C=2,D=3",
                              "gru:H=48,C=4,D=16" }) {
        const dpd_model m = dpd_model::parse(spec);
        const auto w = random_weights(m, seed++), w2 = random_weights(m, seed++);
        const size_t n = 60000, batch = 16384;
        const auto x = seeded_signal(n, 0.7f, seed++);
        const auto want = reference(m, { w }, { 0 }, x);
        std::mt19937 g(seed++);
        // Outputs [from, to) of y through calls of random sizes (up to three batches).
        auto in_calls =
            [&](dpd_predistorter& k, std::vector<cf>& y, size_t from, size_t to) {
                for (size_t pos = from; pos < to;) {
                    const size_t c = std::min(
                        to - pos, std::uniform_int_distribution<size_t>(1, 3 * batch)(g));
                    k.process(y.data() + pos, x.data() + pos, c);
                    pos += c;
                }
            };
        auto calls = [&](dpd_predistorter& k) {
            std::vector<cf> y(n);
            poison(y);
            in_calls(k, y, 0, n);
            return y;
        };
        auto check =
            [&](const std::vector<cf>& y, const std::vector<cd>& ref, const char* what) {
                const double e = relative_error(y, ref);
                std::cout << "[ neural   ] " << spec << " cuda " << what
                          << ": max error / rms " << e << "\n";
                EXPECT_LE(e, tolerance) << spec << " " << what;
            };
        dpd_predistorter exact(m, w, backend::cuda, 0, batch);
        exact.set_warmup(0);
        const auto y0 = exact.process(x);
        check(y0, want, "warm-up 0, one call");
        dpd_predistorter exact_calls(m, w, backend::cuda, 0, batch);
        exact_calls.set_warmup(0);
        const auto y0c = calls(exact_calls);
        EXPECT_TRUE(same_bits(y0, y0c))
            << spec << ": warm-up 0, one call and random calls differ";
        for (size_t W : { size_t(64), size_t(512) }) {
            dpd_predistorter k(m, w, backend::cuda, 0, batch);
            k.set_warmup(W);
            const std::string what = "warm-up " + std::to_string(W);
            check(k.process(x), want, (what + ", one call").c_str());
            dpd_predistorter kc(m, w, backend::cuda, 0, batch);
            kc.set_warmup(W);
            check(calls(kc), want, (what + ", random calls").c_str());
        }
        dpd_predistorter ks(m, w, backend::cuda, 0, batch);
        const size_t n0 = 27183;
        std::vector<cf> ys(n);
        poison(ys);
        in_calls(ks, ys, 0, n0);
        ks.set_weights(w2);
        in_calls(ks, ys, n0, n);
        check(ys, reference(m, { w, w2 }, { 0, n0 }, x), "weight switch");
    }
}

TEST(NeuralParams, WeightsAndCoefficientsErrors)
{
    const dpd_model g = dpd_model::parse("gru:H=4,C=1,D=2");
    auto w = random_weights(g, 600);
    EXPECT_TRUE(throws_naming(
        [&] { dpd_predistorter(g, std::vector<float>(w.begin(), w.end() - 1)); },
        "weights:"));
    auto bad = w;
    bad[5] = std::nanf("");
    EXPECT_TRUE(throws_naming([&] { dpd_predistorter(g, bad); }, "weights:"));
    bad[5] = INFINITY;
    EXPECT_TRUE(throws_naming([&] { dpd_predistorter(g, bad); }, "weights:"));
    // A neural model takes no complex coefficients, a polynomial one no weights.
    EXPECT_TRUE(throws_naming([&] { dpd_predistorter(g, std::vector<cf>{ cf(1) }); },
                              "coefficients:"));
    EXPECT_TRUE(throws_naming(
        [&] { dpd_predistorter(dpd_model::make_mp(1, 1), std::vector<float>{ 1.f }); },
        "weights:"));
    dpd_predistorter k(g, w);
    EXPECT_TRUE(
        throws_naming([&] { k.set_coefficients({ cf(1) }, cf(0)); }, "coefficients:"));
    EXPECT_TRUE(throws_naming([&] { k.set_weights(bad); }, "weights:"));
    EXPECT_EQ(k.weights(), w); // unchanged on error
    EXPECT_EQ(k.process(std::vector<cf>{}).size(), 0u);
}

} // namespace
