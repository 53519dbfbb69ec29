/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_KERNEL_DPD_MODEL_H
#define INCLUDED_GPUINTERP_KERNEL_DPD_MODEL_H

#include <initializer_list>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace kernel {

/*!
 * \brief The structure of a predistorter or PA behavioural model: family and sizes, no values.
 *
 * \details One description shared by the predistorter kernel and block, the Python estimator,
 * the PA models, GRC and JSON files. Written as a string spec `family:key=value,...`
 * (whitespace around the family, keys and values is ignored; names are case-sensitive; values are
 * decimal integers):
 *
 *  - `ph:P=5,Q=3,Lp=4,Lq=2`: parallel Hammerstein with conjugate branches, exactly the model and
 *    coefficient layout of the block's (P, Q, Lp, Lq) parameters. All four keys required;
 *    P odd >= 1, Q = 0 or odd, Lp, Lq >= 1.
 *  - `mp:K=9,M=20`: all-order memory polynomial (even orders included)
 *        y[n] = sum_{k=1..K} sum_{m<M} a_{k,m} x[n-m] |x[n-m]|^(k-1)
 *    coefficients k outer (k = 1 first), m inner: a_{k,m} at (k-1)*M + m. Both keys required, >= 1.
 *    mp:K,M is exactly gmp:Ka=K,La=M (same coefficients, same order).
 *  - `gmp:Ka=5,La=30,Kb=4,Lb=30,Mb=5,Kc=4,Lc=30,Mc=5`: generalised memory polynomial (Morgan 2006)
 *        y[n] = sum_{k=0..Ka-1} sum_{l<La} a_{kl} x[n-l] |x[n-l]|^k
 *             + sum_{k=1..Kb} sum_{l<Lb} sum_{m=1..Mb} b_{klm} x[n-l] |x[n-l-m]|^k   (lagging envelope)
 *             + sum_{k=1..Kc} sum_{l<Lc} sum_{m=1..Mc} c_{klm} x[n-l] |x[n-l+m]|^k   (leading envelope)
 *    coefficients: all a (k outer, l inner: a_{kl} at k*La + l), then all b (k, then l, then m
 *    innermost: b_{klm} at Na + ((k-1)*Lb + l)*Mb + m-1), then all c (same, after the b).
 *    Ka, La >= 1 are required; the b and c keys default to 0, and a b or c group with any of its
 *    sizes 0 has no terms. Empty items ("K=3,M=2,") are skipped.
 *  - `gru:H=8,C=4,D=2` and `tdnn:M=4,H=16,N=2`: the neural families, with real float32 weights
 *    instead of complex coefficients; their equations, weight layouts and bounds are those of
 *    docs/neural_models.md (gru: 1 <= H <= 256, 0 <= C <= 64, 1 <= D <= 1024, D ignored and
 *    written as 1 when C = 0; tdnn: 1 <= M <= 1024, 1 <= H <= 256, 1 <= N <= 8; every key
 *    required). num_weights() is their weight count; num_coefficients() is 0 and terms() empty.
 *
 * Every model also has the complex LO-leakage constant added to each output; it is not part of
 * the coefficient vector.
 *
 * Bounds (checked by parse() and the make_* factories): orders P, Q, K, Ka, Kb, Kc <= 15
 * (a float holds |x|^15 over the dynamic range of a PA capture, and no fitted model uses
 * more); memory sizes Lp, Lq, M, La, Lb, Lc, Mb, Mc <= 1024; num_coefficients() <= 4096 (the
 * mp/gmp CUDA kernel keeps the whole set in shared memory). The same bounds as the Python
 * module gnuradio.gpuinterp.dpd_model.
 * (ph_params, the ph model of the block's (P, Q, Lp, Lq) parameters, keeps the engine's own,
 * wider ph bounds: a ph set larger than 4096 coefficients runs there, but its spec does not parse.)
 *
 * Look-ahead: the leading-envelope terms of a gmp need x[n+Mc], a gru x[n+1] (its features) and
 * x[n+D] (its skip, C > 0). A streaming predistorter therefore delays its output by lookahead()
 * samples: out[i] = y[i - lookahead()], with x[n] = 0 for n < 0 (the first lookahead() outputs
 * are the model at negative times).
 */
struct dpd_model;

/*!
 * \brief One field of a dpd_model: anyone reads it as its value; only dpd_model's factories
 * (parse, make_*, ph_params, as_gmp) write it, and each validates what it builds.
 *
 * \details So every dpd_model in existence is one the engines can run: the structure is
 * checked once, where it enters (a spec, a factory's arguments), and no layer below (the bank,
 * the Gram, the engines) checks it again. Copying a model keeps that true.
 */
template <typename T>
class dpd_model_field
{
public:
    constexpr operator T() const { return d_value; }

private:
    friend struct dpd_model;
    constexpr explicit dpd_model_field(T v) : d_value(v) {}
    dpd_model_field& operator=(T v)
    {
        d_value = v;
        return *this;
    }
    T d_value;
};

struct dpd_model {
    enum class family_t { ph = 0, mp = 1, gmp = 2, gru = 3, tdnn = 4 };

    using size = dpd_model_field<unsigned>;

    dpd_model_field<family_t> family{ family_t::ph };
    // ph
    size P{ 1 }, Q{ 0 }, Lp{ 1 }, Lq{ 1 };
    // mp (tdnn: M is its taps)
    size K{ 0 }, M{ 0 };
    // gmp
    size Ka{ 0 }, La{ 0 }, Kb{ 0 }, Lb{ 0 }, Mb{ 0 }, Kc{ 0 }, Lc{ 0 }, Mc{ 0 };
    // gru (H hidden size, C skip channels, D skip dilation), tdnn (M, H width, N hidden layers)
    size H{ 0 }, C{ 0 }, D{ 0 }, N{ 0 };

    static constexpr unsigned max_order = 15;
    static constexpr unsigned max_lag = 1024;
    static constexpr size_t max_coefficients = 4096;
    static constexpr unsigned max_hidden = 256;    //!< gru H, tdnn H
    static constexpr unsigned max_skip = 64;       //!< gru C
    static constexpr unsigned max_dilation = 1024; //!< gru D
    static constexpr unsigned max_taps = 1024;     //!< tdnn M
    static constexpr unsigned max_layers = 8;      //!< tdnn N

    //! Parse a spec; throws std::invalid_argument("model: ...") naming the offending key.
    static dpd_model parse(const std::string& spec);
    static dpd_model make_ph(unsigned P, unsigned Q, unsigned Lp, unsigned Lq);
    //! The ph model of the blocks' (P, Q, Lp, Lq) parameters: the engine's bounds (P odd,
    //! Q 0 or odd, both <= max_order; 1 <= Lp, Lq <= max_lag), not the spec's coefficient cap,
    //! each refused as std::invalid_argument("P: ...") naming the parameter.
    static dpd_model ph_params(unsigned P, unsigned Q, unsigned Lp, unsigned Lq);
    static dpd_model make_mp(unsigned K, unsigned M);
    static dpd_model make_gmp(unsigned Ka,
                              unsigned La,
                              unsigned Kb = 0,
                              unsigned Lb = 0,
                              unsigned Mb = 0,
                              unsigned Kc = 0,
                              unsigned Lc = 0,
                              unsigned Mc = 0);
    //! D is ignored (stored as 1) when C = 0.
    static dpd_model make_gru(unsigned H, unsigned C = 0, unsigned D = 1);
    static dpd_model make_tdnn(unsigned M, unsigned H, unsigned N = 1);

    //! Canonical spec: the family's required keys and the optional ones that differ from their
    //! default, in the order above. parse(to_string()) == *this.
    std::string to_string() const;
    //! A value set for this model, checked where it enters (the predistorter kernels' constructors
    //! and setters): a polynomial family's num_coefficients() finite coefficients and a finite LO
    //! leakage, or a neural family's num_weights() finite weights. Throws
    //! std::invalid_argument naming the parameter ("coefficients", "lo_leakage", "weights"); a
    //! set of the other kind is refused by name too.
    void check_coefficients(const std::vector<std::complex<float>>& coefficients,
                            std::complex<float> lo_leakage) const;
    void check_weights(const std::vector<float>& weights) const;
    //! Complex coefficients of a polynomial family (0 for the neural ones).
    size_t num_coefficients() const;
    //! True for the neural families (gru, tdnn), which take real weights.
    bool is_neural() const { return family == family_t::gru || family == family_t::tdnn; }
    //! Real weights of a neural family in docs/neural_models.md's layout (0 for the polynomial
    //! ones): gru 3H*6 + 3H*H + 6H + 2H + 2 + 8C, tdnn 4MH + H + (N-1)(H^2 + H) + 2H + 2.
    size_t num_weights() const;
    //! Samples of look-ahead, i.e. the output delay of a streaming predistorter: Mc when the
    //! gmp's leading group has terms, max(1, D if C > 0) for a gru, else 0.
    unsigned lookahead() const;
    //! Input samples a streaming predistorter carries between calls (the deepest input it reads
    //! behind the current one, look-ahead delay included).
    size_t history() const;
    //! The rows of a capture of n samples a fit may use: those whose window (history() -
    //! lookahead() samples behind the row to lookahead() ahead of it) lies inside the capture
    //! and reads no sample flagged in `bad` (n flags, or null: none).
    std::vector<uint8_t> usable_rows(size_t n, const uint8_t* bad = nullptr) const;
    //! mp and gmp as the equivalent gmp (ph unchanged).
    dpd_model as_gmp() const;

    //! The family's keys and their values, in to_string()'s order.
    std::vector<std::pair<std::string, unsigned>> keys() const;

    //! One coefficient's basis function: x[n - signal_lag] * |x[n - envelope_lag]|^power,
    //! conjugated when `conjugate` (ph's conjugate branches); envelope_lag < 0 reads ahead.
    struct term {
        unsigned signal_lag;
        int envelope_lag;
        unsigned power;
        bool conjugate;
    };
    //! Every coefficient's term, in the coefficient layout: what an independent reference
    //! implementation (the numpy basis) builds its columns from, so the layout lives here only.
    //! Empty for the neural families.
    std::vector<term> terms() const;

    bool operator==(const dpd_model& o) const;
    bool operator!=(const dpd_model& o) const { return !(*this == o); }

private:
    //! Throws std::invalid_argument("model: <key>: ...") when a size is out of range.
    void validate() const;
    //! A model of family f with the given fields set, the others at their defaults (the neural
    //! families have no ph fields). Not validated: its callers do.
    static dpd_model
    with_fields(family_t f,
                std::initializer_list<std::pair<size dpd_model::*, unsigned>> fields);
    static dpd_model validated(dpd_model m);
};

//! "ph" | "mp" | "gmp" | "gru" | "tdnn"
std::string to_string(dpd_model::family_t f);

} // namespace kernel
} // namespace gpuinterp
} // namespace gr

#endif
