/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The `coeffs` message codec: every accepted form decodes to the values it carries, the encoder's
// output decodes back exactly, and malformed messages throw std::invalid_argument naming the part.
#include "fg_util.h"
#include <gnuradio/gpuinterp/coeffs_message.h>
#include <gtest/gtest.h>
#include <complex>
#include <limits>
#include <random>

using cf = std::complex<float>;
using gpuinterp_fg::seeded_signal;
using gr::gpuinterp::decode_coeffs_message;
using gr::gpuinterp::encode_coeffs_message;

namespace {

std::string thrown(const pmt::pmt_t& m)
{
    try {
        decode_coeffs_message(m);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

} // namespace

TEST(CoeffsMessage, EncodeDecodeRoundTrip)
{
    const auto w = seeded_signal(9, 2.0f, 1);
    const cf c(0.25f, -0.125f);
    const pmt::pmt_t m = encode_coeffs_message(w, c);
    ASSERT_TRUE(pmt::is_pair(m));
    ASSERT_TRUE(pmt::is_c32vector(pmt::car(m)));
    const auto u = decode_coeffs_message(m);
    EXPECT_EQ(u.coefficients, w);
    EXPECT_TRUE(u.has_lo_leakage);
    EXPECT_EQ(u.lo_leakage, c);
}

// Every form the encoder writes decodes back to the update it was given, value for value.
TEST(CoeffsMessage, EveryEncodedFormDecodesBack)
{
    using gr::gpuinterp::coeffs_update;
    const auto w = seeded_signal(5, 2.0f, 4);
    const std::vector<float> weights = { 0.5f, -1.25f, 3.0f };
    for (int channel : { -1, 0, 3 }) {
        for (int form = 0; form < 3; form++) { // coefficients with c, without c, weights
            coeffs_update u;
            u.channel = channel;
            if (form == 2) {
                u.weights = weights;
            } else {
                u.coefficients = w;
                u.has_lo_leakage = form == 0;
                u.lo_leakage = u.has_lo_leakage ? cf(0.25f, -0.5f) : cf(0, 0);
            }
            const pmt::pmt_t m = encode_coeffs_message(u);
            const auto v = decode_coeffs_message(m);
            const std::string what = pmt::write_string(m);
            EXPECT_EQ(v.coefficients, u.coefficients) << what;
            EXPECT_EQ(v.weights, u.weights) << what;
            EXPECT_EQ(v.has_lo_leakage, u.has_lo_leakage) << what;
            EXPECT_EQ(v.lo_leakage, u.lo_leakage) << what;
            EXPECT_EQ(v.channel, channel) << what;
        }
    }
}

// A set that cannot be run is refused where the message is made, naming the value.
TEST(CoeffsMessage, EncoderRefusesWhatCannotRun)
{
    using gr::gpuinterp::coeffs_update;
    auto refusal = [](const coeffs_update& u) -> std::string {
        try {
            encode_coeffs_message(u);
        } catch (const std::invalid_argument& e) {
            return e.what();
        }
        return "";
    };
    const float nan = std::numeric_limits<float>::quiet_NaN();
    coeffs_update u;
    u.coefficients = { cf(1, 0), cf(0, nan) };
    EXPECT_EQ(refusal(u).rfind("coefficients: element 1 is not finite", 0), 0u)
        << refusal(u);
    u.coefficients = { cf(1, 0) };
    u.has_lo_leakage = true;
    u.lo_leakage = cf(std::numeric_limits<float>::infinity(), 0);
    EXPECT_EQ(refusal(u).rfind("lo_leakage:", 0), 0u) << refusal(u);
    coeffs_update n;
    n.weights = { 1.0f, nan };
    EXPECT_EQ(refusal(n).rfind("weights: element 1 is not finite", 0), 0u) << refusal(n);
    n.weights = { 1.0f };
    n.coefficients = { cf(1, 0) };
    EXPECT_EQ(refusal(n).rfind("weights:", 0), 0u) << refusal(n);
}

TEST(CoeffsMessage, EveryVectorForm)
{
    const auto w = seeded_signal(6, 2.0f, 2);
    std::vector<std::complex<double>> wd(w.begin(), w.end());
    pmt::pmt_t numbers = pmt::make_vector(w.size(), pmt::PMT_NIL);
    for (size_t i = 0; i < w.size(); i++)
        pmt::vector_set(numbers, i, pmt::from_complex(std::complex<double>(w[i])));
    for (const pmt::pmt_t& v : { pmt::init_c32vector(w.size(), w),
                                 pmt::init_c64vector(wd.size(), wd),
                                 numbers }) {
        const auto u = decode_coeffs_message(v);
        EXPECT_EQ(u.coefficients, w) << pmt::write_string(v);
        EXPECT_FALSE(u.has_lo_leakage); // a bare vector leaves c unchanged
    }
    // f32vector: real coefficients.
    const std::vector<float> re = { 1.5f, -0.5f, 0.25f };
    const auto u = decode_coeffs_message(pmt::init_f32vector(re.size(), re));
    ASSERT_EQ(u.coefficients.size(), 3u);
    for (size_t i = 0; i < re.size(); i++)
        EXPECT_EQ(u.coefficients[i], cf(re[i], 0.0f));
}

TEST(CoeffsMessage, PairAndDict)
{
    const auto w = seeded_signal(4, 2.0f, 3);
    // (f32vector . real c)
    const std::vector<float> re = { 1.0f, 2.0f };
    auto u = decode_coeffs_message(
        pmt::cons(pmt::init_f32vector(2, re), pmt::from_double(0.5)));
    EXPECT_EQ(u.coefficients, (std::vector<cf>{ cf(1, 0), cf(2, 0) }));
    EXPECT_TRUE(u.has_lo_leakage);
    EXPECT_EQ(u.lo_leakage, cf(0.5f, 0.0f));
    // dicts with either key spelling, with and without c
    for (const char* key : { "coefficients", "coeffs" }) {
        pmt::pmt_t d = pmt::make_dict();
        d = pmt::dict_add(d, pmt::intern(key), pmt::init_c32vector(w.size(), w));
        u = decode_coeffs_message(d);
        EXPECT_EQ(u.coefficients, w);
        EXPECT_FALSE(u.has_lo_leakage);
        for (const char* ckey : { "lo_leakage", "c" }) {
            const pmt::pmt_t dc =
                pmt::dict_add(d, pmt::intern(ckey), pmt::from_complex(cf(-1.0f, 3.0f)));
            u = decode_coeffs_message(dc);
            EXPECT_EQ(u.coefficients, w);
            EXPECT_TRUE(u.has_lo_leakage);
            EXPECT_EQ(u.lo_leakage, cf(-1.0f, 3.0f));
        }
    }
}

TEST(CoeffsMessage, MalformedMessagesNameThePart)
{
    EXPECT_EQ(thrown(pmt::from_double(1.0)).rfind("coefficients:", 0), 0u);
    EXPECT_EQ(thrown(pmt::intern("x")).rfind("coefficients:", 0), 0u);
    // a pair whose c is not a number
    EXPECT_EQ(thrown(pmt::cons(pmt::init_c32vector(1, std::vector<cf>{ cf(1, 0) }),
                               pmt::intern("c")))
                  .rfind("lo_leakage:", 0),
              0u);
    // a dict without coefficients
    pmt::pmt_t d =
        pmt::dict_add(pmt::make_dict(), pmt::intern("c"), pmt::from_double(1.0));
    EXPECT_EQ(thrown(d).rfind("coefficients:", 0), 0u);
    // a vector with a non-number element
    pmt::pmt_t v = pmt::make_vector(2, pmt::from_double(1.0));
    pmt::vector_set(v, 1, pmt::intern("x"));
    EXPECT_EQ(thrown(v).rfind("coefficients: element 1", 0), 0u);
}
