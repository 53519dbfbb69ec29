#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the blocks give a radio, in flowgraphs: dpd_predistorter_cc with several channels (every
channel against the numpy model with its own coefficients, bit for bit against a single-channel
block on the CPU; tags, dpd_coeffs switches and channel-addressed messages per channel), sc16
input of the predistorter and sc16 output of the predistorter, the FIR interpolator and the resampler against numpy's rounding and
clipping with the counts and NaN inputs, the estimator on sc16 captures, and the bad
parameters."""

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import gpuinterp
from gnuradio.gpuinterp.qa_dpd_predistorter import (
    crandn, dpd_numpy, make_tag, random_coeffs, tolerance)

RNG = np.random.default_rng(24)
BACKENDS = ["cpu"] + (["cuda"] if gpuinterp.cuda_device_count() > 0 else [])
# sc16 full scales every sc16 block refuses, as (keywords, the parameter the error names).
BAD_SC16_SCALES = [({"output_format": "sc16", "full_scale": v}, "full_scale")
                   for v in (0.0, -1.0, float("nan"), float("inf"))]
P, Q, Lp, Lq = 5, 3, 5, 3


def sc16_numpy(z, full_scale):
    """numpy's float32 product, round half to even, clip; (I/Q int16 pairs, saturated, invalid)."""
    z = np.asarray(z, np.complex64)
    parts = np.stack([z.real, z.imag], axis=-1).astype(np.float32)
    s = parts * np.float32(32767.0 / np.float32(full_scale))
    nan = np.isnan(s)
    r = np.rint(np.where(nan, 0, s).astype(np.float64))
    clip = (r > 32767) | (r < -32768)
    q = np.clip(r, -32768, 32767).astype(np.int16)
    return q.reshape(-1), int(np.count_nonzero(clip.any(axis=1))), int(np.count_nonzero(nan.any(axis=1)))


def run_channels(blk, xs, tags=None, item_bytes=8):
    """Feed xs[c] to input c; returns the outputs (complex64, or int16 I/Q pairs) and tags."""
    tb = gr.top_block()
    sinks = []
    for c, x in enumerate(xs):
        src = blocks.vector_source_c(x.tolist(), False, 1, list(tags[c]) if tags else [])
        snk = blocks.vector_sink_c() if item_bytes == 8 else blocks.vector_sink_s(2)
        tb.connect(src, (blk, c))
        tb.connect((blk, c), snk)
        sinks.append(snk)
    tb.run()
    out = [np.array(s.data(), np.complex64 if item_bytes == 8 else np.int16) for s in sinks]
    return out, [s.tags() for s in sinks]


def run_iq(blk, iqs, item_bytes=8, converter_scale=None):
    """Feed the I/Q int16 pairs iqs[c] to input c, as they are or (converter_scale) through GNU
    Radio's interleaved-short converter; returns the outputs (complex64, or int16 I/Q pairs)."""
    tb = gr.top_block()
    sinks = []
    for c, iq in enumerate(iqs):
        src = blocks.vector_source_s(np.asarray(iq, np.int16).tolist(), False, 2)
        snk = blocks.vector_sink_c() if item_bytes == 8 else blocks.vector_sink_s(2)
        if converter_scale is None:
            tb.connect(src, (blk, c))
        else:
            conv = blocks.interleaved_short_to_complex(True, False, converter_scale)
            tb.connect(src, conv, (blk, c))
        tb.connect((blk, c), snk)
        sinks.append(snk)
    tb.run()
    return [np.array(s.data(), np.complex64 if item_bytes == 8 else np.int16) for s in sinks]


def expand_sc16(iq, full_scale):
    """The values sc16 inputs stand for: each component times float32(full_scale / 32767), one
    float32 rounding of the exact product (computed in double)."""
    iq = np.asarray(iq, np.int16).astype(np.float64)
    inv = np.float64(np.float32(np.float32(full_scale) / np.float32(32767.0)))
    return ((iq[0::2] * inv).astype(np.float32) + 1j * (iq[1::2] * inv).astype(np.float32)).astype(
        np.complex64)


class qa_radio_formats(gr_unittest.TestCase):
    def assertRefusedNamingParameter(self, make, cases):
        """make(**keywords) raises a ValueError naming the parameter, for every (keywords, name)."""
        for kw, name in cases:
            with self.assertRaises(ValueError, msg=str(kw)) as cm:
                make(**kw)
            self.assertIn(name, str(cm.exception), str(kw))

    def assertModel(self, got, want, S, msg):
        err = np.abs(got.astype(np.complex128) - want)
        tol = tolerance(P, Q, Lp, Lq) * S + 1e-30
        worst = int(np.argmax(err - tol))
        self.assertTrue(np.all(err <= tol), f"{msg}: index {worst} err {err[worst]:.3g} > {tol[worst]:.3g}")

    def test_001_channels_are_independent_predistorters(self):
        N = 3
        xs = [crandn(20011, 0.9) for _ in range(N)]
        cos = [random_coeffs(P, Q, Lp, Lq) for _ in range(N)]
        for backend in BACKENDS:
            blk = gpuinterp.dpd_predistorter_cc(P, Q, Lp, Lq, cos[0], 0.01, backend, channels=N)
            self.assertEqual(blk.channels(), N)
            for c in range(1, N):
                blk.set_channel_coefficients(c, cos[c], 0.02 * c)
            tags = [[make_tag(100 + c, f"mark{c}", pmt.from_long(c))] for c in range(N)]
            ys, out_tags = run_channels(blk, xs, tags)
            for c in range(N):
                z, S = dpd_numpy(xs[c], P, Q, Lp, Lq, cos[c], 0.01 if c == 0 else 0.02 * c)
                self.assertModel(ys[c], z, S, f"{backend} channel {c}")
                # a tag stays on its own channel; a set given before the start marks the
                # channel's first output (dpd_switch), only on the channels that got one
                keys = [(t.offset, pmt.symbol_to_string(t.key)) for t in out_tags[c]]
                self.assertEqual([k for k in keys if k[1] != "dpd_switch"], [(100 + c, f"mark{c}")])
                self.assertEqual((0, "dpd_switch") in keys, c > 0, f"channel {c}: {keys}")
                if backend == "cpu":
                    one = gpuinterp.dpd_predistorter_cc(P, Q, Lp, Lq, cos[c], 0.01 if c == 0 else 0.02 * c, "cpu")
                    y1, _ = run_channels(one, [xs[c]])
                    np.testing.assert_array_equal(ys[c], y1[0], f"channel {c} not bit-exact")

    def test_002_dpd_coeffs_tag_switches_only_its_channel(self):
        N = 2
        a, b = random_coeffs(P, Q, Lp, Lq), random_coeffs(P, Q, Lp, Lq)
        xs = [crandn(12000), crandn(12000)]
        for backend in BACKENDS:
            blk = gpuinterp.dpd_predistorter_cc(P, Q, Lp, Lq, a, 0, backend, channels=N)
            tags = [[], [make_tag(5003, "dpd_coeffs", pmt.to_pmt(b))]]
            ys, _ = run_channels(blk, xs, tags)
            z0, S0 = dpd_numpy(xs[0], P, Q, Lp, Lq, a)
            za, Sa = dpd_numpy(xs[1], P, Q, Lp, Lq, a)
            zb, Sb = dpd_numpy(xs[1], P, Q, Lp, Lq, b)
            self.assertModel(ys[0], z0, S0, f"{backend} channel 0 untouched")
            self.assertModel(ys[1], np.concatenate([za[:5003], zb[5003:]]),
                             np.concatenate([Sa[:5003], Sb[5003:]]), f"{backend} channel 1 switched")
            np.testing.assert_array_equal(blk.channel_coefficients(1), b)
            np.testing.assert_array_equal(blk.channel_coefficients(0), a)

    def test_003_messages_name_their_channel(self):
        N = 3
        a, b = random_coeffs(P, Q, Lp, Lq), random_coeffs(P, Q, Lp, Lq)
        for backend in BACKENDS:
            blk = gpuinterp.dpd_predistorter_cc(P, Q, Lp, Lq, a, 0, backend, channels=N)
            blk._post(pmt.intern("coeffs"), pmt.to_pmt({"coefficients": b, "channel": 2}))
            blk._post(pmt.intern("coeffs"), pmt.to_pmt({"coefficients": b, "channel": 7}))  # no such channel
            blk._post(pmt.intern("coeffs"), pmt.to_pmt({"coefficients": b, "channel": -1}))  # malformed
            xs = [crandn(3000) for _ in range(N)]
            ys, _ = run_channels(blk, xs)
            for c in range(N):
                want = b if c == 2 else a
                np.testing.assert_array_equal(blk.channel_coefficients(c), want)
                z, S = dpd_numpy(xs[c], P, Q, Lp, Lq, want)
                self.assertModel(ys[c], z, S, f"{backend} channel {c}")
            # without a channel: every channel
            blk = gpuinterp.dpd_predistorter_cc(P, Q, Lp, Lq, a, 0, backend, channels=N)
            blk._post(pmt.intern("coeffs"), pmt.to_pmt({"coefficients": b, "lo_leakage": 0.5}))
            run_channels(blk, xs)
            for c in range(N):
                np.testing.assert_array_equal(blk.channel_coefficients(c), b)
                self.assertEqual(blk.channel_lo_leakage(c), 0.5)

    def test_004_sc16_is_numpys_rounding_with_counts(self):
        N = 2
        for backend in BACKENDS:
            for fs in (1.0, 0.6):
                co = random_coeffs(P, Q, Lp, Lq) * np.complex64(0.1)
                co[0] = 1.0
                xs = [crandn(15000, 0.5), crandn(15000, 0.95)]   # channel 1 overdrives full scale 0.6
                xs[0][321] = np.nan + 0.1j
                fblk = gpuinterp.dpd_predistorter_cc(P, Q, Lp, Lq, co, 0, backend, channels=N)
                sblk = gpuinterp.dpd_predistorter_cc(P, Q, Lp, Lq, co, 0, backend, channels=N,
                                                     output_format="sc16", full_scale=fs)
                self.assertEqual(sblk.output_format(), "sc16")
                zf, _ = run_channels(fblk, xs)
                zs, _ = run_channels(sblk, xs, item_bytes=4)
                for c in range(N):
                    want, sat, bad = sc16_numpy(zf[c], fs)
                    np.testing.assert_array_equal(zs[c], want, f"{backend} fs={fs} channel {c}")
                    self.assertEqual(sblk.saturated(c), sat, f"{backend} fs={fs} channel {c}")
                    self.assertEqual(sblk.invalid(c), bad, f"{backend} fs={fs} channel {c}")
                # the NaN input reaches Lp outputs, each written as 0 I and counted
                self.assertGreaterEqual(sblk.invalid(0), 1)
                self.assertEqual(list(zs[0][2 * 321:2 * 321 + 2]), [0, 0])
                if fs == 0.6:
                    self.assertGreater(sblk.saturated(1), 50)
                else:
                    self.assertEqual(sblk.saturated(0), 0)

    def test_005_sc16_feeds_a_short_consumer(self):
        # The 4-byte item is what gr-uhd's sc16 takes: GNU Radio's interleaved-short converter
        # reads it back as the complex output.
        co = random_coeffs(P, Q, Lp, Lq) * np.complex64(0.3)
        co[0] = 1.0
        x = crandn(4000, 0.5)
        for backend in BACKENDS:
            blk = gpuinterp.dpd_predistorter_cc(P, Q, Lp, Lq, co, 0, backend, output_format="sc16")
            src = blocks.vector_source_c(x.tolist())
            conv = blocks.interleaved_short_to_complex(True, False, 32767.0)
            snk = blocks.vector_sink_c()
            tb = gr.top_block()
            tb.connect(src, blk, conv, snk)
            tb.run()
            z, _ = dpd_numpy(x, P, Q, Lp, Lq, co)
            np.testing.assert_allclose(np.array(snk.data()), z, atol=1.0 / 32767)

    def test_006_bad_parameters_name_themselves(self):
        co = random_coeffs(P, Q, Lp, Lq)
        self.assertRefusedNamingParameter(
            lambda **kw: gpuinterp.dpd_predistorter_cc(P, Q, Lp, Lq, co, 0, "cpu", **kw),
            [({"channels": 0}, "channels"), ({"channels": 65}, "channels"),
             ({"channels": -2}, "channels"), ({"output_format": "fc64"}, "output_format")]
            + BAD_SC16_SCALES)
        blk = gpuinterp.dpd_predistorter_cc(P, Q, Lp, Lq, co, 0, "cpu", channels=2)
        with self.assertRaises(ValueError) as cm:
            blk.set_channel_coefficients(2, co)
        self.assertIn("channel", str(cm.exception))
        with self.assertRaises(ValueError):
            blk.set_channel_coefficients(0, co[:3])
        np.testing.assert_array_equal(blk.channel_coefficients(0), co)

    def test_007_estimator_reads_sc16_as_the_float_it_stands_for(self):
        # The estimator on sc16 captures (the predistorter's sc16 output, scaled by its full
        # scale, and a usrp_source's sc16, 32767 = 1.0) steps exactly as on the float values
        # those integers stand for.
        from gnuradio.gpuinterp.qa_estimator_radio import loop_signals
        n, fs = 4 * 8192, 0.8
        x, y = loop_signals(n, extra=1000)
        xq, _, _ = sc16_numpy(x, fs)
        yq, _, _ = sc16_numpy(y[:n], 1.0)
        xf = (xq.reshape(-1, 2).astype(np.float32) * np.float32(fs / 32767.0)).view(np.complex64).ravel()
        yf = (yq.reshape(-1, 2).astype(np.float32) * np.float32(1.0 / 32767.0)).view(np.complex64).ravel()
        results = []
        for fmt in ("fc32", "sc16"):
            est = gpuinterp.dpd_estimator_cc(5, 0, 3, 1, capture_length=8192, update_period=8192,
                                             synchronous=True, rx_timeout=0, backend="cpu",
                                             tx_format=fmt, tx_full_scale=fs, rx_format=fmt)
            tb = gr.top_block()
            if fmt == "fc32":
                sx, sy = blocks.vector_source_c(xf.tolist()), blocks.vector_source_c(yf.tolist())
            else:
                sx, sy = blocks.vector_source_s(xq.tolist(), False, 2), blocks.vector_source_s(yq.tolist(), False, 2)
            tb.connect(sx, (est, 0))
            tb.connect(sy, (est, 1))
            tb.run()
            self.assertIn("updated", [r.status for r in est.history()], fmt)
            results.append(est.coefficients())
        np.testing.assert_array_equal(results[1], results[0])
        with self.assertRaises(ValueError) as cm:
            gpuinterp.dpd_estimator_cc(rx_format="sc8")
        self.assertIn("rx_format", str(cm.exception))
        with self.assertRaises(ValueError) as cm:
            gpuinterp.dpd_estimator_cc(tx_format="sc16", tx_full_scale=0.0)
        self.assertIn("tx_full_scale", str(cm.exception))

    def test_008_fir_interpolator_sc16(self):
        taps = (RNG.standard_normal(64) * 0.5).astype(np.float32).tolist()
        x = crandn(9001, 0.4)
        x[4000] = np.nan
        for backend in BACKENDS:
            for fs in (1.0, 0.5):
                f = gpuinterp.interp_fir_ccf(8, taps, backend)
                q = gpuinterp.interp_fir_ccf(8, taps, backend, output_format="sc16", full_scale=fs)
                self.assertEqual(q.output_format(), "sc16")
                zf, _ = run_channels(f, [x])
                zq, _ = run_channels(q, [x], item_bytes=4)
                want, sat, bad = sc16_numpy(zf[0], fs)
                np.testing.assert_array_equal(zq[0], want, f"{backend} fs={fs}")
                self.assertEqual((q.saturated(), q.invalid()), (sat, bad), f"{backend} fs={fs}")
                self.assertGreater(bad, 0)
        for kw, name in [({"output_format": "sc8"}, "output_format"),
                         ({"output_format": "sc16", "full_scale": 0.0}, "full_scale")]:
            with self.assertRaises(ValueError) as cm:
                gpuinterp.interp_fir_ccf(2, [1.0, 1.0], "cpu", **kw)
            self.assertIn(name, str(cm.exception))
        with self.assertRaises(ValueError) as cm:
            gpuinterp.interp_fir_fff(2, [1.0, 1.0], "cpu", output_format="sc16")
        self.assertIn("output_format", str(cm.exception))

    def test_009_resampler_sc16(self):
        # Every method, host and device buffers: the sc16 block's output is numpy's rounding and
        # clipping of the float block's (the resampler's output does not depend on how the
        # scheduler cuts the stream), with the counts.
        x = crandn(20011, 0.95)
        x_nan = x.copy()
        x_nan[5000:5003] = np.nan + 0.2j  # three in a row: at these rates every method reads one
        for backend in BACKENDS:
            for method in ("polyphase", "cubic", "linear", "texture", "nearest"):
                # CUDA's texture unit also carries a NaN into the texture row above (weight 0),
                # and where the rows start depends on the work() calls: no NaN there.
                nan = not (backend == "cuda" and method == "texture")
                xs = x_nan if nan else x
                for r, fs, dev in ((1.25, 0.7, False), (0.73, 1.0, True), (3.1, 0.5, True)):
                    what = f"{backend} {method} r={r} fs={fs} device_buffers={dev}"
                    f = gpuinterp.resampler_cc(r, method, backend=backend, device_buffers=dev)
                    q = gpuinterp.resampler_cc(r, method, backend=backend, device_buffers=dev,
                                               output_format="sc16", full_scale=fs)
                    self.assertEqual((f.output_format(), q.output_format()), ("fc32", "sc16"))
                    zf, _ = run_channels(f, [xs])
                    zq, _ = run_channels(q, [xs], item_bytes=4)
                    want, sat, bad = sc16_numpy(zf[0], fs)
                    np.testing.assert_array_equal(zq[0], want, what)
                    self.assertEqual((q.saturated(), q.invalid()), (sat, bad), what)
                    self.assertEqual((f.saturated(), f.invalid()), (0, 0), what)
                    if nan:
                        self.assertGreater(bad, 0, what)
                    if fs < 1.0:
                        self.assertGreater(sat, 0, what)

    def test_010_resampler_sc16_feeds_a_short_consumer(self):
        # GNU Radio's interleaved-short converter reads the 4-byte items back as the float
        # resampler's output, to within one step.
        x = crandn(6000, 0.5)
        for backend in BACKENDS:
            f = gpuinterp.resampler_cc(1.25, "polyphase", backend=backend)
            zf, _ = run_channels(f, [x])
            blk = gpuinterp.resampler_cc(1.25, "polyphase", backend=backend, output_format="sc16")
            tb = gr.top_block()
            snk = blocks.vector_sink_c()
            tb.connect(blocks.vector_source_c(x.tolist()), blk,
                       blocks.interleaved_short_to_complex(True, False, 32767.0), snk)
            tb.run()
            np.testing.assert_allclose(np.array(snk.data()), zf[0], atol=1.0 / 32767, err_msg=backend)
            self.assertEqual((blk.saturated(), blk.invalid()), (0, 0))

    def test_011_resampler_sc16_bad_parameters(self):
        self.assertRefusedNamingParameter(
            lambda **kw: gpuinterp.resampler_cc(1.25, "polyphase", backend="cpu", **kw),
            [({"output_format": "sc8"}, "output_format"),
             ({"output_format": "fc64"}, "output_format")] + BAD_SC16_SCALES)
        with self.assertRaises(ValueError) as cm:
            gpuinterp.resampler_ff(1.25, "polyphase", backend="cpu", output_format="sc16")
        self.assertIn("output_format", str(cm.exception))
        # fc32 takes no notice of full_scale, as the other blocks do not; the aliases are accepted
        self.assertEqual(gpuinterp.resampler_ff(1.25, backend="cpu", full_scale=0.0).output_format(), "fc32")
        self.assertEqual(gpuinterp.resampler_cc(1.25, backend="cpu", output_format="complex int16").output_format(),
                         "sc16")

    def test_012_sc16_input_reads_what_gnu_radios_converter_reads(self):
        # I/Q int16 pairs into the predistorter, against GNU Radio's own interleaved-short
        # converter feeding a complex float one, and against numpy's model of the values.
        co = random_coeffs(P, Q, Lp, Lq) * np.complex64(0.3)
        co[0] = 1.0
        fs = 0.75
        iq = RNG.integers(-26000, 26000, size=2 * 6000, dtype=np.int16)
        x = (iq[0::2].astype(np.float64) + 1j * iq[1::2]) * np.float64(np.float32(fs / 32767.0))
        z, S = dpd_numpy(x.astype(np.complex64), P, Q, Lp, Lq, co)
        for backend in BACKENDS:
            for out_fmt in ("fc32", "sc16"):
                blk = gpuinterp.dpd_predistorter_cc(P, Q, Lp, Lq, co, 0, backend, input_format="sc16",
                                                    output_format=out_fmt, full_scale=fs)
                self.assertEqual(blk.input_format(), "sc16")
                ref = gpuinterp.dpd_predistorter_cc(P, Q, Lp, Lq, co, 0, backend, output_format=out_fmt,
                                                    full_scale=fs)
                tb = gr.top_block()
                src = blocks.vector_source_s(iq.tolist(), False, 2)
                conv = blocks.interleaved_short_to_complex(True, False, 32767.0 / fs)
                snk = blocks.vector_sink_c() if out_fmt == "fc32" else blocks.vector_sink_s(2)
                rsnk = blocks.vector_sink_c() if out_fmt == "fc32" else blocks.vector_sink_s(2)
                tb.connect(src, blk, snk)
                tb.connect(src, conv, ref, rsnk)
                tb.run()
                msg = f"{backend} {out_fmt}"
                if out_fmt == "fc32":
                    got = np.array(snk.data(), np.complex64)
                    self.assertModel(got, z, S, msg)
                    np.testing.assert_allclose(got, np.array(rsnk.data()), rtol=0, atol=1e-5, err_msg=msg)
                else:
                    got = np.array(snk.data(), np.int16).astype(np.int32)
                    want, _, _ = sc16_numpy(z, fs)
                    self.assertLessEqual(int(np.max(np.abs(got - want))), 1, msg)
                    self.assertLessEqual(int(np.max(np.abs(got - np.array(rsnk.data(), np.int32)))), 1, msg)

    def test_013_fir_sc16_input(self):
        # I/Q int16 pairs into the interpolator: bit for bit the fc32 block fed the expanded
        # values on the CPU (float rounding on CUDA), GNU Radio's interleaved-short converter
        # feeding the fc32 block, and scipy's upfirdn of the values; one and three channels,
        # host and device buffers, fc32 and sc16 out.
        from scipy import signal
        L, fs = 4, 0.6
        taps = (RNG.standard_normal(37) * 0.5).astype(np.float32)
        iqs = [RNG.integers(-32768, 32767, size=2 * 3001, dtype=np.int16) for _ in range(3)]
        for backend in BACKENDS:
            for N, dev, out_fmt in ((1, False, "fc32"), (3, True, "fc32"), (3, False, "sc16"),
                                    (1, True, "sc16")):
                what = f"{backend} N={N} device_buffers={dev} {out_fmt}"
                ob = 8 if out_fmt == "fc32" else 4
                kw = dict(device_buffers=dev, output_format=out_fmt, full_scale=fs, channels=N)
                blk = gpuinterp.interp_fir_ccf(L, taps.tolist(), backend, input_format="sc16", **kw)
                self.assertEqual((blk.input_format(), blk.full_scale()), ("sc16", np.float32(fs)))
                got = run_iq(blk, iqs[:N], ob)
                ref = gpuinterp.interp_fir_ccf(L, taps.tolist(), backend, **kw)
                want, _ = run_channels(ref, [expand_sc16(iq, fs) for iq in iqs[:N]], item_bytes=ob)
                conv = run_iq(gpuinterp.interp_fir_ccf(L, taps.tolist(), backend, **kw), iqs[:N], ob,
                              converter_scale=32767.0 / fs)
                for c in range(N):
                    x = expand_sc16(iqs[c], fs).astype(np.complex128)
                    model = signal.upfirdn(taps.astype(np.float64), x, L)[:len(x) * L]
                    if out_fmt == "fc32":
                        if backend == "cpu":
                            np.testing.assert_array_equal(got[c], want[c], what)
                        np.testing.assert_allclose(got[c], want[c], rtol=0, atol=2e-6, err_msg=what)
                        np.testing.assert_allclose(got[c], conv[c], rtol=0, atol=2e-6, err_msg=what)
                        np.testing.assert_allclose(got[c], model, rtol=0, atol=2e-6, err_msg=what)
                    else:
                        q, _, _ = sc16_numpy(model, fs)
                        d = np.abs(got[c].astype(np.int32) - q.astype(np.int32))
                        self.assertLessEqual(int(d.max()), 1, what)
                        d = np.abs(got[c].astype(np.int32) - conv[c].astype(np.int32))
                        self.assertLessEqual(int(d.max()), 1, what)
                        if backend == "cpu":
                            np.testing.assert_array_equal(got[c], want[c], what)
                if out_fmt == "sc16":
                    self.assertGreater(blk.saturated(0), 0, what)  # full-scale inputs, gain > 1
        self.assertRefusedNamingParameter(
            lambda **kw: gpuinterp.interp_fir_ccf(2, [1.0, 1.0], "cpu", **kw),
            [({"input_format": "sc8"}, "input_format"),
             ({"input_format": "sc16", "full_scale": 0.0}, "full_scale")])
        with self.assertRaises(ValueError) as cm:
            gpuinterp.interp_fir_fff(2, [1.0, 1.0], "cpu", input_format="sc16")
        self.assertIn("input_format", str(cm.exception))

    def test_014_resampler_sc16_input(self):
        # The resampler with sc16 input: the fc32 block fed the expanded values (bit for bit:
        # the kernel expands the inputs, then resamples them as complex float), and GNU Radio's
        # converter feeding the fc32 block; fc32 and sc16 out, three channels.
        fs = 0.9
        iqs = [RNG.integers(-30000, 30000, size=2 * 8000, dtype=np.int16) for _ in range(3)]
        for backend in BACKENDS:
            for method, r, N, dev, out_fmt in (("polyphase", 1.25, 1, False, "fc32"),
                                               ("cubic", 0.73, 3, False, "sc16"),
                                               ("linear", 3.1, 3, True, "fc32")):
                what = f"{backend} {method} r={r} N={N} device_buffers={dev} {out_fmt}"
                ob = 8 if out_fmt == "fc32" else 4
                kw = dict(backend=backend, device_buffers=dev, output_format=out_fmt,
                          full_scale=fs, channels=N)
                blk = gpuinterp.resampler_cc(r, method, input_format="sc16", **kw)
                self.assertEqual(blk.input_format(), "sc16", what)
                got = run_iq(blk, iqs[:N], ob)
                want, _ = run_channels(gpuinterp.resampler_cc(r, method, **kw),
                                       [expand_sc16(iq, fs) for iq in iqs[:N]], item_bytes=ob)
                conv = run_iq(gpuinterp.resampler_cc(r, method, **kw), iqs[:N], ob,
                              converter_scale=32767.0 / fs)
                for c in range(N):
                    np.testing.assert_array_equal(got[c], want[c], what)
                    if out_fmt == "fc32":
                        np.testing.assert_allclose(got[c], conv[c], rtol=0, atol=2e-6, err_msg=what)
                    else:
                        d = np.abs(got[c].astype(np.int32) - conv[c].astype(np.int32))
                        self.assertLessEqual(int(d.max()), 1, what)
        self.assertRefusedNamingParameter(
            lambda **kw: gpuinterp.resampler_cc(1.25, "polyphase", backend="cpu", **kw),
            [({"input_format": "sc8"}, "input_format"),
             ({"input_format": "sc16", "full_scale": float("nan")}, "full_scale")])
        with self.assertRaises(ValueError) as cm:
            gpuinterp.resampler_ff(1.25, backend="cpu", input_format="sc16")
        self.assertIn("input_format", str(cm.exception))


if __name__ == "__main__":
    gr_unittest.run(qa_radio_formats)
