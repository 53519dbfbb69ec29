/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_KERNEL_DPD_GRAM_H
#define INCLUDED_GPUINTERP_KERNEL_DPD_GRAM_H

#include <gnuradio/gpuinterp/kernel/backend.h>
#include <gnuradio/gpuinterp/kernel/dpd_model.h>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace kernel {

class gram_engine;

//! How dpd_gram::solve() picks the ridge parameter lambda.
struct dpd_gram_options {
    enum class mode_t {
        automatic = 0, //!< validation when held-out rows were added, else gcv
                       //!< (solve_regularized's None)
        fixed = 1, //!< lambda = regularization (0: truncated pseudo-inverse, see solve())
        validation =
            2,   //!< the grid value with the least held-out NMSE (needs held-out rows)
        gcv = 3, //!< the grid value with the least generalised cross-validation score
    };
    mode_t mode = mode_t::automatic;
    double regularization =
        0; //!< lambda relative to the largest eigenvalue (mode fixed only)
    std::vector<double>
        grid; //!< relative lambdas tried; empty = dpd_gram::default_grid()
};

//! What solve() returns; the fields of Python's dpd_solve.Solution.
struct dpd_gram_solution {
    std::vector<std::complex<double>>
        w; //!< K coefficients (the LO-leakage constant last if enabled)
    double lambda =
        0; //!< chosen lambda relative to the largest eigenvalue of the normalised Gram
    double condition = 0; //!< s_max / s_min of the column-normalised basis (sqrt of the
                          //!< eigenvalue ratio)
    size_t rank = 0;      //!< eigenvalues e with e / e_max > lambda (the directions used)
    double dof = 0;       //!< effective degrees of freedom sum e / (e + lambda e_max)
    double fit_nmse_db = 0;        //!< NMSE of the fit rows at the solution
    double validation_nmse_db = 0; //!< NMSE of the held-out rows (nan without any)
    std::string selected_by;       //!< "fixed", "validation" or "gcv"
};

/*!
 * \brief Chunked least-squares estimation of a DPD / PA model's coefficients from its
 * Gram matrix.
 *
 * \details Fits x ~ Phi(y) w (+ c) where Phi(y) is the basis of the model (dpd_model.h:
 * term x[n-l] |x[n-j]|^k of y, conjugated for ph conjugate branches), with an all-ones
 * column last when lo_leakage is set (its coefficient is the LO-leakage constant c). The
 * basis is never held whole: add() builds it chunk by chunk and accumulates, over the
 * rows of the fit set,
 *
 *     G = Phi^H Phi   (K x K, G_ij = sum_n conj(phi_n,i) phi_n,j)
 *     b = Phi^H x     (K)
 *     tt = x^H x
 *
 * and the same for a held-out set, so memory is O(K^2) whatever the capture length.
 *
 * Rows. add(y, n, x, fit, val, history) takes the rows history .. n-1 of Python's
 * dpd_model.basis(y, model) (samples before y[0] are zero): the first `history` samples
 * only feed the memory of later rows. A row r whose look-ahead y[r + lookahead()] lies
 * past y[n-1] is not added. x[r] is row r's target; fit[r] != 0 puts it into the fit set,
 * val[r] != 0 into the held-out set (both may be set). fit == nullptr means every row;
 * val == nullptr means none.
 *
 * Precision: everything is accumulated and solved in double. A PA basis has a condition
 * number of 10^6..10^7 after column normalisation, and its Gram the square, 10^12..10^14:
 * in float (eps 6e-8) its small eigenvalues would be pure rounding; in double
 * (eps 1.1e-16) relative eigenvalue errors are about K eps e_max, so singular values down
 * to ~1e-7 s_max are resolved. A condition number above ~1e7 is therefore an estimate
 * bounded by double precision, where solve_regularized's SVD of the basis itself would
 * still resolve it.
 *
 * Backends: cpu (basis chunks in C++ with OpenMP, Gram by BLAS zherk/zgemv, LAPACK
 * zheevd) and cuda (basis chunks built on the device, cuBLAS Zherk/Zgemv, cuSOLVER
 * Zheevd).
 */
class dpd_gram
{
public:
    /*!
     * \param model the model structure (validated)
     * \param lo_leakage append an all-ones column (the LO-leakage constant) last
     * \param requested automatic | cpu | cuda (select_backend() rules)
     * \param device CUDA device index
     */
    dpd_gram(const dpd_model& model,
             bool lo_leakage,
             backend requested = backend::automatic,
             int device = 0);
    ~dpd_gram();
    dpd_gram(const dpd_gram&) = delete;
    dpd_gram& operator=(const dpd_gram&) = delete;

    /*!
     * \brief Accumulate the basis rows history .. n-1 of y (see the class comment).
     * \param y the model's input samples (n of them)
     * \param x the targets, n values (x[r] for row r; x[0..history) are not read)
     * \param fit_mask n flags or nullptr (every row is a fit row)
     * \param val_mask n flags or nullptr (no held-out row)
     * \param history leading samples that are memory only; history <= n
     * Throws std::invalid_argument naming the argument (y, x, history) when they do not
     * fit.
     */
    void add(const std::complex<double>* y,
             size_t n,
             const std::complex<double>* x,
             const uint8_t* fit_mask = nullptr,
             const uint8_t* val_mask = nullptr,
             size_t history = 0);

    /*!
     * \brief Keep a capture for the passes over it that follow, until release().
     * \details add() calls whose y and x lie inside a held capture (the same arrays, at the
     * same offset; fit_kfold()'s passes, its cold blocks included) then read the engine's copy
     * of it: the CUDA engine uploads the capture here, once, or with y_dev and x_dev (device
     * memory of CUDA device `device`, y_dev / y_div being y: dpd_capture::device_view()) copies
     * it on the device, and each pass moves row numbers only. slot: 0 or 1 (fit_kfold() holds
     * a capture and its probe copy). The host arrays must stay valid until release().
     */
    void hold(int slot,
              const std::complex<double>* y,
              const std::complex<double>* x,
              size_t n,
              const std::complex<double>* y_dev = nullptr,
              const std::complex<double>* x_dev = nullptr,
              std::complex<double> y_div = 1,
              int device = -1);
    //! Forget the held captures.
    void release();

    //! Multiply every accumulated sum (and the row counts) by factor, 0 < factor <= 1.
    void forget(double factor);
    //! Drop everything accumulated.
    void reset();
    /*!
     * \brief Join the held-out rows to the fit rows (set 0 += set 1; the held-out set
     * stays), the refit after lambda was chosen on them: the same sums as add()ing those
     * rows again as fit rows, without a second pass over the capture.
     */
    void fold_validation();

    /*!
     * \brief Regularised least squares from the accumulated sums.
     * \details Columns are scaled by D = sqrt(diag(G)) (unit-norm columns, as
     * solve_regularized does), Gn = D^-1 G D^-1 = V diag(e) V^H (one Hermitian
     * eigendecomposition for the whole grid), c = V^H D^-1 b, and with the thin SVD A =
     * Phi D^-1 = U S V^H (so e = s^2 and A^H x = V S U^H x): w = D^-1 V diag(s / (s^2 +
     * lam e_max)) U^H x = D^-1 V diag(1 / (e + lam e_max)) c, exactly solve_regularized's
     * solution. lambda = 0 is the truncated pseudo-inverse: eigenvalues below max(1e-13,
     * K eps) e_max are dropped (the Gram cannot resolve smaller ones). Residuals come
     * from the Grams only: ||x - Phi w||^2 = tt - 2 Re(w^H b) + w^H G w. GCV as
     * solve_regularized: n r^2 / (n - dof)^2 with n the (forgotten) fit row count.
     * Throws std::runtime_error when there are no fit rows, when a basis column is all
     * zeros (the message names it), or when the coefficients would not be finite (naming
     * the condition number); std::invalid_argument for bad options (mode validation
     * without held-out rows, negative lambda).
     */
    dpd_gram_solution solve(const dpd_gram_options& options = {}) const;

    /*!
     * \brief The fit of one capture with lambda chosen by K-fold cross-validation over
     * contiguous blocks (the estimator's default when no lambda is given).
     *
     * \details The capture is cut into kfold_blocks contiguous blocks. Fold f fits every
     * usable row except block f and the rows whose basis window (memory or look-ahead) reads a
     * sample of it, so the block is data the fit never saw. The block is scored *cold*: its
     * basis run from a zero state, as the start of a new capture or a signal onset is. A
     * held-out block that continued the capture's state could not see how the model answers
     * inputs the capture never held, and on a band-limited capture the barely regularised fit
     * (huge coefficients that cancel along the capture's correlated memory taps) scores best
     * there and explodes on the first samples of the next signal: on OpenDPD's APA_200MHz it
     * read -33 dB on the rows that continued the capture and +35 dB on the test split.
     *
     * lambda is the smallest grid value whose cold score is within kfold_tie_db of the best.
     * The cold score of a memory model carries the start-up error of its first rows whatever
     * lambda is, which a noiseless capture's exact model cannot reduce but regularisation can
     * trade for bias; among values the held-out data cannot tell apart, the least regularised
     * is the least biased. The refit on every row is solved at that lambda from the blocks'
     * sums (they add up to the whole capture's: no second pass). validation_nmse_db is the
     * NMSE of the blocks continuing the capture's state, selected_by "kfold".
     *
     * The folds need a fold's fit rows >= the columns and at most kfold_max_columns columns
     * (each fold eigendecomposes its own Gram: about 5 s on 2 cores at 1024 columns, 11.6 s
     * each at 2048); otherwise, or when a fold's Gram is singular, lambda is chosen by GCV on
     * every row (selected_by "gcv").
     *
     * \param y the basis input, n samples; \param x the targets, n values
     * \param rows n flags: the usable rows (basis window inside the capture, no bad sample)
     * \param bad n flags or nullptr: outlier samples (a cold block's rows that read one are
     *        left out)
     * \param probe_y, probe_x nullptr, or the probe copy of the capture (n samples each):
     *        its `rows` join every fit set beside the capture's, never a scored set
     * Resets the accumulated sums first; what they hold afterwards is unspecified.
     */
    dpd_gram_solution fit_kfold(const std::complex<double>* y,
                                const std::complex<double>* x,
                                size_t n,
                                const uint8_t* rows,
                                const uint8_t* bad = nullptr,
                                const std::complex<double>* probe_y = nullptr,
                                const std::complex<double>* probe_x = nullptr);
    //! Five blocks: each fold fits 80 % of the capture.
    static constexpr size_t kfold_blocks = 5;
    //! Cold scores closer than this are not told apart: the folds of one capture differ by
    //! about 0.1 dB (APA_200MHz: 0.09 dB between its five blocks at any lambda of the grid).
    static constexpr double kfold_tie_db = 0.1;
    static constexpr size_t kfold_max_columns = 1024;

    //! Refuses (std::invalid_argument "x: capture too short: ...") a capture with fewer
    //! usable rows than min_samples_per_coefficient per unknown; the estimator's one rule.
    static void
    require_rows(size_t usable, size_t unknowns, double min_samples_per_coefficient);
    //! Refuses (std::runtime_error "y: basis matrix is ill-conditioned ...") a solution whose
    //! condition number is not below max_condition (inf: no limit).
    static void check_condition(double condition, double max_condition);

    //! 10^e for e = -14, -13.5, .., -1 (dpd_solve.REGULARIZATION_GRID).
    static std::vector<double> default_grid();
    //! Models up to this many columns are eigendecomposed on the host on every backend.
    static constexpr size_t host_eigh_columns = 64;

    size_t num_columns() const { return d_K; }
    const dpd_model& model() const { return d_model; }
    bool lo_leakage() const { return d_lo; }
    //! Rows accumulated (scaled by forget()): fit set and held-out set.
    double fit_rows() const { return d_rows[0]; }
    double validation_rows() const { return d_rows[1]; }
    backend active_backend() const { return d_backend; }
    //! Why automatic fell back to the CPU (empty otherwise).
    const std::string& backend_note() const { return d_note; }

    //! The accumulated sums of the fit set (set 0) or held-out set (set 1): G as a full
    //! Hermitian K x K matrix, column-major; b; tt. For tests and diagnostics.
    std::vector<std::complex<double>> gram(int set) const;
    std::vector<std::complex<double>> rhs(int set) const;
    double target_energy(int set) const { return d_tt[check_set(set)]; }

private:
    static int check_set(int set);
    //! What eigendecomposes a normalised Gram (see d_host_eigh).
    const gram_engine& eigh_engine() const;

    dpd_model d_model;
    bool d_lo;
    size_t d_K;
    size_t d_chunk = 1;
    backend d_backend;
    std::string d_note;
    std::unique_ptr<gram_engine> d_engine;
    //! The eigendecomposition of a small Gram on the host (see solve()).
    std::unique_ptr<gram_engine> d_host_eigh;
    double d_tt[2] = { 0, 0 };
    double d_rows[2] = { 0, 0 };
    //! Since the last reset(): add() calls with samples, and rows they offered before the masks
    //! (so that solve() can tell "nothing added" from "the fit mask selected nothing").
    size_t d_adds = 0;
    double d_offered = 0;
    //! The held captures' host arrays (n 0: none).
    struct held {
        const std::complex<double>* y = nullptr;
        const std::complex<double>* x = nullptr;
        size_t n = 0;
    } d_held[2];
};

} // namespace kernel
} // namespace gpuinterp
} // namespace gr

#endif
