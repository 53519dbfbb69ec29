#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""QA for gpuinterp.dpd: model/basis against a naive evaluation of the equation, streaming, the
estimation (recovery of known coefficients), time alignment, the adaptation (damping, rollback,
refusals), bad inputs and coefficient files."""

import json
import os
import tempfile

import numpy as np
from gnuradio import gr_unittest

from gnuradio.gpuinterp import dpd, dpd_model, dpd_reference, metrics, pa_models
from gnuradio.gpuinterp.reference import seeded_case


def naive_model(x, w, c, P, Q, Lp, Lq):
    """The predistorter equation evaluated term by term (double precision), zero initial state."""
    x = np.asarray(x, dtype=np.complex128)
    out = np.full(x.size, complex(c))
    i = 0
    for p in range(1, P + 1, 2):
        for k in range(Lp):
            for n in range(k, x.size):
                v = x[n - k]
                out[n] += w[i] * v * abs(v) ** (p - 1)
            i += 1
    if Q > 0:
        for q in range(1, Q + 1, 2):
            for k in range(Lq):
                for n in range(k, x.size):
                    v = x[n - k]
                    out[n] += w[i] * np.conj(v * abs(v) ** (q - 1))
                i += 1
    assert i == len(w)
    return out


def bandlimited(n, rng, bw=0.3, rms=0.3):
    """Complex Gaussian noise low-passed (circularly, in the FFT domain) to +-bw/2 of the sample rate."""
    s = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    S = np.fft.fft(s)
    S[np.abs(np.fft.fftfreq(n)) > bw / 2] = 0
    s = np.fft.ifft(S)
    return s * rms / np.sqrt(np.mean(np.abs(s) ** 2))


class qa_dpd(seeded_case, gr_unittest.TestCase):
    seed = 1234

    def oversampled(self, n, ov, band):
        """n * ov samples of complex noise with no energy beyond +-band of the rate 1/ov (cut in the
        FFT domain): every ov-th sample from any phase is a band-limited signal of n samples."""
        m = n * ov
        S = np.fft.fft(self.rand_c(m))
        S[np.abs(np.fft.fftfreq(m) * ov) > band] = 0
        return np.fft.ifft(S)

    # --- structure ---------------------------------------------------------------------------
    def test_num_coefficients_and_layout(self):
        self.assertEqual(dpd.num_coefficients(3, 1, 2, 1), 5)
        self.assertEqual(dpd.num_coefficients(5, 0, 3, 7), 9)
        self.assertEqual(dpd.num_coefficients(7, 3, 4, 2), 4 * 4 + 2 * 2)
        self.assertEqual(dpd.branch_layout(3, 1, 2, 1),
                         [(1, False, 0), (1, False, 1), (3, False, 0), (3, False, 1), (1, True, 0)])

    def test_bad_structure(self):
        for args, name in (((4, 0, 2, 1), "P"), ((0, 0, 2, 1), "P"), ((3, 2, 2, 1), "Q"),
                           ((3, -1, 2, 1), "Q"), ((3, 1, 0, 1), "Lp"), ((3, 1, 2, 0), "Lq")):
            with self.assertRaises(ValueError) as cm:
                dpd.num_coefficients(*args)
            self.assertTrue(str(cm.exception).startswith(name + ":"), str(cm.exception))

    def test_model_matches_naive_equation(self):
        for P, Q, Lp, Lq in ((1, 0, 1, 1), (3, 1, 2, 1), (5, 3, 3, 2), (7, 0, 4, 1), (9, 5, 2, 5)):
            x = self.rand_c(300, 0.5)
            w = self.rand_c(dpd.num_coefficients(P, Q, Lp, Lq))
            c = complex(*self.rng.standard_normal(2))
            got = dpd.apply_model(x, w, c, P, Q, Lp, Lq)
            ref = naive_model(x, w, c, P, Q, Lp, Lq)
            np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12 * np.max(np.abs(ref)))

    def test_streaming_chunks_equal_one_call(self):
        P, Q, Lp, Lq = 5, 3, 4, 3
        x = self.rand_c(2000, 0.4)
        w = self.rand_c(dpd.num_coefficients(P, Q, Lp, Lq), 0.3)
        ref = naive_model(x, w, 0.1j, P, Q, Lp, Lq)
        eng = dpd_model.StreamingModel(f"ph:P={P},Q={Q},Lp={Lp},Lq={Lq}", w, 0.1j)
        out, i = [], 0
        for n in list(self.rng.integers(0, 200, 30)) + [x.size]:
            out.append(eng.process(x[i:i + n]))  # includes empty chunks
            i += n
            if i >= x.size:
                break
        got = np.concatenate(out)
        self.assertEqual(got.size, x.size)
        np.testing.assert_allclose(got, ref, atol=1e-5 * np.max(np.abs(ref)))
        self.assertEqual(eng.process(np.zeros(0)).size, 0)

    def test_make_engine_equals_model(self):
        # On builds with the C++ predistorter kernel this compares it with the numpy model.
        P, Q, Lp, Lq = 5, 1, 3, 2
        x = self.rand_c(5000, 0.4).astype(np.complex64)
        w = self.rand_c(dpd.num_coefficients(P, Q, Lp, Lq), 0.3)
        eng = dpd.make_engine(P, Q, Lp, Lq, w, 0.05 - 0.02j)
        got = np.concatenate([eng.process(x[:1234]), eng.process(x[1234:])])
        ref = naive_model(x, w, 0.05 - 0.02j, P, Q, Lp, Lq)
        np.testing.assert_allclose(got, ref, atol=2e-5 * np.max(np.abs(ref)))

    def test_default_lambda_recovers_an_exact_post_inverse(self):
        # A noise-free capture whose post-inverse is exactly a (5, 3, 4, 4) predistorter: with the
        # default choice (K-fold over contiguous blocks scored from a zero state: the start-up error
        # of the blocks' first rows is the same whatever lambda, so the least regularised of the tied
        # values wins) the coefficients come back to rounding, and the held-out NMSE of the blocks
        # continuing the capture shows only rounding.
        rng = np.random.default_rng(7)
        y = metrics.ofdm_test_signal(32768, rms=0.25, papr_db=9.0, seed=4).astype(np.complex128)
        spec = "ph:P=5,Q=3,Lp=4,Lq=4"
        K = dpd_model.parse(spec).num_coefficients
        w = 0.05 * (rng.standard_normal(K) + 1j * rng.standard_normal(K))
        w[0] += 1
        c = 0.01 - 0.02j
        x = naive_model(y, w, c, 5, 3, 4, 4)
        r = dpd.estimate(x, y, model=spec, target_gain=1.0, delay=0.0)
        self.assertEqual(r.regularization_selected_by, "kfold")
        # The held-out score of an exact model is rounding only, so the choice falls among the grid's
        # smallest lambdas, and which one depends on the BLAS kernel's rounding (1e-14 on Haswell and
        # Prescott, 1e-11 on Sandybridge). A lambda above 1e-9 would bias the coefficients by about
        # lambda kappa^2 ~ 1e-3, which the held-out rows would show.
        self.assertLessEqual(r.regularization, 1e-9)
        # The coefficients are then exact to the ridge's bias (lambda relative to the largest
        # eigenvalue, amplified by the Gram's condition kappa^2) plus the normal equations' rounding
        # (kappa^2 n u, u = 2^-53; as in test_estimate_noiseless_is_exact).
        u, n = 2.0 ** -53, y.size
        bound = r.regularization * r.condition ** 2 + r.condition ** 2 * n * u
        self.assertLess(np.max(np.abs(r.coefficients - w)) / np.max(np.abs(w)), bound, (r.regularization, r.condition))
        self.assertLess(abs(r.lo_leakage - c), bound * np.max(np.abs(w)))
        # The held-out NMSE comes from the Gram identity: exact only to about 4 n u (n its rows).
        self.assertLess(r.validation_nmse_db, 10 * np.log10(4 * (n // 5) * u))

    def test_wrong_coefficient_length(self):
        with self.assertRaises(ValueError) as cm:
            dpd.apply_model(self.rand_c(10), [1, 2, 3], 0, 3, 0, 2, 1)
        self.assertIn("expected 4", str(cm.exception))
        with self.assertRaises(ValueError) as cm:
            dpd_model.StreamingModel("ph:P=3,Q=0,Lp=2,Lq=1", [1, np.nan, 0, 0])
        self.assertTrue(str(cm.exception).startswith("coefficients:"))

    # --- estimation ----------------------------------------------------------------------------
    def _known_model_capture(self, P, Q, Lp, Lq, n, noise_db, G):
        """y: a band-limited 'PA output'; x = f_true(y/G) + noise (what the predistorter must produce)."""
        y = bandlimited(n, self.rng, bw=0.4, rms=0.3)
        w = 0.05 * self.rand_c(dpd.num_coefficients(P, Q, Lp, Lq))
        w[0] = 1.0 + 0.1j
        c = 0.01 - 0.02j
        x = dpd.apply_model(y / G, w, c, P, Q, Lp, Lq)
        e = self.rand_c(n)
        x_noisy = x + e * np.linalg.norm(x) / np.linalg.norm(e) * 10 ** (noise_db / 20)
        return x_noisy, y, w, c

    def test_estimate_recovers_known_coefficients(self):
        G = 0.8 * np.exp(0.3j)
        for P, Q, Lp, Lq in ((5, 0, 3, 1), (7, 3, 4, 2)):
            x, y, w, c = self._known_model_capture(P, Q, Lp, Lq, 40000, -50.0, G)
            # The delay is given: a model with memory has no unique "delay" (a fractional shift trades
            # against the memory taps); alignment has tests of its own.
            r = dpd.estimate(x, y, P, Q, Lp, Lq, target_gain=G, delay=0.0)
            # Noise at -50 dB: the fit leaves exactly the noise; the coefficients come back to ~1e-3
            # of their norm (noise / sqrt(N / K) amplified by the basis conditioning; measured 0.7e-3
            # and 1.6e-3 for these two structures).
            self.assertAlmostEqual(r.fit_nmse_db, -50.0, delta=0.3)
            err = np.linalg.norm(r.coefficients - w) / np.linalg.norm(w)
            self.assertLess(err, 5e-3, (P, Q, Lp, Lq, err))
            self.assertAlmostEqual(r.lo_leakage, c, delta=5e-5)
            self.assertTrue(np.all(np.isfinite(r.coefficients)))
            # The recovered model reproduces the noiseless x to the noise level.
            z = dpd.apply_model(y / G, r.coefficients, r.lo_leakage, P, Q, Lp, Lq)
            self.assertLess(metrics.nmse_db(dpd.apply_model(y / G, w, c, P, Q, Lp, Lq), z), -55)

    def test_estimate_noiseless_is_exact(self):
        G = 1.1 - 0.2j
        n = 8000
        x, y, w, c = self._known_model_capture(5, 1, 3, 2, n, -300.0, G)
        r = dpd.estimate(x, y, 5, 1, 3, 2, target_gain=G, delay=0.0, regularization=0.0)
        # What bounds an exact model's result is double rounding, not the data, and the bounds must
        # hold for whichever BLAS kernel sums the Gram (OpenBLAS picks one per CPU, each summing in
        # another order). With u = 2^-53, each Gram entry (a sum of n products) is off by at most
        # gamma_n = n u relative, and the normal equations amplify that by the Gram's condition
        # number, the basis's squared: the coefficients are exact to kappa^2 n u.
        u = 2.0 ** -53
        bound = r.condition ** 2 * n * u
        err = np.linalg.norm(r.coefficients - w) / np.linalg.norm(w)
        self.assertLess(err, bound, (err, r.condition))
        self.assertLess(abs(r.lo_leakage - c), bound)
        # The model they give reproduces x to the same precision, computed directly (an independent
        # double-precision evaluation of the model, not the estimator's own figure).
        z = dpd.apply_model(y / G, r.coefficients, r.lo_leakage, 5, 1, 3, 2)
        self.assertLess(metrics.nmse_db(x, z), 20 * np.log10(bound))
        # The estimator's fit NMSE comes from the Gram identity |x|^2 - 2 Re w'b + w'Gw, whose three
        # terms cancel to the residual: rounding leaves it exact only to about 4 gamma_n of |x|^2
        # (-114.5 dB at n = 8000; it reads -145 to -153 dB on some OpenBLAS kernels, the clamp's -300 on others).
        self.assertLess(r.fit_nmse_db, 10 * np.log10(4 * n * u))

    def test_estimate_equals_lstsq(self):
        # Unregularised, the estimate is the least-squares solution: compare with LAPACK's gelsd on the
        # unscaled basis (plus the constant column), for a well-conditioned basis (Gram route) and a
        # badly conditioned one (P = 15, the highest order the engines take).
        # The numpy path (SVD of the basis) to 1e-10; the estimation engine (the Gram squares the
        # condition number, ~2e8 for the second basis) to 1e-6, as the estimator promises.
        for P, Lp, scale in ((5, 3, 0.3), (15, 2, 0.3)):
            y = self.rand_c(20000, scale)
            x = y + 0.05 * y * np.abs(y) ** 2 + 0.01 * self.rand_c(20000)
            phi = np.hstack([dpd.basis_matrix(y, P, 0, Lp, 1), np.ones((y.size, 1))])[Lp - 1:]
            ref = np.linalg.lstsq(phi, x[Lp - 1:], rcond=None)[0]
            for backend in (None, "cpu"):
                r = dpd.estimate(x, y, P, 0, Lp, 1, delay=0.0, target_gain=1.0, regularization=0.0, backend=backend)
                got = np.append(r.coefficients, r.lo_leakage)
                tol = 1e-6 if backend or r.condition >= 1e5 else 1e-10
                self.assertLess(np.linalg.norm(got - ref) / np.linalg.norm(ref), tol, (P, r.condition, backend))
        self.assertGreater(r.condition, 1e4)  # the second basis is badly conditioned

    def test_estimate_with_delay_and_measured_gain(self):
        # y lags x by 23 samples and carries a gain; the fitted inverse maps y/G back to x.
        u = bandlimited(30000, self.rng, bw=0.3, rms=0.22)
        pa = pa_models.PAModel("ding2004")
        y = np.concatenate([np.zeros(23), pa.process(u)[:-23]]) * (0.5 + 0.5j)
        r = dpd.estimate(u, y, 7, 0, 4, 1)
        self.assertAlmostEqual(r.delay, 23.0, delta=0.05)
        self.assertLess(r.fit_nmse_db, -45)
        self.assertGreater(r.raw_nmse_db, -40)  # the PA is visibly nonlinear at this drive

    # --- alignment -----------------------------------------------------------------------------
    def test_integer_delay(self):
        s = bandlimited(20000, self.rng, bw=0.5)
        for d in (0, 1, 17, 300, -5, -42):
            x = s[1000:1000 + 16000]
            y = 0.7j * s[1000 - d:1000 - d + 16000]
            self.assertEqual(dpd_reference.estimate_delay(x, y, fractional=False), float(d))
            self.assertAlmostEqual(dpd_reference.estimate_delay(x, y), float(d), delta=2e-3)

    def test_fractional_delay(self):
        # Phases of one oversampled band-limited signal differ by exact fractions of a sample.
        ov = 8
        s = self.oversampled(20000, ov, 0.25)
        for d_int, ph in ((0, 3), (12, 1), (-7, 5), (4, 4)):
            x = s[ov * 1000:ov * 17000:ov]
            start = ov * (1000 - d_int) - ph
            y = (0.9 - 0.3j) * s[start:start + ov * 16000:ov]
            want = d_int + ph / ov
            got = dpd_reference.estimate_delay(x, y)
            self.assertAlmostEqual(got, want, delta=1e-3, msg=f"delay {want}: got {got}")  # measured <1e-4
            xa, ya, d = dpd_reference.align(x, y)
            self.assertLess(metrics.nmse_db(xa, ya, normalise_gain=True), -50)
            # Without the fractional part the same capture aligns far worse.
            xa, ya, _ = dpd_reference.align(x, y, fractional=False)
            if ph:
                self.assertGreater(metrics.nmse_db(xa, ya, normalise_gain=True), -30)

    def test_fractional_shift_known(self):
        ov = 4
        s = self.oversampled(8000, ov, 0.3)
        y = s[::ov]
        ys, first = dpd_reference.fractional_shift(y, 2.25)
        ref = s[(first + 2) * ov + 1:(first + 2) * ov + 1 + ys.size * ov:ov]
        self.assertEqual(ref.size, ys.size)
        self.assertLess(metrics.nmse_db(ref[100:-100], ys[100:-100]), -75)

    def test_max_delay_bound(self):
        s = bandlimited(4000, self.rng)
        with self.assertRaises(ValueError) as cm:
            dpd_reference.estimate_delay(s, s, max_delay=4000)
        self.assertTrue(str(cm.exception).startswith("max_delay:"))

    # --- bad inputs ---------------------------------------------------------------------------
    def test_bad_inputs(self):
        x = bandlimited(5000, self.rng)
        y = 0.9 * x
        cases = [
            (lambda: dpd.estimate(x, y[:-1], 5, 0, 3, 1), "x, y: lengths differ"),
            (lambda: dpd.estimate(x, np.zeros_like(y), 5, 0, 3, 1), "y: all zeros"),
            (lambda: dpd.estimate(np.zeros_like(x), y, 5, 0, 3, 1), "x: all zeros"),
            (lambda: dpd.estimate(x[:60], y[:60], 5, 0, 3, 1), "x: capture too short"),
            (lambda: dpd.estimate(x, np.where(np.arange(x.size) == 7, np.nan, y), 5, 0, 3, 1), "y: contains NaN"),
            (lambda: dpd.estimate(x, y, 4, 0, 3, 1), "P:"),
            (lambda: dpd.estimate(x, y, 5, 0, 3, 1, regularization=-1), "regularization:"),
            (lambda: dpd.estimate([], [], 5, 0, 3, 1), "x: empty"),
        ]
        for f, prefix in cases:
            with self.assertRaises(ValueError) as cm:
                f()
            self.assertTrue(str(cm.exception).startswith(prefix), str(cm.exception))

    def test_singular_basis(self):
        # Constant envelope: |y| is constant, so psi_3(y) = |y|^2 y is a multiple of psi_1(y). The
        # regularised solve still returns finite coefficients that explain the capture, and reports
        # the rank it could use (2 of the 4 basis columns + the constant are independent: 3).
        n = 4000
        phase = np.cumsum(self.rng.standard_normal(n) * 0.3)
        y = 0.5 * np.exp(1j * phase)
        r = dpd.estimate(y, y, 3, 0, 2, 1, delay=0.0)
        self.assertTrue(np.all(np.isfinite(r.coefficients)))
        self.assertLess(r.fit_nmse_db, -60)
        self.assertEqual(r.rank, 3)
        # The dependent column's eigenvalue is the Gram's rounding, at most about 4 n u of the largest
        # (u = 2^-53), so the condition (the square root of the eigenvalue ratio) is at least
        # 1 / sqrt(4 n u), 7.5e5 here; it reads 2.7e8 on OpenBLAS's Nehalem kernel, above 1e12 on others.
        self.assertGreater(r.condition, 1 / np.sqrt(4 * n * 2.0 ** -53))

    def test_ill_conditioned_limit(self):
        x = bandlimited(20000, self.rng, rms=0.3)
        r = dpd.estimate(x, x, 9, 0, 2, 1, delay=0.0)
        with self.assertRaises(ValueError) as cm:
            dpd.estimate(x, x, 9, 0, 2, 1, delay=0.0, max_condition=r.condition / 2)
        self.assertIn("ill-conditioned", str(cm.exception))

    # --- adaptation ------------------------------------------------------------------------------
    def _loop(self, ad, u, pa_backoff=0.0):
        pred = dpd_model.StreamingModel(ad.model, ad.coefficients, ad.lo_leakage)
        x = pred.process(u).astype(np.complex128)
        y = pa_models.PAModel("ding2004", backoff_db=pa_backoff).process(x).astype(np.complex128)
        return x, y

    def test_adaptation_converges(self):
        u = metrics.ofdm_test_signal(24576, rms=0.2, papr_db=8.0, seed=3)
        ad = dpd.Adaptation(5, 0, 3, 1, damping=1.0)
        nm = []
        x, y = self._loop(ad, u)
        self.assertEqual(ad.step(x, y).status, "calibrating")  # |G| measured, confirmed next
        for _ in range(3):
            x, y = self._loop(ad, u)
            r = ad.step(x, y)
            self.assertEqual(r.status, "updated")
            nm.append(metrics.nmse_db(u, y / ad.last_gain))
        x, y = self._loop(ad, u)
        nm.append(metrics.nmse_db(u, y / ad.last_gain))
        self.assertGreater(nm[0], -36)
        self.assertLess(nm[-1], nm[0] - 10, nm)

    def test_damping(self):
        u = metrics.ofdm_test_signal(16384, rms=0.2, papr_db=8.0, seed=4)
        full = dpd.Adaptation(5, 0, 3, 1, damping=1.0)
        half = dpd.Adaptation(5, 0, 3, 1, damping=0.5)
        x, y = self._loop(full, u)
        self.assertEqual(full.step(x, y).status, "calibrating")
        self.assertEqual(half.step(x, y).status, "calibrating")
        r1 = full.step(x, y)
        r2 = half.step(x, y)
        self.assertEqual((r1.status, r2.status), ("updated", "updated"))
        ident = dpd.identity_coefficients(5, 0, 3, 1)
        np.testing.assert_allclose(r2.coefficients, ident + 0.5 * (r1.coefficients - ident), atol=1e-12)

    def test_rollback(self):
        u = metrics.ofdm_test_signal(16384, rms=0.2, papr_db=8.0, seed=5)
        ad = dpd.Adaptation(5, 0, 3, 1, damping=1.0)
        x, y = self._loop(ad, u)
        ad.step(x, y)
        x, y = self._loop(ad, u)
        good = ad.coefficients.copy()
        r = ad.step(x, y)
        self.assertEqual(r.status, "updated")
        best_before = ad.best_loop_nmse_db
        # Spoil the coefficients as a bad update would; the next capture shows it and rolls back.
        spoilt = ad.coefficients.copy()
        spoilt[3] *= -3
        ad.coefficients = spoilt
        x, y = self._loop(ad, u)
        r = ad.step(x, y)
        self.assertEqual(r.status, "rolled back")
        self.assertGreater(r.loop_nmse_db, best_before + 0.5)
        # Back to the best set that was measured: the one in use during the second capture (the update
        # made from it was spoilt before it was ever measured).
        np.testing.assert_array_equal(r.coefficients, good)
        np.testing.assert_array_equal(ad.coefficients, good)
        self.assertEqual(ad.damping, 0.5)

    def test_refusals_keep_coefficients(self):
        u = metrics.ofdm_test_signal(16384, rms=0.2, papr_db=8.0, seed=6)
        ad = dpd.Adaptation(5, 0, 3, 1)
        before = ad.coefficients.copy()
        r = ad.step(u, np.zeros_like(u))
        self.assertEqual(r.status, "refused")
        self.assertTrue(r.reason.startswith("y: all zeros"))
        np.testing.assert_array_equal(ad.coefficients, before)
        r = ad.step(u[:50], u[:50])
        self.assertEqual(r.status, "refused")
        self.assertIn("too short", r.reason)
        # A gain limit the estimate cannot meet: the PA seen through a 20 dB pad wants +20 dB.
        ad2 = dpd.Adaptation(5, 0, 3, 1, target_gain=0.1, max_gain_db=6.0)
        x, y = self._loop(ad2, u)
        r = ad2.step(x, y * 0.01)
        self.assertEqual(r.status, "refused")
        self.assertTrue(r.reason.startswith("coefficients: predistorter gain"), r.reason)
        np.testing.assert_array_equal(ad2.coefficients, dpd.identity_coefficients(5, 0, 3, 1))

    # --- files ---------------------------------------------------------------------------------
    def test_coefficient_files_round_trip(self):
        P, Q, Lp, Lq = 5, 3, 2, 3
        w = self.rand_c(dpd.num_coefficients(P, Q, Lp, Lq))
        with tempfile.TemporaryDirectory() as d:
            for name in ("c.json", "c.csv"):
                path = os.path.join(d, name)
                dpd.save_coefficients(path, w, 0.25 - 0.5j, P, Q, Lp, Lq, nmse_db=-40.0)
                back = dpd.load_coefficients(path)
                self.assertEqual((back["P"], back["Q"], back["Lp"], back["Lq"]), (P, Q, Lp, Lq))
                np.testing.assert_array_equal(back["coefficients"], w)
                self.assertEqual(back["lo_leakage"], 0.25 - 0.5j)
            with open(os.path.join(d, "c.csv")) as f:
                rows = [ln for ln in f if ln[0].isdigit()]
            self.assertEqual(rows[2].split(",")[1:4], ["h", "3", "0"])
            self.assertEqual(rows[6].split(",")[1:4], ["g", "1", "0"])
            self.assertEqual(len(rows), w.size)
            # The one format is the model file: any family, readable by dpd_model.load_model
            # (the PA model, the estimator's coefficients_file) with the metadata kept apart.
            with open(os.path.join(d, "c.json")) as f:
                doc = json.load(f)
            self.assertEqual((doc["kind"], doc["model"], doc["metadata"]), ("predistorter", f"ph:P={P},Q={Q},Lp={Lp},Lq={Lq}",
                                                                           {"nmse_db": -40.0}))
            np.testing.assert_array_equal(dpd_model.load_model(os.path.join(d, "c.json")).coefficients, w)
            wm = self.rand_c(dpd_model.parse("mp:K=4,M=3").num_coefficients)
            path = os.path.join(d, "mp.json")
            dpd.save_coefficients(path, wm, 0.1j, model="mp:K=4,M=3")
            back = dpd.load_coefficients(path)
            self.assertEqual(back["model"], "mp:K=4,M=3")
            np.testing.assert_array_equal(back["coefficients"], wm)
            # The parallel-Hammerstein JSON of earlier versions is still read
            old = os.path.join(d, "old.json")
            with open(old, "w") as f:
                json.dump({"model": "z[n] = ...", "layout": "...", "P": P, "Q": Q, "Lp": Lp, "Lq": Lq,
                           "coefficients": [[v.real, v.imag] for v in w], "lo_leakage": [0.25, -0.5]}, f)
            back = dpd.load_coefficients(old)
            self.assertEqual(back["model"], f"ph:P={P},Q={Q},Lp={Lp},Lq={Lq}")
            np.testing.assert_allclose(back["coefficients"], w, atol=0)
            self.assertEqual(back["lo_leakage"], 0.25 - 0.5j)


if __name__ == "__main__":
    gr_unittest.run(qa_dpd)
