#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""dpd_estimator_cc against what a real radio (gr-uhd's usrp_source / usrp_sink) puts on its
streams: stream tags (rx_time after an overflow, rx_rate, rx_freq, burst tags), the predistorter's
dpd_switch tag, chunk sizes, the radio parameters and the ADC full scale. The receiver stopping, the
usrp_sink's async messages, the operator meters, the band check and the coefficients file are
qa_estimator_operator.py (which shares this file's helpers).

Every expected value is computed here: the capture positions by a small model of the documented
capture rule (:func:`expected_captures`), coefficients by dpd_adapt.Adaptation stepped on exactly the
captures that rule selects, levels and gains from the samples themselves."""

import fractions
import math
import threading
import time

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import gpuinterp
from gnuradio.gpuinterp import dpd_adapt, metrics, pa_models

from qa_dpd_blocks import msg_collector  # noqa: E402 (this folder's test helpers)

P, Q, Lp, Lq = 5, 0, 3, 1
K = 9                 # coefficients of ph:P=5,Q=0,Lp=3,Lq=1
N = 8192              # capture length
D0 = 700              # loop delay of the synthetic captures (samples), below max_delay
FS = 30.72e6


# --- independent references -------------------------------------------------------------------
def loop_signals(n, seed=3, delay=D0, extra=0):
    """x (PA input) and y = ding2004 PA output delayed by ``delay``, complex64; y is ``extra`` longer."""
    x = metrics.ofdm_test_signal(n + extra, rms=0.2, papr_db=8.0, seed=seed)
    y = pa_models.PAModel("ding2004").process(x).astype(np.complex128)
    y = np.concatenate([np.zeros(delay), y[:y.size - delay]])
    return x[:n].astype(np.complex64), y.astype(np.complex64)


def expected_captures(total, n, period, cuts):
    """The documented rule: a capture [s, s+n) holding a tag strictly inside it is not used; a fault
    (an rx_time jump, a burst tag, a retune, a malformed rx_time) counts as a dropped capture, a
    coefficient switch does not; either way the next capture starts at the (last) tag. Returns
    (starts of the captures stepped, number dropped). ``cuts``: [(position, is_fault)]."""
    s, starts, drops = 0, [], 0
    while s + n <= total:
        inside = [(p, f) for p, f in cuts if s < p < s + n]
        if inside:
            drops += any(f for _, f in inside)
            s = max(p for p, _ in inside)
            continue
        starts.append(s)
        s += period
    return starts, drops


def reference_adaptation(x, y, starts, n=N, **kw):
    """dpd_adapt.Adaptation with the estimator's defaults, stepped on the captures at ``starts``."""
    a = dpd_adapt.Adaptation(0, 0, 1, 1, model=f"ph:P={P},Q={Q},Lp={Lp},Lq={Lq}", damping=kw.get("damping", 0.8),
                             min_damping=0.1, rollback_tolerance_db=0.5, max_gain_db=10.0, regularization=None,
                             lo_leakage=True, max_delay=kw.get("max_delay", 1024), rx_full_scale=1.0,
                             rx_correction=True, track_frequency=True)
    steps = [a.step(x[s:s + n].copy(), y[s:s + n].copy()) for s in starts]
    return a, steps


def uhd_time(seconds):
    """gr-uhd's rx_time value for an exact (Fraction) time: (uint64 full seconds, double fraction)."""
    whole = math.floor(seconds)
    return pmt.make_tuple(pmt.from_uint64(int(whole)), pmt.from_double(float(seconds - whole)))


def tag(offset, key, value):
    return gr.tag_utils.python_to_tag((offset, pmt.intern(key), value, pmt.intern("qa")))


def dbfs(v, full_scale=1.0):
    return 20 * math.log10(max(np.max(np.abs(v.real)), np.max(np.abs(v.imag))) / full_scale)


class LogRecorder:
    """Stands in for a block's gr.logger: records (level, message) and forwards to the real one."""

    def __init__(self, inner):
        self.inner, self.records, self._lock = inner, [], threading.Lock()

    def _rec(self, level, msg):
        with self._lock:
            self.records.append((level, str(msg)))
        getattr(self.inner, level)(msg)

    def debug(self, m): self._rec("debug", m)
    def info(self, m): self._rec("info", m)
    def warn(self, m): self._rec("warn", m)
    def warning(self, m): self._rec("warn", m)
    def error(self, m): self._rec("error", m)
    def crit(self, m): self._rec("crit", m)

    def count(self, text, level=None):
        with self._lock:
            return sum(1 for lv, m in self.records if text in m and (level is None or lv == level))

    def messages(self):
        with self._lock:
            return [m for _, m in self.records]


class EstimatorCase(gr_unittest.TestCase):
    """The estimator in a flowgraph of vector sources, and the reference checks (shared by
    qa_estimator_operator.py)."""
    @classmethod
    def setUpClass(cls):
        cls.x, cls.y = loop_signals(6 * N + 1000, seed=3, extra=1000)

    # -- helpers ---------------------------------------------------------------------------------
    def run_estimator(self, x, y, tags0=(), tags1=(), n_msgs=None, **kw):
        args = dict(capture_length=N, update_period=N, synchronous=True, rx_timeout=0)
        args.update(kw)
        tb = gr.top_block()
        sx = blocks.vector_source_c(np.asarray(x, dtype=np.complex64).tolist(), False, 1, list(tags0))
        sy = blocks.vector_source_c(np.asarray(y, dtype=np.complex64).tolist(), False, 1, list(tags1))
        # A tagged vector_source hands its whole vector over in one call; a radio delivers a few
        # thousand samples at a time, as blocks.copy's default buffer does here (the block's handling
        # of huge chunks is test_large_chunks_on_both_inputs).
        cx, cy = blocks.copy(gr.sizeof_gr_complex), blocks.copy(gr.sizeof_gr_complex)
        est = gpuinterp.dpd_estimator_cc(P, Q, Lp, Lq, **args)
        log = LogRecorder(est.logger)
        est.logger = log
        coeffs, stats = msg_collector(), msg_collector()
        tb.connect(sx, cx, (est, 0))
        tb.connect(sy, cy, (est, 1))
        tb.msg_connect(est, "coeffs", coeffs, "in")
        tb.msg_connect(est, "stats", stats, "in")
        tb.run()
        want = len(est.history()) if n_msgs is None else n_msgs
        deadline = time.time() + 5  # messages are delivered asynchronously
        while time.time() < deadline and len(stats.msgs) < want:
            time.sleep(0.01)
        self.tb = tb  # keep the flowgraph (and its Python blocks) alive with the results
        return est, log, coeffs.msgs, stats.msgs

    def check_against_reference(self, est, x, y, cuts, total=None):
        total = x.size if total is None else total
        starts, drops = expected_captures(total, N, N, cuts)
        _, ref = reference_adaptation(x, y, starts)
        hist = est.history()
        self.assertEqual(len(hist), len(starts), (starts, [r.status for r in hist]))
        self.assertEqual([r.status for r in hist], [r.status for r in ref], [r.reason for r in hist])
        self.assertIn("updated", [r.status for r in hist])
        # the coefficients come from exactly these captures
        np.testing.assert_allclose(est.coefficients(), ref[-1].coefficients, rtol=0, atol=1e-9)
        self.assertEqual(est.meter("dropped_captures"), drops)
        return starts, drops


class qa_estimator_radio(EstimatorCase):
    # -- 1. tags of a real receiver ----------------------------------------------------------------
    def test_rx_time_overflow_drops_one_capture(self):
        # gr-uhd after an overflow: D samples of y are gone and the first sample after the gap carries
        # rx_time of its true time. The capture holding it is dropped, the next one starts there.
        D, p = 300, N + 3000
        x0, y0 = self.x, self.y
        y = np.concatenate([y0[:p], y0[p + D:]])[:x0.size]
        x = x0[:y.size]
        t0 = fractions.Fraction(12) + fractions.Fraction(1, 4)
        rate = fractions.Fraction(int(FS))
        tags1 = [tag(0, "rx_time", uhd_time(t0)), tag(0, "rx_rate", pmt.from_double(FS)),
                 tag(p, "rx_time", uhd_time(t0 + (p + D) / rate))]
        est, log, coeffs, stats = self.run_estimator(x, y, tags1=tags1, sample_rate=0.0)
        starts, drops = self.check_against_reference(est, x, y, [(p, True)])
        self.assertEqual(starts[:2], [0, p])
        self.assertEqual(drops, 1)
        self.assertEqual(est.meter("overflows"), 1)
        self.assertEqual(log.count("capture dropped", "warn"), 1, log.messages())
        self.assertEqual(len(stats), len(starts))  # no step (no stats message) for the dropped one
        # the naive grid (0, N, 2N, ...) would have given other coefficients: the check above can fail
        _, naive = reference_adaptation(x, y, list(range(0, x.size - N + 1, N)))
        self.assertFalse(np.allclose(naive[-1].coefficients, est.coefficients(), atol=1e-6))
        # rx_rate gave the sample rate (sample_rate=0): the frequency offset meter is in Hz
        self.assertTrue(math.isfinite(est.meter("freq_offset_hz")))

    def test_consistent_rx_time_and_unknown_tags_are_not_discontinuities(self):
        x, y = self.x, self.y[:self.x.size]
        t0 = fractions.Fraction(7, 3)
        rate = fractions.Fraction(int(FS))
        tags1 = [tag(0, "rx_time", uhd_time(t0)), tag(0, "rx_rate", pmt.from_double(FS)),
                 tag(0, "rx_freq", pmt.from_double(3.5e9))]
        for q in (N + 1234, 2 * N + 77, 3 * N + 4000):  # time advancing exactly with samples / rate
            tags1.append(tag(q, "rx_time", uhd_time(t0 + q / rate)))
        tags1 += [tag(N + 10, "rx_freq", pmt.from_double(3.5e9)),  # same frequency: no retune
                  tag(N + 20, "rx_gain", pmt.from_double(30.0)), tag(2 * N + 5, "packet_len", pmt.from_long(7))]
        tags0 = [tag(N + 30, "foo", pmt.intern("bar")), tag(2 * N + 300, "tx_time", uhd_time(t0))]
        est, log, _, _ = self.run_estimator(x, y, tags0=tags0, tags1=tags1, sample_rate=0.0)
        starts, drops = self.check_against_reference(est, x, y, [])
        self.assertEqual(starts, [k * N for k in range(x.size // N)])
        self.assertEqual(est.meter("overflows"), 0)
        self.assertEqual(log.count("capture dropped"), 0, log.messages())

    def test_consistent_rx_time_at_gps_epoch_is_not_a_discontinuity(self):
        # A radio whose time was set from GPS or the host clock (set_time_unknown_pps(time.time())):
        # rx_time ~ 1.7e9 s. The tags are exact: each is t0 + position / rate to the double's
        # resolution of the fraction, as uhd::time_spec_t keeps it.
        x, y = self.x, self.y[:self.x.size]
        t0 = fractions.Fraction(1_700_000_000) + fractions.Fraction(1, 8)
        rate = fractions.Fraction(int(FS))
        tags1 = [tag(0, "rx_time", uhd_time(t0)), tag(0, "rx_rate", pmt.from_double(FS))]
        for q in (N + 1234, 2 * N + 77, 3 * N + 4001, 4 * N + 2222):
            tags1.append(tag(q, "rx_time", uhd_time(t0 + q / rate)))
        est, log, _, _ = self.run_estimator(x, y, tags1=tags1, sample_rate=0.0)
        self.assertEqual(est.meter("overflows"), 0, log.messages())
        self.assertEqual(est.meter("dropped_captures"), 0, log.messages())
        self.check_against_reference(est, x, y, [])

    def test_burst_tags_drop_a_capture(self):
        x, y = self.x, self.y[:self.x.size]
        p1, p2 = N + 500, 2 * N + 1200
        est, log, _, _ = self.run_estimator(x, y, tags0=[tag(p1, "tx_eob", pmt.PMT_T)],
                                            tags1=[tag(p2, "rx_eob", pmt.PMT_T)])
        starts, drops = self.check_against_reference(est, x, y, [(p1, True), (p2, True)])
        self.assertEqual(drops, 2)
        self.assertEqual(starts[:3], [0, p1, p2])
        self.assertEqual(est.meter("overflows"), 0)
        self.assertEqual(log.count("capture dropped", "warn"), 2, log.messages())
        self.assertEqual(log.count("tx_eob"), 1)
        self.assertEqual(log.count("rx_eob"), 1)

    def test_rx_freq_change_drops_a_capture(self):
        x, y = self.x, self.y[:self.x.size]
        p = 2 * N + 2000
        tags1 = [tag(0, "rx_freq", pmt.from_double(3.5e9)), tag(N + 100, "rx_freq", pmt.from_double(3.5e9)),
                 tag(p, "rx_freq", pmt.from_double(3.6e9))]
        est, log, _, _ = self.run_estimator(x, y, tags1=tags1)
        starts, drops = self.check_against_reference(est, x, y, [(p, True)])
        self.assertEqual(drops, 1)
        self.assertIn(p, starts)
        self.assertEqual(log.count("capture dropped", "warn"), 1, log.messages())
        self.assertEqual(log.count("rx_freq"), 1, log.messages())

    def test_malformed_rx_time_is_a_discontinuity_logged_once(self):
        x, y = self.x, self.y[:self.x.size]
        t0 = fractions.Fraction(3)
        bad = [(N + 100, pmt.intern("noon")),                                                # a symbol
               (3 * N + 200, pmt.make_tuple(pmt.from_double(3.0), pmt.from_double(0.5))),     # wrong types
               (4 * N + 300, pmt.make_tuple(pmt.from_uint64(3), pmt.from_double(0.5), pmt.PMT_NIL)),  # 3 items
               (5 * N + 400, pmt.make_tuple(pmt.from_uint64(3), pmt.intern("half")))]          # string fraction
        tags1 = [tag(0, "rx_time", uhd_time(t0)), tag(0, "rx_rate", pmt.from_double(FS))]
        tags1 += [tag(p, "rx_time", v) for p, v in bad]
        est, log, _, _ = self.run_estimator(x, y, tags1=tags1)
        starts, drops = self.check_against_reference(est, x, y, [(p, True) for p, _ in bad])
        self.assertEqual(drops, 4)
        self.assertEqual(log.count("malformed value"), 1, log.messages())
        self.assertEqual(log.count("capture dropped", "warn"), 4, log.messages())

    def test_rx_rate_sets_the_sample_rate(self):
        # y with a 3 kHz frequency offset at 30.72 Msample/s: the meter reads it in Hz once rx_rate
        # gives the rate; without rx_rate and with sample_rate 0 it has no unit (nan). The band check
        # runs with the tagged rate: 30.72 Msample/s cannot hold the adjacent channels of 18 MHz at
        # +-20 MHz.
        f = 3000.0
        n = 3 * N
        x = self.x[:n]
        y = (self.y[:n] * np.exp(2j * np.pi * f / FS * np.arange(n))).astype(np.complex64)
        kw = dict(sample_rate=0.0, signal_bandwidth=18e6, channel_spacing=20e6)
        est, log, _, _ = self.run_estimator(x, y, tags1=[tag(0, "rx_rate", pmt.from_double(FS))], **kw)
        self.assertAlmostEqual(est.meter("freq_offset_hz"), f, delta=30.0)
        self.assertEqual(log.count("sample_rate 30.72 MHz", "warn"), 1, log.messages())
        est, log, _, _ = self.run_estimator(x, y, **kw)
        self.assertTrue(math.isnan(est.meter("freq_offset_hz")))
        self.assertEqual(log.count("sample_rate"), 0, log.messages())
        # a set sample_rate is not replaced by the tag
        est, log, _, _ = self.run_estimator(x, y, tags1=[tag(0, "rx_rate", pmt.from_double(2 * FS))],
                                            sample_rate=FS)
        self.assertAlmostEqual(est.meter("freq_offset_hz"), f, delta=30.0)

    # -- 2. coefficient switch -------------------------------------------------------------------
    def test_dpd_switch_restarts_the_capture_without_a_drop(self):
        x, y = self.x, self.y[:self.x.size]
        p1, p2 = N + 1500, 3 * N + 2500
        tags0 = [tag(p1, "dpd_switch", pmt.PMT_T), tag(p2, "dpd_coeffs", pmt.PMT_T)]
        est, log, _, _ = self.run_estimator(x, y, tags0=tags0)
        starts, drops = self.check_against_reference(est, x, y, [(p1, False), (p2, False)])
        self.assertEqual(drops, 0)
        self.assertIn(p1, starts)
        self.assertIn(p2, starts)
        self.assertEqual(log.count("capture dropped"), 0, log.messages())
        self.assertEqual(est.meter("overflows"), 0)

    def test_large_chunks_on_both_inputs(self):
        # Both inputs in step, but delivered in one call each (tagged vector_sources do that; so does
        # any upstream with large buffers): neither input runs ahead of the other, so every capture
        # of the stream is taken and none is dropped.
        x, y = self.x, self.y[:self.x.size]
        tb = gr.top_block()
        sx = blocks.vector_source_c(x.tolist(), False, 1, [tag(100, "foo", pmt.PMT_T)])
        sy = blocks.vector_source_c(y.tolist(), False, 1, [tag(100, "foo", pmt.PMT_T)])
        est = gpuinterp.dpd_estimator_cc(P, Q, Lp, Lq, capture_length=N, update_period=N, synchronous=True,
                                         rx_timeout=0)
        tb.connect(sx, (est, 0))
        tb.connect(sy, (est, 1))
        tb.run()
        self.assertEqual(est.meter("dropped_captures"), 0, est.status())
        self.check_against_reference(est, x, y, [])

    # -- 3. parameters ---------------------------------------------------------------------------
    def test_bad_radio_parameters(self):
        cases = [("rx_full_scale", v) for v in (0, -1.0, float("nan"), float("inf"), "loud")]
        for name in ("sample_rate", "signal_bandwidth", "channel_spacing", "rx_timeout"):
            cases += [(name, v) for v in (-1.0, float("nan"), float("inf"), "fast")]
        cases += [("coefficients_file", v) for v in (5, None, b"c.json", ["c.json"])]
        for name, v in cases:
            with self.subTest(name=name, value=v):
                with self.assertRaises(ValueError) as cm:
                    gpuinterp.dpd_estimator_cc(P, Q, Lp, Lq, capture_length=N, update_period=N, **{name: v})
                self.assertTrue(str(cm.exception).startswith(name + ":"), str(cm.exception))

    # -- 4. clipping -----------------------------------------------------------------------------
    def test_receiver_clipping_refuses_the_step(self):
        fs = 0.6
        x, y = self.x[:N].copy(), self.y[:N].copy()
        self.assertLess(dbfs(y, fs), -0.5)  # nothing near full scale before
        rng = np.random.default_rng(5)
        idx = rng.choice(np.arange(D0 + 10, N), size=int(round(0.01 * N)), replace=False)
        y[idx] = (fs * np.sign(y[idx].real) + 1j * y[idx].imag).astype(np.complex64)  # I rail at full scale
        est, log, coeffs, stats = self.run_estimator(x, y, rx_full_scale=fs)
        r = est.last_result()
        self.assertEqual(r.status, "refused")
        self.assertIn("clipping", r.reason)
        self.assertEqual(est.meter("rx_clipped"), idx.size)
        self.assertAlmostEqual(est.meter("rx_peak_dbfs"), 0.0, delta=0.01)
        self.assertEqual(coeffs, [])


if __name__ == "__main__":
    gr_unittest.run(qa_estimator_radio)
