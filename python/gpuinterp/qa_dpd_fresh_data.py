#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The default lambda generalises to data the fit never saw: forward fits on the measured APA slice
(tests/data) scored on its test split from a zero state against plain ridge at every fixed lambda of
the grid (an oracle that picks its lambda on the test split itself), and a closed loop whose transmit
signal changes every capture, as a radio's does, against the same loop repeating one signal.
GPUINTERP_APA_200MHZ names a directory with the whole OpenDPD APA_200MHz capture to check the
issue's figure on it too (skipped otherwise: the repository ships the slice only)."""

import os
import unittest

import numpy as np
from gnuradio import gr_unittest

from gnuradio.gpuinterp import dpd, dpd_bench, dpd_reference, metrics, pa_models
from gnuradio.gpuinterp import dpd_model as dm

SRC = os.environ.get("GPUINTERP_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
SLICE = os.path.join(SRC, "tests", "data", "APA_200MHz_slice")
FULL = os.environ.get("GPUINTERP_APA_200MHZ")


def oracle_ridge_db(xtr, ytr, xte, yte, model):
    """The best test NMSE plain column-normalised ridge reaches at any lambda of the grid (numpy SVD
    on the rows whose memory lies inside the capture, scored from a zero state like the fit)."""
    m = dm.parse(model)
    phi = np.hstack([dm.basis(xtr, m), np.ones((xtr.size, 1))])[m.history:]
    best = np.inf
    for lam in dpd.REGULARIZATION_GRID:
        w = dpd_reference.solve_regularized(phi, ytr[m.history:], float(lam)).w
        best = min(best, dpd.nmse_db(yte, dm.apply(xte, m, w[:-1], w[-1])))
    return best


def forward_test_db(data, model, backend="automatic"):
    (xtr, ytr), (xte, yte) = data["train"], data["test"]
    r = dpd.estimate(ytr, xtr, model=model, target_gain=1.0, delay=0, backend=backend)
    return r, dpd.nmse_db(yte, dm.apply(xte, model, r.coefficients, r.lo_leakage))


class qa_dpd_fresh_data(gr_unittest.TestCase):
    def test_forward_fits_on_the_apa_slice(self):
        # (model, the most a default fit may lose to the oracle, dB). The oracle chooses on the very
        # split it is scored on, so the default cannot beat it by more than the grid's step and may
        # lose to it what choosing on the training capture costs: within 1 dB is the issue's
        # "within 1 dB of ridge". The first model is the case (+42 dB on this slice with the
        # hold-out that continued the capture, whose barely regularised fit explodes on the
        # zero-state start of the test split).
        _, data = dpd_bench.load_dataset(SLICE)
        (xtr, ytr), (xte, yte) = data["train"], data["test"]
        for model, loss_db in (("ph:P=9,Q=0,Lp=10,Lq=1", 1.0), ("ph:P=7,Q=0,Lp=4,Lq=1", 1.0)):
            with self.subTest(model=model):
                r, test = forward_test_db(data, model)
                oracle = oracle_ridge_db(xtr, ytr, xte, yte, model)
                print(f"{model}: lambda {r.regularization:.1e} ({r.regularization_selected_by}), test "
                      f"{test:.2f} dB, oracle ridge {oracle:.2f} dB")
                self.assertEqual(r.regularization_selected_by, "kfold")
                self.assertLess(test, oracle + loss_db, (test, oracle))
                self.assertLess(test, -25.0)  # every model here fits the slice's PA to -29..-31 dB

    def test_engine_and_numpy_choose_the_same_lambda(self):
        # One rule fed from two sources of the folds' sums: the estimation engine and the basis
        # built in numpy (with probe rows too, whose copies of a block leave its fold's fit).
        _, data = dpd_bench.load_dataset(SLICE)
        for perturbation in (0.0, 0.01):
            with self.subTest(perturbation=perturbation):
                (xtr, ytr) = data["train"]
                a, b = (dpd.estimate(ytr, xtr, 9, 0, 10, 1, target_gain=1.0, delay=0, perturbation=perturbation,
                                     backend=be) for be in ("cpu", None))
                self.assertEqual(a.regularization, b.regularization)
                self.assertAlmostEqual(a.validation_nmse_db, b.validation_nmse_db, delta=0.01)
                np.testing.assert_allclose(a.coefficients, b.coefficients, rtol=0,
                                           atol=1e-6 * np.max(np.abs(b.coefficients)))

    @unittest.skipUnless(FULL, "GPUINTERP_APA_200MHZ does not name the whole APA_200MHz capture")
    def test_forward_fit_on_the_whole_apa_capture(self):
        # The figure: the default fit of the whole train split within 1 dB of plain ridge's
        # -31.4 dB on the test split (measured -31.30 dB; +35.3 dB before).
        _, data = dpd_bench.load_dataset(FULL)
        _, test = forward_test_db(data, "ph:P=9,Q=0,Lp=10,Lq=1")
        self.assertLessEqual(test, -30.5)

    def test_loop_with_a_new_signal_every_capture(self):
        # A radio transmits new data every capture. The loop (default lambda) must reach what the
        # same loop reaches when every capture repeats one signal (the emulations' case), and the
        # 9th-order, 10-tap predistorter of the APA case must not blow up on the next signal. ACLR
        # of the PA output measured by an independent noiseless PA model on a signal none of the
        # captures held.
        P, Q, Lp, Lq = 9, 0, 10, 1
        n, fs = 16384, 122.88e6
        probe = metrics.ofdm_test_signal(n, rms=0.2, papr_db=8.0, seed=99).astype(np.complex128)

        def loop(fresh):
            a = dpd.Adaptation(P, Q, Lp, Lq, max_delay=64)
            rng = np.random.default_rng(1)
            for i in range(6):
                x = metrics.ofdm_test_signal(n, rms=0.2, papr_db=8.0, seed=10 + i if fresh else 10)
                u = dpd.apply_model(x.astype(np.complex128), a.coefficients, a.lo_leakage, P, Q, Lp, Lq)
                y = pa_models.PAModel("ding2004").process(u).astype(np.complex128)
                y += 10 ** (-45 / 20) * 0.2 * (rng.standard_normal(n) + 1j * rng.standard_normal(n)) / np.sqrt(2)
                s = a.step(u, y)
                self.assertIn(s.status, ("calibrating", "updated"), s.reason)
            u = dpd.apply_model(probe, a.coefficients, a.lo_leakage, P, Q, Lp, Lq)
            return metrics.aclr(pa_models.PAModel("ding2004").process(u), fs, 18e6, 20e6)["worst"]

        none = metrics.aclr(pa_models.PAModel("ding2004").process(probe), fs, 18e6, 20e6)["worst"]
        fresh, same = loop(True), loop(False)
        print(f"ACLR without DPD {none:.2f}, repeated signal {same:.2f}, new signal every capture {fresh:.2f} dBc")
        # 45 dB receiver SNR bounds what one capture can teach: both loops end 10 dB or more below
        # the PA's own ACLR, and a new signal every capture costs at most 1 dB.
        self.assertLess(same, none - 10)
        self.assertLess(fresh, same + 1.0, (fresh, same))


if __name__ == "__main__":
    gr_unittest.run(qa_dpd_fresh_data)
