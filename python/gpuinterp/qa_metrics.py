#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""QA for gpuinterp.metrics: Welch PSD against scipy, ACLR on signals of known power, NMSE, EVM,
AM/AM-AM/PM data, the OFDM test signal, and the PNG plot helpers."""

import math
import os
import tempfile

import numpy as np
from gnuradio import gr_unittest
from scipy import signal as sps

from gnuradio.gpuinterp import metrics, pa_models
from gnuradio.gpuinterp.reference import seeded_case


class qa_metrics(seeded_case, gr_unittest.TestCase):
    seed = 7

    def test_welch_matches_scipy(self):
        x = self.rand_c(50000)
        for nfft in (256, 4096):
            f, p = metrics.welch_psd(x, 10e6, nfft)
            fs_, ps = sps.welch(x, 10e6, window="hann", nperseg=nfft, noverlap=nfft // 2,
                                return_onesided=False, detrend=False, scaling="density")
            np.testing.assert_allclose(f, np.fft.fftshift(fs_))
            np.testing.assert_allclose(p, np.fft.fftshift(ps), rtol=1e-9)
        # Integrating the density gives the power.
        f, p = metrics.welch_psd(x, 10e6, 1024)
        self.assertAlmostEqual(metrics.band_power(f, p, -5e6, 5e6) / np.mean(np.abs(x) ** 2), 1.0, delta=0.01)

    def test_aclr_tones(self):
        fs, n = 122.88e6, 1 << 16
        t = np.arange(n) / fs
        df = fs / 8192  # tones on bin centres of an 8192-point Welch segment
        main = np.exp(2j * np.pi * 200 * df * t) + np.exp(-2j * np.pi * 300 * df * t)
        upper = 0.01 * np.exp(2j * np.pi * (20e6 // df) * df * t)
        lower = 0.001 * np.exp(-2j * np.pi * (18e6 // df) * df * t)
        a = metrics.aclr(main + upper + lower, fs, 18e6, 20e6)
        # main channel power 2; adjacent 1e-4 and 1e-6.
        self.assertAlmostEqual(a["upper"], 10 * math.log10(1e-4 / 2), delta=0.05)
        self.assertAlmostEqual(a["lower"], 10 * math.log10(1e-6 / 2), delta=0.05)
        self.assertEqual(a["worst"], a["upper"])
        with self.assertRaises(ValueError) as cm:
            metrics.aclr(main, fs, 18e6, 60e6)
        self.assertTrue(str(cm.exception).startswith("spacing:"))

    def test_nmse_and_evm(self):
        d = self.rand_c(10000)
        e = self.rand_c(10000)
        e *= np.linalg.norm(d) / np.linalg.norm(e) * 10 ** (-30 / 20)
        self.assertAlmostEqual(metrics.nmse_db(d, d + e), -30.0, places=9)
        self.assertAlmostEqual(metrics.nmse_db(d, (0.5 - 2j) * (d + e), normalise_gain=True), -30.0, delta=0.05)
        self.assertAlmostEqual(metrics.evm_percent(d, (d + e) * 3j), 100 * 10 ** (-30 / 20), delta=0.02)
        with self.assertRaises(ValueError):
            metrics.nmse_db(np.zeros(4), np.ones(4))
        with self.assertRaises(ValueError):
            metrics.nmse_db(d, d[:-1])

    def test_am_am_pm(self):
        x = self.rand_c(5000, 0.3)
        pa = pa_models.PAModel("saleh")
        y = pa.process(x)
        d = metrics.am_am_pm(x, y, gain=1.0, max_points=100000)
        r = d["in_amp"]
        np.testing.assert_allclose(d["out_amp"], 2.1587 * r / (1 + 1.1517 * r * r), rtol=1e-5)
        np.testing.assert_allclose(np.radians(d["phase_deg"]), 4.0033 * r * r / (1 + 9.104 * r * r), atol=1e-5)

    def test_ofdm_test_signal(self):
        fs = 122.88e6
        x, syms = metrics.ofdm_test_signal(8 * (8192 + 576), fs=fs, rms=0.3, return_symbols=True)
        self.assertAlmostEqual(np.sqrt(np.mean(np.abs(x) ** 2)), 0.3, places=9)
        # 18 MHz occupied, clean adjacent channels.
        self.assertLess(metrics.aclr(x, fs, 18e6, 20e6)["worst"], -100)
        # Demodulation gives the symbols back (the filter is flat over the occupied band).
        rx = metrics.ofdm_demodulate(x)
        self.assertEqual(rx.shape, syms.shape)
        self.assertLess(metrics.evm_percent(syms, rx), 0.01)
        # Crest-factor reduction lowers the PAPR to about the target.
        y = metrics.ofdm_test_signal(8 * (8192 + 576), fs=fs, rms=0.3, papr_db=8.0)
        papr = 20 * np.log10(np.max(np.abs(y)) / 0.3)
        self.assertLess(papr, 8.6)
        self.assertGreater(20 * np.log10(np.max(np.abs(x)) / 0.3), 9.5)

    def test_plots(self):
        x = self.rand_c(20000, 0.2)
        y = pa_models.PAModel("ding2004").process(x)
        with tempfile.TemporaryDirectory() as d:
            p1, p2 = os.path.join(d, "psd.png"), os.path.join(d, "am.png")
            metrics.plot_psd({"x": x, "y": y}, 122.88e6, p1, channel_bw=18e6, spacing=20e6)
            metrics.plot_am_am_pm({"pa": (x, y)}, p2)
            for p in (p1, p2):
                with open(p, "rb") as f:
                    self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")


if __name__ == "__main__":
    gr_unittest.run(qa_metrics)
