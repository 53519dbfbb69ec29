#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""One bad input sample (NaN, Inf, 1e30) must not poison the PA model: with a finite snr_db the noise
level follows a running power estimate, and one bad sample used to make it NaN or huge for the rest of
the stream. Only the bad sample's own output, and for a memory polynomial the M-1 outputs its memory
reaches, may be non-finite or wrong; every other output must equal the model's output for the same
stream without the glitch (same seed, so the same noise draws)."""

import math
import unittest

import numpy as np
from gnuradio import blocks, gr, gr_unittest

from gnuradio import gpuinterp
from gnuradio.gpuinterp import pa_models

N = 20000
BAD_AT = 5000
BAD_VALUES = (complex(math.nan, 0), complex(math.inf, 0), complex(1e30, 0), complex(0, -math.inf))
# (model, memory span: outputs a bad input reaches)
MODELS = (("ding2004", 3), ("warp_v3", 4), ("rapp", 1), ("saleh", 1))


def chunked(pa, x, sizes):
    out, i, j = [], 0, 0
    while i < x.size:
        n = sizes[j % len(sizes)]
        out.append(pa.process(x[i:i + n]))
        i, j = i + n, j + 1
    return np.concatenate(out)


class qa_pa_outliers(gr_unittest.TestCase):
    def setUp(self):
        rng = np.random.default_rng(5)
        # The reported failure was a constant 0.1; a random signal also checks that the reference the
        # other outputs are compared with is not trivially constant.
        self.signals = {
            "constant": np.full(N, 0.1, dtype=np.complex64),
            "random": (0.2 * (rng.standard_normal(N) + 1j * rng.standard_normal(N))).astype(np.complex64),
        }

    def check(self, model, span, clean, bad_value, sizes):
        x = clean.copy()
        x[BAD_AT] = bad_value
        ref = chunked(pa_models.PAModel(model, snr_db=40, seed=3), clean, sizes)
        pa = pa_models.PAModel(model, snr_db=40, seed=3)
        got = chunked(pa, x, sizes)
        inside = np.zeros(N, dtype=bool)
        inside[BAD_AT:BAD_AT + span] = True
        nonfinite = ~np.isfinite(got)
        self.assertEqual(int(nonfinite[~inside].sum()), 0, f"{model} {bad_value}: non-finite outside the span")
        self.assertLessEqual(int(nonfinite.sum()), span)
        # Outside the span: the output of the clean stream. The noise (1 % of the signal at 40 dB)
        # differs only as much as the glitch's own contribution to the mean power: none when it is
        # left out, a few percent of the noise when a saturating model turns 1e30 into a legitimate
        # full-scale output (a poisoned mean would be off by orders of magnitude, or NaN).
        scale = float(np.max(np.abs(ref)))
        np.testing.assert_allclose(got[~inside], ref[~inside], rtol=0, atol=1e-3 * scale)
        # What was left out of the running power: the non-finite outputs at least, nothing outside
        # the span.
        self.assertGreaterEqual(pa.outliers, int(nonfinite.sum()))
        self.assertLessEqual(pa.outliers, span)
        return int(nonfinite.sum())

    def test_one_bad_sample_poisons_nothing_else(self):
        counts = {}
        for model, span in MODELS:
            for sig_name, clean in self.signals.items():
                for bad in BAD_VALUES:
                    for sizes in ([N], [4096], [1, 777, 4096, 13]):
                        with self.subTest(model=model, signal=sig_name, bad=bad, sizes=sizes):
                            counts[(model, str(bad))] = self.check(model, span, clean, bad, sizes)
        # The NaN sample itself stays NaN (it is not silently replaced) and reaches exactly the memory
        # polynomial's span.
        self.assertEqual(counts[("ding2004", str(complex(math.nan, 0)))], 3)
        self.assertEqual(counts[("rapp", str(complex(math.nan, 0)))], 1)

    def test_issue_repro_in_a_flowgraph(self):
        # 20000 samples of 0.1, x[5000] = NaN through pa_model_cc('ding2004', snr_db=40): was 15904 NaN.
        x = np.full(N, 0.1, dtype=np.complex64)
        x[BAD_AT] = np.nan
        tb = gr.top_block()
        src = blocks.vector_source_c(x.tolist())
        pa = gpuinterp.pa_model_cc("ding2004", snr_db=40, backend="cpu")
        snk = blocks.vector_sink_c()
        tb.connect(src, pa, snk)
        tb.run()
        y = np.array(snk.data())
        self.assertEqual(y.size, N)
        bad = np.flatnonzero(~np.isfinite(y))
        self.assertEqual(bad.tolist(), [BAD_AT, BAD_AT + 1, BAD_AT + 2])
        # The rest: the clean static gain (|x| = 0.1 is small signal) plus 40 dB SNR noise.
        clean = pa_models.PAModel("ding2004").process(np.full(16, 0.1, dtype=np.complex64))[-1]
        ok = np.isfinite(y)
        ok[:3] = False  # the model's memory fills from zero history
        err = y[ok] - clean
        snr = 10 * math.log10(abs(clean) ** 2 / np.mean(np.abs(err) ** 2))
        self.assertAlmostEqual(snr, 40.0, delta=0.5)

    def test_outlier_after_silence_is_not_taken_as_the_level(self):
        # A chunk of zeros has no median level; the glitch must still be left out once a level exists,
        # and the signal that starts after the silence must not be taken for an outlier.
        x = np.concatenate([np.zeros(1000), np.full(3000, 0.1), np.zeros(10), [1e30], np.full(3000, 0.1)])
        pa = pa_models.PAModel("ding2004", snr_db=30, seed=1)
        y = np.concatenate([pa.process(x[i:i + 500]) for i in range(0, x.size, 500)])
        self.assertEqual(pa.outliers, 3)  # the glitch and the two outputs its memory reaches
        clean = pa_models.PAModel("ding2004").process(x[-2000:])[-1]  # noiseless steady state
        tail = y[-2000:]
        snr = 10 * math.log10(abs(clean) ** 2 / np.mean(np.abs(tail - clean) ** 2))
        self.assertAlmostEqual(snr, 30.0, delta=1.0)

    def test_bad_parameters_named(self):
        for kw, name in (({"snr_db": -math.inf}, "snr_db"), ({"snr_db": math.nan}, "snr_db"),
                         ({"model": "rapp", "backend": "gpu"}, "backend"),
                         ({"backend": "gpu"}, "backend"),
                         ({"model": "memory_polynomial", "coefficients": [1, 0, 0], "memory_depth": math.nan},
                          "memory_depth"),
                         ({"model": "memory_polynomial", "coefficients": [1, 0, 0], "memory_depth": -1},
                          "memory_depth"),
                         ({"seed": -1}, "seed"), ({"seed": 1.5}, "seed")):
            with self.subTest(kw=kw):
                with self.assertRaises(ValueError) as cm:
                    gpuinterp.pa_model_cc(**kw)
                self.assertTrue(str(cm.exception).startswith(name + ":"), str(cm.exception))


if __name__ == "__main__":
    gr_unittest.run(qa_pa_outliers)
