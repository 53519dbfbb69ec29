#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""QA for the C++ estimator kernel gpuinterp.dpd_gram: the same coefficients, lambda and scores as
dpd_reference.solve_regularized on the explicit numpy basis (well-conditioned problems, 1e-6 relative)."""

import os

import numpy as np
from gnuradio import gr_unittest

from gnuradio import gpuinterp
from gnuradio.gpuinterp import dpd, dpd_reference
from gnuradio.gpuinterp import dpd_model as dm

MODELS = ("ph:P=5,Q=3,Lp=3,Lq=2", "mp:K=4,M=5", "gmp:Ka=3,La=4,Kb=2,Lb=3,Mb=2,Kc=2,Lc=2,Mc=3")


def backends():
    return ["cpu"] + (["cuda"] if gpuinterp.cuda_device_count() > 0 else [])


def problem(model, n, noise, lo, seed):
    rng = np.random.default_rng(seed)
    y = (rng.standard_normal(n) + 1j * rng.standard_normal(n)) * 0.5
    m = dm.parse(model)
    w = (rng.standard_normal(m.num_coefficients) + 1j * rng.standard_normal(m.num_coefficients))
    w /= np.arange(1, w.size + 1)
    x = dm.apply(y, m, w, 0.1 - 0.05j if lo else 0j)
    x = x + noise * (rng.standard_normal(n) + 1j * rng.standard_normal(n))
    return y, x


def explicit(y, model, lo):
    """The rows dpd_gram takes (history 0): every row whose look-ahead lies inside y."""
    m = dm.parse(model)
    phi = dm.basis(y, m)
    if lo:
        phi = np.hstack([phi, np.ones((phi.shape[0], 1), dtype=np.complex128)])
    return phi[:y.size - m.lookahead]


def rel(a, b):
    return np.max(np.abs(a - b)) / np.max(np.abs(b))


class qa_dpd_gram(gr_unittest.TestCase):

    def check_same(self, got, want):
        self.assertLess(rel(got.w, want.w), 1e-6)
        self.assertEqual(got.regularization, want.regularization)
        self.assertEqual(got.selected_by, want.selected_by)
        self.assertAlmostEqual(got.condition / want.condition, 1.0, delta=1e-6)
        self.assertEqual(got.rank, want.rank)
        self.assertAlmostEqual(got.dof, want.dof, delta=1e-6 * want.dof)
        self.assertAlmostEqual(got.fit_nmse_db, want.fit_nmse_db, delta=1e-6)

    def test_001_fixed_and_gcv_match_solve_regularized(self):
        for b in backends():
            for model in MODELS:
                for lo in (False, True):
                    with self.subTest(backend=b, model=model, lo=lo):
                        y, x = problem(model, 3000, 0.05, lo, 1)
                        phi = explicit(y, model, lo)
                        t = x[:phi.shape[0]]
                        g = gpuinterp.dpd_gram(model, lo, backend=b)
                        g.add(y, x)
                        self.assertEqual(g.num_columns(), phi.shape[1])
                        self.assertEqual(g.fit_rows(), phi.shape[0])
                        np.testing.assert_allclose(g.gram(), phi.conj().T @ phi, rtol=0, atol=1e-10 * np.abs(phi).max() ** 2 * phi.shape[0])
                        for reg in (1e-10, 1e-6, 1e-3):
                            self.check_same(g.solve(reg), dpd_reference.solve_regularized(phi, t, reg))
                        self.check_same(g.solve("gcv"), dpd_reference.solve_regularized(phi, t, "gcv"))
                        got = g.solve()  # no held-out rows: GCV, as solve_regularized(None)
                        self.check_same(got, dpd_reference.solve_regularized(phi, t, None))
                        self.assertTrue(np.isnan(got.validation_nmse_db))

    def test_002_validation_matches_solve_regularized(self):
        for b in backends():
            for model in MODELS:
                with self.subTest(backend=b, model=model):
                    # Strong noise on a short capture: lambda lands inside the grid.
                    y, x = problem(model, 700, 0.8, True, 2)
                    phi = explicit(y, model, True)
                    rows = phi.shape[0]
                    fit = np.arange(y.size) < 450
                    val = (np.arange(y.size) >= 450) & (np.arange(y.size) < rows)
                    g = gpuinterp.dpd_gram(model, True, backend=b)
                    g.add(y, x, fit_mask=fit, val_mask=val)
                    want = dpd_reference.solve_regularized(phi[fit[:rows]], x[:rows][fit[:rows]], None,
                                                 phi[val[:rows]], x[:rows][val[:rows]])
                    got = g.solve()
                    self.assertEqual(want.selected_by, "validation")
                    self.check_same(got, want)
                    self.assertAlmostEqual(got.validation_nmse_db, want.validation_nmse_db, delta=1e-6)
                    self.assertGreater(got.regularization, dpd.REGULARIZATION_GRID[0])
                    # A custom grid, and validation forced.
                    grid = [1e-6, 1e-4, 1e-2]
                    want = dpd_reference.solve_regularized(phi[fit[:rows]], x[:rows][fit[:rows]], None,
                                                 phi[val[:rows]], x[:rows][val[:rows]], grid=grid)
                    self.check_same(g.solve("validation", grid=grid), want)

    def test_003_chunks_forgetting_and_history(self):
        model = "gmp:Ka=3,La=3,Kb=1,Lb=2,Mb=2,Kc=1,Lc=2,Mc=2"
        m = dm.parse(model)
        y, x = problem(model, 2000, 0.05, False, 3)
        one = gpuinterp.dpd_gram(model)
        one.add(y, x)
        parts = gpuinterp.dpd_gram(model)
        h, a, cut = m.history, m.lookahead, 1234
        parts.add(y[:cut + a], x[:cut + a])
        parts.add(y[cut - h:], x[cut - h:], history=h)
        self.assertEqual(parts.fit_rows(), one.fit_rows())
        np.testing.assert_allclose(parts.gram(), one.gram(), rtol=1e-12, atol=1e-9)
        np.testing.assert_allclose(parts.solve(1e-8).w, one.solve(1e-8).w, rtol=1e-9)
        parts.forget(0.5)
        self.assertEqual(parts.fit_rows(), one.fit_rows() / 2)
        np.testing.assert_allclose(parts.gram(), one.gram() / 2, rtol=1e-12, atol=1e-9)
        # Scaling every sum leaves the fixed-lambda solution alone.
        np.testing.assert_allclose(parts.solve(1e-8).w, one.solve(1e-8).w, rtol=1e-9)

    def test_004_errors(self):
        g = gpuinterp.dpd_gram("mp:K=2,M=2")
        y = np.ones(10, dtype=complex)
        with self.assertRaises(RuntimeError):
            g.solve()  # nothing accumulated
        with self.assertRaises(ValueError):
            g.add(y, y[:5])
        with self.assertRaises(ValueError):
            g.add(y, y, fit_mask=np.ones(3, bool))
        with self.assertRaises(ValueError):
            g.add(y, y, history=11)
        with self.assertRaises(ValueError):
            g.forget(0)
        g.add(np.exp(1j * np.arange(10.0)), y)
        with self.assertRaises(ValueError):
            g.solve("lasso")
        with self.assertRaises(ValueError):
            g.solve("validation")  # no held-out rows
        with self.assertRaises(ValueError):
            gpuinterp.dpd_gram("mp:K=0,M=2")
        with self.assertRaises(ValueError):
            gpuinterp.dpd_gram("mp:K=2,M=2", backend="tpu")
        self.assertEqual(len(gpuinterp.dpd_gram.default_grid), len(dpd.REGULARIZATION_GRID))
        np.testing.assert_allclose(gpuinterp.dpd_gram.default_grid, dpd.REGULARIZATION_GRID, rtol=1e-15)

    def test_005_large_cpu_solve_refused_up_front(self):
        # A solve of 2048 columns or more on the CPU is estimated from a 1024-column
        # eigendecomposition timed once per process and refused before it starts when the estimate
        # passes GPUINTERP_MAX_SOLVE_SECONDS (default 60 s; a 4096-column solve took 131 s on 2 cores).
        # The limit is set far below any machine's time here, so the refusal does not depend on
        # the machine; a smaller model is never checked.
        y = np.exp(0.3j * np.arange(400.0)) * (0.5 + 0.1 * np.cos(np.arange(400.0)))
        old = os.environ.get("GPUINTERP_MAX_SOLVE_SECONDS")
        try:
            os.environ["GPUINTERP_MAX_SOLVE_SECONDS"] = "0.001"
            g = gpuinterp.dpd_gram("mp:K=8,M=256", backend="cpu")
            self.assertEqual(g.num_columns(), 2048)
            g.add(y, y)
            with self.assertRaises(RuntimeError) as cm:
                g.solve(1e-6)
            msg = str(cm.exception)
            self.assertTrue(msg.startswith("model: mp:K=8,M=256 has 2048 columns"), msg)
            for part in ("would take about", "GPUINTERP_MAX_SOLVE_SECONDS", "fewer coefficients"):
                self.assertIn(part, msg)
            small = gpuinterp.dpd_gram("mp:K=4,M=5", backend="cpu")
            small.add(y, y)
            self.assertTrue(np.all(np.isfinite(small.solve(1e-6).w)))
            for bad in ("-1", "0", "nan", "soon"):
                with self.subTest(limit=bad):
                    os.environ["GPUINTERP_MAX_SOLVE_SECONDS"] = bad
                    with self.assertRaises(ValueError) as cm:
                        g.solve(1e-6)
                    self.assertTrue(str(cm.exception).startswith("GPUINTERP_MAX_SOLVE_SECONDS:"), str(cm.exception))
        finally:
            if old is None:
                os.environ.pop("GPUINTERP_MAX_SOLVE_SECONDS", None)
            else:
                os.environ["GPUINTERP_MAX_SOLVE_SECONDS"] = old

    def test_006_one_solution_type(self):
        # The engine's solution is the class the numpy references fill: one set of fields.
        y, x = problem("mp:K=2,M=2", 500, 0.05, False, 3)
        g = gpuinterp.dpd_gram("mp:K=2,M=2", False, "cpu")
        g.add(y, x)
        got = g.solve(1e-8)
        self.assertIsInstance(got, dpd.Solution)
        want = dpd_reference.solve_regularized(explicit(y, "mp:K=2,M=2", False), x, 1e-8)
        self.assertIsInstance(want, dpd.Solution)
        self.check_same(got, want)
        s = dpd.Solution([1, 2j], 1e-3, 2.0, 2, 1.5, -40.0, "fixed")
        self.assertTrue(np.isnan(s.validation_nmse_db))
        np.testing.assert_array_equal(s.w, np.array([1, 2j]))
        s.w = [3j]
        np.testing.assert_array_equal(s.w, np.array([3j]))
        with self.assertRaisesRegex(ValueError, "^w:"):
            dpd.Solution("abc", 1e-3, 2.0, 2, 1.5, -40.0, "fixed")

    def test_007_kfold_matches_the_numpy_folds(self):
        # The default lambda (K-fold over contiguous blocks, each scored cold) in one engine call,
        # against the same rule on the explicit numpy basis (dpd_reference.fit): models with memory
        # and look-ahead (the cold blocks' head and tail rows), outliers (rows that read one leave
        # the fit and the cold blocks), the probe copy. The same lambda; the coefficients to the
        # normal equations' rounding on a well-conditioned problem (1e-6, as check_same).
        from gnuradio.gpuinterp.dpd_estimate import _probe_inputs, _rows
        for b in backends():
            for model in MODELS:
                for perturbation in (0.0, 0.01):
                    with self.subTest(backend=b, model=model, perturbation=perturbation):
                        y, x = problem(model, 6000, 1e-3, True, 11)
                        bad = np.zeros(y.size, dtype=bool)
                        bad[[700, 2500, 2501, 4100]] = True
                        m = dm.parse(model)
                        ok = _rows(m, y.size, bad)
                        probes = _probe_inputs(y, x, ok, perturbation) if perturbation else (None, None)
                        g = gpuinterp.dpd_gram(model, True, b)
                        got = g.fit_kfold(y, x, ok, bad, *probes)
                        want, _ = dpd_reference.fit(x, y, m, ok, None, True, 10, bad, None, perturbation)
                        self.assertEqual(got.selected_by, "kfold")
                        self.assertEqual(got.regularization, want.regularization)
                        self.assertLess(rel(got.w, want.w), 1e-6)
                        self.assertAlmostEqual(got.validation_nmse_db, want.validation_nmse_db, delta=1e-6)
        # A model the folds cannot fit (a fold would fit fewer rows than columns): GCV on every row.
        y, x = problem("mp:K=4,M=5", 24, 1e-3, False, 5)
        got = gpuinterp.dpd_gram("mp:K=4,M=5", False, "cpu").fit_kfold(y, x, np.ones(y.size, dtype=bool))
        self.assertEqual(got.selected_by, "gcv")
        with self.assertRaisesRegex(ValueError, "^rows:"):
            gpuinterp.dpd_gram("mp:K=4,M=5", False, "cpu").fit_kfold(y, x, np.ones(3, dtype=bool))


if __name__ == "__main__":
    gr_unittest.run(qa_dpd_gram)
