#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""QA for the DPD Arena v6 metrics (arena.py) and ledger (arena_ledger.py): independent references
first (scipy's Welch, a tone of known power, an OFDM signal with noise of known power), then the
published figures on OpenDPD's data (tests/data)."""

import math
import os

import numpy as np
from gnuradio import gr_unittest

from gnuradio.gpuinterp import arena
from gnuradio.gpuinterp import arena_ledger as led
from gnuradio.gpuinterp import dpd_model as dm

SRC = os.environ.get("GPUINTERP_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
DATA = os.path.join(SRC, "tests", "data")


def arena_b():
    with np.load(os.path.join(DATA, "APA_200MHz_b_arena", "arena_splits.npz")) as d:
        return {k: d[k].astype(np.complex128) for k in d.files}


class qa_arena(gr_unittest.TestCase):

    # --- independent references ------------------------------------------------------------------
    def test_psd_is_scipy_welch(self):
        from scipy.signal import welch

        rng = np.random.default_rng(1)
        z = rng.standard_normal(30000) + 1j * rng.standard_normal(30000)
        f, p = arena.psd(z, 983.04e6, 4096)
        f2, p2 = welch(z, fs=983.04e6, window="hann", nperseg=4096, noverlap=2048, detrend=False,
                       return_onesided=False, scaling="density")
        o = np.argsort(f2)
        self.assertTrue(np.allclose(f, f2[o]))
        self.assertLess(np.max(np.abs(p - p2[o])) / np.max(p2), 1e-12)

    def test_aclr_of_tones_of_known_power(self):
        # bin-centred tones: a periodic Hann window leaves each in 3 bins, so band powers are exact
        fs, n, nper = 983.04e6, 4 * 19662, 19662
        t = np.arange(n) / fs
        df = fs / nper
        tone = lambda f, a: a * np.exp(2j * np.pi * round(f / df) * df * t)
        y = tone(3e6, 1.0) + tone(50e6, 0.5) + tone(-120e6, 0.01) + tone(230e6, 0.001)
        five = arena.aclr(y, fs, nper, "5x40")  # strongest carrier: the 1.0 tone in [-20, 20) MHz
        self.assertAlmostEqual(five["left"], -40.0, places=6)   # -120 MHz: in [-140, -100)
        self.assertLess(five["right"], -200)                    # nothing in [100, 140)
        one = arena.aclr(y, fs, nper, "1x200")  # carrier: the whole channel, 1 + 0.25
        self.assertAlmostEqual(one["right"], 10 * math.log10(1e-6 / 1.25), places=6)  # 230 MHz in [100, 300)
        self.assertEqual(one["worse"], max(one["left"], one["right"]))
        self.assertEqual(five["plan"], "5x40")

    def _ofdm(self, sigma, seed=3):
        """Three carriers of continuous CP-OFDM (QAM-16 on +-400 of 4096 bins), fs 1, plus white
        noise of variance sigma^2; the grid as the protocol's data. Returns (y, r, protocol, X)."""
        rng = np.random.default_rng(seed)
        N, cp, occ = 4096, 288, np.r_[1:401, 4096 - 400:4096]
        shifts, delays = (-0.25, 0.0, 0.25), (0, 1234, 2711)
        n, start = 4 * (N + cp), 500
        t = np.arange(n) + start
        r = np.zeros(n, complex)
        starts, sent = [], []
        for s, d in zip(shifts, delays):
            stream = []
            for k in range(6):
                X = np.zeros(N, complex)
                X[occ] = (rng.choice([-3, -1, 1, 3], occ.size) + 1j * rng.choice([-3, -1, 1, 3], occ.size))
                sym = np.fft.ifft(X)
                stream.append(np.r_[sym[-cp:], sym])
                sent.append(X[occ])
            stream = np.concatenate(stream)[d:d + n]
            r += stream * np.exp(-2j * np.pi * s * t)
            # the symbol starting at (N + cp) * 2 - d + cp in the record: its useful part
            starts.append(start + 2 * (N + cp) - d + cp)
        proto = dict(arena.APA_200MHZ_B, fs=1.0, context=200,
                     grid={"useful_samples": N, "prefix_samples": cp, "occupied_bins": occ,
                           "filter_half_bandwidth_hz": 0.12,
                           "carriers": tuple(zip(shifts, starts))})
        noise = sigma / math.sqrt(2) * (rng.standard_normal(n) + 1j * rng.standard_normal(n))
        return r + noise, r, proto, N

    def test_evm_of_noise_of_known_power(self):
        # per occupied bin: noise power N sigma^2 (numpy's unnormalised FFT), signal mean |X|^2 = 10
        # for QAM-16 on +-3; 2400 bins give the noise estimate a 2 % (0.09 dB) standard deviation:
        # 0.4 dB is more than four of them
        for sigma in (0.001, 0.003, 0.01):
            y, r, proto, N = self._ofdm(sigma)
            want = 10 * math.log10(N * sigma ** 2 / 10.0)
            got = arena.evm_db(y, r, 500, proto)
            self.assertLess(abs(got - want), 0.4, (sigma, got, want))
        y, r, proto, N = self._ofdm(0.0)
        self.assertLess(arena.evm_db(1.7j * r, r, 500, proto), -250)  # a complex gain is not an error

    def test_evm_refuses_a_symbol_outside_the_window(self):
        y, r, proto, N = self._ofdm(0.001)
        with self.assertRaises(arena.ArenaError):
            arena.evm_db(y[:10000], r[:10000], 500, proto)

    # --- OpenDPD's data --------------------------------------------------------------------------
    def test_plans_on_APA_200MHz_test_output(self):
        # published -30.9 (1x200) and -27.7 dBc (5x40), left/right averaged, one decimal: +-0.05
        y = np.load(os.path.join(DATA, "APA_200MHz_test_output", "test_output.npy"))
        got = {a["plan"]: a for a in arena.aclr_all_plans(y, 983.04e6, 19662)}
        print("APA_200MHz measured test output:", {k: round(v["avg"], 3) for k, v in got.items()})
        self.assertLess(abs(got["1x200"]["avg"] - (-30.9)), 0.05)
        self.assertLess(abs(got["5x40"]["avg"] - (-27.7)), 0.05)

    def test_arena_test_record_measured_output(self):
        # The measured output at full drive, against R = G x: the Arena's metrics on the capture
        # itself (pinned to 1e-3 dB: a regression guard). It is not the Arena's baseline, which is
        # its judge driven with alpha x, |alpha| 0.85: 1.4 dB less drive, hence less distortion,
        # and output power at the target (this one is 1.36 dB over it: the gate refuses it).
        d = arena_b()
        s = arena.score(d["y_test"], d["x_test"], 32034)
        print("APA_200MHz_b Arena test record, measured output:", round(s["evm_db"], 4), "dB EVM,",
              round(s["aclr_worse_dbc"], 4), "dBc worse ACLR (5x40),", round(s["power_error_db"], 3), "dB power")
        self.assertAlmostEqual(s["evm_db"], -19.6318, delta=1e-3)
        self.assertAlmostEqual(s["aclr_worse_dbc"], -26.9867, delta=1e-3)
        self.assertFalse(s["power_ok"])
        self.assertEqual(s["aclr_worse_dbc"], max(s["aclr_l_dbc"], s["aclr_r_dbc"]))

    def test_published_baseline_through_a_surrogate_judge(self):
        # The published no-DPD baseline (EVM -19.875 dB, worse ACLR -28.74 dBc) is the frozen
        # TRes-GRU judge's output for limit(alpha x). That judge (4871 weights) is not in this
        # repository; an all-order memory polynomial fitted on the Arena's train record stands in
        # for it, the drive rule and every metric being the Arena's. The surrogate differs from the
        # judge by its modelling error (NMSE about -33 dB against the judge's -39.7), which moves the
        # figures by about 0.1 dB: the bound is 0.25 dB, not the published 0.001.
        d = arena_b()
        m = "mp:K=7,M=30"
        B = dm.basis(d["x_train"], m)[30:]
        u, s, vh = np.linalg.svd(B, full_matrices=False)
        w = vh.conj().T @ ((s / (s ** 2 + 1e-7 * s[0] ** 2)) * (u.conj().T @ d["y_train"][30:]))
        judge = lambda v: dm.apply(v, m, w)
        p = arena.APA_200MHZ_B
        alpha = arena.baseline_drive(judge, d["x_train"], p["gain"], p["peak_limit"])
        y0 = judge(arena.limit(alpha * d["x_test"], p["peak_limit"])[0])
        sc = arena.score(y0, d["x_test"], 32034)
        pub = p["published_baseline"]
        print(f"baseline through {m}: alpha {alpha:.4f} (published {pub['alpha']:.4f}), EVM {sc['evm_db']:.3f} dB, "
              f"worse ACLR {sc['aclr_worse_dbc']:.3f} dBc, power {sc['power_error_db']:+.3f} dB")
        self.assertLess(abs(abs(alpha) - abs(pub["alpha"])), 0.005)
        self.assertLess(abs(sc["evm_db"] - pub["evm_db"]), 0.25)
        self.assertLess(abs(sc["aclr_worse_dbc"] - pub["aclr_worse_dbc"]), 0.25)
        self.assertTrue(sc["power_ok"])

    # --- Q, FoM and the ledger ---------------------------------------------------------------------
    def test_ledger_reproduces_the_arena_polynomial_rows(self):
        # (spec, P, OPs, published Q, published FoM): reference-results-v6-apa-b
        rows = [("mp:K=5,M=25", 250, 1013, 18.39, 22.88), ("mp:K=7,M=35", 490, 1979, 17.88, 19.45),
                ("mp:K=10,M=50", 1000, 4028, 17.77, 16.25),
                ("gmp:Ka=5,La=14,Kb=3,Lb=12,Mb=3,Kc=3,Lc=12,Mc=2", 500, 2043, 22.59, 24.05),
                ("gmp:Ka=5,La=9,Kb=2,Lb=8,Mb=3,Kc=2,Lc=8,Mc=2", 250, 1033, 12.96, 17.41)]
        for spec, P, ops, q, fom in rows:
            c = led.ledger(spec, constant=False)
            self.assertEqual((c["params"], c["ops"]), (P, ops), spec)
            self.assertAlmostEqual(arena.fom_db(q, c["params"], c["ops"]), fom, delta=0.006)
        # the scoreboard's fits carry an LO-leakage constant: 2 parameters, 2 additions more
        c = led.ledger("mp:K=5,M=25")
        self.assertEqual((c["params"], c["ops"]), (252, 1015))
        # TRes-GRU 447: P 447, OPs 987, Q 24.74 -> FoM 28.02 (the formula alone)
        self.assertAlmostEqual(arena.fom_db(24.74, 447, 987), 28.02, delta=0.006)

    def test_ledger_of_ph_needs_no_sqrt(self):
        c = led.ledger("ph:P=5,Q=3,Lp=4,Lq=2")  # odd orders 1, 3, 5: |x|^2, |x|^4 = (|x|^2)^2
        env = c["items"][0]
        self.assertEqual((env["mul"], env["add"]), (3, 1))
        self.assertEqual(c["params"], 2 * dm.parse("ph:P=5,Q=3,Lp=4,Lq=2").num_coefficients + 2)

    def test_neural_hook(self):
        with self.assertRaises(led.LedgerUnavailable):
            led.ledger("nosuchfamily:H=3")
        led.register_ledger("toy", lambda spec: {"params": 10, "mul": 6, "add": 4, "items": []})
        self.assertEqual(led.ledger("toy:H=3")["ops"], 10)

    def test_quality(self):
        # half the EVM gain plus half the worse-side ACLR gain
        self.assertAlmostEqual(arena.quality_db(-40, -45, -20, -29), 0.5 * 20 + 0.5 * 16)
        self.assertIsNone(arena.fom_db(10.0, None, 100))


if __name__ == "__main__":
    gr_unittest.run(qa_arena)
