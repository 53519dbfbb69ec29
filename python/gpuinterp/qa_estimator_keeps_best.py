#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The loop keeps its best by the quantity the operator watches: the ACLR of the observation. A
capture taken during a PA transient (a few percent more compression for one capture) teaches the
loop a predistorter that is wrong for the PA once it is back; the next capture's observation shows
the ACLR lost, and the loop rolls back to the set with the best observed ACLR (aclr_tolerance_db,
1 dB by default), with the loop-NMSE rollback switched off so that the ACLR alone must catch it.
Checked against the PA output computed here by an independent noiseless PA model on a signal none
of the captures held; and a loop without a transient must never roll back on measurement noise."""

import numpy as np
from gnuradio import gr_unittest

from gnuradio.gpuinterp import dpd, metrics, pa_models

P, Q, Lp, Lq = 7, 0, 4, 1
N, FS, BW, SPACING = 32768, 122.88e6, 18e6, 20e6
TRANSIENT_AT = 6  # the capture taken during the transient
DAMAGE_AT = 6  # the capture taken with a damaged set in use


def pa(u, transient=False):
    y = pa_models.PAModel("ding2004").process(u).astype(np.complex128)
    if transient:  # a few percent more third-order compression (a thermal transient)
        y = y - 0.6 * y * np.abs(y) ** 2
    return y


def pa_aclr(a):
    probe = metrics.ofdm_test_signal(N, fs=FS, rms=0.2, papr_db=8.0, seed=99).astype(np.complex128)
    u = dpd.apply_model(probe, a.coefficients, a.lo_leakage, P, Q, Lp, Lq)
    return metrics.aclr(pa(u), FS, BW, SPACING)["worst"]


def run(captures, band, transient_at=None, damage_at=None):
    """``captures`` loop steps; the PA's transient during capture ``transient_at``; the set in use
    damaged before capture ``damage_at`` (an update that cost ACLR, whatever caused it)."""
    a = dpd.Adaptation(P, Q, Lp, Lq, max_delay=64, rollback_tolerance_db=100.0, aclr_band=band)
    rng = np.random.default_rng(5)
    steps, true_aclr = [], []
    for i in range(1, captures + 1):
        if i == damage_at:
            w = a.coefficients.copy()
            w[1:] *= 1.3  # every nonlinear and memory term 30 % too strong
            a.coefficients = w
        x = metrics.ofdm_test_signal(N, fs=FS, rms=0.2, papr_db=8.0, seed=20 + i).astype(np.complex128)
        u = dpd.apply_model(x, a.coefficients, a.lo_leakage, P, Q, Lp, Lq)
        y = pa(u, transient=i == transient_at)
        y += 10 ** (-50 / 20) * 0.2 * (rng.standard_normal(N) + 1j * rng.standard_normal(N)) / np.sqrt(2)
        steps.append(a.step(u, y))
        true_aclr.append(pa_aclr(a))  # what the coefficients sent after this capture give
    return steps, true_aclr


class qa_estimator_keeps_best(gr_unittest.TestCase):
    def test_rolls_back_a_set_that_costs_aclr(self):
        # The set in use costs ACLR (here made 30 % too strong after the loop converged): the next
        # capture's observation shows it and the loop rolls back to the best set by ACLR.
        steps, true = run(DAMAGE_AT + 2, (FS, BW, SPACING), damage_at=DAMAGE_AT)
        print("damaged set, ACLR rollback:", [s.status for s in steps], [round(a, 2) for a in true])
        best_before = min(true[:DAMAGE_AT - 1])
        s = steps[DAMAGE_AT - 1]
        self.assertEqual(s.status, "rolled back", s.reason)
        self.assertIn("observation ACLR", s.reason)
        self.assertGreater(s.aclr_db, steps[DAMAGE_AT - 2].aclr_db + 1.0)
        self.assertLess(true[DAMAGE_AT - 1], best_before + 0.5)  # the PA back at its best, to 0.5 dB
        # without the band plan (and the loop-NMSE rollback off) the damaged set is kept and updated
        # from: the first update after it has not recovered the ACLR yet
        plain_steps, plain = run(DAMAGE_AT + 2, None, damage_at=DAMAGE_AT)
        self.assertEqual(plain_steps[DAMAGE_AT - 1].status, "updated")
        print("damaged set, no ACLR rollback:", [round(a, 2) for a in plain])

    def test_a_transient_capture_is_not_learned(self):
        # A capture during a PA transient shows a worse ACLR in the observation itself: the loop
        # rolls back instead of learning the transient PA, and the PA stays at its best.
        steps, true = run(TRANSIENT_AT + 2, (FS, BW, SPACING), TRANSIENT_AT)
        print("transient, ACLR rollback:", [s.status for s in steps], [round(a, 2) for a in true])
        best_before = min(true[:TRANSIENT_AT - 1])
        self.assertEqual(steps[TRANSIENT_AT - 1].status, "rolled back", steps[TRANSIENT_AT - 1].reason)
        self.assertTrue(all(a < best_before + 0.5 for a in true[TRANSIENT_AT - 1:]), true)
        # learned from, the transient costs the PA more than 1 dB of ACLR once it is back
        _, plain = run(TRANSIENT_AT + 2, None, TRANSIENT_AT)
        print("transient, no ACLR rollback:", [round(a, 2) for a in plain])
        self.assertGreater(plain[TRANSIENT_AT - 1], best_before + 1.0)

    def test_no_rollback_without_a_transient(self):
        steps, true = run(10, (FS, BW, SPACING))
        st = [s.status for s in steps]
        print("no transient:", st, [round(a, 2) for a in true])
        self.assertNotIn("rolled back", st)
        self.assertTrue(all(np.isfinite(s.aclr_db) for s in steps[1:]))

    def test_bad_parameters(self):
        for kw, name in ((dict(aclr_band=(FS, BW)), "aclr_band"), (dict(aclr_band=(FS, BW, 80e6)), "aclr_band"),
                         (dict(aclr_band=(FS, -BW, SPACING)), "aclr_band"), (dict(aclr_band="lte"), "aclr_band"),
                         (dict(aclr_tolerance_db=0), "aclr_tolerance_db"),
                         (dict(aclr_tolerance_db=float("nan")), "aclr_tolerance_db")):
            with self.subTest(kw=kw):
                with self.assertRaises(ValueError) as cm:
                    dpd.Adaptation(P, Q, Lp, Lq, **kw)
                self.assertTrue(str(cm.exception).startswith(name + ":"), str(cm.exception))


if __name__ == "__main__":
    gr_unittest.run(qa_estimator_keeps_best)
