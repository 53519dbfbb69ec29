#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A clipped capture is refused with the RX gain step that cures it: for captures driven 1 to 12 dB
past the ADC's full scale, the figure in the refusal is checked against the overdrive measured here
on the capture before the ADC clipped it (the largest |I| or |Q| over full scale), on the capture
kernel and on the numpy reference; and lowering the gain by that figure gives a capture that is
accepted."""

import re

import numpy as np
from gnuradio import gr_unittest

from gnuradio.gpuinterp import dpd, dpd_reference, metrics, pa_models

P, Q, Lp, Lq = 5, 0, 3, 1
N = 16384
FULL = 1.0


def adc(y, full=FULL):
    return np.clip(y.real, -full, full) + 1j * np.clip(y.imag, -full, full)


def refusal(backend, x, y):
    """Why a loop step refuses the capture (None: it does not), on the capture kernel; backend None:
    the numpy reference of the conditioning."""
    if backend is None:
        try:
            dpd_reference.condition(x, y, FULL, max_delay=64)
        except dpd.DPDError as e:
            return str(e)
        return None
    s = dpd.Adaptation(P, Q, Lp, Lq, rx_full_scale=FULL, max_delay=64, backend=backend).step(x, y)
    return s.reason if s.status == "refused" else None


class qa_dpd_clipping(gr_unittest.TestCase):
    def test_refusal_names_the_gain_step(self):
        x = metrics.ofdm_test_signal(N, rms=0.2, papr_db=8.0, seed=3).astype(np.complex128)
        y0 = pa_models.PAModel("ding2004").process(x).astype(np.complex128)
        comp = np.max(np.maximum(np.abs(y0.real), np.abs(y0.imag)))
        for over_db in (1.0, 3.0, 6.0, 12.0):
            for backend in ("automatic", None):
                with self.subTest(over_db=over_db, backend=backend):
                    y = y0 * (10 ** (over_db / 20) * FULL / comp)
                    reason = refusal(backend, x, adc(y))
                    self.assertIsNotNone(reason)
                    m = re.search(r"lower the RX gain by ([0-9.]+) dB", reason)
                    self.assertIsNotNone(m, reason)
                    step = float(m.group(1))
                    # At least the overdrive plus the 1 dB headroom; at most 3 dB more: the figure
                    # reads the envelope (|I + jQ| reaches sqrt(2) = 3 dB above the larger of |I|,
                    # |Q| at most) and a linear gain (the PA compresses its peaks: over, never under).
                    self.assertGreaterEqual(step, over_db + 1.0 - 0.05, reason)
                    self.assertLessEqual(step, over_db + 1.0 + 3.0, reason)
                    # What the refusal asks for cures it: the same capture at that lower gain passes.
                    self.assertIsNone(refusal(backend, x, adc(y * 10 ** (-step / 20))))
                    print(f"overdrive {over_db:+.0f} dB ({backend}): lower the RX gain by {step:.1f} dB")


if __name__ == "__main__":
    gr_unittest.run(qa_dpd_clipping)
