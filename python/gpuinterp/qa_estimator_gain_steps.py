#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""An operator moves the RX gain or the TX gain (the PA's drive) while the DPD loop runs (the
emulated radio of qa_dpd_radio_loop, its gain set between two captures). Each step: the loop
measures the move on its linear part and re-locks within 2 updates; no capture's coefficients leave
the PA worse than without DPD at the drive it then has; the PA's output power stays within 0.5 dB
(an RX step) or moves by the TX step within 0.5 dB. The references are independent of the
estimator: the step the emulator was given, and the PA output computed here by a noiseless PA model
on the predistorter's output times the drive."""

import math

from gnuradio import gr_unittest

import qa_dpd_radio_loop as radio

# The receiver 7 dB below the radio tests' setting (peaks near -8 dBFS), so a +6 dB step does not
# clip its ADC (clipping has its own refusal and test).
BASE_DB = radio.RX_GAIN_DB - 7.0
STEP_AT = 4  # the gain moves after the 4th capture
CAPTURES = 8


class qa_estimator_gain_steps(gr_unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.no_dpd = radio.pa_aclr(radio.signal())

    def run_step(self, step_db):
        def hook(lp, n):
            if n == STEP_AT:
                lp.emu.set_rx_gain_db(BASE_DB + step_db)
        loop = radio.Loop(CAPTURES, emu=dict(rx_gain_db=BASE_DB), between=hook).run()
        # The PA as each capture's coefficients left it (the 65536 samples before the next capture).
        after = [radio.pa_aclr(loop.x[radio.PERIOD * k - 65536:radio.PERIOD * k]) for k in range(1, CAPTURES)]
        return loop, after

    def test_rx_gain_steps(self):
        for step_db in (3.0, -3.0, 6.0, 1.0, -1.0):
            with self.subTest(step_db=step_db):
                loop, after = self.run_step(step_db)
                st = loop.statuses()
                reasons = [r.reason for r in loop.history]
                before_aclr, before_p = after[STEP_AT - 1]
                end_aclr, end_p = after[-1]
                print(f"RX gain {step_db:+.0f} dB: {st}; ACLR {before_aclr:.2f} -> {end_aclr:.2f} dBc "
                      f"(no DPD {self.no_dpd[0]:.2f}), power {end_p - before_p:+.3f} dB")
                # Re-locked within 2 updates: one of the two captures after the step updates, and so
                # does every later one (a step within gain_tolerance_db is followed at once).
                self.assertIn("updated", st[STEP_AT:STEP_AT + 2], (st, reasons))
                self.assertTrue(all(s == "updated" for s in st[STEP_AT + 2:]), (st, reasons))
                # |G| followed the step the emulator was given.
                g0, g1 = abs(loop.history[STEP_AT - 1].gain), abs(loop.history[-1].gain)
                self.assertAlmostEqual(20 * math.log10(g1 / g0), step_db, delta=0.1)
                # Never worse than no DPD, at any capture (the first capture's identity predistorter
                # is the no-DPD case itself, to the measurement's rounding).
                self.assertTrue(all(a < self.no_dpd[0] + 0.01 for a, _ in after), [round(a, 2) for a, _ in after])
                self.assertLess(abs(end_p - before_p), 0.5)
                self.assertLess(end_aclr, before_aclr + 1.5)

    def test_tx_gain_steps(self):
        # Steps down from the radio tests' drive; steps up from 4 dB below it, so that the ding2004
        # PA's predistorted peaks stay in the range its polynomial models (below 0.8). (From 4 dB
        # below, a further -6 dB leaves the PA at -64 dBc without DPD, under the emulated loop's
        # own floor of about -62 to -68 dBc: no predistorter is measurably better there.)
        for base, step_db in ((-4.0, 3.0), (-4.0, 1.0), (0.0, -3.0), (0.0, -6.0), (0.0, -1.0)):
            with self.subTest(base=base, step_db=step_db):
                def hook(lp, n):
                    if n == STEP_AT:
                        lp.emu.set_tx_gain_db(base + step_db)

                loop = radio.Loop(CAPTURES, emu=dict(rx_gain_db=BASE_DB, tx_gain_db=base), between=hook).run()
                st = loop.statuses()
                reasons = [r.reason for r in loop.history]

                def drive(k):  # the PA's drive in the period after capture k's update
                    return 10 ** ((base + (step_db if k > STEP_AT else 0.0)) / 20)

                after = [radio.pa_aclr(loop.x[radio.PERIOD * k - 65536:radio.PERIOD * k] * drive(k))
                         for k in range(1, CAPTURES)]
                no_dpd = [radio.pa_aclr(radio.signal() * drive(k))[0] for k in range(1, CAPTURES)]
                print(f"TX gain {step_db:+.0f} dB: {st}; ACLR {[round(a, 2) for a, _ in after]} dBc "
                      f"(no DPD {no_dpd[0]:.2f} -> {no_dpd[-1]:.2f}), power {after[-1][1] - after[STEP_AT - 1][1]:+.3f} dB")
                self.assertIn("updated", st[STEP_AT:STEP_AT + 2], (st, reasons))
                self.assertTrue(all(s == "updated" for s in st[STEP_AT + 2:]), (st, reasons))
                # every update's coefficients, at the drive the PA then has, better than no DPD there
                for k, ((a, _), ref) in enumerate(zip(after, no_dpd), 1):
                    self.assertLess(a, ref + 0.01, (k, [round(v, 2) for v, _ in after], [round(v, 2) for v in no_dpd]))
                # the output power moved by the operator's step
                self.assertLess(abs(after[-1][1] - after[STEP_AT - 1][1] - step_db), 0.5)


if __name__ == "__main__":
    gr_unittest.run(qa_estimator_gain_steps)
