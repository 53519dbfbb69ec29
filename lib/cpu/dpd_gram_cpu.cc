/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The CPU engine of dpd_gram: a basis chunk of R rows x K columns (column-major, OpenMP
// over columns), accumulated by BLAS zherk (G += A^H A, upper triangle) and zgemv (b +=
// A^H t), and the eigendecomposition by LAPACKE_zheevd (divide and conquer: the K^3 step,
// fastest for all vectors).
#include "cpu_engines.h"
#include <cblas.h>
// lapack_complex_double as std::complex<double> (the same layout as C's double _Complex).
#define LAPACK_COMPLEX_CPP
#include <lapacke.h>
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpuinterp {
namespace kernel {

namespace {
using cd = std::complex<double>;

class gram_cpu : public gram_engine
{
public:
    void init(const std::vector<gram_term>& terms) override
    {
        d_terms = terms;
        d_K = terms.size();
        d_maxpow = 0;
        for (auto& t : terms)
            d_maxpow = std::max(d_maxpow, t.power);
        // 32 MiB of basis per chunk: big enough that zherk runs at its blocked speed,
        // small enough to stay near the last-level cache of a few cores.
        d_chunk = std::clamp<size_t>(
            (size_t(32) << 20) / (16 * std::max<size_t>(d_K, 1)), 64, 65536);
        for (int s = 0; s < 2; s++) {
            d_G[s].assign(d_K * d_K, cd(0));
            d_b[s].assign(d_K, cd(0));
        }
    }
    size_t chunk_rows() const override { return d_chunk; }

    void accumulate(int set, const gram_rows& in) override
    {
        const auto yw = in.yw;
        const auto w0 = in.w0, lo = in.lo;
        const auto wn = in.wn, R = in.R;
        const auto rows = in.rows;
        const auto t = in.t;
        if (!R)
            return;
        const size_t K = d_K;
        d_A.resize(R * K);
        // |y|^k over the window, k = 0..maxpow (one table, every column reads it).
        const size_t P = d_maxpow + 1;
        d_pw.resize(P * wn);
        for (size_t i = 0; i < wn; i++) {
            const double a = std::abs(yw[i]);
            double p = 1;
            for (size_t k = 0; k < P; k++) {
                d_pw[k * wn + i] = p;
                p *= a;
            }
        }
        const int64_t n_hi = w0 + int64_t(wn);
#pragma omp parallel for schedule(static) if (R * K >= 16384)
        for (long c = 0; c < long(K); c++) {
            const gram_term tm = d_terms[size_t(c)];
            cd* col = &d_A[size_t(c) * R];
            if (tm.ones) {
                std::fill(col, col + R, cd(1));
                continue;
            }
            const double* pw = &d_pw[size_t(tm.power) * wn];
            for (size_t r = 0; r < R; r++) {
                const int64_t is = rows[r] - tm.lag, ie = rows[r] - tm.env;
                // Indices below lo are the zero state before the capture (or before the span
                // the rows were added from); the front end's window covers every index >= lo
                // a row reads.
                const cd s = (is >= lo && is < n_hi) ? yw[is - w0] : cd(0);
                const double a =
                    (ie >= lo && ie < n_hi) ? pw[ie - w0] : (tm.power ? 0.0 : 1.0);
                const cd v = s * a;
                col[r] = tm.conj ? std::conj(v) : v;
            }
        }
        const double one = 1.0;
        const cd cone(1);
        cblas_zherk(CblasColMajor,
                    CblasUpper,
                    CblasConjTrans,
                    int(K),
                    int(R),
                    one,
                    d_A.data(),
                    int(R),
                    one,
                    d_G[set].data(),
                    int(K));
        cblas_zgemv(CblasColMajor,
                    CblasConjTrans,
                    int(R),
                    int(K),
                    &cone,
                    d_A.data(),
                    int(R),
                    t,
                    1,
                    &cone,
                    d_b[set].data(),
                    1);
    }

    void scale(double f) override
    {
        for (int s = 0; s < 2; s++) {
            for (auto& v : d_G[s])
                v *= f;
            for (auto& v : d_b[s])
                v *= f;
        }
    }
    void fold() override
    {
        for (size_t i = 0; i < d_G[0].size(); i++)
            d_G[0][i] += d_G[1][i];
        for (size_t i = 0; i < d_b[0].size(); i++)
            d_b[0][i] += d_b[1][i];
    }
    void clear() override
    {
        for (int s = 0; s < 2; s++) {
            std::fill(d_G[s].begin(), d_G[s].end(), cd(0));
            std::fill(d_b[s].begin(), d_b[s].end(), cd(0));
        }
    }
    void read(int set, std::vector<cd>& G, std::vector<cd>& b) const override
    {
        const size_t K = d_K;
        G = d_G[set];
        hermitian_from_upper(G, K); // zherk wrote the upper triangle
        b = d_b[set];
    }
    std::vector<double> eigh(std::vector<cd>& a, size_t K) const override
    {
        std::vector<double> w(K);
        const lapack_int info =
            LAPACKE_zheevd(LAPACK_COL_MAJOR,
                           'V',
                           'U',
                           lapack_int(K),
                           reinterpret_cast<lapack_complex_double*>(a.data()),
                           lapack_int(K),
                           w.data());
        check_eigh("LAPACKE_zheevd", info, K);
        return w;
    }

private:
    std::vector<gram_term> d_terms;
    size_t d_K = 0;
    unsigned d_maxpow = 0;
    size_t d_chunk = 1024;
    std::vector<cd> d_G[2], d_b[2];
    std::vector<cd> d_A;
    std::vector<double> d_pw;
};
} // namespace

std::unique_ptr<gram_engine> make_cpu_gram_engine()
{
    return std::make_unique<gram_cpu>();
}

} // namespace kernel
} // namespace gpuinterp
} // namespace gr
