/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The model description (spec grammar, canonical printing, bounds, errors) and the predistorter
// of the memory-polynomial families, against a naive double-precision reference written from the
// equations of dpd_model.h, on the CPU and, when a device is present, on CUDA (host and
// device-resident entry points).
#include "cpu/cpu_engines.h"
#include "device_util.h"
#ifdef GPUINTERP_HAVE_CUDA
#include "../bench/kernel_timing.h" // gmp_lab_blocks: the blocks and tiles the benchmark builds
#include "cuda/gmp_launch.h"
#endif
#include "test_util.h"
#include <gnuradio/gpuinterp/kernel/dpd_model.h>
#include <gnuradio/gpuinterp/kernel/dpd_predistorter.h>
#include <type_traits>
#include <cstring>
#include <functional>
#include <utility>

using namespace gpuinterp_test;
namespace gi = gr::gpuinterp;
using gi::kernel::dpd_cuda_variant;
using gi::kernel::dpd_model;
using gi::kernel::dpd_predistorter;

namespace {

// ---- spec grammar ----

TEST(DpdModel, CanonicalPrintingAndRoundTrip)
{
    EXPECT_EQ(dpd_model::parse("ph:P=5,Q=3,Lp=4,Lq=2").to_string(),
              "ph:P=5,Q=3,Lp=4,Lq=2");
    EXPECT_EQ(dpd_model::parse(" ph : Lq = 2 , Lp=4,Q=3,P=5 ").to_string(),
              "ph:P=5,Q=3,Lp=4,Lq=2");
    EXPECT_EQ(dpd_model::parse("mp:M=20,K=9").to_string(), "mp:K=9,M=20");
    // Optional keys at their default are left out, given or not.
    EXPECT_EQ(dpd_model::parse("gmp:Ka=5,La=30").to_string(), "gmp:Ka=5,La=30");
    EXPECT_EQ(
        dpd_model::parse("gmp:Ka=5,La=30,Kb=0,Lb=0,Mb=0,Kc=0,Lc=0,Mc=0").to_string(),
        "gmp:Ka=5,La=30");
    EXPECT_EQ(
        dpd_model::parse("gmp:Mc=5,Lc=30,Kc=4,Mb=5,Lb=30,Kb=4,La=30,Ka=5").to_string(),
        "gmp:Ka=5,La=30,Kb=4,Lb=30,Mb=5,Kc=4,Lc=30,Mc=5");
    EXPECT_EQ(dpd_model::parse(" mp : K = 9 ,\tM=20\n").to_string(), "mp:K=9,M=20");
    EXPECT_EQ(dpd_model::parse("mp:K=09,M=20").to_string(), "mp:K=9,M=20");
    EXPECT_EQ(dpd_model::parse("\tgmp:\nKa=1,La=1,Kc=2,Lc=3,Mc=1").to_string(),
              "gmp:Ka=1,La=1,Kc=2,Lc=3,Mc=1");
    // Empty items are skipped.
    EXPECT_EQ(dpd_model::parse("mp:K=3,M=2,"), dpd_model::make_mp(3, 2));
    EXPECT_EQ(dpd_model::parse("mp:K=3,,M=2"), dpd_model::make_mp(3, 2));
    for (const char* s : { "ph:P=1,Q=0,Lp=1,Lq=1",
                           "ph:P=15,Q=15,Lp=256,Lq=255",
                           "mp:K=1,M=1",
                           "mp:K=15,M=273",
                           "gmp:Ka=5,La=6",
                           "gmp:Ka=5,La=10,Kb=3,Lb=5,Mb=2,Kc=3,Lc=5,Mc=1",
                           "gmp:Ka=1,La=3,Kb=1,Lb=1,Mb=1024",
                           "gmp:Ka=2,La=2,Lb=4",
                           "gru:H=1,C=0,D=1",
                           "gru:H=256,C=64,D=1024",
                           "tdnn:M=1,H=1,N=1",
                           "tdnn:M=1024,H=256,N=8" }) {
        const dpd_model m = dpd_model::parse(s);
        EXPECT_EQ(m.to_string(), s);
        EXPECT_EQ(dpd_model::parse(m.to_string()), m);
    }
    // Equality looks at the family's own keys only.
    EXPECT_EQ(dpd_model::parse("mp:K=3,M=2"), dpd_model::make_mp(3, 2));
    EXPECT_NE(dpd_model::parse("mp:K=3,M=2"), dpd_model::make_gmp(3, 2));
    EXPECT_EQ(dpd_model::make_mp(3, 2).as_gmp(), dpd_model::make_gmp(3, 2));
    EXPECT_EQ(dpd_model::parse("gmp:Ka=3,La=2"), dpd_model::make_gmp(3, 2));
}

TEST(DpdModel, SizesLookaheadAndHistory)
{
    const dpd_model ph = dpd_model::parse("ph:P=5,Q=3,Lp=4,Lq=6");
    EXPECT_EQ(ph.num_coefficients(), 3u * 4 + 2u * 6);
    EXPECT_EQ(ph.lookahead(), 0u);
    EXPECT_EQ(ph.history(), 5u);
    EXPECT_EQ(dpd_model::parse("ph:P=5,Q=0,Lp=4,Lq=6").history(), 3u);
    const dpd_model mp = dpd_model::parse("mp:K=9,M=20");
    EXPECT_EQ(mp.num_coefficients(), 180u);
    EXPECT_EQ(mp.lookahead(), 0u);
    EXPECT_EQ(mp.history(), 19u);
    const dpd_model g =
        dpd_model::parse("gmp:Ka=5,La=30,Kb=4,Lb=30,Mb=5,Kc=4,Lc=30,Mc=5");
    EXPECT_EQ(g.num_coefficients(), 5u * 30 + 4u * 30 * 5 + 4u * 30 * 5);
    EXPECT_EQ(g.lookahead(), 5u);
    // deepest read: lagging envelope x[n - 29 - 5], plus the 5-sample delay
    EXPECT_EQ(g.history(), 5u + 34);
    EXPECT_EQ(dpd_model::parse("gmp:Ka=5,La=10,Kb=3,Lb=5,Mb=2,Kc=3,Lc=5,Mc=1")
                  .num_coefficients(),
              95u);
    // A group with a zero size is absent: no look-ahead without leading terms.
    EXPECT_EQ(dpd_model::parse("gmp:Ka=2,La=2,Kc=0,Lc=5,Mc=3").lookahead(), 0u);
    EXPECT_EQ(dpd_model::parse("gmp:Ka=2,La=2,Kc=1,Lc=5,Mc=3").lookahead(), 3u);
    EXPECT_EQ(dpd_model::parse("gmp:Ka=2,La=2,Kc=1,Lc=5,Mc=3").history(), 3u + 4);
    EXPECT_EQ(dpd_model::parse("gmp:Ka=1,La=1").history(), 0u);
}

TEST(DpdModel, UsableRowsAreThoseWhoseWindowReadsOnlyGoodSamples)
{
    // Against the definition, row by row: every sample the row's terms read (signal and
    // envelope lags, leading envelopes included) lies inside the capture and is not flagged.
    const size_t n = 60;
    std::vector<uint8_t> bad(n, 0);
    bad[20] = bad[21] = bad[45] = 1;
    for (const char* spec : { "ph:P=5,Q=3,Lp=4,Lq=2",
                              "mp:K=3,M=5",
                              "gmp:Ka=2,La=3,Kb=1,Lb=2,Mb=2,Kc=2,Lc=2,Mc=3" }) {
        const dpd_model m = dpd_model::parse(spec);
        SCOPED_TRACE(spec);
        const auto ok = m.usable_rows(n, bad.data());
        const auto all = m.usable_rows(n);
        for (size_t i = 0; i < n; i++) {
            bool inside = true, clean = true;
            for (const auto& t : m.terms())
                for (long j :
                     { long(i) - long(t.signal_lag), long(i) - long(t.envelope_lag) }) {
                    inside = inside && j >= 0 && j < long(n);
                    clean = clean && !(j >= 0 && j < long(n) && bad[size_t(j)]);
                }
            EXPECT_EQ(all[i] != 0, inside) << i;
            EXPECT_EQ(ok[i] != 0, inside && clean) << i;
        }
    }
}

// terms() is the coefficient layout the numpy reference builds its basis from: checked here
// against the layout formulas of dpd_predistorter.h and dpd_model.h, written out independently.
TEST(DpdModel, TermsFollowTheDocumentedLayout)
{
    const auto ph = dpd_model::parse("ph:P=5,Q=3,Lp=4,Lq=2");
    const auto tp = ph.terms();
    ASSERT_EQ(tp.size(), ph.num_coefficients());
    for (unsigned p = 1; p <= 5; p += 2)
        for (unsigned k = 0; k < 4; k++) {
            const auto& t = tp[ph_main_index(5, 4, p, k)];
            EXPECT_TRUE(t.signal_lag == k && t.envelope_lag == int(k) &&
                        t.power == p - 1 && !t.conjugate);
        }
    for (unsigned q = 1; q <= 3; q += 2)
        for (unsigned k = 0; k < 2; k++) {
            const auto& t = tp[ph_conj_index(5, 4, 2, q, k)];
            EXPECT_TRUE(t.signal_lag == k && t.envelope_lag == int(k) &&
                        t.power == q - 1 && t.conjugate);
        }
    // gmp: a[k,l] at k*La + l; b[k,l,m] at Na + ((k-1)*Lb + l)*Mb + m-1; c likewise after b.
    const auto g = dpd_model::parse("gmp:Ka=3,La=4,Kb=2,Lb=3,Mb=2,Kc=2,Lc=2,Mc=3");
    const auto tg = g.terms();
    ASSERT_EQ(tg.size(), g.num_coefficients());
    const size_t Na = 3 * 4, Nb = 2 * 3 * 2;
    EXPECT_EQ(tg[2 * 4 + 3].power, 2u);
    EXPECT_EQ(tg[2 * 4 + 3].envelope_lag, 3);
    const auto& b = tg[Na + ((2 - 1) * 3 + 1) * 2 + (2 - 1)]; // b[2,1,2]
    EXPECT_TRUE(b.signal_lag == 1 && b.envelope_lag == 3 && b.power == 2);
    const auto& c = tg[Na + Nb + ((1 - 1) * 2 + 1) * 3 + (3 - 1)]; // c[1,1,3]
    EXPECT_TRUE(c.signal_lag == 1 && c.envelope_lag == -2 && c.power == 1);
    // mp is the gmp with aligned terms only: a[k,m] at (k-1)*M + m, power k-1.
    const auto mp = dpd_model::parse("mp:K=4,M=3");
    const auto tm = mp.terms();
    ASSERT_EQ(tm.size(), 12u);
    EXPECT_TRUE(tm[2 * 3 + 1].signal_lag == 1 && tm[2 * 3 + 1].power == 2);
    const auto keys = g.keys();
    ASSERT_EQ(keys.size(), 8u);
    EXPECT_EQ(keys[4].first, "Mb");
    EXPECT_EQ(keys[4].second, 2u);
}

TEST(DpdModel, ErrorsStartWithModelAndNameTheKey)
{
    struct bad {
        const char* spec;
        const char* key;
    };
    for (const bad& b : std::vector<bad>{ { "", "family" },
                                          { "volterra:K=3", "family" },
                                          { "MP:K=3,M=2", "family" },
                                          { "mp:K=3,M=2,Q=1", "Q" },
                                          { "mp:K=3,M=2,k=1", "k" },
                                          { "mp:K=3,K=4,M=2", "K" },
                                          { "mp:K=3", "M" },
                                          { "mp:M=3", "K" },
                                          { "gmp:La=3", "Ka" },
                                          { "gmp:Ka=3", "La" },
                                          { "ph:P=5,Q=3,Lp=4", "Lq" },
                                          { "mp:K=2.5,M=2", "K" },
                                          { "mp:K=-1,M=2", "K" },
                                          { "mp:K=,M=2", "K" },
                                          { "mp:K=x,M=2", "K" },
                                          { "mp:K=1 0,M=2", "K" },
                                          { "mp:K=+3,M=2", "K" },
                                          { "m p:K=3,M=2", "family" },
                                          { "mp:K=99999999999,M=2", "K" },
                                          { "mp:K,M=2", "K" },
                                          { "mp:K=16,M=2", "K" },
                                          { "mp:K=0,M=2", "K" },
                                          { "mp:K=1,M=1025", "M" },
                                          { "mp:K=1,M=0", "M" },
                                          { "gmp:Ka=1,La=1,Kb=16", "Kb" },
                                          { "gmp:Ka=1,La=1,Lc=1025", "Lc" },
                                          { "gmp:Ka=1,La=1,Mb=1025", "Mb" },
                                          { "ph:P=4,Q=3,Lp=4,Lq=2", "P" },
                                          { "ph:P=5,Q=2,Lp=4,Lq=2", "Q" },
                                          { "ph:P=17,Q=3,Lp=4,Lq=2", "P" },
                                          { "ph:P=5,Q=3,Lp=0,Lq=2", "Lp" },
                                          { "ph:P=5,Q=3,Lp=1,Lq=0", "Lq" },
                                          { "gmp:Ka=0,La=5", "Ka" },
                                          { "gmp:Ka=2,La=0,Kc=1,Lc=1,Mc=1", "La" },
                                          { "ph:P=15,Q=15,Lp=1024,Lq=7", "coefficients" },
                                          { "gmp:Ka=15,La=1024", "coefficients" },
                                          { "mp:K=5,M=820", "coefficients" },
                                          { "lstm:H=3", "family" },
                                          { "gru:H=8,C=1", "D" },
                                          { "gru:C=1,D=1", "H" },
                                          { "gru:H=0,C=1,D=1", "H" },
                                          { "gru:H=257,C=1,D=1", "H" },
                                          { "gru:H=8,C=65,D=1", "C" },
                                          { "gru:H=8,C=1,D=0", "D" },
                                          { "gru:H=8,C=1,D=1025", "D" },
                                          { "gru:H=8,C=1,D=1,M=3", "M" },
                                          { "tdnn:M=0,H=1,N=1", "M" },
                                          { "tdnn:M=1025,H=1,N=1", "M" },
                                          { "tdnn:M=1,H=257,N=1", "H" },
                                          { "tdnn:M=1,H=1,N=0", "N" },
                                          { "tdnn:M=1,H=1,N=9", "N" },
                                          { "tdnn:M=1,H=1", "N" } }) {
        const std::string msg =
            invalid_argument_message([&] { dpd_model::parse(b.spec); });
        EXPECT_EQ(msg.rfind(std::string("model: ") + b.key + ":", 0), 0u)
            << b.spec << " -> " << msg;
    }
    // At the bound: accepted.
    EXPECT_NO_THROW(dpd_model::parse("mp:K=4,M=1024"));
    EXPECT_NO_THROW(dpd_model::parse("mp:K=15,M=1"));
    EXPECT_EQ(invalid_argument_message([] {
                  dpd_model::make_gmp(16, 1);
              }).rfind("model: Ka", 0),
              0u);
}

// ---- the predistorter ----

//! The models in the tests: sizes, random coefficients and LO leakage.
struct model_set {
    dpd_model m;
    std::vector<cf> co;
    cf c;
};

model_set random_set(const std::string& spec, float scale = 0.3f)
{
    model_set s{ dpd_model::parse(spec), {}, random_value<cf>(0.1f) };
    s.co = random_vector<cf>(s.m.num_coefficients(), scale);
    return s;
}

struct reference_out {
    std::vector<cd> z;
    std::vector<double> S; //!< |c| + sum of |terms|: the scale float rounding lives on
    double terms_per_output = 0;
};

//! Naive double reference from the equations in dpd_model.h (ph included), output delayed by lookahead().
reference_out reference(const model_set& s, const std::vector<cf>& x)
{
    const dpd_model& m = s.m;
    const long D = long(m.lookahead());
    auto X = [&](long n) {
        return (n < 0 || n >= long(x.size())) ? cd(0) : to_d(x[size_t(n)]);
    };
    reference_out r;
    r.z.assign(x.size(), to_d(s.c));
    r.S.assign(x.size(), std::abs(to_d(s.c)));
    for (size_t i = 0; i < x.size(); i++) {
        const long n = long(i) - D;
        auto add = [&](cf coef, cd sig, double env, unsigned k) {
            const cd t = to_d(coef) * sig * std::pow(env, double(k));
            r.z[i] += t;
            r.S[i] += std::abs(t);
        };
        if (m.family == dpd_model::family_t::ph) {
            const unsigned Rp = (m.P + 1) / 2;
            for (unsigned p = 1; p <= m.P; p += 2)
                for (unsigned k = 0; k < m.Lp; k++)
                    add(s.co[(p - 1) / 2 * m.Lp + k],
                        X(n - k),
                        std::abs(X(n - k)),
                        p - 1);
            for (unsigned q = 1; m.Q && q <= m.Q; q += 2)
                for (unsigned k = 0; k < m.Lq; k++)
                    add(s.co[Rp * m.Lp + (q - 1) / 2 * m.Lq + k],
                        std::conj(X(n - k)),
                        std::abs(X(n - k)),
                        q - 1);
        } else if (m.family == dpd_model::family_t::mp) {
            for (unsigned k = 1; k <= m.K; k++)
                for (unsigned mm = 0; mm < m.M; mm++)
                    add(s.co[(k - 1) * m.M + mm], X(n - mm), std::abs(X(n - mm)), k - 1);
        } else {
            size_t idx = 0;
            for (unsigned k = 0; k < m.Ka; k++)
                for (unsigned l = 0; l < m.La; l++)
                    add(s.co[idx++], X(n - l), std::abs(X(n - l)), k);
            for (unsigned k = 1; k <= m.Kb; k++)
                for (unsigned l = 0; l < m.Lb; l++)
                    for (unsigned mm = 1; mm <= m.Mb; mm++)
                        add(s.co[idx++], X(n - l), std::abs(X(n - l - mm)), k);
            for (unsigned k = 1; k <= m.Kc; k++)
                for (unsigned l = 0; l < m.Lc; l++)
                    for (unsigned mm = 1; mm <= m.Mc; mm++)
                        add(s.co[idx++], X(n - l), std::abs(X(n - l + mm)), k);
        }
    }
    return r;
}

/*
 * Per output |z - z_ref| <= 4 (2 Kmax + E + Ls + 8) 2^-24 S: a first-order bound of the float
 * evaluation (Horner over at most Kmax+1 powers, E entries summed into a signal lag's g, Ls signal
 * lags accumulated, |x| with 2 roundings), the factor 4 covering the complex components. A wrong
 * coefficient, lag or power moves z by a whole term, far above it.
 */
::testing::AssertionResult
matches(const std::vector<cf>& got, const reference_out& want, const dpd_model& m)
{
    if (got.size() != want.z.size())
        return ::testing::AssertionFailure()
               << "size " << got.size() << " != " << want.z.size();
    const dpd_model g = m.as_gmp();
    const double chain =
        m.family == dpd_model::family_t::ph
            ? 3.0 * (std::max(m.P, m.Q) + 1) / 2 + 4 + m.num_coefficients()
            : 2.0 * 16 + 1 + g.Mb + g.Mc + std::max({ g.La, g.Lb, g.Lc }) + 8;
    const double tol_rel = 4 * chain * std::ldexp(1.0, -24);
    for (size_t i = 0; i < got.size(); i++) {
        const double err = std::abs(to_d(got[i]) - want.z[i]);
        if (!(err <= tol_rel * want.S[i] + 1e-30))
            return ::testing::AssertionFailure()
                   << "output " << i << ": got " << got[i] << " want " << want.z[i]
                   << " err " << err << " > " << tol_rel * want.S[i];
    }
    return ::testing::AssertionSuccess();
}

const std::vector<std::string> specs = {
    "mp:K=9,M=7",
    "mp:K=1,M=1",
    "gmp:Ka=5,La=6",
    "gmp:Ka=5,La=10,Kb=3,Lb=5,Mb=2,Kc=3,Lc=5,Mc=1",
    "gmp:Ka=4,La=3,Kb=2,Lb=4,Mb=3,Kc=3,Lc=2,Mc=4",
    "gmp:Ka=1,La=1,Kc=2,Lc=3,Mc=2", // mostly leading terms
    "gmp:Ka=1,La=1,Kb=4,Lb=2,Mb=6", // lagging terms only, history deeper than La
    "gmp:Ka=3,La=40,Kb=2,Lb=3,Mb=33,Kc=2,Lc=2,Mc=20", // long lags: halo over several warps
};

struct cfg {
    backend b;
    bool mapped;
    const char* name;
    dpd_cuda_variant variant = dpd_cuda_variant::automatic;
};

class GmpKernel : public ::testing::TestWithParam<cfg>
{
protected:
    void SetUp() override { GPUINTERP_SKIP_WITHOUT_DEVICE(GetParam().b); }

    std::unique_ptr<dpd_predistorter> make(const model_set& s, size_t batch = 0)
    {
        auto k = std::make_unique<dpd_predistorter>(
            s.m, s.co, s.c, GetParam().b, 0, batch, GetParam().mapped);
        k->set_cuda_variant(GetParam().variant);
        return k;
    }

    //! x through a fresh kernel in random chunks (0 included) into a NaN-poisoned output.
    std::vector<cf>
    run(const model_set& s, const std::vector<cf>& x, size_t max_chunk, size_t batch = 0)
    {
        auto k = make(s, batch);
        std::vector<cf> y(x.size());
        poison(y);
        for (size_t pos = 0; pos < x.size();) {
            const size_t c = std::min(x.size() - pos, random_size(0, max_chunk));
            k->process(y.data() + pos, x.data() + pos, c);
            pos += c;
        }
        return y;
    }
};

TEST_P(GmpKernel, MatchesReferenceInRandomChunks)
{
    for (const auto& spec : specs) {
        const model_set s = random_set(spec);
        const auto x = random_vector<cf>(3000, 1.0f);
        EXPECT_TRUE(matches(run(s, x, 300, 256), reference(s, x), s.m)) << spec;
        EXPECT_TRUE(matches(run(s, x, 5), reference(s, x), s.m))
            << spec << " (tiny chunks)";
    }
}

TEST_P(GmpKernel, OneCallEqualsAnyChunkingBitForBit)
{
    const model_set s = random_set("gmp:Ka=4,La=3,Kb=2,Lb=4,Mb=3,Kc=3,Lc=2,Mc=4");
    const auto x = random_vector<cf>(20000, 1.0f);
    auto k = make(s);
    const auto whole = k->process(x);
    EXPECT_EQ(run(s, x, 4000, 3000), whole);
    EXPECT_EQ(run(s, x, 3), std::vector<cf>(whole.begin(), whole.end()))
        << "chunks shorter than the history";
}

TEST_P(GmpKernel, CoefficientSwitchAtAnExactSample)
{
    for (size_t n0 : { size_t(0), size_t(1), size_t(5), size_t(1000), size_t(2047) }) {
        const model_set a = random_set("gmp:Ka=3,La=4,Kb=2,Lb=3,Mb=2,Kc=2,Lc=3,Mc=3");
        model_set b = a;
        b.co = random_vector<cf>(a.co.size(), 0.3f);
        b.c = random_value<cf>(0.1f);
        const auto x = random_vector<cf>(2048, 1.0f);
        const auto y = process_switching_at(*make(a), x, n0, b.co, b.c);
        // Outputs before n0 follow a; from n0 on b (its memory and look-ahead reach old samples).
        const auto ra = reference(a, x);
        EXPECT_TRUE(matches(y, spliced_at(ra, reference(b, x), n0), b.m)) << "n0=" << n0;
        if (n0 < x.size())
            EXPECT_GT(std::abs(to_d(y[n0]) - ra.z[n0]), 1e-3)
                << "the old set must differ at n0";
    }
}

TEST_P(GmpKernel, MpIsGmpWithAlignedTermsOnly)
{
    const model_set mp = random_set("mp:K=7,M=9");
    model_set g = mp;
    g.m = dpd_model::make_gmp(7, 9);
    const auto x = random_vector<cf>(5000, 1.0f);
    EXPECT_EQ(run(mp, x, 700), run(g, x, 700));
    EXPECT_TRUE(matches(run(mp, x, 700), reference(mp, x), mp.m));
}

TEST_P(GmpKernel, PhThroughTheModelIsTheOldConstructorBitForBit)
{
    const model_set s = random_set("ph:P=7,Q=3,Lp=5,Lq=3");
    const auto x = random_vector<cf>(10000, 1.0f);
    dpd_predistorter old(
        ph_of(7, 3, 5, 3), s.co, s.c, GetParam().b, 0, 0, GetParam().mapped);
    auto k = make(s);
    const auto y = k->process(x);
    EXPECT_EQ(y, old.process(x));
    EXPECT_TRUE(matches(y, reference(s, x), s.m));
    EXPECT_EQ(k->model(), s.m);
    EXPECT_EQ(k->model().P, 7u);
    EXPECT_EQ(k->model().Lq, 3u);
    EXPECT_EQ(k->delay(), 0u);
    EXPECT_EQ(old.model().to_string(), "ph:P=7,Q=3,Lp=5,Lq=3");
}

TEST_P(GmpKernel, LeadingTermsDelayTheOutput)
{
    // a_00 = 1 and leading terms with zero coefficients: out[i] = x[i - D], the first D outputs
    // the LO leakage alone (model at negative times sees only zeros).
    model_set s = random_set("gmp:Ka=2,La=2,Kc=2,Lc=3,Mc=3");
    std::fill(s.co.begin(), s.co.end(), cf(0));
    s.co[0] = cf(1);
    s.c = cf(0.25f, -0.5f);
    const auto x = random_vector<cf>(1000, 1.0f);
    auto k = make(s);
    EXPECT_EQ(k->delay(), 3u);
    EXPECT_EQ(k->history(), 3u + 2);
    const auto y = run(s, x, 50);
    for (size_t i = 0; i < x.size(); i++) {
        const cf want = (i < 3 ? cf(0) : x[i - 3]) + s.c;
        ASSERT_NEAR(y[i].real(), want.real(), 1e-6) << i;
        ASSERT_NEAR(y[i].imag(), want.imag(), 1e-6) << i;
    }
    // A leading term alone: out[i] = x[i-D] |x[i-D+m]| (m = 2) reaches the newest input at m = D.
    model_set t = random_set("gmp:Ka=1,La=1,Kc=1,Lc=1,Mc=3");
    std::fill(t.co.begin(), t.co.end(), cf(0));
    t.co[2] = cf(0, 1); // c_{1,0,2}, after a_00
    t.c = cf(0);
    const auto z = run(t, x, 77);
    for (size_t i = 0; i < x.size(); i++) {
        const cf want = i < 3 ? cf(0) : x[i - 3] * std::abs(x[i - 1]) * cf(0, 1);
        ASSERT_NEAR(std::abs(z[i] - want), 0.0, 1e-6) << i;
    }
}

TEST_P(GmpKernel, ModelsAtTheBounds)
{
    // 4095 coefficients at order 15; 4096 coefficients with a 1024-sample look-ahead and a history of
    // 2049 samples (the largest shared-memory need of the CUDA kernel, ~150 KiB per block).
    for (const char* spec :
         { "gmp:Ka=15,La=273", "gmp:Ka=1,La=1024,Kb=1,Lb=1024,Mb=2,Kc=1,Lc=1,Mc=1024" }) {
        const model_set s = random_set(spec, 0.02f);
        ASSERT_LE(s.m.num_coefficients(), dpd_model::max_coefficients);
        const auto x = random_vector<cf>(3000, 1.0f);
        EXPECT_TRUE(matches(run(s, x, 1500), reference(s, x), s.m)) << spec;
    }
}

TEST_P(GmpKernel, LongStreamManyLaunchesAndThreads)
{
    const model_set s = random_set("gmp:Ka=5,La=10,Kb=3,Lb=5,Mb=2,Kc=3,Lc=5,Mc=1");
    const auto x = random_vector<cf>(300001, 1.0f);
    EXPECT_TRUE(matches(run(s, x, 200000, 4096), reference(s, x), s.m));
}

TEST_P(GmpKernel, ResetAndEmptyInput)
{
    const model_set s = random_set("gmp:Ka=3,La=3,Kb=2,Lb=2,Mb=2,Kc=2,Lc=2,Mc=2");
    const auto x = random_vector<cf>(700, 1.0f);
    auto k = make(s);
    const auto a = k->process(x);
    k->process(nullptr, nullptr, 0);
    EXPECT_TRUE(k->process(std::vector<cf>{}).empty());
    const auto b = k->process(x);
    EXPECT_NE(a[0], b[0]);
    k->reset();
    EXPECT_EQ(k->process(x), a);
}

TEST_P(GmpKernel, DeviceEntryPointMatchesHost)
{
    const model_set s = random_set("gmp:Ka=4,La=3,Kb=2,Lb=4,Mb=3,Kc=3,Lc=2,Mc=4");
    const auto x = random_vector<cf>(60000, 1.0f);
    auto k = make(s);
    const auto got = process_mixed(
        *k,
        GetParam().b,
        x,
        [](int it) { return it % 3 == 0 ? random_size(1, 9) : random_size(1, 9000); },
        [](int it) { return it % 5 == 4; });
    EXPECT_TRUE(matches(got, reference(s, x), s.m));
}

TEST_P(GmpKernel, LargeCallWithPartialLastTile)
{
    const model_set s = random_set("gmp:Ka=5,La=6,Kb=2,Lb=3,Mb=2,Kc=2,Lc=3,Mc=2");
    const auto x =
        random_vector<cf>((size_t(1) << 20) + 2 * random_size(0, 700) + 1, 1.0f);
    const auto y = run(s, x, size_t(1) << 21, size_t(1) << 22);
    // Reference on the first and last 20000 outputs (every tile position of the GPU kernel is in
    // them); every output must have been written (NaN poison).
    const std::vector<cf> head(x.begin(), x.begin() + 20000);
    EXPECT_TRUE(
        matches(std::vector<cf>(y.begin(), y.begin() + 20000), reference(s, head), s.m));
    size_t non_finite = 0;
    for (const cf& v : y)
        non_finite += !(std::isfinite(v.real()) && std::isfinite(v.imag()));
    EXPECT_EQ(non_finite, 0u);
    // The tail: the same kernel over the last 20000 + history inputs, outputs compared past the history.
    const size_t from = x.size() - 20000 - s.m.history();
    const std::vector<cf> tail(x.begin() + from, x.end());
    const auto rt = reference(s, tail);
    reference_out r;
    r.z.assign(rt.z.begin() + s.m.history(), rt.z.end());
    r.S.assign(rt.S.begin() + s.m.history(), rt.S.end());
    EXPECT_TRUE(matches(std::vector<cf>(y.end() - 20000, y.end()), r, s.m));
}

// The kernel asked for is the one that runs: on CUDA the compiled one wherever NVRTC is there
// (the GPU host has it), the interpreted one when asked for; a PH variant changes nothing.
TEST_P(GmpKernel, RunsTheKernelItAsksFor)
{
    const model_set s = random_set("gmp:Ka=5,La=10,Kb=3,Lb=5,Mb=2,Kc=3,Lc=5,Mc=1");
    auto k = make(s);
    const auto x = random_vector<cf>(5000, 1.0f);
    const auto y0 = k->process(x);
    if (GetParam().b == backend::cpu) {
        EXPECT_EQ(k->active_cuda_variant(), dpd_cuda_variant::automatic);
        return;
    }
#ifdef GPUINTERP_HAVE_CUDA
    const auto want = GetParam().variant == dpd_cuda_variant::interpreted ||
                              !gi::gpu::gmp_jit_available()
                          ? dpd_cuda_variant::interpreted
                          : dpd_cuda_variant::compiled;
    EXPECT_EQ(k->active_cuda_variant(), want);
    // automatic keeps entries longer than the tuning row's longest_compiled_entry (here 11
    // coefficients) on the interpreted kernel; compiled forces it.
    auto longer = make(random_set("gmp:Ka=12,La=4"));
    if (GetParam().variant == dpd_cuda_variant::automatic)
        EXPECT_EQ(longer->active_cuda_variant(), dpd_cuda_variant::interpreted);
    longer->set_cuda_variant(dpd_cuda_variant::compiled);
    EXPECT_EQ(longer->active_cuda_variant(),
              gi::gpu::gmp_jit_available() ? dpd_cuda_variant::compiled
                                           : dpd_cuda_variant::interpreted);
#endif
    k->set_cuda_variant(dpd_cuda_variant::tiled); // ph only: ignored
    EXPECT_EQ(k->cuda_variant(), dpd_cuda_variant::tiled);
    // Switching kernels mid-stream keeps the stream: both halves match the reference.
    k->set_cuda_variant(GetParam().variant == dpd_cuda_variant::interpreted
                            ? dpd_cuda_variant::compiled
                            : dpd_cuda_variant::interpreted);
    const auto y1 = k->process(x);
    std::vector<cf> xx(x), yy(y0);
    xx.insert(xx.end(), x.begin(), x.end());
    yy.insert(yy.end(), y1.begin(), y1.end());
    EXPECT_TRUE(matches(yy, reference(s, xx), s.m));
}

INSTANTIATE_TEST_SUITE_P(
    Backends,
    GmpKernel,
    ::testing::Values(
        cfg{ backend::cpu, false, "cpu" },
        cfg{ backend::cuda, false, "cuda" },
        cfg{ backend::cuda, true, "cuda_mapped" },
        cfg{ backend::cuda, false, "cuda_interpreted", dpd_cuda_variant::interpreted }),
    [](const testing::TestParamInfo<cfg>& i) { return std::string(i.param.name); });

#ifdef GPUINTERP_HAVE_CUDA
// No device needed: the source generated for every test model compiles (NVRTC) for the H200's
// architecture, and a model beyond the kernel-parameter space is refused with a reason.
TEST(GmpJit, GeneratedSourceCompilesForEveryTestModel)
{
    if (!gi::gpu::gmp_jit_available())
        GTEST_SKIP() << "NVRTC not found";
    for (const auto& spec : specs) {
        const model_set s = random_set(spec);
        const auto b = gi::gpu::flatten(gi::kernel::make_gmp_program(s.m, s.co, s.c));
        std::string why;
        for (int V : { 1, 2, 4 })
            for (bool shared : { false, true }) {
                const auto* cubin = gi::gpu::gmp_jit_cubin(b, 90, { V, shared }, &why);
                ASSERT_NE(cubin, nullptr)
                    << spec << " V=" << V << " shared=" << shared << ": " << why;
                EXPECT_GT(cubin->size(), 1000u) << spec;
            }
        // The lab's other blocks and tiles (bench/kernel_timing.h) compile too.
        for (const auto& blk : gi::gpu::gmp_lab_blocks) {
            const gi::gpu::gmp_jit_shape shape{ 2, false, 0, blk.threads, blk.outputs };
            ASSERT_NE(gi::gpu::gmp_jit_cubin(b, 90, shape, &why), nullptr)
                << spec << " block " << blk.threads << " x " << blk.outputs << ": "
                << why;
        }
        // The shared-memory form reads no coefficient from the constant bank inside its loop.
        const std::string src = gi::gpu::gmp_jit_source(b, { 2, true });
        EXPECT_EQ(src.find("C.c[", src.find("for (int q")), std::string::npos) << spec;
        if (b.ne > 0)
            EXPECT_NE(gi::gpu::gmp_jit_source(b, { 2, false }).find("C.c["),
                      std::string::npos)
                << spec;
    }
    EXPECT_THROW(gi::gpu::gmp_jit_source(
                     gi::gpu::flatten(gi::kernel::make_gmp_program(
                         random_set(specs[0]).m, random_set(specs[0]).co, cf())),
                     { 3, false }),
                 std::invalid_argument);
    const model_set big = random_set("gmp:Ka=15,La=273", 0.02f);
    std::string why;
    EXPECT_EQ(gi::gpu::gmp_jit_cubin(
                  gi::gpu::flatten(gi::kernel::make_gmp_program(big.m, big.co, big.c)),
                  90,
                  { 1, false },
                  &why),
              nullptr);
    EXPECT_NE(why.find("parameter"), std::string::npos) << why;
    // The history bound is what the tile leaves (gmp_jit_max_history): the library's tile of 2048
    // outputs leaves 2046 samples, whose tile fills the 48 KiB exactly (the limit NVRTC holds the
    // kernel to); one more is refused, and a tile of 512 x 8 outputs leaves none.
    auto program = [](const char* spec) {
        const model_set m = random_set(spec);
        return gi::gpu::flatten(gi::kernel::make_gmp_program(m.m, m.co, m.c));
    };
    const auto edge = program("gmp:Ka=1,La=1024,Kc=1,Lc=1,Mc=1023");
    ASSERT_EQ(edge.H, gi::gpu::gmp_jit_max_history(256, 8));
    EXPECT_EQ(gi::gpu::gmp_jit_shared_bytes(edge, { 2, false }), 48u * 1024);
    const auto db = program("gmp:Ka=1,La=1024,Kc=1,Lc=1,Mc=1024");
    ASSERT_EQ(db.H, gi::gpu::gmp_jit_max_history(256, 8) + 1);
    EXPECT_EQ(gi::gpu::gmp_jit_cubin(db, 90, { 2, false }, &why), nullptr);
    EXPECT_NE(why.find("history"), std::string::npos) << why;
    const model_set shallow = random_set(specs[0]);
    const auto sb =
        gi::gpu::flatten(gi::kernel::make_gmp_program(shallow.m, shallow.co, shallow.c));
    EXPECT_EQ(gi::gpu::gmp_jit_cubin(sb, 90, { 2, false, 0, 512, 8 }, &why), nullptr);
    EXPECT_NE(why.find("history"), std::string::npos) << why;
    // The block must be whole warps.
    EXPECT_THROW(gi::gpu::gmp_jit_source(db, { 2, false, 0, 100, 8 }),
                 std::invalid_argument);
}


// The engine's shape follows the tuning row: the coefficients move to shared memory once the
// parameter block passes jit_shared_above, unless they would not fit beside the tile.
TEST(GmpJit, ShapeFollowsTheTuningRow)
{
    const auto& row = gi::gpu::gmp_tuning_for(90);
    auto blob = [](const char* spec) {
        const model_set s = random_set(spec);
        return gi::gpu::flatten(gi::kernel::make_gmp_program(s.m, s.co, s.c));
    };
    const auto small =
        gi::gpu::gmp_jit_shape_for(blob("gmp:Ka=5,La=6"), row); // 248 bytes
    const auto large = gi::gpu::gmp_jit_shape_for(
        blob("gmp:Ka=10,La=20,Kb=5,Lb=10,Mb=3,Kc=5,Lc=10,Mc=3"), row); // 4008 bytes
    // 24 KB of coefficients do not fit beside the 27 KB tile.
    const auto hb = blob("gmp:Ka=15,La=200");
    const auto huge = gi::gpu::gmp_jit_shape_for(hb, row);
    EXPECT_EQ(small.V, row.jit_vector);
    EXPECT_FALSE(small.shared);
    EXPECT_TRUE(large.shared);
    EXPECT_EQ(large.constant_count, row.jit_constant_first);
    EXPECT_EQ(gi::gpu::gmp_jit_waves(row, small), row.jit_waves);
    EXPECT_EQ(gi::gpu::gmp_jit_waves(row, large), row.jit_shared_waves);
    EXPECT_FALSE(huge.shared);
    EXPECT_GT(gi::gpu::gmp_jit_shared_bytes(hb, { 2, true }), 48u * 1024);
    EXPECT_LE(gi::gpu::gmp_jit_shared_bytes(hb, { 2, false }), 48u * 1024);
}

// On the device: the compiled kernel with 2 or 4 adjacent outputs per thread, and the lab's other
// blocks and tiles (gmp_lab_blocks) with 2, gives the outputs of the one-output form bit for bit
// (each output's FMAs run in the same order, whichever thread and tile computes it), which match
// the double-precision reference, whether y is 16-byte aligned or not, over three tiles and a
// part (more of the smaller tiles), and writes nothing past n.
TEST(GmpJit, EveryOutputsPerThreadFormIsBitExact)
{
    GPUINTERP_SKIP_WITHOUT_CUDA();
    if (!gi::gpu::gmp_jit_available())
        GTEST_SKIP() << "NVRTC not found";
    const size_t n = 3 * 2048 + 37;
    for (const auto& spec : specs) {
        const model_set s = random_set(spec);
        const auto b = gi::gpu::flatten(gi::kernel::make_gmp_program(s.m, s.co, s.c));
        // H zero samples of history, as a fresh engine's stream starts, then the signal.
        const auto sig = random_vector<cf>(n, 1.0f);
        std::vector<cf> x(b.H, cf());
        x.insert(x.end(), sig.begin(), sig.end());
        std::vector<char> params;
        gi::gpu::gmp_jit_params(b, params);
        void *dx = nullptr, *dy = nullptr;
        ASSERT_EQ(cudaMalloc(&dx, x.size() * sizeof(cf)), cudaSuccess);
        ASSERT_EQ(cudaMalloc(&dy, (n + 2) * sizeof(cf)), cudaSuccess);
        ASSERT_EQ(upload_waited(dx, x.data(), x.size() * sizeof(cf)), cudaSuccess);
        std::vector<cf> ref;
        // Every shape does the same FMAs in the same order, so all agree bit for bit.
        std::vector<gi::gpu::gmp_jit_shape> shapes;
        for (int V : { 1, 2, 4 })
            for (bool shared : { false, true })
                shapes.push_back({ V, shared, shared ? 7 : 0 });
        for (const auto& blk : gi::gpu::gmp_lab_blocks)
            for (bool shared : { false, true })
                shapes.push_back({ 2, shared, shared ? 7 : 0, blk.threads, blk.outputs });
        for (const auto& shape : shapes)
            for (size_t shift : { 0, 1 }) {
                const int V = shape.V;
                const bool shared = shape.shared;
                std::string why;
                auto k = gi::gpu::compile_gmp_jit(b, 0, shape, &why);
                ASSERT_NE(k.fn, nullptr)
                    << spec << " V=" << V << " shared=" << shared << " block "
                    << shape.threads << " x " << shape.outputs << ": " << why;
                ASSERT_EQ(cudaMemset(dy, 0xff, (n + 2) * sizeof(cf)), cudaSuccess);
                float2* y = static_cast<float2*>(dy) + shift;
                gi::gpu::launch_gmp_jit(
                    k, params, { static_cast<const float2*>(dx), y, n, nullptr });
                std::vector<cf> out(n + 1);
                ASSERT_EQ(
                    cudaMemcpy(
                        out.data(), y, (n + 1) * sizeof(cf), cudaMemcpyDeviceToHost),
                    cudaSuccess);
                gi::gpu::release_gmp_jit(k);
                EXPECT_TRUE(std::isnan(out[n].real()))
                    << spec << " V=" << V << ": wrote past n";
                out.resize(n);
                if (ref.empty()) {
                    ref = out;
                    // The one-output form against the double-precision reference.
                    EXPECT_TRUE(matches(out, reference(s, sig), s.m)) << spec;
                } else
                    EXPECT_EQ(std::memcmp(out.data(), ref.data(), n * sizeof(cf)), 0)
                        << spec << " V=" << V << " shared=" << shared << " block "
                        << shape.threads << " x " << shape.outputs << " y offset "
                        << shift;
            }
        cudaFree(dx);
        cudaFree(dy);
    }
}
#endif

TEST(GmpCpu, PortablePathMatchesReference)
{
    gi::kernel::set_cpu_simd(false);
    for (const auto& spec : specs) {
        const model_set s = random_set(spec);
        const auto x = random_vector<cf>(4000, 1.0f);
        dpd_predistorter k(s.m, s.co, s.c);
        EXPECT_TRUE(matches(k.process(x), reference(s, x), s.m)) << spec;
    }
    gi::kernel::set_cpu_simd(true);
}

TEST(GmpParams, LegacyConstructorKeepsItsWiderPhBounds)
{
    // 8 orders x 600 taps x 2 branches: beyond a spec's 4096 coefficients, still a valid (P, Q, Lp, Lq) set.
    std::vector<cf> co(ph_num_coefficients(15, 15, 600, 600), cf(0));
    co[0] = cf(1);
    dpd_predistorter k(ph_of(15, 15, 600, 600), co, 0);
    const auto x = random_vector<cf>(50, 1.0f);
    EXPECT_EQ(k.process(x), x);
    EXPECT_EQ(k.model().to_string(), "ph:P=15,Q=15,Lp=600,Lq=600");
    EXPECT_EQ(invalid_argument_message([&] {
                  dpd_model::parse(k.model().to_string());
              }).rfind("model: coefficients", 0),
              0u);
}

TEST(GmpParams, CoefficientErrors)
{
    const model_set s = random_set("gmp:Ka=2,La=2,Kb=1,Lb=1,Mb=1");
    auto co = s.co;
    co.pop_back();
    EXPECT_EQ(invalid_argument_message([&] {
                  dpd_predistorter(s.m, co, 0);
              }).rfind("coefficients: expected 5 values for gmp:", 0),
              0u);
    co = s.co;
    co[4] = cf(std::nanf(""), 0);
    EXPECT_EQ(invalid_argument_message([&] {
                  dpd_predistorter(s.m, co, 0);
              }).rfind("coefficients:", 0),
              0u);
    EXPECT_EQ(invalid_argument_message([&] {
                  dpd_predistorter(s.m, s.co, cf(INFINITY, 0));
              }).rfind("lo_leakage:", 0),
              0u);
    dpd_predistorter k(s.m, s.co, 0);
    const auto x = random_vector<cf>(100, 1.0f);
    const auto before = k.process(x);
    k.reset();
    EXPECT_THROW(k.set_coefficients(co, 0), std::invalid_argument);
    EXPECT_EQ(k.coefficients(), s.co) << "unchanged on error";
    EXPECT_EQ(k.process(x), before);
}

// The structure is validated once, by the factory that builds a model: a caller cannot write a
// field afterwards, so a predistorter, a bank or a Gram never meets an unchecked model.
static_assert(!std::is_assignable_v<decltype((std::declval<dpd_model&>().Kb)), unsigned>);
static_assert(!std::is_assignable_v<decltype((std::declval<dpd_model&>().family)),
                                    dpd_model::family_t>);
static_assert(std::is_copy_assignable_v<dpd_model>);

TEST(DpdModel, FactoriesRefuseWhatTheyCannotRun)
{
    // Each way in validates: a gmp group out of range, a ph order the engine cannot run.
    EXPECT_EQ(invalid_argument_message([] { dpd_model::make_gmp(2, 2, 99, 1, 1); }),
              "model: Kb: must be 0 <= Kb <= 15, got 99");
    EXPECT_EQ(invalid_argument_message([] {
                  dpd_model::ph_params(4, 0, 1, 1);
              }).rfind("P: ", 0),
              0u);
}

TEST(GmpProgram, LayoutOfTheCoefficients)
{
    // The program places user coefficient (k, l, m) at the documented index: build a model whose
    // coefficients are their own indices and read them back per (signal lag, envelope lag, power).
    const dpd_model m = dpd_model::parse("gmp:Ka=2,La=3,Kb=2,Lb=2,Mb=3,Kc=3,Lc=2,Mc=2");
    std::vector<cf> co(m.num_coefficients());
    for (size_t i = 0; i < co.size(); i++)
        co[i] = cf(float(i), 0);
    const auto p = gi::kernel::make_gmp_program(m, co, 0);
    const int D = 2;
    EXPECT_EQ(p.H, size_t(D + 1 + 3));
    EXPECT_EQ(p.coef.size(), co.size());
    auto find = [&](int s, int e, int k) -> float {
        for (const auto& L : p.lags)
            if (L.s == s)
                for (int i = L.first; i < L.end; i++) {
                    const auto& E = p.entries[i];
                    if (E.e == e && k >= E.k0 && k < E.k0 + E.cnt)
                        return p.coef[E.off + (k - E.k0)].real();
                }
        return -1;
    };
    for (unsigned k = 0; k < 2; k++)
        for (unsigned l = 0; l < 3; l++)
            EXPECT_EQ(find(D + l, D + l, k), float(k * 3 + l));
    for (unsigned k = 1; k <= 2; k++)
        for (unsigned l = 0; l < 2; l++)
            for (unsigned mm = 1; mm <= 3; mm++)
                EXPECT_EQ(find(D + l, D + l + mm, k),
                          float(6 + ((k - 1) * 2 + l) * 3 + mm - 1));
    for (unsigned k = 1; k <= 3; k++)
        for (unsigned l = 0; l < 2; l++)
            for (unsigned mm = 1; mm <= 2; mm++)
                EXPECT_EQ(find(D + l, D + l - mm, k),
                          float(18 + ((k - 1) * 2 + l) * 2 + mm - 1));
}

} // namespace
