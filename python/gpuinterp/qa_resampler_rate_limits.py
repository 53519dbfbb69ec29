#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""set_rate to a much lower rate. A running resampler's input buffer is sized at start; set_rate(0.001)
from 1.0 used to be accepted, after which the scheduler logged "requesting more input data than we can
provide" and stopped the block for good. Now a rate whose window does not fit the running block's
buffer raises ValueError naming rate and the block keeps running at the old rate; before the
flowgraph starts, set_rate grows the declared history so the buffer is sized for the new rate."""

import threading
import time
import unittest

import numpy as np
from gnuradio import blocks, gr, gr_unittest

from gnuradio import gpuinterp


def wait_done(tb, limit=60.0):
    """tb.wait() on a thread; True when the flowgraph finished within limit seconds (a stopped block
    would make it hang)."""
    t = threading.Thread(target=tb.wait, daemon=True)
    t.start()
    t.join(limit)
    return not t.is_alive()


class qa_resampler_rate_limits(gr_unittest.TestCase):
    def test_running_block_refuses_a_rate_its_buffer_cannot_hold(self):
        for cls, src_cls, one in ((gpuinterp.resampler_cc, blocks.vector_source_c, 1.0 + 0.5j),
                                  (gpuinterp.resampler_ff, blocks.vector_source_f, 1.0)):
            n_out = 300000
            tb = gr.top_block()
            src = src_cls([one] * 4096, True)
            size = gr.sizeof_gr_complex if cls is gpuinterp.resampler_cc else gr.sizeof_float
            # Throttled so the flowgraph is still running when set_rate is called (this is not a
            # timing assertion: the test waits for outputs, then for the end).
            thr = blocks.throttle(size, 1e6)
            r = cls(1.0, "polyphase", backend="cpu")
            head = blocks.head(size, n_out)
            snk = (blocks.vector_sink_c if cls is gpuinterp.resampler_cc else blocks.vector_sink_f)()
            tb.connect(src, thr, r, head, snk)
            tb.start()
            deadline = time.monotonic() + 30
            while head.nitems_written(0) == 0 and time.monotonic() < deadline:
                time.sleep(0.01)
            self.assertGreater(head.nitems_written(0), 0)
            with self.assertRaises(ValueError) as cm:
                r.set_rate(1e-4)  # K/r = 320000 inputs per output: no default buffer holds that
            self.assertTrue(str(cm.exception).startswith("rate:"), str(cm.exception))
            self.assertEqual(r.rate(), 1.0)
            # A rate that fits is still taken while running.
            r.set_rate(2.0)
            self.assertEqual(r.rate(), 2.0)
            self.assertTrue(wait_done(tb), "the flowgraph did not finish: the resampler stopped")
            y = np.array(snk.data())
            self.assertEqual(y.size, n_out)
            # A constant input stays constant (unit DC gain) away from the start-up transient.
            np.testing.assert_allclose(y[100:], one, atol=2e-3)

    def test_low_rate_set_before_start(self):
        n_in = 100000
        tb = gr.top_block()
        src = blocks.vector_source_c([1.0 + 0j] * n_in)
        r = gpuinterp.resampler_cc(1.0, "polyphase", backend="cpu")
        r.set_rate(0.001)  # before start: the buffer is sized for this rate
        snk = blocks.vector_sink_c()
        tb.connect(src, r, snk)
        tb.start()
        self.assertTrue(wait_done(tb))
        y = np.array(snk.data())
        # Output k is produced once input floor(k / r) + lookahead has arrived.
        k = gpuinterp.resampler_kernel_cc(0.001, "polyphase")
        expected = len(k.resample(np.ones(n_in, dtype=np.complex64)))
        self.assertEqual(y.size, expected)
        self.assertGreater(expected, 50)
        np.testing.assert_allclose(y[40:], 1.0, atol=2e-3)


if __name__ == "__main__":
    gr_unittest.run(qa_resampler_rate_limits)
