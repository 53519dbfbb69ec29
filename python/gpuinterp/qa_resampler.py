#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Flowgraph QA of resampler_{cc,ff} and table_lookup_{ff,fc}: numpy.interp, index computations,
GNU Radio's pfb_arb_resampler_ccf (spectrum), the CUDA Handbook's texture values, tags, setters
while running, bad parameters."""

import os
import time
from fractions import Fraction

import numpy as np
from gnuradio import blocks, filter, gr, gr_unittest
from gnuradio.filter import pfb
from scipy import signal

from gnuradio import gpuinterp

RNG = np.random.default_rng(5)


def crandn(n):
    return (RNG.standard_normal(n) + 1j * RNG.standard_normal(n)).astype(np.complex64)


def run_block(blk, x, complex_in=True, complex_out=None, tags=()):
    complex_out = complex_in if complex_out is None else complex_out
    src = blocks.vector_source_c(x, False, 1, list(tags)) if complex_in else \
        blocks.vector_source_f(x, False, 1, list(tags))
    snk = blocks.vector_sink_c() if complex_out else blocks.vector_sink_f()
    tb = gr.top_block()
    tb.connect(src, blk, snk)
    tb.run()
    return np.array(snk.data()), snk.tags()


def times(n, r):
    """t_k = k * D, D = 1/r rounded to a double (the documented convention), as float64."""
    return np.arange(n, dtype=np.float64) * (1.0 / r)


def exact_floor(n, r, add=Fraction(0)):
    """floor(k * D + add) for k < n, exactly (D = the double 1/r as a fraction)."""
    D = Fraction(1.0 / r)
    return np.array([(k * D + add).__floor__() for k in range(n)], dtype=np.int64)


def expected_count(n_in, r, ahead):
    """Outputs a stream of n_in inputs allows: floor(t_k) + ahead <= n_in - 1."""
    D = Fraction(1.0 / r)
    k = 0
    while (k * D).__floor__() + ahead <= n_in - 1:
        k += 1
    return k


class qa_resampler(gr_unittest.TestCase):

    def test_001_linear_equals_numpy_interp(self):
        for r in (1.37, 0.73, 2.0, 1 / 3):
            x = crandn(4001)
            y, _ = run_block(gpuinterp.resampler_cc(r, "linear", backend="cpu"), x)
            self.assertEqual(len(y), expected_count(len(x), r, 1))
            t = times(len(y), r)
            n = np.arange(len(x))
            want = np.interp(t, n, x.real) + 1j * np.interp(t, n, x.imag)
            self.assertLess(np.max(np.abs(y - want)), 3e-6 * np.max(np.abs(x)), r)
            xf = RNG.standard_normal(3000).astype(np.float32)
            yf, _ = run_block(gpuinterp.resampler_ff(r, "linear", backend="cpu"), xf, complex_in=False)
            self.assertLess(np.max(np.abs(yf - np.interp(times(len(yf), r), np.arange(3000), xf))), 3e-6 * 4)

    def test_002_nearest_equals_index_computation(self):
        for r in (1.37, 0.73, 4.0, 0.25):
            x = crandn(3000)
            y, _ = run_block(gpuinterp.resampler_cc(r, "nearest", backend="cpu"), x)
            idx = exact_floor(len(y), r, Fraction(1, 2))  # ties go up
            np.testing.assert_array_equal(y, x[idx])

    def test_003_texture_method_has_nine_bit_weights(self):
        r = 1.37
        x = crandn(3000)
        y, _ = run_block(gpuinterp.resampler_cc(r, "texture", backend="cpu"), x)
        t = times(len(y), r)
        i = exact_floor(len(y), r)
        q = np.floor((t - i) * 256 + 0.5) / 256
        want = (1 - q) * x[i] + q * x[i + 1]
        self.assertLess(np.max(np.abs(y - want)), 1e-6 * 8)
        lin = np.interp(t, np.arange(len(x)), x.real)
        err = np.max(np.abs(y.real - lin))
        self.assertGreater(err, 1e-4)  # really quantised ...
        self.assertLess(err, np.max(np.abs(np.diff(x.real))) / 512 + 1e-6)  # ... to 1/256

    def test_004_cubic_is_catmull_rom(self):
        r = 1.9
        x = RNG.standard_normal(2000).astype(np.float32)
        y, _ = run_block(gpuinterp.resampler_ff(r, "cubic", backend="cpu"), x, complex_in=False)
        t = times(len(y), r)
        i = exact_floor(len(y), r)
        mu = t - i
        xp = np.concatenate(([0.0], x))  # x[-1] = 0 (zero history)
        xm, x0, x1, x2 = xp[i], xp[i + 1], xp[i + 2], xp[i + 3]
        want = x0 + 0.5 * mu * (x1 - xm + mu * (2 * xm - 5 * x0 + 4 * x1 - x2 + mu * (3 * (x0 - x1) + x2 - xm)))
        self.assertLess(np.max(np.abs(y - want)), 1e-5)

    def test_005_polyphase_spectrum_matches_gnuradio_pfb_arb_resampler(self):
        # Band-limited complex noise (|f| < 0.2 cycles/input sample, > 90 dB stop band) resampled by
        # ours and by GNU Radio's pfb_arb_resampler_ccf: same spectrum in the band, both quiet outside.
        for r in (1.37, 0.73):
            h = signal.firwin(801, 0.4, window=("kaiser", 10.0))  # cutoff 0.4 of Nyquist = 0.2 cycles/sample
            x = signal.lfilter(h, 1, crandn(300000)).astype(np.complex64)[1000:]
            ours, _ = run_block(gpuinterp.resampler_cc(r, "polyphase", backend="cpu"), x)
            tb = gr.top_block()
            snk = blocks.vector_sink_c()
            tb.connect(blocks.vector_source_c(x), pfb.arb_resampler_ccf(r, flt_size=32, atten=100), snk)
            tb.run()
            theirs = np.array(snk.data())
            self.assertLess(abs(len(ours) - len(theirs)), 64)
            nfft = 2048
            f, p_ours = signal.welch(ours[2000:], nperseg=nfft, return_onesided=False, window="blackmanharris")
            _, p_gr = signal.welch(theirs[2000:], nperseg=nfft, return_onesided=False, window="blackmanharris")
            f_in = f * r  # cycles per output sample -> cycles per input sample
            ref = np.max(p_gr)
            db_ours, db_gr = 10 * np.log10(p_ours / ref), 10 * np.log10(p_gr / ref)
            band = np.abs(f_in) < 0.18
            self.assertLess(np.max(np.abs(db_ours[band] - db_gr[band])), 0.3, r)
            empty = np.abs(f_in) > 0.23
            self.assertLess(np.max(db_ours[empty]), -70, r)
            self.assertLess(np.max(db_gr[empty]), -70, r)

    def test_005b_polyphase_decimation_suppresses_aliases(self):
        # r = 0.73: a tone at 0.45 cycles/input lies above the output Nyquist (0.365) and would alias
        # to -0.28; the stretched filter must remove it while a 0.1 tone passes.
        r = 0.73
        n = np.arange(200000)
        x = (np.exp(2j * np.pi * 0.1 * n) + np.exp(2j * np.pi * 0.45 * n)).astype(np.complex64)
        y = gpuinterp.resampler_kernel_cc(r, "polyphase").resample(x)[500:]
        spec = np.abs(np.fft.fft(y * signal.windows.blackmanharris(len(y)))) ** 2
        f = np.fft.fftfreq(len(y)) * r
        db = 10 * np.log10(spec / np.max(spec))
        self.assertLess(np.max(np.abs(f[np.argmax(db)] - 0.1)), 1e-3)
        self.assertLess(np.max(db[np.abs(f - (0.45 - r)) < 0.01]), -70)

    def test_005c_polyphase_equals_double_precision_reference(self):
        # gnuradio.gpuinterp.reference.polyphase_resample (the examples' check) evaluates the same
        # windowed-sinc sum in double; the float kernel agrees to float rounding, and a reference
        # one output late (a time convention off by 1/r) would differ by ~|x'|/r.
        from gnuradio.gpuinterp import reference
        rng = np.random.default_rng(3)
        x = (rng.standard_normal(30011) + 1j * rng.standard_normal(30011)).astype(np.complex64)
        for r, K in ((1.25, 32), (3.7, 16)):
            y = gpuinterp.resampler_kernel_cc(r, "polyphase", taps_per_arm=K).resample(x)
            ref = reference.polyphase_resample(x, r, taps_per_arm=K)
            self.assertEqual(len(y), len(ref))
            self.assertLess(np.max(np.abs(y - ref)) / np.max(np.abs(ref)), 2e-6)
            self.assertGreater(np.max(np.abs(y[1:] - ref[:-1])) / np.max(np.abs(ref)), 0.1)

    def test_006_tags_move_to_first_output_at_or_after_their_time(self):
        r = 1.37
        x = crandn(2000)
        tags = []
        for off in (0, 5, 100, 999, 1500):
            t = gr.tag_t()
            t.offset = off
            t.key = gr.pmt.intern("mark")
            t.value = gr.pmt.from_long(off)
            tags.append(t)
        y, out_tags = run_block(gpuinterp.resampler_cc(r, "linear", backend="cpu"), x, tags=tags)
        got = sorted((gr.pmt.to_long(t.value), t.offset) for t in out_tags)
        D = Fraction(1.0 / r)
        want = [(off, -((-off / D).__floor__())) for off in (0, 5, 100, 999, 1500)]  # ceil(off / D)
        self.assertEqual(got, want)
        for off, k in got:  # first output at or after the tag's input time
            self.assertTrue(k * D >= off and (k == 0 or (k - 1) * D < off))
        self.assertEqual(len(got), 5)

    def test_007_set_rate_while_running(self):
        n = 2_000_000
        x = crandn(n)
        blk = gpuinterp.resampler_cc(1.5, "cubic", backend="cpu")
        tb = gr.top_block()
        snk = blocks.vector_sink_c()
        tb.connect(blocks.vector_source_c(x), blk, snk)
        tb.start()
        rates = []
        for r in (0.5, 2.5, 1.1, 0.9):
            time.sleep(0.01)
            blk.set_rate(r)
            rates.append(blk.rate())
        tb.wait()
        self.assertEqual(rates, [0.5, 2.5, 1.1, 0.9])
        m = len(snk.data())
        self.assertTrue(0.5 * n - 10 <= m <= 2.5 * n + 10, m)

    def test_007b_set_rate_while_running_with_device_buffers(self):
        # Polyphase with device buffers, rates across 1 (r < 1 stretches the filter: the history
        # grows while the stream runs). A slow tone must come out continuous and at full level
        # whatever the rate, so a lost or stale history sample at a rate change shows as a jump.
        n = 1_500_000
        f = 0.0005
        x = np.exp(2j * np.pi * f * np.arange(n)).astype(np.complex64)
        blk = gpuinterp.resampler_cc(1.3, "polyphase", backend="cpu", device_buffers=True)
        self.assertTrue(blk.device_buffers())
        tb = gr.top_block()
        snk = blocks.vector_sink_c()
        src = blocks.vector_source_c(x)
        src.set_max_noutput_items(4096)
        tb.connect(src, blk, snk)
        tb.start()
        for r in (0.6, 2.2, 0.8, 1.7):
            time.sleep(0.02)
            blk.set_rate(r)
        tb.wait()
        y = np.array(snk.data())
        self.assertGreater(len(y), 0.6 * n - 100)
        y = y[200:-200]  # the filter's start-up from zero history
        # 5e-3: when r drops below 1 the stretched filter reaches a few inputs further back than
        # the history kept so far, and those read 0 (at the window's edge, weight ~1e-3); stale
        # or lost history would cost far more.
        self.assertLess(np.max(np.abs(np.abs(y) - 1)), 5e-3)
        # The largest output step is 1/0.6 inputs (phase 2 pi f / 0.6); a skipped or repeated
        # input would add 2 pi f = 3.1e-3 to one step, the edge zeros above up to ~1e-3.
        self.assertLess(np.max(np.abs(np.diff(y))), 2 * np.pi * f / 0.6 + 2e-3)

    def test_008_extreme_rates(self):
        x = crandn(50)
        y, _ = run_block(gpuinterp.resampler_cc(1000.0, "linear", backend="cpu"), x)
        self.assertEqual(len(y), expected_count(50, 1000.0, 1))
        t = times(len(y), 1000.0)
        want = np.interp(t, np.arange(50), x.real) + 1j * np.interp(t, np.arange(50), x.imag)
        self.assertLess(np.max(np.abs(y - want)), 1e-5)
        x = crandn(200000)
        y, _ = run_block(gpuinterp.resampler_cc(1e-3, "nearest", backend="cpu"), x)
        np.testing.assert_array_equal(y, x[exact_floor(len(y), 1e-3, Fraction(1, 2))])
        self.assertEqual(len(y), expected_count(200000, 1e-3, 1))
        # polyphase at 1/1000: one output reads K/r = 32000 inputs, more than GNU Radio's default
        # buffer; the block declares a history so the scheduler sizes the buffer for it
        for r in (1e-3, 1000.0):
            xi = x if r < 1 else x[:100]
            y, _ = run_block(gpuinterp.resampler_cc(r, "polyphase", backend="cpu"), xi)
            want = gpuinterp.resampler_kernel_cc(r, "polyphase").resample(xi)
            self.assertEqual(len(y), len(want))
            self.assertGreater(len(y), 0)
            np.testing.assert_array_equal(y, want)

    def test_009_kernel_chunking_equals_one_call(self):
        x = crandn(20000)
        for method in ("nearest", "linear", "texture", "cubic", "polyphase"):
            a = gpuinterp.resampler_kernel_cc(0.83, method)
            b = gpuinterp.resampler_kernel_cc(0.83, method)
            ya = a.resample(x)
            cuts = np.sort(RNG.integers(0, len(x), 30))
            yb = np.concatenate([b.resample(c) for c in np.split(x, cuts)])
            np.testing.assert_array_equal(ya, yb)

    def test_009b_cuda_variant_is_an_option_of_kernel_and_block(self):
        # "untiled" selects the CUDA polyphase kernel for comparison; the CPU has one kernel, so
        # there the output must not change. A bad name raises naming the parameter.
        x = crandn(5000)
        a = gpuinterp.resampler_kernel_cc(1.37, "polyphase", backend="cpu")
        b = gpuinterp.resampler_kernel_cc(1.37, "polyphase", backend="cpu")
        self.assertEqual(b.cuda_variant(), "automatic")
        b.set_cuda_variant("untiled")
        self.assertEqual(b.cuda_variant(), "untiled")
        np.testing.assert_array_equal(a.resample(x), b.resample(x))
        with self.assertRaisesRegex(ValueError, "^variant"):
            b.set_cuda_variant("old")
        self.assertEqual(b.cuda_variant(), "untiled")
        blk = gpuinterp.resampler_cc(1.37)
        blk.set_cuda_variant("untiled")
        blk.set_cuda_variant("automatic")
        with self.assertRaisesRegex(ValueError, "^variant"):
            blk.set_cuda_variant("tiled")

    def test_010_bad_parameters(self):
        for r in (0.0, -1.0, float("nan"), float("inf")):
            with self.assertRaisesRegex(ValueError, "^rate"):
                gpuinterp.resampler_cc(r)
        with self.assertRaisesRegex(ValueError, "^method"):
            gpuinterp.resampler_ff(1.5, "sinc")
        with self.assertRaisesRegex(ValueError, "^taps_per_arm"):
            gpuinterp.resampler_cc(1.5, "polyphase", taps_per_arm=7)
        blk = gpuinterp.resampler_cc(1.5)
        with self.assertRaisesRegex(ValueError, "^rate"):
            blk.set_rate(0)
        self.assertEqual(blk.rate(), 1.5)
        with self.assertRaisesRegex(ValueError, "^table"):
            gpuinterp.table_lookup_ff([])
        with self.assertRaisesRegex(ValueError, "^filter"):
            gpuinterp.table_lookup_ff([1.0], filter="cubic")
        with self.assertRaisesRegex(ValueError, "^address"):
            gpuinterp.table_lookup_fc([1j], address="wrap")
        with self.assertRaisesRegex(ValueError, "^precision"):
            gpuinterp.table_lookup_fc([1j], precision="half")


class qa_table_lookup(gr_unittest.TestCase):

    def test_001_handbook_bit_patterns(self):
        table = [np.float32(i) / np.float32(10) for i in range(10)]
        x = np.float32([1.5, 1.6, 1.7, 1.8])
        y, _ = run_block(gpuinterp.table_lookup_ff(table, backend="cpu"), x, complex_in=False)
        self.assertEqual([hex(v) for v in np.float32(y).view(np.uint32)],
                         ["0x3dcccccd", "0x3de1999a", "0x3df5999a", "0x3e053333"])
        self.assertEqual(list(np.float32(gpuinterp.texture_fetch(table, x)).view(np.uint32)),
                         [0x3dcccccd, 0x3de1999a, 0x3df5999a, 0x3e053333])

    def test_001b_normalised_coordinate_precision_steps(self):
        # The H200 rule (measured, docs/resampler.md), restated in numpy: u keeps F = 21 / 22 / 23
        # fractional bits for widths <= 8192 / <= 65536 / above, x = u n exactly, the weight is
        # round-half-up(frac(x - 0.5) * 256) and the point index floor(x). A 0,1,0,1 table makes
        # a linear fetch return the weight itself (or 1 - weight), with no rounding.
        rng = np.random.default_rng(11)
        u = rng.uniform(0, 1, 20000).astype(np.float32)
        for n in (1000, 8192, 8193, 65536, 65537, 131072):
            F = 21 if n <= 8192 else (22 if n <= 65536 else 23)
            x = np.floor(u.astype(np.float64) * 2.0 ** F) / 2.0 ** F * n
            i = np.floor(x - 0.5)
            k = np.floor((x - 0.5 - i) * 256 + 0.5)
            i_eff = np.where(k == 256, i + 1, i)
            k_eff = np.where(k == 256, 0, k)
            alt = (np.arange(n) % 2).astype(np.float32)
            inside = (i_eff >= 0) & (i_eff < n - 1)
            want = np.where(i_eff % 2 == 0, k_eff / 256, 1 - k_eff / 256)
            got = np.array(gpuinterp.texture_fetch(alt.tolist(), u.tolist(), True, "clamp", True))
            self.assertTrue(np.array_equal(got[inside], want[inside]), n)
            ident = np.arange(n, dtype=np.float32)
            got_p = np.array(gpuinterp.texture_fetch(ident.tolist(), u.tolist(), False, "clamp", True))
            self.assertTrue(np.array_equal(got_p, np.clip(np.floor(x), 0, n - 1)), n)

    def test_002_point_clamp_border(self):
        t = [float(i) for i in range(16)]
        x = [0.99, 1.0, 16.0, -1.0]
        y, _ = run_block(gpuinterp.table_lookup_ff(t, filter="point", backend="cpu"), x, complex_in=False)
        self.assertEqual(list(y), [0.0, 1.0, 15.0, 0.0])
        y, _ = run_block(gpuinterp.table_lookup_ff(t, filter="point", address="border", backend="cpu"), x,
                         complex_in=False)
        self.assertEqual(list(y), [0.0, 1.0, 0.0, 0.0])

    def test_003_exact_linear_equals_numpy_interp(self):
        t = RNG.standard_normal(300).astype(np.float32)
        x = RNG.uniform(-5, 310, 20000).astype(np.float32)
        y, _ = run_block(gpuinterp.table_lookup_ff(t, precision="exact", backend="cpu"), x, complex_in=False)
        # texel k's centre is at k + 0.5; clamp = numpy's constant extension at the ends
        want = np.interp(x.astype(np.float64) - 0.5, np.arange(300), t)
        self.assertLess(np.max(np.abs(y - want)), 1e-6)
        k = gpuinterp.table_lookup_kernel_ff(t, precision="exact")
        np.testing.assert_array_equal(k.lookup(x), y)

    def test_004_gain_lut_on_complex_stream_and_set_table(self):
        # AM/AM + AM/PM predistortion: complex gain indexed by |x| (normalised to the table length).
        n = 64
        amp = (np.arange(n) + 0.5) / n
        lut = ((1 + 0.3 * amp ** 2) * np.exp(1j * 0.2 * amp ** 2)).astype(np.complex64)
        x = (0.9 * crandn(5000) / 2).astype(np.complex64)
        x = x / max(1.0, np.max(np.abs(x)))
        tb = gr.top_block()
        src = blocks.vector_source_c(x)
        mag = blocks.complex_to_mag()
        lk = gpuinterp.table_lookup_fc(lut, normalized=True, precision="exact", backend="cpu")
        mul = blocks.multiply_cc()
        snk = blocks.vector_sink_c()
        tb.connect(src, mag, lk, (mul, 1))
        tb.connect(src, (mul, 0))
        tb.connect(mul, snk)
        tb.run()
        a = np.abs(x).astype(np.float32)
        g = np.interp(a * n - 0.5, np.arange(n), lut.real) + 1j * np.interp(a * n - 0.5, np.arange(n), lut.imag)
        self.assertLess(np.max(np.abs(np.array(snk.data()) - x * g)), 1e-5)
        lk.set_table(list(2 * lut))
        np.testing.assert_array_equal(np.array(lk.table()), 2 * lut)

    def test_005_set_table_while_running(self):
        blk = gpuinterp.table_lookup_ff([1.0, 2.0], backend="cpu")
        tb = gr.top_block()
        snk = blocks.vector_sink_f()
        tb.connect(blocks.vector_source_f(np.full(3_000_000, 0.5, np.float32)), blk, snk)
        tb.start()
        for v in range(5):
            blk.set_table([float(v), 9.0])
            time.sleep(0.005)
        tb.wait()
        vals = set(np.unique(np.array(snk.data())))
        self.assertTrue(vals <= {1.0, 0.0, 2.0, 3.0, 4.0}, vals)
        self.assertEqual(len(snk.data()), 3_000_000)


if __name__ == "__main__":
    gr_unittest.run(qa_resampler)  # unittest.main: runs every TestCase of this module
