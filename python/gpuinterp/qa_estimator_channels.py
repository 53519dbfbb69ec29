#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""dpd_estimator_cc with channels = N: N transmit chains observed in turn through one observation
receiver behind an RF switch (here GNU Radio's own blocks.selector, driven by the estimator's
obs_select messages): parameters, the message codec, and which samples each capture takes, read
from marker streams (every sample carries its stream position and its channel). The closed loop of
two chains is qa_estimator_channels_loop.py."""

import os
import tempfile
import time

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import gpuinterp
from gnuradio.gpuinterp import dpd_adapt, radio_messages
from gnuradio.gpuinterp import dpd_model as dm

from qa_dpd_blocks import msg_collector  # noqa: E402 (this folder's test helpers)

P, Q, Lp, Lq = 7, 0, 4, 1
SPEC = f"ph:P={P},Q={Q},Lp={Lp},Lq={Lq}"
K = (P + 1) // 2 * Lp
SPEC = f"ph:P={P},Q={Q},Lp={Lp},Lq={Lq}"
N = 16384            # capture
SETTLE = 16384       # above the receiver's latency and what the buffers in front of the estimator hold
RX_LATENCY = 5000    # samples from the switch's output to the estimator (the receiver's pipeline)


class recorded_steps:
    """Records the (x, y) of every Adaptation step (the captures the estimator takes), in order."""

    def __enter__(self):
        self.calls, self._orig = [], dpd_adapt.Adaptation.step
        calls, orig = self.calls, self._orig

        def step(adapt, x, y):
            calls.append((np.array(x), np.array(y)))
            return orig(adapt, x, y)
        dpd_adapt.Adaptation.step = step
        return self

    def __exit__(self, *exc):
        dpd_adapt.Adaptation.step = self._orig
        return False


class marker_pair_c(gr.sync_block):
    """Two PA outputs in one block, marked: output c, sample k = (c + 1) + k j. One writer for
    both selector inputs: GNU Radio 3.10.5's selector forecasts its selected input only but consumes
    as much from every input (gnuradio#6616, fixed in 3.10.7), so an inactive input arriving later
    than the active one would be consumed past its end and its positions would jump by a buffer."""

    def __init__(self, total):
        gr.sync_block.__init__(self, "marker_pair_c", None, [np.complex64] * 2)
        self.total = total

    def work(self, input_items, output_items):
        pos = self.nitems_written(0)
        n = min(len(output_items[0]), self.total - pos)
        if n <= 0:
            return -1
        k = np.arange(pos, pos + n, dtype=np.float64)
        for c in range(2):
            output_items[c][:n] = (c + 1) + 1j * k
        return n


class qa_estimator_channels(gr_unittest.TestCase):
    def test_bad_parameters(self):
        for bad in (0, 65, -1, 1.5, float("nan"), "2"):
            with self.assertRaisesRegex(ValueError, "^channels"):
                gpuinterp.dpd_estimator_cc(channels=bad)
        for bad in (-1, 0.5, float("inf")):
            with self.assertRaisesRegex(ValueError, "^settle"):
                gpuinterp.dpd_estimator_cc(channels=2, settle=bad)
        est = gpuinterp.dpd_estimator_cc(channels=3, settle=0)
        for c in range(3):
            np.testing.assert_array_equal(est.coefficients(c), est.coefficients(0))
        for bad in (3, -1):
            with self.assertRaisesRegex(ValueError, "^channel"):
                est.coefficients(bad)
            with self.assertRaisesRegex(ValueError, "^channel"):
                est.meter("delay", bad)
        # one channel keeps the single-channel ports: two inputs, no obs_select
        self.assertEqual(gpuinterp.dpd_estimator_cc().input_signature().max_streams(), 2)
        self.assertEqual(est.input_signature().max_streams(), 4)
        self.assertNotIn("obs_select", pmt.to_python(gpuinterp.dpd_estimator_cc().message_ports_out()))
        self.assertIn("obs_select", pmt.to_python(est.message_ports_out()))

    def test_codec(self):
        w = np.arange(1, K + 1) * (0.5 - 0.25j)
        m = radio_messages.coefficients_message(w, 0.1j, 3)
        self.assertEqual(radio_messages.message_channel(m), 3)
        w2, c2 = radio_messages.parse_coefficients_message(m, K)
        np.testing.assert_allclose(w2, w.astype(np.complex64), rtol=0, atol=0)
        self.assertAlmostEqual(c2, 0.1j, places=7)
        self.assertIsNone(radio_messages.message_channel(radio_messages.coefficients_message(w, 0j)))
        sel = gpuinterp.estimator_channels.obs_select_message(5)
        self.assertEqual(pmt.to_long(pmt.cdr(sel)), 5)  # what blocks.selector's iindex reads

    def test_round_robin_settle_and_pairing_on_marker_streams(self):
        # Every sample says where it is: x_c[k] = k + 1000 (c + 1) j, y[k] = k - j. The captures show
        # which channel's x was taken, at which position, and with which y.
        total, period, settle = 10 * N, N, 3000
        k = np.arange(total, dtype=np.float64)
        xs = [(k + 1j * 1000 * (c + 1)).astype(np.complex64) for c in range(2)]
        y = (k - 1j).astype(np.complex64)
        tb = gr.top_block()
        est = gpuinterp.dpd_estimator_cc(P, Q, Lp, Lq, capture_length=N, update_period=period, synchronous=True,
                                         rx_timeout=0, channels=2, settle=settle, max_delay=64)
        sel, stats = msg_collector(), msg_collector()
        for c, v in enumerate(xs + [y]):
            tb.connect(blocks.vector_source_c(v.tolist()), blocks.copy(gr.sizeof_gr_complex), (est, c))
        tb.msg_connect(est, "obs_select", sel, "in")
        tb.msg_connect(est, "stats", stats, "in")
        with recorded_steps() as rec:
            tb.run()
        deadline = time.time() + 5  # messages are delivered asynchronously
        while time.time() < deadline and len(stats.msgs) < len(rec.calls):
            time.sleep(0.01)
        starts = []
        for i, (x, yc) in enumerate(rec.calls):
            c = int(round(x[0].imag / 1000)) - 1
            s = int(x[0].real)
            self.assertEqual(c, i % 2, "channels in turn")
            np.testing.assert_array_equal(x, xs[c][s:s + N])  # one channel's x, contiguous
            np.testing.assert_array_equal(yc, y[s:s + N])  # paired with y at the same positions
            starts.append(s)
        self.assertGreaterEqual(len(starts), 4)
        self.assertEqual(starts[0], settle)  # the switch's state at start is unknown: settled first
        gaps = np.diff(starts)
        self.assertTrue(np.all(gaps >= N + settle), gaps)  # settle y samples after each switch
        self.assertTrue(np.all(gaps <= N + settle + 4 * 8192), gaps)  # and no capture skipped
        # one switch message at start, one per capture; stats name the channel
        want = [i % 2 for i in range(len(starts) + 1)]
        self.assertEqual([pmt.to_long(pmt.cdr(m)) for m in sel.msgs], want)
        self.assertEqual([int(pmt.to_long(pmt.dict_ref(m, pmt.intern("channel"), pmt.PMT_NIL)))
                          for m in stats.msgs], want[:-1])
        for c in range(2):
            self.assertEqual(len(est.history(c)), (len(starts) + 1 - c) // 2)

    def test_selector_switch_latency_is_settled_out(self):
        # The real selector switches when its message handler runs, some samples after the
        # estimator asked, and the receiver behind it has RX_LATENCY samples of pipeline: PA c's
        # output is marked (real part c + 1, imaginary part its position), so a capture of channel
        # c holding one sample of the other PA, or of another position, is caught. (With settle 0
        # every capture after a switch starts with the other PA's samples.)
        # What had left the selector before its handler ran is still in the buffers between it and
        # the estimator (the delay's own buffer holds its history too): settle covers them and the
        # latency whatever the scheduler's interleaving (with SETTLE, about one run in 15 under
        # load had a capture holding 2046 samples of the other PA).
        settle = RX_LATENCY + 3 * N
        total = 14 * (N + settle + 8192)
        k = np.arange(total, dtype=np.float64)
        xs = [(k + 1j * 1000 * (c + 1)).astype(np.complex64) for c in range(2)]
        tb = gr.top_block()
        est = gpuinterp.dpd_estimator_cc(P, Q, Lp, Lq, capture_length=N, update_period=N, synchronous=True,
                                         rx_timeout=0, channels=2, settle=settle, max_delay=64)
        selector = blocks.selector(gr.sizeof_gr_complex, 0, 0)
        marks = marker_pair_c(total)
        for c in range(2):
            tb.connect(blocks.vector_source_c(xs[c].tolist()), (est, c))
            tb.connect((marks, c), (selector, c))
        rx = blocks.delay(gr.sizeof_gr_complex, RX_LATENCY)
        tb.connect(selector, rx, (est, 2))
        tb.msg_connect(est, "obs_select", selector, "iindex")
        with recorded_steps() as rec:
            tb.run()
        self.assertGreaterEqual(len(rec.calls), 8)
        k = np.concatenate([np.zeros(RX_LATENCY), k])  # y position p holds PA position p - RX_LATENCY
        for i, (x, yc) in enumerate(rec.calls):
            c, s = i % 2, int(x[0].real)
            np.testing.assert_array_equal(x, xs[c][s:s + N], f"capture {i}")
            np.testing.assert_array_equal(yc.real, np.full(N, c + 1, np.float32), f"capture {i}")
            np.testing.assert_array_equal(yc.imag, k[s:s + N].astype(np.float32), f"capture {i}")

    def test_coefficients_file_per_channel(self):
        # "f" is channel 0's "f.ch0" and channel 1's "f.ch1": each channel resumes from its own file
        # and the start sends each its own coeffs dict.
        rng = np.random.default_rng(4)
        saved = [((1 + 0.01 * rng.standard_normal(K)) * np.eye(1, K, 0)[0] + 0.01j * c, 0.001 * (c + 1))
                 for c in range(2)]
        with tempfile.TemporaryDirectory() as d:
            f = os.path.join(d, "coeffs.json")
            for c, (w, lo) in enumerate(saved):
                dm.save_model(f"{f}.ch{c}", dm.ModelFit(SPEC, w, lo, kind="predistorter"))
            est = gpuinterp.dpd_estimator_cc(P, Q, Lp, Lq, capture_length=N, update_period=N, synchronous=True,
                                             rx_timeout=0, channels=2, coefficients_file=f)
            self.assertFalse(os.path.exists(f))
            tb, got = gr.top_block(), msg_collector()
            for c in range(3):
                tb.connect(blocks.vector_source_c([0j] * 1000), (est, c))
            tb.msg_connect(est, "coeffs", got, "in")
            tb.run()
            deadline = time.time() + 5
            while time.time() < deadline and len(got.msgs) < 2:
                time.sleep(0.01)
        self.assertEqual(sorted(radio_messages.message_channel(m) for m in got.msgs), [0, 1])
        for m in got.msgs:
            c = radio_messages.message_channel(m)
            w, lo = radio_messages.parse_coefficients_message(m, K)
            np.testing.assert_allclose(w, saved[c][0], rtol=0, atol=1e-7)
            self.assertAlmostEqual(lo, saved[c][1], places=7)
            np.testing.assert_allclose(est.coefficients(c), saved[c][0], rtol=0, atol=1e-7)


if __name__ == "__main__":
    gr_unittest.run(qa_estimator_channels)
