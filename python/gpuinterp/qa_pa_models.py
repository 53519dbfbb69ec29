#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""QA for gpuinterp.pa_models: presets against their published characteristics (ding2004: Ding, Zhou,
Morgan, Ma, Kenney, Kim, Giardina, "A robust digital baseband predistorter constructed using memory
polynomials", IEEE Trans. Commun. 52(1), 2004; warp_v3: C. Tarver's WARP v3 PA model, ILA-DPD
`PowerAmplifier.m`; docs/dpd_loop.md lists both), memory polynomial against the equation, Rapp
(C. Rapp, 2nd European Conf. on Satellite Communications, 1991) and Saleh (A. A. M. Saleh, IEEE Trans.
Commun. 29(11), 1981) formulas, back-off, gain, noise SNR, chunking, and the pa_model_cc block in a
flowgraph."""

import math
import os
import time

import numpy as np
from gnuradio import blocks, gr, gr_unittest

from gnuradio import gpuinterp
from gnuradio.gpuinterp import pa_models
from gnuradio.gpuinterp.reference import seeded_case


def static_gain(model, r):
    """Complex gain y/x of a PA model for a constant input of amplitude r (steady state)."""
    pa = pa_models.PAModel(model)
    y = pa.process(np.full(16, r, dtype=np.complex64))
    return complex(y[-1]) / r


class qa_pa_models(seeded_case, gr_unittest.TestCase):
    seed = 99

    def test_ding2004_published_characteristics(self):
        # pa_models.md: small-signal gain 1.016; -1.7 dB and -15 deg at |x| = 0.7.
        g0 = static_gain("ding2004", 1e-3)
        self.assertAlmostEqual(abs(g0), 1.016, delta=0.001)
        g = static_gain("ding2004", 0.7)
        self.assertAlmostEqual(20 * math.log10(abs(g) / abs(g0)), -1.7, delta=0.1)
        self.assertAlmostEqual(math.degrees(np.angle(g)), -15, delta=1.0)

    def test_warp_v3_published_characteristics(self):
        # pa_models.md: small-signal gain 1.170; 1 dB compression near |x| = 0.72; -4.1 dB at |x| = 1.
        g0 = abs(static_gain("warp_v3", 1e-3))
        self.assertAlmostEqual(g0, 1.170, delta=0.001)
        comp = lambda r: 20 * math.log10(abs(static_gain("warp_v3", r)) / g0)  # noqa: E731
        self.assertAlmostEqual(comp(1.0), -4.1, delta=0.1)
        self.assertGreater(comp(0.68), -1.0)
        self.assertLess(comp(0.76), -1.0)

    def test_memory_polynomial_matches_equation(self):
        M, P = 3, 5
        a = self.rand_c((P + 1) // 2 * M, 0.3)
        x = self.rand_c(500, 0.4)
        ref = np.zeros(x.size, dtype=np.complex128)
        for ki, k in enumerate(range(1, P + 1, 2)):
            for m in range(M):
                xs = np.concatenate([np.zeros(m), x[:x.size - m]])
                ref += a[ki * M + m] * xs * np.abs(xs) ** (k - 1)
        pa = pa_models.PAModel("memory_polynomial", coefficients=a, memory_depth=M)
        got = np.concatenate([pa.process(x[:77]), pa.process(x[77:300]), pa.process(x[300:])])
        np.testing.assert_allclose(got, ref, atol=1e-5 * np.max(np.abs(ref)))
        # 2-D coefficients (rows = orders) are the same model.
        pa2 = pa_models.PAModel("memory_polynomial", coefficients=a.reshape(3, M))
        np.testing.assert_allclose(pa2.process(x), ref, atol=1e-5 * np.max(np.abs(ref)))

    def test_preset_equals_memory_polynomial(self):
        P, M, a = pa_models.preset_coefficients("ding2004")
        self.assertEqual((P, M), (5, 3))
        x = self.rand_c(1000, 0.3)
        np.testing.assert_array_equal(
            pa_models.PAModel("ding2004").process(x),
            pa_models.PAModel("memory_polynomial", coefficients=a, memory_depth=3).process(x))

    def test_rapp(self):
        x = self.rand_c(1000, 1.0)
        pa = pa_models.PAModel("rapp", rapp_saturation=0.8, rapp_smoothness=3.0)
        y = pa.process(x)
        r = np.abs(x)
        ref = x / (1 + (r / 0.8) ** 6) ** (1 / 6)
        np.testing.assert_allclose(y, ref, rtol=1e-6, atol=1e-7)
        big = pa.process(np.array([100.0 + 0j]))
        self.assertAlmostEqual(abs(big[0]), 0.8, delta=1e-4)

    def test_saleh(self):
        pa = pa_models.PAModel("saleh")
        y = pa.process(np.array([1.0, 0.5j, 0.0]))
        aa, ba, ap, bp = 2.1587, 1.1517, 4.0033, 9.1040
        self.assertAlmostEqual(abs(y[0]), aa / (1 + ba), places=5)
        self.assertAlmostEqual(np.angle(y[0]), ap / (1 + bp), places=5)
        r = 0.5
        self.assertAlmostEqual(abs(y[1]), aa * r / (1 + ba * r * r), places=5)
        self.assertAlmostEqual(np.angle(y[1]), np.pi / 2 + ap * r * r / (1 + bp * r * r), places=5)
        self.assertEqual(y[2], 0)

    def test_backoff_and_gain(self):
        x = self.rand_c(400, 0.5)
        ref = pa_models.PAModel("ding2004").process(x * 10 ** (-6 / 20)) * (2 - 1j)
        got = pa_models.PAModel("ding2004", backoff_db=6, gain=2 - 1j).process(x)
        np.testing.assert_allclose(got, ref, rtol=2e-6, atol=2e-6)

    def test_noise_snr(self):
        x = self.rand_c(200000, 0.2)
        clean = pa_models.PAModel("ding2004").process(x)
        pa = pa_models.PAModel("ding2004", snr_db=30.0, seed=5)
        noisy = np.concatenate([pa.process(x[i:i + 10000]) for i in range(0, x.size, 10000)])
        snr = 10 * math.log10(np.mean(np.abs(clean) ** 2) / np.mean(np.abs(noisy - clean) ** 2))
        self.assertAlmostEqual(snr, 30.0, delta=0.2)

    def test_bad_parameters(self):
        cases = [
            (dict(model="tube"), "model:"),
            (dict(model="memory_polynomial"), "coefficients:"),
            (dict(model="memory_polynomial", coefficients=[1, 2, 3], memory_depth=2), "coefficients:"),
            (dict(model="ding2004", coefficients=[1]), "coefficients:"),
            (dict(gain=0), "gain:"),
            (dict(backoff_db=float("nan")), "backoff_db:"),
            (dict(model="rapp", rapp_saturation=0), "rapp_saturation:"),
            (dict(snr_db=float("nan")), "snr_db:"),
        ]
        for kw, prefix in cases:
            with self.assertRaises(ValueError) as cm:
                pa_models.PAModel(**kw)
            self.assertTrue(str(cm.exception).startswith(prefix), str(cm.exception))

    def test_block_in_flowgraph(self):
        x = self.rand_c(20000, 0.25).astype(np.complex64)
        tb = gr.top_block()
        src = blocks.vector_source_c(x.tolist(), False, 1, [gr.tag_utils.python_to_tag((123, gr.pmt.intern("k"),
                                                                                        gr.pmt.from_long(7)))])
        pa = gpuinterp.pa_model_cc("warp_v3", backoff_db=3.0)
        snk = blocks.vector_sink_c()
        tb.connect(src, pa, snk)
        tb.run()
        ref = pa_models.PAModel("warp_v3", backoff_db=3.0).process(x)
        np.testing.assert_allclose(np.array(snk.data()), ref, rtol=1e-5, atol=1e-6)
        tags = snk.tags()
        self.assertEqual(len(tags), 1)
        self.assertEqual(tags[0].offset, 123)
        pa.set_backoff_db(1.0)
        self.assertEqual(pa.backoff_db(), 1.0)
        with self.assertRaises(ValueError):
            pa.set_gain(0)

    def test_setter_while_running(self):
        # A gain change lands between two work() calls of the running flowgraph.
        tb = gr.top_block()
        src = blocks.vector_source_c([0.1 + 0j] * 4096, True)
        pa = gpuinterp.pa_model_cc("rapp", rapp_saturation=10.0)
        probe = blocks.probe_signal_c()
        tb.connect(src, pa, probe)
        tb.start()
        deadline = time.time() + 5
        while time.time() < deadline and abs(probe.level()) == 0:
            time.sleep(0.01)
        before = probe.level()
        pa.set_gain(-2.0)
        deadline = time.time() + 5
        while time.time() < deadline and abs(probe.level() - 2 * -before) > 1e-6:
            time.sleep(0.01)
        after = probe.level()
        tb.stop()
        tb.wait()
        rapp = 0.1 / (1 + (0.1 / 10.0) ** 4) ** 0.25
        self.assertAlmostEqual(before, rapp, places=6)
        self.assertAlmostEqual(after, -2 * rapp, places=6)


if __name__ == "__main__":
    gr_unittest.run(qa_pa_models)
