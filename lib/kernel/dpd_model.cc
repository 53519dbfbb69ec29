/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <gnuradio/gpuinterp/kernel/dpd_model.h>
#include <gnuradio/gpuinterp/kernel/validate.h>
#include <initializer_list>
#include <algorithm>
#include <cctype>
#include <utility>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace kernel {

namespace {

[[noreturn]] void fail(const std::string& why) { invalid_parameter("model", why); }

struct key_ref {
    const char* name;
    dpd_model::size dpd_model::*field;
    bool required;
};

std::vector<key_ref> keys_of(dpd_model::family_t f)
{
    using m = dpd_model;
    switch (f) {
    case m::family_t::ph:
        return { { "P", &m::P, true },
                 { "Q", &m::Q, true },
                 { "Lp", &m::Lp, true },
                 { "Lq", &m::Lq, true } };
    case m::family_t::mp:
        return { { "K", &m::K, true }, { "M", &m::M, true } };
    case m::family_t::gru:
        return { { "H", &m::H, true }, { "C", &m::C, true }, { "D", &m::D, true } };
    case m::family_t::tdnn:
        return { { "M", &m::M, true }, { "H", &m::H, true }, { "N", &m::N, true } };
    default:
        return { { "Ka", &m::Ka, true },  { "La", &m::La, true },
                 { "Kb", &m::Kb, false }, { "Lb", &m::Lb, false },
                 { "Mb", &m::Mb, false }, { "Kc", &m::Kc, false },
                 { "Lc", &m::Lc, false }, { "Mc", &m::Mc, false } };
    }
}

bool is_order_key(const std::string& k) { return k == "P" || k == "Q" || k[0] == 'K'; }

void check_range(const std::string& key, unsigned v, unsigned lo, unsigned hi)
{
    if (v < lo || v > hi)
        fail(key + ": must be " + std::to_string(lo) + " <= " + key +
             " <= " + std::to_string(hi) + ", got " + std::to_string(v));
}

} // namespace

std::string to_string(dpd_model::family_t f)
{
    switch (f) {
    case dpd_model::family_t::mp:
        return "mp";
    case dpd_model::family_t::gmp:
        return "gmp";
    case dpd_model::family_t::gru:
        return "gru";
    case dpd_model::family_t::tdnn:
        return "tdnn";
    default:
        return "ph";
    }
}

namespace {
// The ph engine's bounds, refused by the parameters' own names ("P: ..."), not the spec's
// "model: P: ...".
void check_ph_params(unsigned P, unsigned Q, unsigned Lp, unsigned Lq)
{
    constexpr unsigned max_order = dpd_model::max_order, max_lag = dpd_model::max_lag;
    if (P < 1 || P % 2 == 0 || P > max_order)
        invalid_parameter("P",
                          "must be odd, 1 <= P <= " + std::to_string(max_order) +
                              ", got " + std::to_string(P));
    if ((Q != 0 && Q % 2 == 0) || Q > max_order)
        invalid_parameter("Q",
                          "must be 0 (no conjugate branches) or odd, Q <= " +
                              std::to_string(max_order) + ", got " + std::to_string(Q));
    for (const auto& [name, v] :
         { std::pair<const char*, unsigned>{ "Lp", Lp }, { "Lq", Lq } })
        if (v < 1 || v > max_lag)
            invalid_parameter(name,
                              "must be >= 1 and <= " + std::to_string(max_lag) +
                                  ", got " + std::to_string(v));
}

using dm = dpd_model;
} // namespace

dpd_model dpd_model::with_fields(
    family_t f, std::initializer_list<std::pair<size dpd_model::*, unsigned>> fields)
{
    dpd_model m;
    m.family = f;
    if (m.is_neural())
        m.P = m.Q = m.Lp = m.Lq = 0;
    for (const auto& [field, v] : fields)
        m.*field = v;
    return m;
}

dpd_model dpd_model::validated(dpd_model m)
{
    m.validate();
    return m;
}

dpd_model dpd_model::ph_params(unsigned P, unsigned Q, unsigned Lp, unsigned Lq)
{
    check_ph_params(P, Q, Lp, Lq);
    return with_fields(
        family_t::ph, { { &dm::P, P }, { &dm::Q, Q }, { &dm::Lp, Lp }, { &dm::Lq, Lq } });
}

dpd_model dpd_model::make_ph(unsigned P, unsigned Q, unsigned Lp, unsigned Lq)
{
    // A spec's bounds (the 4096-coefficient cap), narrower than the engine's.
    return validated(ph_params(P, Q, Lp, Lq));
}

dpd_model dpd_model::make_mp(unsigned K, unsigned M)
{
    return validated(with_fields(family_t::mp, { { &dm::K, K }, { &dm::M, M } }));
}

dpd_model dpd_model::make_gmp(unsigned Ka,
                              unsigned La,
                              unsigned Kb,
                              unsigned Lb,
                              unsigned Mb,
                              unsigned Kc,
                              unsigned Lc,
                              unsigned Mc)
{
    return validated(with_fields(family_t::gmp,
                                 { { &dm::Ka, Ka },
                                   { &dm::La, La },
                                   { &dm::Kb, Kb },
                                   { &dm::Lb, Lb },
                                   { &dm::Mb, Mb },
                                   { &dm::Kc, Kc },
                                   { &dm::Lc, Lc },
                                   { &dm::Mc, Mc } }));
}

dpd_model dpd_model::make_gru(unsigned H, unsigned C, unsigned D)
{
    // The dilation of an absent skip path is 1: one spelling per model.
    return validated(with_fields(
        family_t::gru, { { &dm::H, H }, { &dm::C, C }, { &dm::D, C ? D : 1 } }));
}

dpd_model dpd_model::make_tdnn(unsigned M, unsigned H, unsigned N)
{
    return validated(
        with_fields(family_t::tdnn, { { &dm::M, M }, { &dm::H, H }, { &dm::N, N } }));
}

dpd_model dpd_model::parse(const std::string& spec)
{
    // Whitespace is allowed around the family, the keys and the values, not inside them.
    auto trim = [](const std::string& t) {
        const auto sp = [](char c) {
            return std::isspace(static_cast<unsigned char>(c)) != 0;
        };
        size_t a = 0, b = t.size();
        while (a < b && sp(t[a]))
            a++;
        while (b > a && sp(t[b - 1]))
            b--;
        return t.substr(a, b - a);
    };
    const size_t colon = spec.find(':');
    const std::string fam = trim(spec.substr(0, colon));
    dpd_model m;
    if (fam == "ph")
        m.family = family_t::ph;
    else if (fam == "mp")
        m.family = family_t::mp;
    else if (fam == "gmp")
        m.family = family_t::gmp;
    else if (fam == "gru")
        m.family = family_t::gru;
    else if (fam == "tdnn")
        m.family = family_t::tdnn;
    else
        fail("family: expected 'ph', 'mp', 'gmp', 'gru' or 'tdnn' before ':', got '" +
             fam + "' in '" + spec + "'");
    // Sizes not given stay 0 (the b and c groups of a gmp); the ph defaults are overwritten.
    m.P = m.Q = m.Lp = m.Lq = 0;
    const std::vector<key_ref> keys = keys_of(m.family);
    std::vector<bool> seen(keys.size(), false);
    const std::string body =
        colon == std::string::npos ? std::string() : spec.substr(colon + 1);
    for (size_t pos = 0; !trim(body).empty() && pos <= body.size();) {
        size_t end = body.find(',', pos);
        if (end == std::string::npos)
            end = body.size();
        const std::string item = body.substr(pos, end - pos);
        pos = end + 1;
        if (trim(item).empty()) // "K=3,M=2," and "K=3,,M=2": empty items are skipped
            continue;
        const size_t eq = item.find('=');
        const std::string key = trim(item.substr(0, eq));
        if (eq == std::string::npos)
            fail((key.empty() ? std::string("key") : key) +
                 ": expected key=value, got '" + trim(item) + "' in '" + spec + "'");
        const std::string val = trim(item.substr(eq + 1));
        auto it = std::find_if(
            keys.begin(), keys.end(), [&](const key_ref& k) { return key == k.name; });
        if (it == keys.end()) {
            std::string known;
            for (const auto& k : keys)
                known += std::string(known.empty() ? "" : ", ") + k.name;
            fail((key.empty() ? std::string("key") : key) + ": unknown key for " + fam +
                 " (keys: " + known + ")");
        }
        const size_t i = size_t(it - keys.begin());
        if (seen[i])
            fail(key + ": given twice in '" + spec + "'");
        seen[i] = true;
        if (val.empty() || val.size() > 9 ||
            !std::all_of(
                val.begin(), val.end(), [](char c) { return c >= '0' && c <= '9'; }))
            fail(key + ": expected a non-negative integer, got '" + val + "'");
        m.*(it->field) = unsigned(std::stoul(val));
    }
    for (size_t i = 0; i < keys.size(); i++)
        if (keys[i].required && !seen[i])
            fail(std::string(keys[i].name) + ": missing (a " + fam + " spec needs it)");
    if (m.family == family_t::gru && m.C == 0)
        m.D = 1; // ignored without a skip path, and written as 1 (docs/neural_models.md)
    m.validate();
    return m;
}

std::string dpd_model::to_string() const
{
    // An optional key at its default is left out, so that adding one with a default that keeps
    // the old models changes no model's spelling.
    const dpd_model defaults;
    std::string s = kernel::to_string(family) + ":";
    bool first = true;
    for (const auto& k : keys_of(family)) {
        if (!k.required && this->*(k.field) == defaults.*(k.field))
            continue;
        const bool no_skip =
            family == family_t::gru && C == 0 && k.field == &dpd_model::D;
        s += (first ? "" : ",") + std::string(k.name) + "=" +
             std::to_string(no_skip ? 1u : this->*(k.field));
        first = false;
    }
    return s;
}

namespace {
//! A value vector has the model's count and is finite.
template <typename T>
void check_values(const char* name,
                  const std::vector<T>& v,
                  const dpd_model& model,
                  size_t want)
{
    if (v.size() != want)
        invalid_parameter(name,
                          "expected " + std::to_string(want) + " values for " +
                              model.to_string() + " (got " + std::to_string(v.size()) +
                              ")");
    require_finite(name, v);
}
} // namespace

void dpd_model::check_coefficients(const std::vector<std::complex<float>>& coefficients,
                                   std::complex<float> lo_leakage) const
{
    if (is_neural())
        invalid_parameter("coefficients",
                          "a " + kernel::to_string(family) +
                              " model takes real weights, not complex coefficients");
    check_values("coefficients", coefficients, *this, num_coefficients());
    if (!is_finite_value(lo_leakage))
        invalid_parameter("lo_leakage", "is not finite");
}

void dpd_model::check_weights(const std::vector<float>& weights) const
{
    if (!is_neural())
        invalid_parameter("weights",
                          "a " + kernel::to_string(family) +
                              " model takes complex coefficients, not weights");
    check_values("weights", weights, *this, num_weights());
}

void dpd_model::validate() const
{
    if (family == family_t::gru) {
        check_range("H", H, 1, max_hidden);
        check_range("C", C, 0, max_skip);
        if (C > 0)
            check_range("D", D, 1, max_dilation);
        return;
    }
    if (family == family_t::tdnn) {
        check_range("M", M, 1, max_taps);
        check_range("H", H, 1, max_hidden);
        check_range("N", N, 1, max_layers);
        return;
    }
    for (const auto& k : keys_of(family)) {
        const std::string key = k.name;
        const unsigned v = this->*(k.field);
        if (is_order_key(key))
            check_range(
                key, v, (key == "Q" || key == "Kb" || key == "Kc") ? 0 : 1, max_order);
        else
            check_range(key,
                        v,
                        (key == "Lb" || key == "Mb" || key == "Lc" || key == "Mc") ? 0
                                                                                   : 1,
                        max_lag);
    }
    if (family == family_t::ph) {
        if (P % 2 == 0)
            fail("P: must be odd, got " + std::to_string(P));
        if (Q != 0 && Q % 2 == 0)
            fail("Q: must be 0 (no conjugate branches) or odd, got " + std::to_string(Q));
    }
    const size_t n = num_coefficients();
    if (n > max_coefficients)
        fail("coefficients: " + to_string() + " has " + std::to_string(n) +
             " coefficients, more than " + std::to_string(max_coefficients));
}

size_t dpd_model::num_coefficients() const
{
    switch (family) {
    case family_t::ph:
        return size_t((P + 1) / 2) * Lp + (Q ? size_t((Q + 1) / 2) * Lq : 0);
    case family_t::mp:
        return size_t(K) * M;
    case family_t::gmp:
        return size_t(Ka) * La + size_t(Kb) * Lb * Mb + size_t(Kc) * Lc * Mc;
    default:
        return 0;
    }
}

size_t dpd_model::num_weights() const
{
    const size_t h = H;
    switch (family) {
    case family_t::gru:
        return 3 * h * 6 + 3 * h * h + 6 * h + 2 * h + 2 + 8 * size_t(C);
    case family_t::tdnn:
        return 4 * size_t(M) * h + h + size_t(N - 1) * (h * h + h) + 2 * h + 2;
    default:
        return 0;
    }
}

unsigned dpd_model::lookahead() const
{
    if (family == family_t::gru)
        return C > 0 ? std::max<unsigned>(1u, D) : 1u;
    return (family == family_t::gmp && Kc > 0 && Lc > 0) ? Mc : 0;
}

std::vector<uint8_t> dpd_model::usable_rows(size_t n, const uint8_t* bad) const
{
    const size_t ahead = lookahead(), back = history() - ahead;
    std::vector<uint8_t> ok(n, 0);
    // flagged samples before i: a row is usable when none lies in [i - back, i + ahead]
    std::vector<size_t> cum(n + 1, 0);
    for (size_t i = 0; i < n; i++)
        cum[i + 1] = cum[i] + (bad && bad[i] ? 1 : 0);
    for (size_t i = back; i + ahead < n; i++)
        ok[i] = cum[i + ahead + 1] == cum[i - back];
    return ok;
}

size_t dpd_model::history() const
{
    // gru: output i is y[i - L] (L = lookahead()), which reads inputs down to i - L - D (skip)
    // or i - L (features); tdnn reads M - 1 samples back. The gru's hidden state is carried too,
    // but it is not input history.
    if (family == family_t::gru)
        return lookahead() + (C > 0 ? D : 0);
    if (family == family_t::tdnn)
        return M - 1;
    if (family == family_t::ph)
        return std::max<unsigned>(Lp, Q ? Lq : 1u) - 1;
    const dpd_model g = as_gmp();
    // Input lags behind the current input: a signal lag D + l, a lagging envelope D + l + m, a
    // leading one D + l - m (never deeper than its signal lag).
    size_t deepest = 0;
    if (g.Ka && g.La)
        deepest = std::max<size_t>(deepest, g.La - 1);
    if (g.Kb && g.Lb && g.Mb)
        deepest = std::max<size_t>(deepest, g.Lb - 1 + g.Mb);
    if (g.Kc && g.Lc && g.Mc)
        deepest = std::max<size_t>(deepest, g.Lc - 1);
    return g.lookahead() + deepest;
}

dpd_model dpd_model::as_gmp() const
{
    if (family != family_t::mp)
        return *this;
    dpd_model g;
    g.family = family_t::gmp;
    g.P = g.Q = g.Lp = g.Lq = 0;
    g.Ka = K;
    g.La = M;
    return g;
}

std::vector<std::pair<std::string, unsigned>> dpd_model::keys() const
{
    std::vector<std::pair<std::string, unsigned>> r;
    for (const auto& k : keys_of(family))
        r.emplace_back(k.name, this->*(k.field));
    return r;
}

std::vector<dpd_model::term> dpd_model::terms() const
{
    std::vector<term> t;
    if (is_neural())
        return t;
    if (family == family_t::ph) {
        // psi_p(x[n-k]) = x[n-k] |x[n-k]|^(p-1): main branches, then conjugate ones.
        for (unsigned p = 1; p <= P; p += 2)
            for (unsigned k = 0; k < Lp; k++)
                t.push_back({ k, int(k), p - 1, false });
        for (unsigned q = 1; Q && q <= Q; q += 2)
            for (unsigned k = 0; k < Lq; k++)
                t.push_back({ k, int(k), q - 1, true });
        return t;
    }
    const dpd_model g = as_gmp();
    for (unsigned k = 0; k < g.Ka; k++) // aligned: x[n-l] |x[n-l]|^k
        for (unsigned l = 0; l < g.La; l++)
            t.push_back({ l, int(l), k, false });
    if (g.Kb && g.Lb && g.Mb) // lagging envelope: x[n-l] |x[n-l-m]|^k
        for (unsigned k = 1; k <= g.Kb; k++)
            for (unsigned l = 0; l < g.Lb; l++)
                for (unsigned m = 1; m <= g.Mb; m++)
                    t.push_back({ l, int(l + m), k, false });
    if (g.Kc && g.Lc && g.Mc) // leading envelope: x[n-l] |x[n-l+m]|^k
        for (unsigned k = 1; k <= g.Kc; k++)
            for (unsigned l = 0; l < g.Lc; l++)
                for (unsigned m = 1; m <= g.Mc; m++)
                    t.push_back({ l, int(l) - int(m), k, false });
    return t;
}

bool dpd_model::operator==(const dpd_model& o) const
{
    if (family != o.family)
        return false;
    for (const auto& k : keys_of(family))
        if (this->*(k.field) != o.*(k.field) &&
            !(family == family_t::gru && C == 0 && k.field == &dpd_model::D))
            return false;
    return true;
}

} // namespace kernel
} // namespace gpuinterp
} // namespace gr
