/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "../common/env.h"
#include "engine_factory.h"
#include <gnuradio/gpuinterp/kernel/dpd_gram.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace gr {
namespace gpuinterp {
namespace kernel {

namespace {
using cd = std::complex<double>;
std::atomic<size_t> chunk_override{ 0 };

// The columns are the model's own terms (dpd_model::terms(), the one description of the coefficient
// layout), then the LO-leakage constant.
std::vector<gram_term> model_terms(const dpd_model& m, bool lo)
{
    std::vector<gram_term> t;
    for (const auto& d : m.terms())
        t.push_back({ int(d.signal_lag), d.envelope_lag, d.power, d.conjugate, false });
    if (lo)
        t.push_back({ 0, 0, 0, false, true });
    return t;
}

double nmse_db(double residual, double tt)
{
    if (!(tt > 0))
        return std::numeric_limits<double>::quiet_NaN();
    return 10 * std::log10(std::max(residual / tt, 1e-30));
}

// ||t - A w||^2 = tt - 2 Re(w^H b) + w^H G w from a set's sums (G full Hermitian,
// column-major).
// The K x K passes of the lambda grid below are written on real and imaginary parts: std::complex's
// product carries a NaN-recovery branch that keeps the compiler from vectorising the loops, and
// these passes (two per grid value) are most of a solve's host time.
double residual(const std::vector<cd>& G,
                const std::vector<cd>& b,
                double tt,
                const std::vector<cd>& w)
{
    const size_t K = w.size();
    double wb = 0, wgw = 0;
    for (size_t j = 0; j < K; j++)
        wb += w[j].real() * b[j].real() + w[j].imag() * b[j].imag();
    // w^H G w = sum_i conj(w_i) (G w)_i
    std::vector<double> gr(K, 0.0), gi(K, 0.0);
    for (size_t j = 0; j < K; j++) {
        const cd* col = &G[j * K];
        const double wr = w[j].real(), wi = w[j].imag();
        for (size_t i = 0; i < K; i++) {
            gr[i] += col[i].real() * wr - col[i].imag() * wi;
            gi[i] += col[i].real() * wi + col[i].imag() * wr;
        }
    }
    for (size_t i = 0; i < K; i++)
        wgw += w[i].real() * gr[i] + w[i].imag() * gi[i];
    return tt - 2 * wb + wgw;
}

// What every lambda's solution of one set of sums is built from: the column norms D =
// sqrt(diag G), the eigendecomposition Gn = D^-1 G D^-1 = V diag(e) V^H (e ascending, clamped at
// 0; e0 the largest before the clamp) and c = V^H D^-1 b. Then w(lambda) = D^-1 V diag(1 / (e +
// lambda e0)) c.
struct normalised_eigh {
    size_t K = 0;
    std::vector<double> d, e;
    std::vector<cd> V, c;
    double e0 = 0;

    std::vector<double> ridge(double lam) const
    {
        std::vector<double> g(K);
        for (size_t j = 0; j < K; j++)
            g[j] = 1.0 / (e[j] + lam * e0);
        return g;
    }
    // w(g) = D^-1 V (g .* c)
    std::vector<cd> coefficients(const std::vector<double>& g) const
    {
        std::vector<double> wr(K, 0.0), wi(K, 0.0);
        for (size_t j = 0; j < K; j++) {
            const cd* v = &V[j * K];
            const double ur = g[j] * c[j].real(), ui = g[j] * c[j].imag();
            for (size_t i = 0; i < K; i++) {
                wr[i] += v[i].real() * ur - v[i].imag() * ui;
                wi[i] += v[i].real() * ui + v[i].imag() * ur;
            }
        }
        std::vector<cd> w(K);
        for (size_t i = 0; i < K; i++)
            w[i] = cd(wr[i], wi[i]) / d[i];
        return w;
    }
};

// decompose() of sums that cannot be solved: with `refuse` it throws the estimator's message;
// without, it returns an empty K (a fold of the cross-validation that cannot fit).
normalised_eigh decompose(const gram_engine& eng,
                          const std::vector<cd>& G,
                          const std::vector<cd>& b,
                          size_t K,
                          bool refuse)
{
    normalised_eigh ne;
    ne.d.resize(K);
    for (size_t i = 0; i < K; i++) {
        ne.d[i] = std::sqrt(G[i * K + i].real());
        if (!(ne.d[i] > 0) || !std::isfinite(ne.d[i])) {
            if (!refuse)
                return {};
            std::ostringstream os;
            os << "y: basis matrix is singular (basis column " << i << " of " << K
               << " is all zeros over the fit rows"
               << (std::isfinite(ne.d[i]) ? ")" : " or not finite)");
            throw std::runtime_error(os.str());
        }
    }
    ne.V.resize(K * K);
    for (size_t j = 0; j < K; j++)
        for (size_t i = 0; i < K; i++)
            ne.V[j * K + i] = G[j * K + i] / (ne.d[i] * ne.d[j]);
    ne.e = eng.eigh(ne.V, K); // V -> eigenvectors, e ascending
    for (double v : ne.e)
        if (!std::isfinite(v)) {
            if (!refuse)
                return {};
            throw std::runtime_error(
                "y: eigendecomposition of the Gram matrix failed (non-finite values)");
        }
    ne.e0 = ne.e.back();
    // Rounding leaves eigenvalues of a singular Gram slightly negative: they are zero.
    for (double& v : ne.e)
        v = std::max(v, 0.0);
    ne.c.assign(K, cd(0));
    for (size_t j = 0; j < K; j++) {
        cd s = 0;
        const cd* v = &ne.V[j * K];
        for (size_t i = 0; i < K; i++)
            s += std::conj(v[i]) * (b[i] / ne.d[i]);
        ne.c[j] = s;
    }
    ne.K = K;
    return ne;
}

// fn(i) for each of `count` grid values: O(K^2) each and independent of each other, so spread over
// threads for a large model. Plain threads that end here, not an OpenMP team: idle OpenMP threads
// spin on after the region and would take the cores from the CPU backend's BLAS threads of the
// next accumulation.
template <typename F>
void for_each_grid_value(size_t count, size_t K, F fn)
{
    const size_t nt = std::min<size_t>(
        count, K >= 64 ? std::max(1u, std::thread::hardware_concurrency()) : 1);
    auto range = [&](size_t t) {
        for (size_t i = t; i < count; i += nt)
            fn(i);
    };
    std::vector<std::thread> pool;
    for (size_t t = 1; t < nt; t++)
        pool.emplace_back(range, t);
    range(0);
    for (auto& th : pool)
        th.join();
}

// The solution at lambda (relative to e0) from a set's decomposition and sums: w, rank, dof, the
// fit NMSE; lambda = 0 is the truncated pseudo-inverse.
void finish_solution(const normalised_eigh& ne,
                     const std::vector<cd>& G,
                     const std::vector<cd>& b,
                     double tt,
                     double lam,
                     dpd_gram_solution& sol)
{
    const size_t K = ne.K;
    const std::vector<double>& e = ne.e;
    const double e0 = ne.e0;
    sol.condition = e.front() > 0 ? std::sqrt(e0 / e.front())
                                  : std::numeric_limits<double>::infinity();
    std::vector<double> g(K);
    if (lam > 0) {
        g = ne.ridge(lam);
        sol.rank = 0;
        sol.dof = 0;
        for (size_t j = 0; j < K; j++) {
            sol.rank += e[j] / e0 > lam;
            sol.dof += e[j] / (e[j] + lam * e0);
        }
    } else {
        // Truncated pseudo-inverse. solve_regularized drops s < 1e-13 s_max; the Gram's
        // eigenvalues carry an absolute error of about K eps e_max, so below that they
        // are rounding.
        const double tol =
            std::max(1e-13, double(K) * std::numeric_limits<double>::epsilon()) * e0;
        sol.rank = 0;
        for (size_t j = 0; j < K; j++) {
            const bool keep = e[j] > tol;
            g[j] = keep ? 1.0 / e[j] : 0.0;
            sol.rank += keep;
        }
        sol.dof = double(sol.rank);
    }
    sol.lambda = lam;
    sol.w = ne.coefficients(g);
    for (const cd& v : sol.w)
        if (!std::isfinite(v.real()) || !std::isfinite(v.imag())) {
            std::ostringstream os;
            os << "y: estimation produced non-finite coefficients (condition number "
               << sol.condition
               << " of the column-normalised basis; use a regularization > 0)";
            throw std::runtime_error(os.str());
        }
    sol.fit_nmse_db = nmse_db(residual(G, b, tt, sol.w), tt);
}

// The CPU solve of a large model is its eigendecomposition (LAPACK zheevd), whose time grows
// faster than K^3 once the matrix leaves the caches: 0.9 s at 1024 columns, 11.6 s at 2048 and
// 131 s at 4096 on a 2-core Debian 12 machine (docs/performance.md), a ratio of 2^3.6 per doubling
// beyond 1024. A solve of checked_columns or more is estimated from one 1024-column
// eigendecomposition timed once per process (the machine's own speed, about a second) and refused
// up front when the estimate passes env::max_solve_seconds(), instead of blocking for minutes.
constexpr size_t timed_columns = 1024;
constexpr size_t checked_columns = 2048;
constexpr double eigh_exponent = 3.6;

double timed_cpu_eigh_seconds()
{
    static const double t = [] {
        const size_t K = timed_columns;
        // A fixed pseudo-random Hermitian matrix: zheevd's divide and conquer deflates a
        // structured one (a diagonal, say) and would time much less than the work of a Gram.
        std::vector<cd> a(K * K);
        uint64_t s = 0x9e3779b97f4a7c15ull;
        auto next = [&s] {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            return double(s >> 11) / double(1ull << 53) - 0.5;
        };
        for (size_t j = 0; j < K; j++)
            for (size_t i = 0; i <= j; i++) {
                const cd v = i == j ? cd(next() + 2.0, 0) : cd(next(), next());
                a[j * K + i] = v;
                a[i * K + j] = std::conj(v);
            }
        auto e = make_gram_engine(backend::cpu, 0);
        const auto t0 = std::chrono::steady_clock::now();
        e->eigh(a, K);
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
            .count();
    }();
    return t;
}

void check_cpu_solve_time(size_t K, const dpd_model& m)
{
    if (K < checked_columns)
        return;
    const double limit = env::max_solve_seconds();
    const double t1 = timed_cpu_eigh_seconds();
    const double est = t1 * std::pow(double(K) / double(timed_columns), eigh_exponent);
    if (est <= limit)
        return;
    char buf[512];
    std::snprintf(
        buf,
        sizeof buf,
        "model: %s has %zu columns; their solve on the CPU would take about %.0f s on "
        "this machine (a %zu-column eigendecomposition took %.2f s here, and the time "
        "grows as K^%.1f), beyond the %g s limit (GPUINTERP_MAX_SOLVE_SECONDS); use a "
        "model with fewer coefficients, the cuda backend, or raise the limit",
        m.to_string().c_str(),
        K,
        est,
        timed_columns,
        t1,
        eigh_exponent,
        limit);
    throw std::runtime_error(buf);
}
} // namespace

void set_gram_chunk_rows(size_t rows) { chunk_override = rows; }

void dpd_gram::require_rows(size_t usable, size_t unknowns, double per)
{
    const double need = std::ceil(per * double(unknowns));
    if (double(usable) >= need)
        return;
    char buf[256];
    std::snprintf(
        buf,
        sizeof buf,
        "x: capture too short: %zu usable samples after alignment for %zu unknowns "
        "(need at least %.0f = %g per unknown)",
        usable,
        unknowns,
        need,
        per);
    throw std::invalid_argument(buf);
}

void dpd_gram::check_condition(double condition, double max_condition)
{
    if (!std::isfinite(max_condition) || condition < max_condition)
        return;
    char buf[320];
    std::snprintf(
        buf,
        sizeof buf,
        "y: basis matrix is ill-conditioned (condition number %.3g >= max_condition "
        "%.3g); the capture does not excite the model (constant envelope? too few "
        "distinct amplitudes?) or the model is too large for it",
        condition,
        max_condition);
    throw std::runtime_error(buf);
}

std::vector<double> dpd_gram::default_grid()
{
    std::vector<double> g;
    for (int i = 0; i <= 26; i++)
        g.push_back(std::pow(10.0, -14.0 + 0.5 * i));
    return g;
}

int dpd_gram::check_set(int set)
{
    if (set != 0 && set != 1)
        throw std::invalid_argument("set: must be 0 (fit) or 1 (held out), got " +
                                    std::to_string(set));
    return set;
}

dpd_gram::dpd_gram(const dpd_model& model, bool lo_leakage, backend requested, int device)
    : d_model(model), d_lo(lo_leakage)
{
    // A neural model has no linear basis to fit (its weights train by gradient: neural_train).
    if (d_model.is_neural())
        throw std::invalid_argument("model: a " + to_string(d_model.family) +
                                    " model has no coefficient basis; dpd_gram fits the "
                                    "polynomial families (ph, mp, gmp)");
    const backend_choice c = select_backend(requested, device);
    d_backend = c.selected;
    d_note = c.reason;
    const auto terms = model_terms(d_model, d_lo);
    d_K = terms.size();
    d_engine = make_gram_engine(d_backend, device);
    d_engine->init(terms);
    d_chunk = d_engine->chunk_rows();
    // cuSOLVER's Zheevd costs about a millisecond whatever the size (its stages are
    // separate launches with host synchronisation); LAPACK decomposes a 64 x 64 matrix in
    // well under that, so a small model's solve stays on the host.
    if (d_backend == backend::cuda && d_K <= host_eigh_columns)
        d_host_eigh = make_gram_engine(backend::cpu, 0);
    if (const size_t o = chunk_override.load())
        d_chunk = std::min(d_chunk, o);
}

dpd_gram::~dpd_gram() = default;

void dpd_gram::hold(int slot,
                    const cd* y,
                    const cd* x,
                    size_t n,
                    const cd* y_dev,
                    const cd* x_dev,
                    cd y_div,
                    int device)
{
    if (slot != 0 && slot != 1)
        throw std::invalid_argument("slot: must be 0 or 1, got " + std::to_string(slot));
    if (n && (!y || !x))
        throw std::invalid_argument(!y ? "y: null pointer" : "x: null pointer");
    d_engine->hold(slot, { y, x, n, y_dev, x_dev, y_div, device });
    d_held[slot] = { y, x, n };
}

void dpd_gram::release()
{
    d_engine->release();
    d_held[0] = d_held[1] = {};
}

void dpd_gram::add(const cd* y,
                   size_t n,
                   const cd* x,
                   const uint8_t* fit,
                   const uint8_t* val,
                   size_t history)
{
    if (history > n)
        throw std::invalid_argument("history: " + std::to_string(history) +
                                    " exceeds the " + std::to_string(n) +
                                    " samples of y");
    if (n && (!y || !x))
        throw std::invalid_argument(!y ? "y: null pointer" : "x: null pointer");
    const size_t back =
        d_model.history(); // deepest sample read behind a row (look-ahead included)
    const size_t ahead = d_model.lookahead();
    if (n)
        d_adds++;
    // Rows history .. n-1-ahead: a row needs its look-ahead inside y.
    if (n <= ahead || history >= n - ahead)
        return;
    const size_t row_end = n - ahead;
    d_offered += double(row_end - history);
    // Inside a held capture: its rows are numbered from its start, and the samples before y
    // (not part of this add) read as zero.
    int slot = -1;
    int64_t off = 0;
    for (int s = 0; s < 2 && slot < 0; s++) {
        const held& h = d_held[s];
        const std::less_equal<const cd*> le;
        if (h.n && le(h.y, y) && le(y + n, h.y + h.n) && x == h.x + (y - h.y)) {
            slot = s;
            off = y - h.y;
        }
    }
    const size_t chunk = std::max<size_t>(1, d_chunk);
    std::vector<int64_t> rows[2];
    std::vector<cd> tgt[2];
    for (auto& r : rows)
        r.reserve(chunk);
    for (auto& t : tgt)
        t.reserve(chunk);
    auto flush = [&](int set) {
        auto& r = rows[set];
        if (r.empty())
            return;
        const int64_t w0 = std::max<int64_t>(0, r.front() - int64_t(back));
        const int64_t w1 = std::min<int64_t>(int64_t(n), r.back() + int64_t(ahead) + 1);
        if (slot >= 0)
            for (int64_t& v : r)
                v += off;
        d_engine->accumulate(set,
                             { y + w0,
                               w0 + off,
                               size_t(w1 - w0),
                               r.data(),
                               tgt[set].data(),
                               r.size(),
                               off,
                               slot });
        for (const cd& t : tgt[set])
            d_tt[set] += std::norm(t);
        d_rows[set] += double(r.size());
        r.clear();
        tgt[set].clear();
    };
    for (size_t i = history; i < row_end; i++) {
        const bool in[2] = { fit ? fit[i] != 0 : true, val ? val[i] != 0 : false };
        for (int s = 0; s < 2; s++) {
            if (!in[s])
                continue;
            // A sparse mask spreads a chunk's rows over many samples: bound the window an
            // engine receives (what the CUDA engine uploads) to a few chunks.
            if (!rows[s].empty() && i - size_t(rows[s].front()) >= 4 * chunk)
                flush(s);
            rows[s].push_back(int64_t(i));
            tgt[s].push_back(x[i]);
            if (rows[s].size() == chunk)
                flush(s);
        }
    }
    flush(0);
    flush(1);
}

void dpd_gram::forget(double factor)
{
    if (!(factor > 0 && factor <= 1))
        throw std::invalid_argument("factor: must lie in (0, 1], got " +
                                    std::to_string(factor));
    if (factor == 1)
        return;
    d_engine->scale(factor);
    for (int s = 0; s < 2; s++) {
        d_tt[s] *= factor;
        d_rows[s] *= factor;
    }
}

void dpd_gram::fold_validation()
{
    d_engine->fold();
    d_tt[0] += d_tt[1];
    d_rows[0] += d_rows[1];
}

void dpd_gram::reset()
{
    d_engine->clear();
    d_tt[0] = d_tt[1] = d_rows[0] = d_rows[1] = 0;
    d_adds = 0;
    d_offered = 0;
}

std::vector<cd> dpd_gram::gram(int set) const
{
    std::vector<cd> G, b;
    d_engine->read(check_set(set), G, b);
    return G;
}

std::vector<cd> dpd_gram::rhs(int set) const
{
    std::vector<cd> G, b;
    d_engine->read(check_set(set), G, b);
    return b;
}

const gram_engine& dpd_gram::eigh_engine() const
{
    return d_host_eigh ? *d_host_eigh : *d_engine;
}

namespace {
// One fold's sums: the rows it leaves out of its fit (x), its block continuing the capture's
// state (s) and its block run cold (c); G, b and the target energy of each.
struct fold_sums {
    std::vector<cd> Gx, bx, Gs, bs, Gc, bc;
    double ts = 0, tc = 0;
};

std::vector<cd> sum_of(const std::vector<cd>& a, const std::vector<cd>& b, double sb = 1)
{
    std::vector<cd> r(a);
    for (size_t i = 0; i < r.size(); i++)
        r[i] += sb * b[i];
    return r;
}
} // namespace

dpd_gram_solution dpd_gram::fit_kfold(const cd* y,
                                      const cd* x,
                                      size_t n,
                                      const uint8_t* ok,
                                      const uint8_t* bad,
                                      const cd* probe_y,
                                      const cd* probe_x)
{
    if (n && (!y || !x || !ok))
        throw std::invalid_argument(!y ? "y: null pointer"
                                       : (!x ? "x: null pointer" : "rows: null pointer"));
    const bool probes = probe_y && probe_x;
    // Every pass below reads the held capture (on a GPU: uploaded once, or already there when
    // the caller held it from the capture kernel's device memory).
    const held& h0 = d_held[0];
    if (!(h0.y == y && h0.x == x && h0.n == n))
        hold(0, y, x, n);
    if (probes)
        hold(1, probe_y, probe_x, n);
    struct releaser {
        dpd_gram* g;
        ~releaser() { g->release(); }
    } const releasing{ this };
    // A row reads samples r - back .. r + ahead (dpd_model::usable_rows()).
    const size_t ahead = d_model.lookahead(), back = d_model.history() - ahead;
    const size_t K = d_K;
    std::vector<uint8_t> none(n, 0);
    auto add_fit = [&](const uint8_t* fit, const uint8_t* val) {
        add(y, n, x, fit, val);
        if (probes) // the probe copies of the same rows join the fit set only
            add(probe_y, n, probe_x, fit, nullptr);
    };
    auto gcv = [&] {
        reset();
        add_fit(ok, nullptr);
        dpd_gram_options o;
        o.mode = dpd_gram_options::mode_t::gcv;
        return solve(o);
    };
    size_t usable = 0;
    for (size_t i = 0; i < n; i++)
        usable += ok[i] != 0;
    if (K > kfold_max_columns)
        return gcv();
    // The plan: each block [a, b), the usable rows its fold leaves out of the fit, its scored rows.
    struct block {
        size_t a, b;
        std::vector<uint8_t> x_rows, s_rows;
    };
    std::vector<block> plan;
    for (size_t f = 0; f < kfold_blocks; f++) {
        block k;
        k.a = f * n / kfold_blocks;
        k.b = (f + 1) * n / kfold_blocks;
        k.x_rows.assign(n, 0);
        k.s_rows.assign(n, 0);
        const size_t lo = k.a >= ahead ? k.a - ahead : 0, hi = std::min(n, k.b + back);
        size_t left_out = 0, scored = 0;
        for (size_t i = lo; i < hi; i++)
            left_out += (k.x_rows[i] = ok[i] != 0);
        for (size_t i = k.a; i < k.b; i++)
            scored += (k.s_rows[i] = ok[i] != 0);
        if (usable - left_out < K || !scored)
            return gcv();
        plan.push_back(std::move(k));
    }
    std::vector<fold_sums> folds;
    for (const block& k : plan) {
        fold_sums f;
        reset();
        if (probes) { // the probe copies of the block's rows leave the fit too
            add_fit(k.x_rows.data(), k.s_rows.data());
            f.Gx = gram(0);
            f.bx = rhs(0);
        } else { // the block's basis rows are built once: left out = its edges + the block
            std::vector<uint8_t> edges(n);
            for (size_t i = 0; i < n; i++)
                edges[i] = k.x_rows[i] && !k.s_rows[i];
            add(y, n, x, edges.data(), k.s_rows.data());
            f.Gx = sum_of(gram(0), gram(1));
            f.bx = sum_of(rhs(0), rhs(1));
        }
        f.Gs = gram(1);
        f.bs = rhs(1);
        f.ts = 0;
        for (size_t i = k.a; i < k.b; i++)
            if (k.s_rows[i])
                f.ts += std::norm(x[i]);
        // Run cold, the block's rows differ from the rows continuing the capture only at its
        // head (the first `back` rows read zeros instead of the previous block) and its tail (a
        // row whose look-ahead leaves the block is not there): those few rows are swapped,
        // instead of a second pass over the block.
        const size_t m = k.b - k.a;
        std::vector<uint8_t> ends(n, 0), head(m, 0);
        for (size_t i = k.a; i < std::min(k.a + back, k.b); i++)
            ends[i] = k.s_rows[i];
        for (size_t i = std::max(k.b >= ahead ? k.b - ahead : 0, k.a); i < k.b; i++)
            ends[i] = k.s_rows[i];
        // The cold rows of the head: look-ahead inside the block, no bad sample in the window.
        for (size_t i = 0; i < std::min(back, m); i++) {
            bool use = i + ahead < m;
            for (size_t j = i >= back ? i - back : 0;
                 use && bad && j <= i + ahead && j < m;
                 j++)
                use = !bad[k.a + j];
            head[i] = use;
        }
        reset();
        add(y, n, x, ends.data());
        add(y + k.a, m, x + k.a, none.data(), head.data());
        f.Gc = sum_of(sum_of(f.Gs, gram(0), -1), gram(1));
        f.bc = sum_of(sum_of(f.bs, rhs(0), -1), rhs(1));
        f.tc = f.ts - target_energy(0) + target_energy(1);
        folds.push_back(std::move(f));
    }
    // The refit's sums: without probes the blocks' continuing sums are the whole capture's.
    std::vector<cd> G_all, b_all;
    double t_all = 0;
    if (probes) {
        reset();
        add_fit(ok, nullptr);
        G_all = gram(0);
        b_all = rhs(0);
        t_all = target_energy(0);
    } else {
        G_all = folds[0].Gs;
        b_all = folds[0].bs;
        for (size_t f = 1; f < folds.size(); f++) {
            G_all = sum_of(G_all, folds[f].Gs);
            b_all = sum_of(b_all, folds[f].bs);
        }
        for (const auto& f : folds)
            t_all += f.ts;
    }
    // Each grid value's residuals over the blocks, continuing (rs) and cold (rc).
    const std::vector<double> grid = default_grid();
    std::vector<double> rs(grid.size(), 0.0), rc(grid.size(), 0.0);
    double ts = 0, tc = 0;
    for (const auto& f : folds) {
        const normalised_eigh ne = decompose(
            eigh_engine(), sum_of(G_all, f.Gx, -1), sum_of(b_all, f.bx, -1), K, false);
        if (!ne.K || !(ne.e.back() > 0))
            return gcv();
        for_each_grid_value(grid.size(), K, [&](size_t i) {
            const std::vector<cd> w = ne.coefficients(ne.ridge(grid[i]));
            rs[i] += residual(f.Gs, f.bs, f.ts, w);
            rc[i] += residual(f.Gc, f.bc, f.tc, w);
        });
        ts += f.ts;
        tc += f.tc;
    }
    if (!(ts > 0 && tc > 0))
        return gcv();
    size_t pick = grid.size();
    double best = std::numeric_limits<double>::infinity();
    std::vector<double> cold(grid.size());
    for (size_t i = 0; i < grid.size(); i++) {
        cold[i] = 10 * std::log10(std::max(rc[i] / tc, 1e-30));
        if (cold[i] < best)
            best = cold[i];
    }
    for (size_t i = 0; i < grid.size() && pick == grid.size(); i++)
        if (cold[i] <= best + kfold_tie_db)
            pick = i;
    if (pick == grid.size())
        return gcv();
    dpd_gram_solution sol;
    if (probes) {
        // The engine holds every row with its probes: solved at the chosen lambda.
        dpd_gram_options o;
        o.mode = dpd_gram_options::mode_t::fixed;
        o.regularization = grid[pick];
        sol = solve(o);
    } else {
        if (d_backend == backend::cpu)
            check_cpu_solve_time(K, d_model);
        finish_solution(decompose(eigh_engine(), G_all, b_all, K, true),
                        G_all,
                        b_all,
                        t_all,
                        grid[pick],
                        sol);
    }
    sol.selected_by = "kfold";
    sol.validation_nmse_db = 10 * std::log10(std::max(rs[pick] / ts, 1e-30));
    return sol;
}

dpd_gram_solution dpd_gram::solve(const dpd_gram_options& opt) const
{
    using mode_t = dpd_gram_options::mode_t;
    const size_t K = d_K;
    if (!(d_rows[0] > 0)) {
        std::ostringstream os;
        os << "dpd_gram: no fit rows accumulated: ";
        if (d_offered > 0)
            os << "fit_mask selected none of the " << d_offered
               << " rows added (every flag False); mark the rows to fit";
        else if (d_adds)
            os << "y: each capture added is too short for one row of "
               << d_model.to_string() << " (a row needs " << d_model.lookahead() + 1
               << " samples from its own on, and rows before `history` are memory only)";
        else
            os << "add() a capture first";
        throw std::runtime_error(os.str());
    }
    // The targets enter only b and tt, the basis (y) G: a non-finite tt is x's, never y's.
    for (int s = 0; s < 2; s++)
        if (!std::isfinite(d_tt[s]))
            throw std::runtime_error(
                std::string("x: the targets of the ") + (s ? "held-out" : "fit") +
                " rows contain NaN or infinity (or values whose square overflows)");
    if (opt.mode == mode_t::fixed &&
        !(opt.regularization >= 0 && std::isfinite(opt.regularization)))
        throw std::invalid_argument("regularization: must be a finite value >= 0, got " +
                                    std::to_string(opt.regularization));
    const std::vector<double> grid = opt.grid.empty() ? default_grid() : opt.grid;
    for (double g : grid)
        if (!(g > 0 && std::isfinite(g)))
            throw std::invalid_argument("grid: every value must be finite and > 0, got " +
                                        std::to_string(g));
    const bool have_val = d_rows[1] > 0 && d_tt[1] > 0;
    if (opt.mode == mode_t::validation && !have_val)
        throw std::invalid_argument(
            "regularization: validation needs held-out rows (val_mask)");

    std::vector<cd> G, b;
    d_engine->read(0, G, b);
    if (d_backend == backend::cpu)
        check_cpu_solve_time(K, d_model);
    const normalised_eigh ne = decompose(eigh_engine(), G, b, K, true);
    const std::vector<double>& e = ne.e;
    const double e0 = ne.e0;
    dpd_gram_solution sol;
    auto coefficients = [&](const std::vector<double>& g) { return ne.coefficients(g); };
    auto ridge = [&](double lam) { return ne.ridge(lam); };
    const std::vector<cd>& c = ne.c;

    double lam = 0;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    sol.validation_nmse_db = nan;
    std::vector<cd> Gv, bv;
    if (have_val)
        d_engine->read(1, Gv, bv);
    const bool use_val =
        opt.mode == mode_t::validation || (opt.mode == mode_t::automatic && have_val);
    if (use_val) {
        // Held-out NMSE of each grid value from the held-out Gram.
        std::vector<double> score(grid.size());
        for_each_grid_value(grid.size(), K, [&](size_t i) {
            score[i] =
                nmse_db(residual(Gv, bv, d_tt[1], coefficients(ridge(grid[i]))), d_tt[1]);
        });
        size_t best = grid.size();
        double best_score = nan;
        for (size_t i = 0; i < grid.size(); i++) {
            const double s = score[i];
            if (std::isnan(s))
                continue;
            if (best == grid.size() || s < best_score) {
                best = i;
                best_score = s;
            }
        }
        if (best == grid.size())
            throw std::runtime_error("y: every held-out score is undefined");
        lam = grid[best];
        sol.selected_by = "validation";
        sol.validation_nmse_db = best_score;
    } else if (opt.mode == mode_t::automatic || opt.mode == mode_t::gcv) {
        // GCV(lam) = n r^2 / (n - dof)^2, r^2 = tt + sum_i (f_i - 2) |c_i|^2 / (e_i + lam
        // e0), f_i = e_i / (e_i + lam e0): solve_regularized's tt - |U^H t|^2 + sum
        // (1-f)^2 |U^H t|^2 with |U^H t|_i^2 = |c_i|^2 / e_i, rewritten so that e_i = 0
        // does not divide.
        const double n = d_rows[0];
        double best_score = 0;
        size_t best = 0;
        for (size_t i = 0; i < grid.size(); i++) {
            double r2 = d_tt[0], dof = 0;
            for (size_t j = 0; j < K; j++) {
                const double den = e[j] + grid[i] * e0;
                const double f = e[j] / den;
                r2 += (f - 2) * std::norm(c[j]) / den;
                dof += f;
            }
            r2 = std::max(r2, 0.0);
            const double dd = std::max(n - dof, 1e-9);
            const double s = n * r2 / (dd * dd);
            if (i == 0 || s < best_score) {
                best = i;
                best_score = s;
            }
        }
        lam = grid[best];
        sol.selected_by = "gcv";
    } else {
        lam = opt.regularization;
        sol.selected_by = "fixed";
    }

    finish_solution(ne, G, b, d_tt[0], lam, sol);
    if (have_val && !use_val)
        sol.validation_nmse_db = nmse_db(residual(Gv, bv, d_tt[1], sol.w), d_tt[1]);
    return sol;
}

} // namespace kernel
} // namespace gpuinterp
} // namespace gr
