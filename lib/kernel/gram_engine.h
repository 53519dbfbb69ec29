/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_KERNEL_GRAM_ENGINE_H
#define INCLUDED_GPUINTERP_KERNEL_GRAM_ENGINE_H

// Internal: what a backend implements for dpd_gram. The front end (dpd_gram.cc) turns the
// model into a term list, walks the rows chunk by chunk, applies the masks (a compact row
// list per set) and does the whole lambda search on the host (O(K^2) per grid value); an
// engine builds the basis of the listed rows, accumulates G and b of a set, and
// eigendecomposes the normalised Gram.

#include <complex>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace kernel {

//! One basis column: y[r - lag] * |y[r - env]|^power (conjugated when conj); ones: the
//! constant 1.
struct gram_term {
    int lag = 0;
    int env = 0;
    unsigned power = 0;
    bool conj = false;
    bool ones = false;
};

/*!
 * One accumulate() call's rows: the basis rows `rows[0..R)` (ascending sample indices) with
 * targets t[0..R). yw holds samples w0 .. w0+wn-1 of the capture and covers every sample the
 * rows read at an index >= lo; samples at lower indices are zero. R <= chunk_rows() and
 * rows[R-1] - rows[0] < 4 chunk_rows(), so wn < 4 chunk_rows() + the model's history() +
 * lookahead() + 1. The arrays may be reused once the call returns. slot >= 0: the samples
 * and targets are those of the capture held in that slot (hold()), the indices its own; an
 * engine with a copy of it there may read that copy instead of yw and t.
 */
struct gram_rows {
    const std::complex<double>* yw;
    int64_t w0;
    size_t wn;
    const int64_t* rows;
    const std::complex<double>* t;
    size_t R;
    int64_t lo = 0;
    int slot = -1;
};

/*!
 * A capture dpd_gram keeps for the passes over it that follow (the folds of fit_kfold()): y
 * and its targets x, n samples each, in host memory; y_dev and x_dev, when not null, are
 * copies of them in the memory of CUDA device `device` (y_dev / y_div is y) that the
 * backend's own kernels filled.
 */
struct gram_held {
    const std::complex<double>* y = nullptr;
    const std::complex<double>* x = nullptr;
    size_t n = 0;
    const std::complex<double>* y_dev = nullptr;
    const std::complex<double>* x_dev = nullptr;
    std::complex<double> y_div = 1;
    int device = -1;
};

//! Make the K x K column-major G, of which the upper triangle (i <= j) holds the Gram,
//! the full Hermitian matrix read() hands back: the lower triangle mirrored, the diagonal
//! real.
inline void hermitian_from_upper(std::vector<std::complex<double>>& G, size_t K)
{
    for (size_t j = 0; j < K; j++) {
        G[j * K + j] = std::complex<double>(G[j * K + j].real(), 0);
        for (size_t i = j + 1; i < K; i++)
            G[j * K + i] = std::conj(G[i * K + j]);
    }
}

//! eigh()'s check of its solver's status: `solver` returned `info` for a K x K matrix.
inline void check_eigh(const char* solver, long info, size_t K)
{
    if (info != 0)
        throw std::runtime_error(std::string("dpd_gram: ") + solver + " failed (info " +
                                 std::to_string(info) + ", K = " + std::to_string(K) +
                                 ")");
}

class gram_engine
{
public:
    using cd = std::complex<double>;
    virtual ~gram_engine() = default;
    //! Once, before anything else; K = terms.size().
    virtual void init(const std::vector<gram_term>& terms) = 0;
    //! The most rows accumulate() takes per call (what bounds the basis chunk's memory).
    virtual size_t chunk_rows() const = 0;
    //! Add the rows `r` (see gram_rows) to set `set` (0 fit, 1 held out).
    virtual void accumulate(int set, const gram_rows& r) = 0;
    //! Keep capture `h` in slot 0 or 1 until release(): an engine whose basis is built in
    //! another memory copies it there here, once (from the device copies when it can), so the
    //! passes over it move row numbers only. Host engines read the caller's memory: nothing
    //! to do.
    virtual void hold(int /*slot*/, const gram_held& /*h*/) {}
    virtual void release() {}
    virtual void scale(double factor) = 0;
    //! Set 0 += set 1 (G and b): the held-out rows joined to the fit rows.
    virtual void fold() = 0;
    virtual void clear() = 0;
    //! Host copies: G as a full Hermitian K x K column-major matrix, and b.
    virtual void read(int set, std::vector<cd>& G, std::vector<cd>& b) const = 0;
    //! Hermitian eigendecomposition of the K x K column-major a: a becomes the
    //! eigenvectors (columns), the eigenvalues come back ascending.
    virtual std::vector<double> eigh(std::vector<cd>& a, size_t K) const = 0;
};

//! Test hook: dpd_gram objects constructed afterwards hand at most `rows` rows per
//! accumulate() call (0: the engine's own chunk_rows()), so small tests cross chunk
//! boundaries.
void set_gram_chunk_rows(size_t rows);

} // namespace kernel
} // namespace gpuinterp
} // namespace gr

#endif
