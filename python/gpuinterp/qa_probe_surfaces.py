#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The DPD loop's newer surfaces, each asked what a new user might ask of it: the emulated radio's
extreme settings and non-finite input, the estimator's memory after max_updates, a receiver stream
that ends, coefficients files that are not what they claim, malformed rx_rate / rx_freq tags, the
coeffs message's channel, and the estimation kernels' argument checks and error messages. Every
case either works (asserted with the values it gives) or is refused at once with a message that
names the parameter, file or input at fault. Tables of cases, as qa_bad_params.py."""

import math
import os
import stat
import tempfile
import threading

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import gpuinterp
from gnuradio.gpuinterp import dpd, dpd_reference, metrics, radio_messages
from gnuradio.gpuinterp import dpd_model as dm
from gnuradio.gpuinterp import sdr_emulator

from qa_estimator_radio import FS, N, P, Q, EstimatorCase, Lp, Lq, LogRecorder, tag  # noqa: E402

SPEC = f"ph:P={P},Q={Q},Lp={Lp},Lq={Lq}"


def in_thread(fn, timeout):
    """fn() on a thread: (finished, result or exception). A hang is a failed case, not a hung suite."""
    out = {}

    def run():
        try:
            out["value"] = fn()
        except BaseException as e:  # noqa: B902 (reported to the test)
            out["error"] = e
    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(timeout)
    return not t.is_alive(), out.get("error", out.get("value"))


class qa_probe_surfaces(EstimatorCase):
    # -- the emulated radio ----------------------------------------------------------------------
    def test_emulator_refuses_values_it_cannot_emulate(self):
        fs = 122.88e6
        cases = [  # (keyword, value, message prefix)
            ("start_time", 2e19, "start_time:"), ("start_time", 2.0 ** 64, "start_time:"),
            ("start_time", 1e300, "start_time:"), ("start_time", math.inf, "start_time:"),
            ("start_time", 2.0 ** 63 / fs * 1.01, "start_time:"),
            ("latency", 1e9, "latency:"), ("latency", 2.0 ** 63, "latency:"), ("latency", 1e10, "latency:"),
            ("latency", sdr_emulator.MAX_LATENCY + 1, "latency:"),
            ("tx_gain_db", 200, "tx_gain_db:"), ("tx_gain_db", 1000, "tx_gain_db:"),
            ("tx_gain_db", 40.01, "tx_gain_db:"), ("rx_gain_db", 1000, "rx_gain_db:"),
            ("rx_gain_db", 60.01, "rx_gain_db:"), ("rx_gain_db", -1000, "rx_gain_db:"),
            ("sample_rate", 1e-300, "sample_rate:"), ("sample_rate", 0.5, "sample_rate:"),
            ("sample_rate", 1e300, "sample_rate:"), ("center_freq", 1e300, "center_freq:"),
            ("lo_drift_hz_per_s", 1e300, "lo_drift_hz_per_s:"), ("lo_drift_hz_per_s", -1e13, "lo_drift_hz_per_s:"),
        ]
        for key, value, prefix in cases:
            with self.subTest(key=key, value=value):
                kw = dict({"sample_rate": fs}, **{key: value})
                ok, r = in_thread(lambda: gpuinterp.sdr_loopback_emulator_cc(**kw), 30)
                self.assertTrue(ok, f"{key}={value}: construction hangs")
                self.assertIsInstance(r, ValueError, f"{key}={value} accepted")
                self.assertTrue(str(r).startswith(prefix), str(r))
        # the largest values accepted are built (start_time at the bound, the gain limits)
        emu = gpuinterp.sdr_loopback_emulator_cc(sample_rate=fs, start_time=2.0 ** 63 / fs, tx_gain_db=40,
                                                 rx_gain_db=60, latency=1e5)
        self.assertEqual(emu.latency(), 1e5)
        setters = [(emu.set_latency, 1e10, "latency:"), (emu.set_latency, 2.0 ** 63, "latency:"),
                   (emu.set_tx_gain_db, 200, "tx_gain_db:"), (emu.set_rx_gain_db, 1000, "rx_gain_db:")]
        for fn, value, prefix in setters:
            with self.subTest(setter=fn.__name__, value=value):
                with self.assertRaises(ValueError) as cm:
                    fn(value)
                self.assertTrue(str(cm.exception).startswith(prefix), str(cm.exception))
        self.assertEqual(emu.latency(), 1e5)  # a refused set_latency changes nothing
        gpuinterp.sdr_loopback_emulator_cc(sample_rate=fs, lo_phase_deg=1e300)  # any angle is a phase

    def test_estimator_flags_and_initial_coefficients(self):
        ident = dpd.identity_coefficients(P, Q, Lp, Lq)
        cases = [  # (keyword, value, message prefix)
            ("lo_leakage", "no", "lo_leakage: must be True or False"), ("synchronous", "no", "synchronous:"),
            ("rx_correction", 2, "rx_correction:"), ("track_frequency", None, "track_frequency:"),
            ("initial_coefficients", "a", "initial_coefficients: must be a sequence of numbers"),
            ("initial_coefficients", [math.nan] * ident.size,
             f"initial_coefficients: expected {ident.size} finite values for {SPEC}, got {ident.size}, "
             f"{ident.size} of them NaN or infinite"),
            ("initial_coefficients", [1e30] * ident.size, "initial_coefficients: the predistorter's gain"),
            ("initial_coefficients", 10 * ident, "initial_coefficients: the predistorter's gain on a -14 dBFS test "
                                                 "signal is 20.0 dB"),
            ("initial_coefficients", None, "initial_coefficients: must be a sequence of numbers"),
            ("target_gain", 1e300, "target_gain:"), ("tx_format", [], "tx_format:"),
            ("damping", True, "damping: must be a number"),
        ]
        # A backend this machine cannot run is refused at construction, as the fit's kernels would
        # refuse it at the first capture (the same rule and message).
        if gpuinterp.cuda_device_count() == 0:
            with self.assertRaises(RuntimeError) as want:
                gpuinterp.dpd_gram("mp:K=3,M=2", backend="cuda")
            with self.assertRaises(RuntimeError) as cm:
                gpuinterp.dpd_estimator_cc(P, Q, Lp, Lq, capture_length=N, update_period=N, backend="cuda")
            self.assertEqual(str(cm.exception), str(want.exception))
        for t in (1e-300, 0.005):  # a watchdog shorter than the receiver's bursts reads a flowing one as stalled
            with self.assertRaises(ValueError) as cm:
                gpuinterp.dpd_estimator_cc(P, Q, Lp, Lq, capture_length=N, update_period=N, rx_timeout=t)
            self.assertTrue(str(cm.exception).startswith("rx_timeout: must be 0 (off) or at least 0.01 s"),
                            str(cm.exception))
        for key, value, prefix in cases:
            with self.subTest(key=key, value=value):
                with self.assertRaises(ValueError) as cm:
                    gpuinterp.dpd_estimator_cc(P, Q, Lp, Lq, capture_length=N, update_period=N, rx_timeout=0,
                                               **{key: value})
                self.assertTrue(str(cm.exception).startswith(prefix), str(cm.exception))
        est = gpuinterp.dpd_estimator_cc(P, Q, Lp, Lq, capture_length=N, update_period=N, rx_timeout=0,
                                         initial_coefficients=2 * ident, lo_leakage=np.bool_(False))
        np.testing.assert_allclose(est.coefficients(), 2 * ident)

    def _emulate(self, x, **kw):
        tb = gr.top_block()
        src = blocks.vector_source_c(np.asarray(x, dtype=np.complex64).tolist(), False)
        emu = gpuinterp.sdr_loopback_emulator_cc(latency=20.0, seed=4, **kw)
        snk = blocks.vector_sink_c()
        tb.connect(src, emu, snk)
        tb.run()
        return np.asarray(snk.data(), dtype=np.complex64), emu

    def test_emulator_counts_nonfinite_samples(self):
        # One bad input sample with tx_sc16=False: the ADC never outputs NaN, and says how many
        # samples it got that were not finite. Every other sample is the clean run's, bit for bit
        # (same seed), and the samples that differ are exactly the ones counted.
        x = metrics.ofdm_test_signal(20000, rms=0.2, papr_db=8.0, seed=5).astype(np.complex64)
        clean, emu0 = self._emulate(x, tx_sc16=False)
        self.assertEqual(emu0.nonfinite(), 0)
        for bad in (np.nan, np.inf, 1e30, complex(0, np.nan)):
            with self.subTest(bad=bad):
                xb = x.copy()
                xb[5000] = bad
                y, emu = self._emulate(xb, tx_sc16=False)
                self.assertEqual(y.size, clean.size)
                self.assertTrue(np.all(np.isfinite(y)), f"{np.count_nonzero(~np.isfinite(y))} non-finite outputs")
                differ = int(np.count_nonzero(y != clean))
                self.assertGreater(emu.nonfinite(), 0)
                self.assertLess(emu.nonfinite(), 64)  # the fractional-delay FIR's span, not the stream
                self.assertEqual(differ, emu.nonfinite(), (differ, emu.nonfinite()))

    def test_emulator_at_its_largest_gains_stays_finite(self):
        # +40 dB of drive and +60 dB of RX gain: deep saturation and a clipping ADC, both counted,
        # no NaN (200 dB of gain used to give 19996 NaN of 20000 with clipped() 0).
        x = metrics.ofdm_test_signal(20000, rms=0.2, papr_db=8.0, seed=5).astype(np.complex64)
        y, emu = self._emulate(x, tx_gain_db=40, rx_gain_db=60)
        self.assertTrue(np.all(np.isfinite(y)))
        self.assertEqual(emu.nonfinite(), 0)
        self.assertGreater(emu.clipped(), 0.5 * y.size)
        self.assertAlmostEqual(float(np.max(np.abs(y.real))), 1.0, delta=1e-3)

    # -- the estimator's memory and the end of the receiver's stream -----------------------------
    def test_memory_bounded_after_max_updates(self):
        # 24 captures' worth of stream after the one step allowed: nothing of it is kept.
        total = 25 * N
        x, y = np.resize(self.x, total), np.resize(self.y[:self.x.size], total)
        est, log, _, _ = self.run_estimator(x, y, max_updates=1)
        self.assertEqual([r.status for r in est.history()], ["calibrating"])
        self.assertEqual([w.end - w.base for w in est._win], [0, 0])
        # the windows' arrays were never grown to the stream (the old code held all 25 N samples)
        self.assertLessEqual(max(w._a.size for w in est._win), 8 * N)
        self.assertEqual(log.count("max_updates: 1 steps made"), 1, log.messages())

    def _rx_ends(self, rx_timeout):
        # x: 12 captures to a TX sink and the estimator; y: the first two captures, then its source
        # ends. The TX sink gets every x sample, the estimator makes the two steps it can and says
        # once that the receiver's stream ended.
        total, ny = 12 * N, 2 * N + 100
        tb = gr.top_block()
        sx = blocks.vector_source_c(np.resize(self.x, total).tolist(), False)
        sy = blocks.vector_source_c(self.y[:ny].tolist(), False)
        cx, cy = blocks.copy(gr.sizeof_gr_complex), blocks.copy(gr.sizeof_gr_complex)
        tx = blocks.vector_sink_c()
        est = gpuinterp.dpd_estimator_cc(P, Q, Lp, Lq, capture_length=N, update_period=N, synchronous=True,
                                         rx_timeout=rx_timeout)
        log = LogRecorder(est.logger)
        est.logger = log
        tb.connect(sx, cx)
        tb.connect(cx, tx)
        tb.connect(cx, (est, 0))
        tb.connect(sy, cy, (est, 1))
        ok, err = in_thread(tb.run, 60)
        self.assertTrue(ok, "the flowgraph never ends")
        self.assertIsNone(err)
        return len(tx.data()), total, est, log

    def test_rx_stream_end_keeps_tx_flowing(self):
        for rx_timeout in (0.0, 5.0):  # with and without the watchdog: the end is seen, not timed out
            with self.subTest(rx_timeout=rx_timeout):
                got, total, est, log = self._rx_ends(rx_timeout)
                self.assertEqual(got, total, "the transmit chain stopped with the receiver")
                self.assertEqual([r.status for r in est.history()], ["calibrating", "updated"])
                self.assertEqual(log.count("the receiver stream ended", "warn"), 1, log.messages())
                self.assertEqual(log.count("capture dropped"), 0, log.messages())
                self.assertEqual(log.count("rx_timeout"), 0, log.messages())
                self.assertEqual(est.status(), "the receiver stream ended")
                self.assertEqual(est.meter("dropped_captures"), 0)

    # -- coefficients files ----------------------------------------------------------------------
    def test_coefficients_file_refusals(self):
        K = dm.parse(SPEC).num_coefficients
        ident = dpd.identity_coefficients(P, Q, Lp, Lq)
        with tempfile.TemporaryDirectory() as d:
            def path(name):
                return os.path.join(d, name)
            fifo = path("fifo.json")
            os.mkfifo(fifo)
            dm.save_model(path("pa.json"), dm.ModelFit(SPEC, ident, 0j, kind="pa_model"))
            w = ident.copy()
            w[K - 1] = 1e30
            dm.save_model(path("huge.json"), dm.ModelFit(SPEC, w, 0j, kind="predistorter"))
            dm.save_model(path("loud.json"), dm.ModelFit(SPEC, 10 * ident, 0j, kind="predistorter"))
            with open(path("big.json"), "wb") as f:
                f.truncate(65 << 20)  # sparse: no disk used
            os.mkdir(path("folder"))
            cases = [  # (path, words the message must hold)
                (fifo, "is a FIFO"), ("/dev/full", "is a device"), ("/dev/zero", "is a device"),
                (path("folder"), "is a directory"), (path("big.json"), "larger than any such file"),
                (path("pa.json"), "'pa_model'"), (path("huge.json"), "largest coefficient 1e+30 at index"),
                (path("loud.json"), "gain on a -14 dBFS test signal is 20.0 dB"),
            ]
            for p, words in cases:
                with self.subTest(file=os.path.basename(p)):
                    ok, r = in_thread(lambda: gpuinterp.dpd_estimator_cc(
                        P, Q, Lp, Lq, capture_length=N, update_period=N, rx_timeout=0, coefficients_file=p), 20)
                    self.assertTrue(ok, f"{p}: construction hangs")
                    self.assertIsInstance(r, ValueError, f"{p} accepted")
                    self.assertTrue(str(r).startswith(f"coefficients_file: {p}"), str(r))
                    self.assertIn(words, str(r))
            self.assertTrue(stat.S_ISFIFO(os.stat(fifo).st_mode))
            # every other reader of a model file: a FIFO named .json does not block it either
            readers = [  # (call, message prefix)
                (lambda: gpuinterp.pa_model_cc(model=fifo), f"model: {fifo}: is a FIFO"),
                (lambda: gpuinterp.sdr_loopback_emulator_cc(pa_model=fifo), f"pa_model: model: {fifo}: is a FIFO"),
                (lambda: dm.load_model(fifo), f"{fifo}: is a FIFO"),
                (lambda: dm.load_model("/dev/zero"), "/dev/zero: is a device"),
            ]
            for i, (call, prefix) in enumerate(readers):
                with self.subTest(reader=i):
                    ok, r = in_thread(call, 20)
                    self.assertTrue(ok, f"reader {i} hangs")
                    self.assertIsInstance(r, ValueError)
                    self.assertTrue(str(r).startswith(prefix), str(r))
            # a predistorter the loop could have made is resumed: 1 dB of gain
            good = path("good.json")
            dm.save_model(good, dm.ModelFit(SPEC, 10 ** (1 / 20) * ident, 0.01j, kind="predistorter"))
            est = gpuinterp.dpd_estimator_cc(P, Q, Lp, Lq, capture_length=N, update_period=N, rx_timeout=0,
                                             coefficients_file=good)
            np.testing.assert_allclose(est.coefficients(), 10 ** (1 / 20) * ident, rtol=1e-7)
            self.assertAlmostEqual(est.lo_leakage(), 0.01j, delta=1e-9)

    # -- tags ------------------------------------------------------------------------------------
    def test_malformed_rx_rate_is_logged_once_and_not_an_overflow(self):
        # rx_time at 0 and at 2N + 50 (consistent at FS); rx_rate malformed at 0 and again at N.
        # With sample_rate 0 the rate stays unknown: no overflow can be measured, none is made up,
        # no capture is dropped, and each of the two conditions is said once.
        x, y = self.x[:4 * N], self.y[:4 * N]
        t1 = 2 * N + 50
        bad = [("nan", pmt.from_double(math.nan)), ("-1e6", pmt.from_double(-1e6)), ("0", pmt.from_double(0.0)),
               ("symbol", pmt.intern("fast")), ("1e300", pmt.from_double(1e300)), ("inf", pmt.from_double(math.inf)),
               ("long -5", pmt.from_long(-5)), ("pair", pmt.cons(pmt.from_double(FS), pmt.PMT_NIL))]
        for name, value in bad:
            with self.subTest(rx_rate=name):
                tags1 = [tag(0, "rx_time", pmt.make_tuple(pmt.from_uint64(3), pmt.from_double(0.0))),
                         tag(0, "rx_rate", value), tag(N, "rx_rate", value),
                         tag(t1, "rx_time", pmt.make_tuple(pmt.from_uint64(3), pmt.from_double(t1 / FS)))]
                est, log, _, _ = self.run_estimator(x, y, tags1=tags1, sample_rate=0.0)
                self.assertEqual(est.meter("overflows"), 0)
                self.assertEqual(est.meter("dropped_captures"), 0)
                self.assertEqual(len(est.history()), 4)
                self.assertEqual(log.count("rx_rate: malformed value", "warn"), 1, log.messages())
                self.assertEqual(log.count("overflows cannot be detected", "warn"), 1, log.messages())
        # an integer rate is a rate: it is used, and an overflow against it is seen
        tags1 = [tag(0, "rx_time", pmt.make_tuple(pmt.from_uint64(3), pmt.from_double(0.0))),
                 tag(0, "rx_rate", pmt.from_long(int(FS))),
                 tag(t1, "rx_time", pmt.make_tuple(pmt.from_uint64(3), pmt.from_double((t1 + 7) / FS)))]
        est, log, _, _ = self.run_estimator(x, y, tags1=tags1, sample_rate=0.0)
        self.assertEqual(log.count("malformed"), 0, log.messages())
        self.assertEqual(est.meter("overflows"), 1)
        self.assertEqual(est.meter("dropped_captures"), 1)

    def test_malformed_rx_freq_does_not_hide_a_retune(self):
        x, y = self.x[:5 * N], self.y[:5 * N]
        p_bad, p_retune = N + 100, 3 * N + 200
        tags1 = [tag(0, "rx_freq", pmt.from_double(3.5e9)), tag(p_bad, "rx_freq", pmt.intern("tuning")),
                 tag(p_retune, "rx_freq", pmt.from_double(3.6e9))]
        est, log, _, _ = self.run_estimator(x, y, tags1=tags1)
        starts, drops = self.check_against_reference(est, x, y, [(p_bad, True), (p_retune, True)])
        self.assertEqual(drops, 2)
        self.assertIn(p_retune, starts)
        self.assertEqual(log.count("rx_freq: malformed value", "warn"), 1, log.messages())
        self.assertEqual(log.count("an rx_freq change (retune)", "warn"), 1, log.messages())

    # -- the coeffs message's channel ------------------------------------------------------------
    def test_coeffs_message_channel_forms(self):
        w = np.ones(3, dtype=np.complex64)

        def msg(ch):
            d = pmt.dict_add(pmt.make_dict(), pmt.intern("coefficients"), pmt.init_c32vector(3, w.tolist()))
            return pmt.dict_add(d, pmt.intern("channel"), ch)
        good = [(pmt.from_long(1), 1), (pmt.from_uint64(1), 1), (pmt.from_double(1.0), 1),
                (pmt.from_double(0.0), 0), (pmt.from_uint64(63), 63)]
        for value, want in good:
            with self.subTest(channel=pmt.write_string(value)):
                self.assertEqual(radio_messages.message_channel(msg(value)), want)
        bad = [(pmt.from_double(1.5), "non-integral"), (pmt.from_double(math.nan), "non-integral"),
               (pmt.from_long(-1), "negative"), (pmt.from_double(-2.0), "negative"),
               (pmt.intern("one"), "not a number"), (pmt.from_complex(1j), "complex")]
        for value, words in bad:
            with self.subTest(channel=pmt.write_string(value)):
                with self.assertRaises(ValueError) as cm:
                    gpuinterp.decode_coeffs_message(msg(value))
                self.assertTrue(str(cm.exception).startswith("channel: expected an integer >= 0"), str(cm.exception))
                self.assertIn(words, str(cm.exception))

    # -- the estimation kernels' arguments and messages ------------------------------------------
    def test_kernel_arguments_are_named(self):
        rng = np.random.default_rng(1)
        y = 0.3 * (rng.standard_normal(2000) + 1j * rng.standard_normal(2000))
        x = y * (1 - 0.1 * np.abs(y) ** 2)
        g = gpuinterp.dpd_gram("mp:K=3,M=2", backend="cpu")
        cap = gpuinterp.dpd_capture_kernel(backend="cpu")
        cases = [  # (call, message prefix)
            (lambda: gpuinterp.dpd_gram(5), "model:"), (lambda: gpuinterp.dpd_gram(None), "model:"),
            (lambda: g.add(y, x, fit_mask=["a"] * y.size), "fit_mask:"),
            (lambda: g.add(y, x, fit_mask=[0.5] * y.size), "fit_mask:"),
            (lambda: g.add(y, x, val_mask=["b"] * y.size), "val_mask:"),
            (lambda: g.solve(regularization=[1]), "regularization:"),
            (lambda: g.solve(regularization=1j), "regularization:"),
            (lambda: g.solve(regularization="ridge"), "regularization:"),
            (lambda: g.solve(grid=["a"]), "grid:"), (lambda: g.solve(grid=5), "grid:"),
            (lambda: g.solve(grid="1e-3"), "grid:"),
            (lambda: cap.align(x, y, full_scale="x"), "full_scale:"),
            (lambda: cap.align(x, y, full_scale=-1.0), "full_scale:"),
            (lambda: cap.align(x, y, delay="late"), "delay:"),
            (lambda: gpuinterp.dpd_gram("mp:K=3,M=2", lo_leakage="yes"), "lo_leakage:"),
            (lambda: gpuinterp.dpd_gram("mp:K=3,M=2", backend=5), "backend:"),
            (lambda: g.forget("a"), "factor:"), (lambda: g.forget(2), "factor:"),
            (lambda: g.gram("a"), "set:"), (lambda: g.rhs(2), "set:"),
            (lambda: gpuinterp.dpd_capture_kernel(backend=5), "backend:"),
            (lambda: cap.align(x, y, rx_correction="no"), "rx_correction:"),
            (lambda: cap.align(x, y, condition=None), "condition:"),
            (lambda: g.add(y, x, fit_mask=np.arange(y.size) % 3), "fit_mask:"),  # a 2 is no flag
            (lambda: gpuinterp.dpd_gram("gru:H=8,C=4,D=1"), "model: a gru model has no"),
            (lambda: cap.align(x, y, gain=True), "gain:"), (lambda: cap.align(x, y, gain=0), "target_gain:"),
        ] + [(lambda d=d, c=c: cap.align(x, y, condition=c, delay=d), "delay:")  # used to crash the process
             for d in (-math.inf, math.inf, math.nan, 1e300, 2.0 ** 64, 5000) for c in (False, True)]
        for i, (call, prefix) in enumerate(cases):
            with self.subTest(case=i, prefix=prefix):
                with self.assertRaises(ValueError) as cm:
                    call()
                self.assertTrue(str(cm.exception).startswith(prefix), str(cm.exception))
                self.assertNotIn("Unable to cast", str(cm.exception))
        self.assertEqual(g.fit_rows(), 0)  # nothing refused was accumulated
        g.add(y, x, fit_mask=np.arange(y.size) % 2)  # 0/1 integers are flags
        self.assertEqual(g.fit_rows(), 1000)

    def test_predistorter_arguments_are_named(self):
        # Bound as C++ types these were pybind11's "incompatible constructor arguments", or a flag
        # or a number taken from True / None / 1.
        base = dict(P=3, Q=0, Lp=2, Lq=1, coefficients=[1, 0, 0.1, 0], backend="cpu")
        cases = [("coefficients", "abcd"), ("coefficients", None), ("coefficients", [True] * 4),
                 ("coefficients", [[1, 0], [0.1, 0]]), ("lo_leakage", "x"), ("lo_leakage", True),
                 ("backend", 0), ("mapped", 1), ("mapped", None), ("device_buffers", "no"),
                 ("model", 5), ("output_format", None), ("input_format", 1.0), ("full_scale", True),
                 ("full_scale", "x"), ("weights", [1j]), ("weights", "w")]
        for key, value in cases:
            with self.subTest(key=key, value=value):
                with self.assertRaises(ValueError) as cm:
                    gpuinterp.dpd_predistorter_cc(**dict(base, **{key: value}))
                self.assertTrue(str(cm.exception).startswith(key + ": must be"), str(cm.exception))
        b = gpuinterp.dpd_predistorter_cc(**dict(base, coefficients=np.array([1, 0, 0.1, 0])))
        for call, prefix in ((lambda: b.set_coefficients("abcd"), "coefficients:"),
                             (lambda: b.set_coefficients([1, 0, 0.2, 0], True), "lo_leakage:"),
                             (lambda: b.set_weights(3), "weights:"), (lambda: b.set_cuda_variant(1), "variant:")):
            with self.assertRaises(ValueError) as cm:
                call()
            self.assertTrue(str(cm.exception).startswith(prefix), str(cm.exception))
        b.set_coefficients((1, 0, 0.2, 0), 0.5j)  # any sequence of numbers, any complex number
        np.testing.assert_array_equal(b.coefficients(), np.array([1, 0, 0.2, 0], np.complex64))
        self.assertEqual(b.lo_leakage(), 0.5j)

    def test_kernel_messages_blame_the_right_input(self):
        rng = np.random.default_rng(2)
        y = 0.3 * (rng.standard_normal(4000) + 1j * rng.standard_normal(4000))
        x = y * (1 - 0.1 * np.abs(y) ** 2)
        x_nan = x.copy()
        x_nan[1234] = np.nan

        def gram(*adds):
            g = gpuinterp.dpd_gram("mp:K=3,M=4", backend="cpu")
            for a in adds:
                g.add(*a[:2], **a[2] if len(a) > 2 else {})
            return g
        cases = [  # (gram, substring that must start the message, words it holds, words it must not)
            (gram((y, x_nan)), "x: the targets of the fit rows", "NaN", "regulariz"),
            (gram((y, x, dict(val_mask=np.isnan(x_nan) | (np.arange(y.size) > 3000))),
                  (y, x_nan, dict(fit_mask=np.zeros(y.size, bool), val_mask=np.arange(y.size) > 1000))),
             "x: the targets of the held-out rows", "NaN", "regulariz"),
            (gram((y, x, dict(fit_mask=np.zeros(y.size, bool)))), "dpd_gram: no fit rows", "fit_mask selected none",
             "add() a capture first"),
            (gram((y[:2], x[:2], dict(history=2))), "dpd_gram: no fit rows", "too short", "add() a capture first"),
            (gram(), "dpd_gram: no fit rows", "add() a capture first", "fit_mask"),
        ]
        for i, (g, start, words, absent) in enumerate(cases):
            with self.subTest(case=i):
                with self.assertRaises(RuntimeError) as cm:
                    g.solve()
                msg = str(cm.exception)
                self.assertTrue(msg.startswith(start), msg)
                self.assertIn(words, msg)
                self.assertNotIn(absent, msg)
        # a 10-sample capture is too short, on every backend, not "buried in noise"
        for backend in ("numpy", "cpu"):
            with self.subTest(backend=backend):
                with self.assertRaises(dpd.DPDError) as cm:
                    dpd.estimate(x[:10], y[:10], P=3, Q=0, Lp=1, Lq=1,
                                 backend=None if backend == "numpy" else backend)
                self.assertIn("too short", str(cm.exception))
                self.assertNotIn("noise", str(cm.exception))
        with self.assertRaises(dpd.DPDError) as cm:
            dpd_reference.condition(x[:10], y[:10])
        self.assertTrue(str(cm.exception).startswith("x: capture too short: 10 samples"), str(cm.exception))

    # -- the offline estimator's command line ----------------------------------------------------

    def test_cli_refuses_files_that_are_not_captures(self):
        import subprocess
        import sys
        tool = os.path.join(os.environ.get("GPUINTERP_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", "..")),
                            "apps", "gpuinterp_dpd_estimate.py")
        with tempfile.TemporaryDirectory() as d:
            def write(name, data):
                p = os.path.join(d, name)
                with open(p, "wb") as f:
                    f.write(data)
                return p
            good = self.x[:20000].astype(np.complex64)
            huge = np.full(20000, 1e38 + 1e38j, dtype=np.complex64)
            nan = good.copy()
            nan[777] = np.nan
            text = ("The quick brown fox jumps over the lazy dog. " * 4000).encode()
            cases = [  # (name, file contents, words of the one error line)
                ("text.cf32", text[:len(text) // 8 * 8], "beyond any receiver's scale"),
                ("huge.cf32", huge.tobytes(), "peak magnitude 1.41e+38"),
                ("nan.cf32", nan.tobytes(), "1 of 20000 samples are NaN or infinity (the first at sample 777)"),
            ]
            for name, data, words in cases:
                with self.subTest(file=name):
                    p = write(name, data)
                    res = subprocess.run([sys.executable, tool, "--x", p, "--y", p, "-P", "5", "--Lp", "3"],
                                         capture_output=True, text=True, timeout=300)
                    self.assertEqual(res.returncode, 2, res.stderr)
                    self.assertNotIn("Traceback", res.stderr)
                    lines = [ln for ln in res.stderr.splitlines() if ln.startswith("error:")]
                    self.assertEqual(len(lines), 1, res.stderr)
                    self.assertTrue(lines[0].startswith(f"error: --x: {p}: "), lines[0])
                    self.assertIn(words, lines[0])


if __name__ == "__main__":
    gr_unittest.run(qa_probe_surfaces)
