/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <gnuradio/gpuinterp/coeffs_message.h>
#include <gnuradio/gpuinterp/kernel/validate.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpuinterp {

namespace {

std::string show(const pmt::pmt_t& v)
{
    std::string s = pmt::write_string(v);
    return s.size() > 80 ? s.substr(0, 77) + "..." : s;
}

std::vector<gr_complex> to_coefficients(const pmt::pmt_t& v)
{
    if (pmt::is_c32vector(v))
        return pmt::c32vector_elements(v);
    std::vector<gr_complex> out;
    if (pmt::is_c64vector(v)) {
        for (const auto& z : pmt::c64vector_elements(v))
            out.emplace_back(float(z.real()), float(z.imag()));
        return out;
    }
    if (pmt::is_f32vector(v)) {
        for (float f : pmt::f32vector_elements(v))
            out.emplace_back(f, 0.f);
        return out;
    }
    if (pmt::is_vector(v)) {
        for (size_t i = 0; i < pmt::length(v); i++) {
            const pmt::pmt_t e = pmt::vector_ref(v, i);
            if (!pmt::is_number(e))
                throw std::invalid_argument("coefficients: element " + std::to_string(i) +
                                            " is not a number: " + show(e));
            const auto z = pmt::to_complex(e);
            out.emplace_back(float(z.real()), float(z.imag()));
        }
        return out;
    }
    throw std::invalid_argument(
        "coefficients: expected a complex vector (c32vector), got " + show(v));
}

std::vector<float> to_weights(const pmt::pmt_t& v)
{
    if (pmt::is_f32vector(v))
        return pmt::f32vector_elements(v);
    std::vector<float> out;
    if (pmt::is_f64vector(v)) {
        for (double d : pmt::f64vector_elements(v))
            out.push_back(float(d));
        return out;
    }
    if (pmt::is_vector(v)) {
        for (size_t i = 0; i < pmt::length(v); i++) {
            const pmt::pmt_t e = pmt::vector_ref(v, i);
            if (!pmt::is_real(e) && !pmt::is_integer(e))
                throw std::invalid_argument("weights: element " + std::to_string(i) +
                                            " is not a real number: " + show(e));
            out.push_back(float(pmt::to_double(e)));
        }
        return out;
    }
    throw std::invalid_argument("weights: expected a real vector (f32vector), got " +
                                show(v));
}

gr_complex to_lo_leakage(const pmt::pmt_t& v)
{
    if (!pmt::is_number(v))
        throw std::invalid_argument("lo_leakage: expected a number, got " + show(v));
    const auto z = pmt::to_complex(v);
    return { float(z.real()), float(z.imag()) };
}

pmt::pmt_t dict_get(const pmt::pmt_t& d, const char* a, const char* b)
{
    for (const char* k : { a, b }) {
        const pmt::pmt_t key = pmt::intern(k);
        if (pmt::dict_has_key(d, key))
            return pmt::dict_ref(d, key, pmt::PMT_NIL);
    }
    return pmt::PMT_NIL;
}

// A channel index as senders write it: pmt.from_long, pmt.from_uint64 (what pmt.to_pmt makes of a
// numpy unsigned integer) or an integral double (what a JSON or GRC round trip makes of 1). The
// message names the kind of value refused, since "got 1" reads as a contradiction otherwise.
int to_channel(const pmt::pmt_t& ch)
{
    constexpr double top =
        1 << 30; // far above any receiver's channel count; the block checks
    double v = -1;
    const char* kind = nullptr;
    if (pmt::is_integer(ch))
        v = double(std::max<long>(-1, std::min<long>(pmt::to_long(ch), long(top))));
    else if (pmt::is_uint64(ch))
        v = double(std::min<uint64_t>(pmt::to_uint64(ch), uint64_t(top)));
    else if (pmt::is_real(ch)) {
        v = pmt::to_double(ch);
        if (!std::isfinite(v) || v != std::floor(v))
            kind = "a non-integral number";
        v = std::min(v, top);
    } else
        kind = pmt::is_complex(ch) ? "a complex number" : "not a number";
    if (!kind && v < 0)
        kind = "negative";
    if (kind)
        throw std::invalid_argument(
            std::string("channel: expected an integer >= 0 (a long, uint64 or integral "
                        "double), got ") +
            show(ch) + " (" + kind + ")");
    return int(v);
}

} // namespace

coeffs_update decode_coeffs_message(const pmt::pmt_t& v)
{
    coeffs_update u;
    if (pmt::is_uniform_vector(v) || pmt::is_vector(v)) {
        u.coefficients = to_coefficients(v);
    } else if (pmt::is_pair(v) &&
               pmt::is_pair(pmt::car(v))) { // a dict: a list of (key . value)
        const pmt::pmt_t co = dict_get(v, "coefficients", "coeffs");
        const pmt::pmt_t w = dict_get(v, "weights", "weights");
        if (pmt::is_null(co) && pmt::is_null(w))
            throw std::invalid_argument(
                "coefficients: the dict has no 'coefficients' (or 'weights') entry");
        if (!pmt::is_null(co) && !pmt::is_null(w))
            throw std::invalid_argument("weights: the dict has both 'coefficients' and "
                                        "'weights'; a model takes one of them");
        if (!pmt::is_null(co))
            u.coefficients = to_coefficients(co);
        else
            u.weights = to_weights(w);
        const pmt::pmt_t c = dict_get(v, "lo_leakage", "c");
        if (!pmt::is_null(c)) {
            u.lo_leakage = to_lo_leakage(c);
            u.has_lo_leakage = true;
        }
        const pmt::pmt_t ch = dict_get(v, "channel", "channel");
        if (!pmt::is_null(ch))
            u.channel = to_channel(ch);
    } else if (pmt::is_pair(v)) { // (coefficients . c)
        u.coefficients = to_coefficients(pmt::car(v));
        u.lo_leakage = to_lo_leakage(pmt::cdr(v));
        u.has_lo_leakage = true;
    } else {
        throw std::invalid_argument(
            "coefficients: expected a c32vector, a pair (c32vector . c) or a dict, got " +
            show(v));
    }
    return u;
}

std::vector<float> weights_of(const coeffs_update& u)
{
    if (u.has_lo_leakage)
        throw std::invalid_argument("lo_leakage: a neural model has no LO-leakage "
                                    "constant; send its weights alone");
    if (!u.weights.empty())
        return u.weights;
    std::vector<float> w;
    w.reserve(u.coefficients.size());
    for (size_t i = 0; i < u.coefficients.size(); i++) {
        if (u.coefficients[i].imag() != 0.f)
            throw std::invalid_argument(
                "weights: a neural model takes real weights; value " + std::to_string(i) +
                " of the update is complex (send {\"weights\": f32vector})");
        w.push_back(u.coefficients[i].real());
    }
    return w;
}

pmt::pmt_t encode_coeffs_message(const coeffs_update& u)
{
    if (!u.weights.empty() && (!u.coefficients.empty() || u.has_lo_leakage))
        throw std::invalid_argument(
            "weights: an update carries a neural model's weights or "
            "complex coefficients and c, not both");
    // A set that cannot be run never reaches a radio (the receivers' own check, kernel/validate.h).
    require_finite("weights", u.weights);
    require_finite("coefficients", u.coefficients);
    if (u.has_lo_leakage && !is_finite_value(u.lo_leakage))
        invalid_parameter("lo_leakage", "is not finite");

    pmt::pmt_t d = pmt::make_dict();
    auto add = [&d](const char* key, const pmt::pmt_t& v) {
        d = pmt::dict_add(d, pmt::intern(key), v);
    };
    if (!u.weights.empty()) {
        add("weights", pmt::init_f32vector(u.weights.size(), u.weights));
    } else {
        const pmt::pmt_t w = pmt::init_c32vector(u.coefficients.size(), u.coefficients);
        if (u.channel < 0)
            return u.has_lo_leakage ? pmt::cons(w, pmt::from_complex(u.lo_leakage)) : w;
        add("coefficients", w);
        if (u.has_lo_leakage)
            add("lo_leakage", pmt::from_complex(u.lo_leakage));
    }
    if (u.channel >= 0)
        add("channel", pmt::from_long(u.channel));
    return d;
}

pmt::pmt_t encode_coeffs_message(const std::vector<gr_complex>& coefficients,
                                 gr_complex lo_leakage)
{
    coeffs_update u;
    u.coefficients = coefficients;
    u.has_lo_leakage = true;
    u.lo_leakage = lo_leakage;
    return encode_coeffs_message(u);
}

} // namespace gpuinterp
} // namespace gr
