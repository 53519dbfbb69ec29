/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Flowgraph tests of dpd_predistorter_cc in C++ (they also run on the GPU host, which has no GNU
// Radio Python): vector_source -> dpd_predistorter_cc -> vector_sink against a naive double
// reference of the model, tag propagation, `dpd_coeffs` tags and the `coeffs` message port.
#include "fg_util.h"
#include "test_util.h"
#include <gnuradio/gpuinterp/dpd_predistorter_cc.h>
#include <gnuradio/gpuinterp/kernel/backend.h>
#include <gnuradio/gpuinterp/kernel/dpd_model.h>
#include <gnuradio/top_block.h>
#include <gtest/gtest.h>
#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <random>

using cf = std::complex<float>;
using cd = std::complex<double>;

namespace {

struct model {
    unsigned P, Q, Lp, Lq;
    std::vector<cf> co;
    cf c;
};

std::mt19937& rng()
{
    static std::mt19937 g(99);
    return g;
}

std::vector<cf> crand(size_t n, float scale)
{
    std::uniform_real_distribution<float> d(-scale, scale);
    std::vector<cf> v(n);
    for (auto& x : v)
        x = { d(rng()), d(rng()) };
    return v;
}

model random_model(unsigned P, unsigned Q, unsigned Lp, unsigned Lq)
{
    const size_t n = (P + 1) / 2 * Lp + (Q ? (Q + 1) / 2 * Lq : 0);
    auto co = crand(n, 0.3f);
    co[0] = 1.0f;
    return { P, Q, Lp, Lq, co, crand(1, 0.05f)[0] };
}

//! The model in double; S[n] = |c| + sum |coef||psi| (the scale of float rounding, see qa_dpd_predistorter.cc).
std::vector<cd>
reference(const model& m, const std::vector<cf>& x, std::vector<double>* S = nullptr)
{
    std::vector<cd> z(x.size(), cd(m.c.real(), m.c.imag()));
    if (S)
        S->assign(x.size(), std::abs(cd(m.c.real(), m.c.imag())));
    auto psi = [](cf v, unsigned p) {
        const cd d(v.real(), v.imag());
        return d * std::pow(std::norm(d), (p - 1) / 2.0);
    };
    for (size_t n = 0; n < x.size(); n++) {
        for (unsigned p = 1; p <= m.P; p += 2)
            for (unsigned k = 0; k < m.Lp && k <= n; k++) {
                const cf h = m.co[(p - 1) / 2 * m.Lp + k];
                const cd t = cd(h.real(), h.imag()) * psi(x[n - k], p);
                z[n] += t;
                if (S)
                    (*S)[n] += std::abs(t);
            }
        for (unsigned q = 1; m.Q && q <= m.Q; q += 2)
            for (unsigned k = 0; k < m.Lq && k <= n; k++) {
                const cf g = m.co[(m.P + 1) / 2 * m.Lp + (q - 1) / 2 * m.Lq + k];
                const cd t = cd(g.real(), g.imag()) * std::conj(psi(x[n - k], q));
                z[n] += t;
                if (S)
                    (*S)[n] += std::abs(t);
            }
    }
    return z;
}

//! max over n of |got - want| / S[n]: float rounding keeps it near 1e-7 for these sizes.
double worst(const std::vector<cf>& got,
             const std::vector<cd>& want,
             const std::vector<double>& S)
{
    EXPECT_EQ(got.size(), want.size());
    double w = 0;
    for (size_t i = 0; i < std::min(got.size(), want.size()); i++)
        w = std::max(w, std::abs(cd(got[i].real(), got[i].imag()) - want[i]) / S[i]);
    return w;
}

class FgDpd : public gpuinterp_fg::backend_test
{
protected:
    gr::gpuinterp::dpd_predistorter_cc::sptr make(const model& m)
    {
        auto b = gr::gpuinterp::dpd_predistorter_cc::make(
            m.P, m.Q, m.Lp, m.Lq, m.co, m.c, GetParam());
        EXPECT_EQ(b->active_backend(), GetParam());
        return b;
    }

    std::shared_ptr<gr::blocks::vector_sink<cf>>
    run(gr::block_sptr blk,
        const std::vector<cf>& x,
        const std::vector<gr::tag_t>& tags = {})
    {
        return gpuinterp_fg::run_through<cf>(x, { blk }, tags);
    }

    static gr::tag_t tag(uint64_t offset, const char* key, pmt::pmt_t value)
    {
        gr::tag_t t;
        t.offset = offset;
        t.key = pmt::intern(key);
        t.value = value;
        return t;
    }
};

TEST_P(FgDpd, MatchesReferenceAndPropagatesTags)
{
    for (auto [P, Q, L] : std::vector<std::array<unsigned, 3>>{
             { 5, 3, 5 }, { 7, 7, 8 }, { 9, 5, 16 }, { 1, 0, 1 }, { 3, 1, 33 } }) {
        const model m = random_model(P, Q, L, L);
        const auto x = crand(20011, 0.7f);
        auto snk = run(make(m), x, { tag(1234, "mark", pmt::from_long(42)) });
        std::vector<double> S;
        const auto want = reference(m, x, &S);
        ASSERT_EQ(snk->data().size(), x.size());
        EXPECT_LE(worst(snk->data(), want, S), 2e-5)
            << "P=" << P << " Q=" << Q << " L=" << L;
        auto t = snk->tags();
        ASSERT_EQ(t.size(), 1u);
        EXPECT_EQ(t[0].offset, 1234u);
        EXPECT_EQ(pmt::symbol_to_string(t[0].key), "mark");
    }
}

TEST_P(FgDpd, TagsSwitchCoefficientsAtTheTaggedSample)
{
    const model a = random_model(5, 3, 5, 4), b = random_model(5, 3, 5, 4),
                c = random_model(5, 3, 5, 4);
    const auto x = crand(30000, 0.8f);
    // b at 5000 (c32vector: c of a kept), a malformed tag at 7000 (ignored), c at 21111 with its
    // own lo_leakage (pair form).
    const std::vector<gr::tag_t> tags = {
        tag(5000, "dpd_coeffs", pmt::init_c32vector(b.co.size(), b.co)),
        tag(7000, "dpd_coeffs", pmt::intern("garbage")),
        tag(9000,
            "dpd_coeffs",
            pmt::init_c32vector(3, std::vector<cf>(3, cf(1)))), // wrong length
        tag(21111,
            "dpd_coeffs",
            pmt::cons(pmt::init_c32vector(c.co.size(), c.co), pmt::from_complex(c.c))),
    };
    auto snk = run(make(a), x, tags);
    model b_with_a_c = b;
    b_with_a_c.c = a.c;
    std::vector<double> Sa, Sb, Sc;
    const auto ra = reference(a, x, &Sa), rb = reference(b_with_a_c, x, &Sb),
               rc = reference(c, x, &Sc);
    std::vector<cd> want(ra.begin(), ra.begin() + 5000);
    want.insert(want.end(), rb.begin() + 5000, rb.begin() + 21111);
    want.insert(want.end(), rc.begin() + 21111, rc.end());
    std::vector<double> S(Sa.begin(), Sa.begin() + 5000);
    S.insert(S.end(), Sb.begin() + 5000, Sb.begin() + 21111);
    S.insert(S.end(), Sc.begin() + 21111, Sc.end());
    EXPECT_LE(worst(snk->data(), want, S), 2e-5);
    EXPECT_EQ(snk->tags().size(), tags.size()); // dpd_coeffs tags propagate too
}

TEST_P(FgDpd, MessagePortAppliesAValidSetAndIgnoresAMalformedOne)
{
    const model a = random_model(3, 1, 3, 3), b = random_model(3, 1, 3, 3);
    const auto x = crand(8000, 0.8f);
    std::vector<double> S;
    {
        // Messages posted before the run are handled before the first work(): all of x uses b.
        auto blk = make(a);
        pmt::pmt_t d = pmt::make_dict();
        d = pmt::dict_add(
            d, pmt::intern("coefficients"), pmt::init_c32vector(b.co.size(), b.co));
        d = pmt::dict_add(d, pmt::intern("lo_leakage"), pmt::from_complex(b.c));
        blk->_post(pmt::mp("coeffs"), d);
        auto snk = run(blk, x);
        EXPECT_LE(worst(snk->data(), reference(b, x, &S), S), 2e-5);
        EXPECT_EQ(blk->coefficients(), b.co);
    }
    {
        auto blk = make(a);
        blk->_post(pmt::mp("coeffs"), pmt::from_double(1.0)); // not a vector
        blk->_post(pmt::mp("coeffs"),
                   pmt::init_c32vector(2, std::vector<cf>(2, cf(1)))); // wrong length
        auto snk = run(blk, x);
        EXPECT_LE(worst(snk->data(), reference(a, x, &S), S), 2e-5);
        EXPECT_EQ(blk->coefficients(), a.co);
    }
}


// ---- generalised memory polynomial: delay, tag alignment, sample-exact switches ----

struct gmp_set {
    gr::gpuinterp::kernel::dpd_model m;
    std::vector<cf> co;
    cf c;
};

gmp_set random_gmp(const std::string& spec)
{
    gmp_set g{ gr::gpuinterp::kernel::dpd_model::parse(spec), {}, crand(1, 0.05f)[0] };
    g.co = crand(g.m.num_coefficients(), 0.3f);
    return g;
}

//! Output i of the gmp of dpd_model.h in double: y[i - D] with x[n] = 0 for n < 0; S as above.
cd gmp_reference_at(const gmp_set& g, const std::vector<cf>& x, size_t i, double* S)
{
    const auto& m = g.m;
    const long n = long(i) - long(m.lookahead());
    auto X = [&](long j) {
        return (j < 0 || j >= long(x.size())) ? cd(0) : cd(x[j].real(), x[j].imag());
    };
    cd z(g.c.real(), g.c.imag());
    *S = std::abs(z);
    size_t idx = 0;
    auto add = [&](cd sig, cd env, unsigned k) {
        const cd t = cd(g.co[idx].real(), g.co[idx].imag()) * sig *
                     std::pow(std::abs(env), double(k));
        idx++;
        z += t;
        *S += std::abs(t);
    };
    for (unsigned k = 0; k < m.Ka; k++)
        for (unsigned l = 0; l < m.La; l++)
            add(X(n - l), X(n - l), k);
    for (unsigned k = 1; k <= m.Kb; k++)
        for (unsigned l = 0; l < m.Lb; l++)
            for (unsigned mm = 1; mm <= m.Mb; mm++)
                add(X(n - l), X(n - l - mm), k);
    for (unsigned k = 1; k <= m.Kc; k++)
        for (unsigned l = 0; l < m.Lc; l++)
            for (unsigned mm = 1; mm <= m.Mc; mm++)
                add(X(n - l), X(n - l + mm), k);
    return z;
}

TEST_P(FgDpd, GmpDelaysOutputTagsAndCoefficientSwitchesTogether)
{
    const std::string spec = "gmp:Ka=4,La=3,Kb=2,Lb=3,Mb=2,Kc=3,Lc=2,Mc=3";
    const gmp_set a = random_gmp(spec), b = random_gmp(spec), c = random_gmp(spec);
    const size_t D = 3;
    const auto x = crand(5000, 0.8f);
    // Work calls of at most 64 items: the switch tagged on input 127 lands on output 130, in the
    // next call (queued), the one on input 3000 inside its call.
    const std::vector<gr::tag_t> tags = {
        tag(100, "mark", pmt::from_long(7)),
        tag(127, "dpd_coeffs", pmt::init_c32vector(b.co.size(), b.co)), // keeps a's c
        tag(3000,
            "dpd_coeffs",
            pmt::cons(pmt::init_c32vector(c.co.size(), c.co), pmt::from_complex(c.c))),
        tag(4998, "mark", pmt::from_long(8)), // output 5001: beyond the stream's end
    };
    auto blk = gr::gpuinterp::dpd_predistorter_cc::make(
        0, 0, 0, 0, a.co, a.c, GetParam(), 0, 0, false, false, spec);
    EXPECT_EQ(blk->delay(), D);
    EXPECT_EQ(blk->model(), spec);
    EXPECT_EQ(blk->P(), 0u);
    auto tb = gr::make_top_block("t");
    auto src = gr::blocks::vector_source<cf>::make(x, false, 1, tags);
    auto snk = gr::blocks::vector_sink<cf>::make();
    gpuinterp_fg::connect_chain(tb, { src, blk, snk });
    tb->run(64);
    const auto& y = snk->data();
    ASSERT_EQ(y.size(), x.size());
    gmp_set b_with_a_c = b;
    b_with_a_c.c = a.c;
    double worst_rel = 0;
    for (size_t i = 0; i < y.size(); i++) {
        const gmp_set& g = i < 127 + D ? a : (i < 3000 + D ? b_with_a_c : c);
        double S;
        const cd want = gmp_reference_at(g, x, i, &S);
        worst_rel =
            std::max(worst_rel, std::abs(cd(y[i].real(), y[i].imag()) - want) / S);
    }
    EXPECT_LE(worst_rel, 2e-5);
    // The switch is sample-exact: output 129 still follows a, output 130 follows b.
    double S;
    EXPECT_GT(
        std::abs(cd(y[130].real(), y[130].imag()) - gmp_reference_at(a, x, 130, &S)),
        1e-3);
    EXPECT_LT(
        std::abs(cd(y[129].real(), y[129].imag()) - gmp_reference_at(a, x, 129, &S)),
        2e-5 * S);
    // Tags move with the delayed output.
    std::vector<uint64_t> offsets;
    for (const auto& t : snk->tags())
        offsets.push_back(t.offset);
    std::sort(offsets.begin(), offsets.end());
    EXPECT_EQ(offsets, (std::vector<uint64_t>{ 100 + D, 127 + D, 3000 + D }));
}

TEST_P(FgDpd, MpAndPhSpecsRunWithoutDelay)
{
    const gmp_set mp = random_gmp("mp:K=5,M=4");
    const auto x = crand(3000, 0.8f);
    auto blk = gr::gpuinterp::dpd_predistorter_cc::make(
        1, 0, 1, 1, mp.co, mp.c, GetParam(), 0, 0, false, false, "mp:K=5,M=4");
    EXPECT_EQ(blk->delay(), 0u);
    auto snk = run(blk, x, { tag(1234, "mark", pmt::from_long(42)) });
    gmp_set as_gmp = mp;
    as_gmp.m = mp.m.as_gmp();
    double worst_rel = 0;
    for (size_t i = 0; i < x.size(); i++) {
        double S;
        const cd want = gmp_reference_at(as_gmp, x, i, &S);
        worst_rel = std::max(
            worst_rel,
            std::abs(cd(snk->data()[i].real(), snk->data()[i].imag()) - want) / S);
    }
    EXPECT_LE(worst_rel, 2e-5);
    ASSERT_EQ(snk->tags().size(), 1u);
    EXPECT_EQ(snk->tags()[0].offset, 1234u);
    // A ph spec is the (P, Q, Lp, Lq) block.
    const model m = random_model(5, 3, 4, 2);
    auto by_spec = gr::gpuinterp::dpd_predistorter_cc::make(
        0, 0, 0, 0, m.co, m.c, GetParam(), 0, 0, false, false, " ph:P=5,Q=3,Lp=4,Lq=2 ");
    EXPECT_EQ(by_spec->P(), 5u);
    EXPECT_EQ(run(by_spec, x)->data(), run(make(m), x)->data());
}

// Three channels with their own coefficients, sc16 out, host and device buffers: each channel is
// the double reference of its model converted to int16 (within one step: the float result may
// round either way at a half), saturation counted on the overdriven channel only.
TEST_P(FgDpd, ChannelsWithSc16OutputInAFlowgraph)
{
    const unsigned N = 3;
    const float fs = 0.9f;
    for (bool dev : { false, true }) {
        std::vector<model> m;
        std::vector<std::vector<cf>> x;
        for (unsigned c = 0; c < N; c++) {
            m.push_back(random_model(5, 3, 5, 3));
            x.push_back(
                crand(30011, c == 2 ? 0.9f : 0.15f)); // channel 2 drives past full scale
        }
        auto b = gr::gpuinterp::dpd_predistorter_cc::make(
            5, 3, 5, 3, m[0].co, m[0].c, GetParam(), 0, 0, false, dev, "", N, "sc16", fs);
        ASSERT_EQ(b->channels(), N);
        auto tb = gr::make_top_block("t");
        std::vector<std::shared_ptr<gr::blocks::vector_sink<short>>> snk;
        for (unsigned c = 0; c < N; c++) {
            b->set_channel_coefficients(c, m[c].co, m[c].c);
            auto src = gr::blocks::vector_source<cf>::make(x[c]);
            snk.push_back(gr::blocks::vector_sink<short>::make(2));
            tb->connect(src, 0, b, int(c));
            tb->connect(b, int(c), snk[c], 0);
        }
        tb->run();
        for (unsigned c = 0; c < N; c++) {
            const auto want = reference(m[c], x[c]);
            const auto& got = snk[c]->data();
            ASSERT_EQ(got.size(), 2 * x[c].size());
            uint64_t clipped = 0;
            int worst_step = 0;
            for (size_t i = 0; i < want.size(); i++) {
                bool sat = false;
                for (int part = 0; part < 2; part++) {
                    const double v =
                        (part ? want[i].imag() : want[i].real()) * 32767.0 / fs;
                    const double r =
                        std::min(32767.0, std::max(-32768.0, std::nearbyint(v)));
                    sat |= std::abs(v) > 32768.0;
                    worst_step =
                        std::max(worst_step, int(std::abs(got[2 * i + part] - r)));
                }
                clipped += sat;
            }
            EXPECT_LE(worst_step, 1) << "channel " << c << (dev ? " device buffers" : "");
            // the reference's count and the block's differ at most by the samples within a step
            // of full scale
            EXPECT_NEAR(double(b->saturated(c)), double(clipped), 0.01 * clipped + 2)
                << "channel " << c;
            EXPECT_EQ(b->invalid(c), 0u);
            if (c < 2)
                EXPECT_EQ(b->saturated(c), 0u);
            else
                EXPECT_GT(b->saturated(c), 100u);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Backends, FgDpd, ::testing::Values("cpu", "cuda"));

TEST(FgDpdParams, BadParametersThrowNamingTheParameter)
{
    const auto msg = gpuinterp_test::invalid_argument_message;
    using B = gr::gpuinterp::dpd_predistorter_cc;
    EXPECT_EQ(msg([] { B::make(2, 0, 1, 1, { cf(1) }, 0, "cpu"); }).rfind("P:", 0), 0u);
    EXPECT_EQ(msg([] {
                  B::make(1, 0, 1, 1, { cf(1), cf(2) }, 0, "cpu");
              }),
              "coefficients: expected 1 values for ph:P=1,Q=0,Lp=1,Lq=1 (got 2)");
    EXPECT_EQ(msg([] { B::make(1, 0, 1, 1, { cf(1) }, 0, "gpu"); }).rfind("backend:", 0),
              0u);
    EXPECT_EQ(
        msg([] { B::make(1, 0, 1, 1, { cf(1) }, 0, "cpu", 0, -1); }).rfind("batch:", 0),
        0u);
    auto b = B::make(1, 0, 2, 1, { cf(1), cf(0.5f) }, 0, "cpu");
    EXPECT_EQ(msg([&] { b->set_coefficients({ cf(1) }, 0); }).rfind("coefficients:", 0),
              0u);
    EXPECT_EQ(msg([&] { b->set_cuda_variant("fast"); }).rfind("variant:", 0), 0u);
    EXPECT_EQ(b->coefficients().size(), 2u);
    EXPECT_EQ(b->model(), "ph:P=1,Q=0,Lp=2,Lq=1");
    EXPECT_EQ(msg([] {
                  B::make(
                      1, 0, 1, 1, { cf(1) }, 0, "cpu", 0, 0, false, false, "gmp:Ka=2");
              }).rfind("model: La", 0),
              0u);
    EXPECT_EQ(msg([] {
                  B::make(
                      1, 0, 1, 1, { cf(1) }, 0, "cpu", 0, 0, false, false, "mp:K=2,M=2");
              }),
              "coefficients: expected 4 values for mp:K=2,M=2 (got 1)");
}

} // namespace
