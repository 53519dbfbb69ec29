#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""dpd_estimator_cc with steps that take longer than the receiver's timeout or the update period
(a large model on a small CPU: the README's 644-coefficient predistorter takes 7-34 s a step on 2
cores). The steps are made slow here by a sleep around the real one, so the cases run in seconds:
a synchronous step is never taken for a stopped receiver and loses no capture; asynchronous steps
that cannot keep up skip captures, count them and say so once."""

import time

import numpy as np
from gnuradio import blocks, gr, gr_unittest

from gnuradio import gpuinterp

from qa_estimator_radio import FS, N, P, Q, EstimatorCase, Lp, Lq, LogRecorder  # noqa: E402


def slow(est, seconds):
    """Makes every step of channel 0 take `seconds` longer (the real step still runs)."""
    adapt = est._ch[0].adapt
    step = adapt.step

    def slow_step(x, y):
        time.sleep(seconds)
        return step(x, y)
    adapt.step = slow_step


class qa_estimator_long_steps(EstimatorCase):
    def _run(self, total, throttle=None, **kw):
        x, y = np.resize(self.x, total), np.resize(self.y[:self.x.size], total)
        tb = gr.top_block()
        sx = blocks.vector_source_c(x.tolist(), False)
        sy = blocks.vector_source_c(y.tolist(), False)
        est = gpuinterp.dpd_estimator_cc(P, Q, Lp, Lq, capture_length=N, update_period=N, **kw)
        log = LogRecorder(est.logger)
        est.logger = log
        if throttle:
            # one clock for both inputs, as a radio's sample clock
            src = blocks.vector_source_c(np.zeros(total, np.complex64).tolist(), False)
            thr = blocks.throttle(gr.sizeof_gr_complex, throttle)
            ax, ay = blocks.add_cc(), blocks.add_cc()
            tb.connect(src, thr)
            tb.connect(sx, (ax, 0))
            tb.connect(thr, (ax, 1))
            tb.connect(sy, (ay, 0))
            tb.connect(thr, (ay, 1))
            tb.connect(ax, (est, 0))
            tb.connect(ay, (est, 1))
        else:
            cx, cy = blocks.copy(gr.sizeof_gr_complex), blocks.copy(gr.sizeof_gr_complex)
            tb.connect(sx, cx, (est, 0))
            tb.connect(sy, cy, (est, 1))
        return tb, est, log

    def test_synchronous_long_steps_are_not_a_stopped_receiver(self):
        # Each step takes 0.8 s inside the block's thread, the watchdog's timeout is 0.3 s: while
        # a step runs nothing is read, and that is the estimator being busy, not the receiver.
        # With a sample rate, a step longer than the update period's duration is said once: a
        # live receiver would overflow while it runs.
        cases = [(0.3, 0.8, 0.0), (0.5, 0.6, FS)]  # (rx_timeout, extra seconds per step, sample_rate)
        for rx_timeout, extra, rate in cases:
            with self.subTest(rx_timeout=rx_timeout, step=extra, sample_rate=rate):
                tb, est, log = self._run(5 * N, synchronous=True, rx_timeout=rx_timeout, sample_rate=rate)
                slow(est, extra)
                tb.run()
                st = [r.status for r in est.history()]
                self.assertEqual(st, ["calibrating", "updated", "updated", "updated", "updated"], st)
                self.assertEqual(log.count("rx_timeout"), 0, log.messages())
                self.assertEqual(log.count("capture dropped"), 0, log.messages())
                self.assertEqual(est.meter("dropped_captures"), 0)
                self.assertEqual(est.meter("skipped_captures"), 0)
                self.assertGreaterEqual(est.meter("step_seconds"), extra)
                self.assertEqual(log.count("a synchronous step took", "warn"), 1 if rate else 0, log.messages())

    def test_asynchronous_steps_that_cannot_keep_up_skip_and_say_so(self):
        # 40 captures at 1 Msample/s (one every 8 ms); a step takes 0.3 s more than it does, so
        # most captures arrive while one runs: each is skipped and counted, the warning is given
        # once, the receiver is never taken for stopped and no capture is dropped.
        total = 40 * N
        tb, est, log = self._run(total, throttle=1e6, synchronous=False, rx_timeout=0.2)
        slow(est, 0.3)
        t0 = time.time()
        tb.run()  # stop() waits for the running step
        elapsed = time.time() - t0
        steps = len(est.history())
        skipped = est.meter("skipped_captures")
        self.assertEqual(steps + skipped, total // N, (steps, skipped))
        self.assertGreater(skipped, 0)
        # at most one step per 0.3 s of stream (plus the one running at its end)
        self.assertLessEqual(steps, int(elapsed / 0.3) + 2, (steps, elapsed))
        self.assertEqual(log.count("a step takes longer than update_period", "warn"), 1, log.messages())
        self.assertEqual(log.count("rx_timeout"), 0, log.messages())
        self.assertEqual(est.meter("dropped_captures"), 0)
        self.assertGreaterEqual(est.meter("step_seconds"), 0.3)


if __name__ == "__main__":
    gr_unittest.run(qa_estimator_long_steps)
