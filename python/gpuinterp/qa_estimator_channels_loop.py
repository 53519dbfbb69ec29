#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The DPD loop of two transmit chains through one observation receiver: one predistorter with
channels=2, two different PAs (each with its own loop delay), GNU Radio's blocks.selector standing in
for the RF switch in front of the receiver, driven by the estimator's obs_select messages, and one
dpd_estimator_cc with channels=2 serving both chains in turn.

Each channel's result is measured by an independent noiseless PA model: the worst-side ACLR of PA c
driven by no predistortion, by the predistorter block's channel c, by channel c's coefficients
applied offline (dpd_model.apply) and by the other channel's (which must fail: the PAs differ)."""

import os
import tempfile

import numpy as np
from gnuradio import blocks, gr, gr_unittest

from gnuradio import gpuinterp
from gnuradio.gpuinterp import metrics, pa_models, radio_messages
from gnuradio.gpuinterp import dpd_model as dm

from qa_dpd_blocks import msg_collector  # noqa: E402 (this folder's test helpers)

FS = 122.88e6
P, Q, Lp, Lq = 7, 0, 4, 1
SPEC = f"ph:P={P},Q={Q},Lp={Lp},Lq={Lq}"
K = (P + 1) // 2 * Lp
N = 16384            # capture
SETTLE = 16384       # above what the selector and the buffer in front of the estimator hold
# Two PAs that need different predistorters: the swapped coefficients must be measurably wrong.
PAS = ({"model": "ding2004"}, {"model": "saleh"})
DELAYS = (3, 37)     # each chain's own loop delay (samples): each channel its own delay hint


def chain_signal(c):
    return metrics.ofdm_test_signal(65536, fs=FS, rms=0.22, papr_db=8.0, seed=11 + c).astype(np.complex64)


def aclr(c, x):
    """Worst-side ACLR (dBc, 18 MHz at +-20 MHz) of PA c driven by x."""
    y = pa_models.PAModel(**PAS[c]).process(np.asarray(x, dtype=np.complex64)).astype(np.complex128)
    return metrics.aclr(y, FS, 18e6, 20e6)["worst"]


class pa_pair_cc(gr.sync_block):
    """Both chains' PAs (PA c on input c, then DELAYS[c] samples of delay) in one block, so the
    selector's inputs are written together. GNU Radio 3.10.5's selector forecasts its selected input
    only but consumes as much from every input (gnuradio#6616, fixed in 3.10.7): an inactive input
    that arrives later than the active one is consumed past its end and its stream positions jump
    by a buffer. A real RF switch passes one PA's samples in order; fed by one writer, so does the
    selector."""

    def __init__(self):
        gr.sync_block.__init__(self, "pa_pair_cc", [np.complex64] * 2, [np.complex64] * 2)
        self.pas = [pa_models.PAModel(**PAS[c]) for c in range(2)]
        self.tails = [np.zeros(DELAYS[c], np.complex64) for c in range(2)]

    def work(self, input_items, output_items):
        n = len(output_items[0])
        for c in range(2):
            v = np.concatenate([self.tails[c], self.pas[c].process(input_items[c][:n])])
            output_items[c][:] = v[:n]
            self.tails[c] = v[n:]
        return n


class Loop:
    """Two chains, one predistorter with channels=2, two PAs (each with its own delay), the
    selector in front of the one receiver, the estimator serving both."""

    def __init__(self, captures, coefficients_file=""):
        self.tb = tb = gr.top_block()
        period = 2 * N
        self.total = total = captures * (N + SETTLE + 2 * 8192) + 3 * 65536
        self.u = [chain_signal(c) for c in range(2)]
        self.pred = gpuinterp.dpd_predistorter_cc(P, Q, Lp, Lq, [1] + [0] * (K - 1), 0j, "cpu", channels=2)
        self.est = gpuinterp.dpd_estimator_cc(P, Q, Lp, Lq, capture_length=N, update_period=period, max_delay=64,
                                              synchronous=True, damping=0.8, rx_full_scale=2.0, sample_rate=FS,
                                              signal_bandwidth=18e6,
                                              channel_spacing=20e6, rx_timeout=0, channels=2, settle=SETTLE,
                                              max_updates=captures, coefficients_file=coefficients_file)
        self.selector = blocks.selector(gr.sizeof_gr_complex, 0, 0)
        self.sinks, self.blocks = [], []
        self.pas = pa_pair_cc()
        for c in range(2):
            src = blocks.vector_source_c(self.u[c].tolist(), True)
            head = blocks.head(gr.sizeof_gr_complex, total)
            sink = blocks.vector_sink_c()
            tb.connect(src, head, (self.pred, c))
            tb.connect((self.pred, c), (self.est, c))
            tb.connect((self.pred, c), sink)
            tb.connect((self.pred, c), (self.pas, c), (self.selector, c))
            self.sinks.append(sink)
            self.blocks += [src, head]
        tb.connect(self.selector, (self.est, 2))
        self.coeffs = msg_collector()
        tb.msg_connect(self.est, "coeffs", self.pred, "coeffs")
        tb.msg_connect(self.est, "coeffs", self.coeffs, "in")
        tb.msg_connect(self.est, "obs_select", self.selector, "iindex")

    def run(self):
        self.tb.run()
        self.x = [np.asarray(s.data(), dtype=np.complex64) for s in self.sinks]
        return self

    def final(self, c):
        """Channel c's predistorter output over the last 65536 samples (a whole period of its test
        signal, so it lines up with u[c] sample for sample)."""
        end = self.total - self.total % 65536
        return self.x[c][end - 65536:end]


class qa_estimator_channels_loop(gr_unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with tempfile.TemporaryDirectory() as d:
            f = os.path.join(d, "coeffs.json")
            cls.loop = Loop(12, coefficients_file=f).run()
            cls.files = [dm.load_model(f"{f}.ch{c}") for c in range(2)]

    def test_each_channel_converges_to_its_own_pa(self):
        loop, est = self.loop, self.loop.est
        for c in range(2):
            st = [r.status for r in est.history(c)]
            self.assertEqual(len(st), 6, st)
            self.assertGreaterEqual(st.count("updated"), 4, st)
            self.assertNotIn("refused", st)
            self.assertAlmostEqual(est.meter("delay", c), DELAYS[c], delta=0.5)
        own = [est.coefficients(c) for c in range(2)]
        lo = [est.lo_leakage(c) for c in range(2)]
        for c in range(2):
            u = loop.u[c]
            none = aclr(c, u)
            dpd = aclr(c, loop.final(c))  # through the predistorter block, channel c's coefficients
            swapped = aclr(c, dm.apply(u, SPEC, own[1 - c], lo[1 - c]).astype(np.complex64))
            mine = aclr(c, dm.apply(u, SPEC, own[c], lo[c]).astype(np.complex64))
            print(f"channel {c} ({PAS[c]['model']}): no DPD {none:.2f}, loop {dpd:.2f}, own offline {mine:.2f}, "
                  f"swapped {swapped:.2f} dBc")
            self.assertLess(dpd, none - 10.0, c)
            self.assertLess(abs(dpd - mine), 0.5, c)  # the predistorter runs channel c's own set
            self.assertGreater(swapped, dpd + 8.0, c)  # the other channel's would fail
            # the predistorter's channel c holds the estimator's channel c, and so does its file
            np.testing.assert_allclose(loop.pred.channel_coefficients(c), own[c], rtol=1e-6, atol=1e-6)
            np.testing.assert_allclose(self.files[c].coefficients, own[c], rtol=1e-6, atol=1e-6)  # complex64 rounding

    def test_messages_name_their_channel(self):
        est = self.loop.est
        got = {0: [], 1: []}
        for m in self.loop.coeffs.msgs:
            got[radio_messages.message_channel(m)].append(radio_messages.parse_coefficients_message(m, K)[0])
        for c in range(2):
            sent = [r for r in est.history(c) if r.status in ("updated", "rolled back")]
            self.assertEqual(len(got[c]), len(sent))
            np.testing.assert_allclose(got[c][-1], est.coefficients(c), rtol=1e-6, atol=1e-6)  # complex64 rounding


if __name__ == "__main__":
    gr_unittest.run(qa_estimator_channels_loop)
