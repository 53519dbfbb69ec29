#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""QA for the C++ capture kernel gpuinterp.dpd_capture_kernel: on emulated loopback captures (delay,
frequency offset and drift, receiver DC and image, noise, glitches, clipping) it returns what the
numpy reference (dpd_capture.condition followed by the estimator's alignment) returns: the same
delay to 1e-6 sample, the same aligned capture and gain to 1e-9, the same bad rows and report, and
the same refusals."""

import math

import numpy as np
from gnuradio import gr_unittest

from gnuradio import gpuinterp
from gnuradio.gpuinterp import dpd_capture
from gnuradio.gpuinterp.dpd_reference import _prepare, condition
from gnuradio.gpuinterp.dpd_ph import DPDError


def backends():
    return ["cpu"] + (["cuda"] if gpuinterp.cuda_device_count() > 0 else [])


def loopback(n, seed=1, delay=37.3, freq=2e-5, drift=1e-10, dc=0.02 - 0.01j, image=0.03j, snr_db=45,
             glitches=0, gain=0.7):
    """x: band-limited (40 % of the band) PA input; y: its PA output (compression, memory) through
    a receiver: fractional delay (by the FFT), LO offset and drift, IQ image, DC and noise."""
    rng = np.random.default_rng(seed)
    w = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    f = np.fft.fftfreq(n)
    x = np.fft.ifft(np.fft.fft(w) * (np.abs(f) < 0.2)) * 0.4
    p = x + 0.05 * np.concatenate([[0], x[:-1]])
    pa = gain * p * (1 - 0.15 * np.abs(p) ** 2)
    y = np.fft.ifft(np.fft.fft(pa) * np.exp(-2j * np.pi * f * delay))
    t = np.arange(n)
    y = y * np.exp(1j * (2 * np.pi * (freq * t + 0.5 * drift * t * t) + 0.4))
    y = y + image * np.conj(y) + dc
    rms = math.sqrt(np.mean(np.abs(y) ** 2))
    y = y + rms * 10 ** (-snr_db / 20) / math.sqrt(2) * (rng.standard_normal(n) + 1j * rng.standard_normal(n))
    for k in rng.integers(100, n - 100, glitches):
        y[k] += 50 * rms
    return x, y


def reference(x, y, full_scale=None, rx_correction=True, track_frequency=True, max_delay=None, delay=None):
    yc, clipped, rep = condition(x, y, full_scale, rx_correction, track_frequency, max_delay, delay)
    xa, yn, d, G, bad = _prepare(x, yc, None, None, rep.delay, max_delay, True, clipped)
    return xa, yn, d, G, bad, rep


class qa_dpd_capture(gr_unittest.TestCase):

    def check(self, x, y, **kw):
        want = reference(x, y, **kw)
        for b in backends():
            with self.subTest(backend=b, **{k: v for k, v in kw.items() if k != "full_scale"}):
                got = gpuinterp.dpd_capture_kernel(b).align(x, y, **kw)
                xa, yn, d, G, bad, rep = got
                self.assertAlmostEqual(d, want[2], delta=1e-6)
                self.assertEqual(xa.size, want[0].size)
                self.assertLess(np.max(np.abs(xa - want[0])), 1e-9 * np.max(np.abs(want[0])))
                self.assertLess(np.max(np.abs(yn - want[1])), 1e-9 * np.max(np.abs(want[1])))
                self.assertLess(abs(G - want[3]), 1e-9 * abs(want[3]))
                np.testing.assert_array_equal(bad, want[4])
                r = want[5]
                for k in ("delay", "envelope_correlation", "freq_offset", "freq_drift", "phase", "correlation"):
                    self.assertAlmostEqual(getattr(rep, k), getattr(r, k), delta=1e-9 * max(1.0, abs(getattr(r, k))), msg=k)
                self.assertAlmostEqual(abs(rep.rx_dc - r.rx_dc), 0, delta=1e-9)
                self.assertAlmostEqual(rep.rx_image_db, r.rx_image_db, delta=1e-6)
                self.assertEqual(rep.clipped, r.clipped)
                self.assertEqual(rep.widened, r.widened)
                if full := kw.get("full_scale"):
                    self.assertAlmostEqual(rep.rx_peak_dbfs, r.rx_peak_dbfs, delta=1e-9)
                    self.assertTrue(full)
        return want

    def test_001_impaired_loopback(self):
        x, y = loopback(1 << 15)
        want = self.check(x, y)
        # the reference itself finds the emulated impairments
        # the PA's memory term (0.05 x[n-1]) adds about 0.05 sample of group delay
        self.assertAlmostEqual(want[5].delay, 37.3 + 0.05, delta=0.02)
        self.assertAlmostEqual(want[5].freq_offset, 2e-5 + 1e-10 * (x.size / 2), delta=2e-7)

    def test_002_negative_delay_and_integer_delay(self):
        for delay in (-250.6, 12.0):
            with self.subTest(delay=delay):
                x, y = loopback(1 << 14, seed=2, delay=delay)
                self.check(x, y, max_delay=400)

    def test_003_glitches_and_clipping(self):
        x, y = loopback(1 << 15, seed=3, glitches=5)
        # a full scale that the two largest samples reach: clipped, but few enough to be fitted around
        peaks = np.sort(np.maximum(np.abs(y.real), np.abs(y.imag)))
        full = peaks[-2] / dpd_capture.CLIP_LEVEL
        c = np.clip(y.real, -full, full) + 1j * np.clip(y.imag, -full, full)
        self.assertGreater(int(dpd_capture.clip_mask(c, full).sum()), 0)
        want = self.check(x, c, full_scale=full)
        self.assertGreater(int(want[4].sum()), 0)

    def test_004_delay_hints(self):
        x, y = loopback(1 << 15, seed=4, delay=180.4)
        self.check(x, y, delay=180.0)          # the hint holds: searched around it
        want = self.check(x, y, delay=20.0)    # a stale hint: the search widens
        self.assertTrue(want[5].widened)

    def test_005_without_correction_or_tracking(self):
        x, y = loopback(1 << 14, seed=5, freq=0.0, drift=0.0)
        self.check(x, y, rx_correction=False)
        self.check(x, y, track_frequency=False)
        self.check(x, y, rx_correction=False, track_frequency=False)

    def test_006_same_refusals(self):
        x, y = loopback(1 << 14, seed=6)
        rng = np.random.default_rng(9)
        unrelated = rng.standard_normal(x.size) + 1j * rng.standard_normal(x.size)
        full = 0.5 * np.max(np.abs(y.real))
        clipped = np.clip(y.real, -full, full) + 1j * np.clip(y.imag, -full, full)
        cases = [(x, unrelated, {}), (x, clipped, {"full_scale": full}), (x, np.zeros_like(y), {}),
                 (x, y * 0 + np.where(np.arange(x.size) % 20 == 0, 100.0, 0.01), {})]
        for i, (a, b, kw) in enumerate(cases):
            try:
                reference(a, b, **kw)
                self.fail(f"case {i}: the reference accepted it")
            except DPDError as e:
                msg = str(e)
            for be in backends():
                with self.subTest(case=i, backend=be):
                    with self.assertRaises(ValueError) as cm:
                        gpuinterp.dpd_capture_kernel(be).align(a, b, **kw)
                    self.assertEqual(str(cm.exception).split(":")[0], msg.split(":")[0])
                    self.assertEqual(str(cm.exception)[:40], msg[:40])

    def test_008_alignment_alone_matches_prepare(self):
        # condition=False: the estimator's own alignment (dpd.estimate without a delay): the
        # complex cross-correlation's peak within +-max_delay, no receiver correction.
        for delay, max_delay in ((37.3, None), (-812.45, 1000), (3000.2, 4000)):
            x, y = loopback(1 << 15, seed=7, delay=delay, freq=0.0, drift=0.0, dc=0j, image=0j, glitches=3)
            want = _prepare(x, y, None, None, None, max_delay, True)
            for b in backends():
                with self.subTest(delay=delay, backend=b):
                    xa, yn, d, G, bad, _ = gpuinterp.dpd_capture_kernel(b).align(
                        x, y, max_delay=max_delay, condition=False)
                    self.assertAlmostEqual(d, want[2], delta=1e-6)
                    self.assertLess(np.max(np.abs(xa - want[0])), 1e-9 * np.max(np.abs(want[0])))
                    self.assertLess(np.max(np.abs(yn - want[1])), 1e-9 * np.max(np.abs(want[1])))
                    self.assertLess(abs(G - want[3]), 1e-9 * abs(want[3]))
                    np.testing.assert_array_equal(bad, want[4])
        # a delay given is used as it is
        got = gpuinterp.dpd_capture_kernel("cpu").align(x, y, delay=3000.0, condition=False)
        want = _prepare(x, y, None, None, 3000.0, None, True)
        self.assertEqual(got[2], 3000.0)
        self.assertLess(np.max(np.abs(got[1] - want[1])), 1e-9 * np.max(np.abs(want[1])))
        with self.assertRaisesRegex(ValueError, "^max_delay: must be in"):
            gpuinterp.dpd_capture_kernel("cpu").align(x, y, max_delay=x.size, condition=False)

    def test_009_estimate_aligns_on_the_kernel(self):
        # dpd.estimate without a delay uses the kernel; the numpy reference gives the same fit
        from gnuradio.gpuinterp import dpd
        x, y = loopback(1 << 15, seed=8, delay=-250.6, freq=0.0, drift=0.0, dc=0j, image=0j)
        a = dpd.estimate(x, y, 5, 0, 3, 1, max_delay=400, regularization=1e-10, backend="cpu")
        b = dpd.estimate(x, y, 5, 0, 3, 1, max_delay=400, regularization=1e-10, backend=None)
        self.assertAlmostEqual(a.delay, b.delay, delta=1e-6)
        self.assertLess(abs(a.gain - b.gain), 1e-9 * abs(b.gain))
        self.assertLess(np.max(np.abs(a.coefficients - b.coefficients)), 1e-6 * np.max(np.abs(b.coefficients)))

    def test_010_given_gain_and_excluded_samples_match_prepare(self):
        # The two inputs the estimator's callers give (dpd.estimate's target_gain and exclude, the
        # scoreboard's seams between concatenated captures): the kernel's alignment equals the numpy
        # reference's on the same capture, with a delay given and with one searched.
        x, y = loopback(1 << 15, seed=9, delay=12.6, freq=0.0, drift=0.0, dc=0j, image=0j, glitches=2)
        ex = np.zeros(y.size, dtype=bool)
        ex[5000:5010] = True
        ex[20000] = True
        for delay in (None, 12.6):
            for gain in (None, 0.65 - 0.05j):
                want = _prepare(x, y, None, gain, delay, 64, True, ex)
                for b in backends():
                    with self.subTest(delay=delay, gain=gain, backend=b):
                        xa, yn, d, G, bad, _ = gpuinterp.dpd_capture_kernel(b).align(
                            x, y, max_delay=64, delay=delay, condition=False, gain=gain, exclude=ex)
                        self.assertAlmostEqual(d, want[2], delta=1e-6)
                        self.assertLess(np.max(np.abs(xa - want[0])), 1e-9 * np.max(np.abs(want[0])))
                        self.assertLess(np.max(np.abs(yn - want[1])), 1e-9 * np.max(np.abs(want[1])))
                        self.assertLess(abs(G - want[3]), 1e-9 * abs(want[3]))
                        if gain is not None:
                            self.assertEqual(G, gain)
                        np.testing.assert_array_equal(bad, want[4])
                        self.assertGreater(int(bad.sum()), 2 * (2 * 24 + 3))  # the excluded rows too
        k = gpuinterp.dpd_capture_kernel("cpu")
        with self.assertRaisesRegex(ValueError, "^exclude: expected one flag per sample"):
            k.align(x, y, condition=False, exclude=ex[:-1])
        with self.assertRaisesRegex(ValueError, "^gain: must be a complex number"):
            k.align(x, y, condition=False, gain="a")
        with self.assertRaisesRegex(ValueError, "^target_gain: gain"):
            k.align(x, y, condition=False, gain=0j)

    def test_007_bad_arguments(self):
        k = gpuinterp.dpd_capture_kernel("cpu")
        with self.assertRaisesRegex(ValueError, "^x, y"):
            k.align(np.ones(10, complex), np.ones(11, complex))
        with self.assertRaisesRegex(ValueError, "^x: contains NaN"):
            k.align(np.full(10, np.nan, complex), np.ones(10, complex))
        with self.assertRaisesRegex(ValueError, "^full_scale"):
            k.align(np.ones(10, complex), np.ones(10, complex), full_scale=-1.0)
        with self.assertRaisesRegex(ValueError, "^max_delay"):
            k.align(np.ones(10, complex), np.ones(10, complex), max_delay=-3)


if __name__ == "__main__":
    gr_unittest.run(qa_dpd_capture)
