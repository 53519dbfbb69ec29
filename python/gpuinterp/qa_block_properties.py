#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The streaming properties of qa_properties, checked on the blocks in running flowgraphs:

* random chunking: a pass-through block in front of the block under test hands on a random number
  of items per call (1 to 4097), so work() sees arbitrary chunk boundaries; the output must equal,
  bit for bit, one call of the kernel class the block wraps (whose own bounds qa_properties checks);
* NaN containment: with one NaN input, the block's output must be non-finite exactly where the
  kernel class's is, and equal to the clean run everywhere else.

CPU backend: the blocks' glue (history, tags, chunking) is what is under test here; the CUDA
engines are checked against the CPU ones in the C++ kernel tests.
"""

import numpy as np
from gnuradio import blocks, gr, gr_unittest

from gnuradio import gpuinterp
from gnuradio.gpuinterp import pa_models
from gnuradio.gpuinterp.reference import seeded_case


class random_chunker(gr.basic_block):
    """Copies a random number of items per call: arbitrary chunk boundaries downstream."""

    def __init__(self, dtype, seed):
        gr.basic_block.__init__(self, "random_chunker", in_sig=[dtype], out_sig=[dtype])
        self.rng = np.random.default_rng(seed)

    def general_work(self, input_items, output_items):
        n = min(len(input_items[0]), len(output_items[0]),
                int(self.rng.choice([1, 2, 7, 63, 64, 511, 1000, 4097])))
        output_items[0][:n] = input_items[0][:n]
        self.consume(0, n)
        return n


def run_block(block, x, seed):
    cplx = np.iscomplexobj(x)
    tb = gr.top_block()
    src = (blocks.vector_source_c if cplx else blocks.vector_source_f)(x.tolist(), False)
    chunker = random_chunker(np.complex64 if cplx else np.float32, seed)
    out_c = block.output_signature().sizeof_stream_item(0) == 8
    snk = blocks.vector_sink_c() if out_c else blocks.vector_sink_f()
    tb.connect(src, chunker, block, snk)
    tb.run()
    return np.array(snk.data())


class qa_block_properties(seeded_case, gr_unittest.TestCase):
    seed = 77

    def check(self, make_block, kernel_out, x, label, nan_reaches_output=True):
        """make_block() -> a fresh block; kernel_out(x) -> the kernel class's one-call output."""
        ref = kernel_out(x)
        got = run_block(make_block(), x, int(self.rng.integers(1 << 30)))
        # A block emits what its kernel can produce once the stream ends; the kernel class, given
        # the whole stream at once, the same.
        self.assertEqual(got.size, ref.size, label)
        np.testing.assert_array_equal(got, ref.astype(got.dtype), label)
        bad = x.copy()
        i = int(self.rng.integers(x.size // 4, 3 * x.size // 4))
        bad[i] = np.nan
        ref_bad = kernel_out(bad)
        got_bad = run_block(make_block(), bad, int(self.rng.integers(1 << 30)))
        self.assertEqual(got_bad.size, ref_bad.size, label)
        # the same outputs as the kernel class, NaNs in the same places (assert_array_equal treats
        # NaN as equal to NaN); qa_properties bounds where the kernel class lets them reach
        np.testing.assert_array_equal(got_bad, ref_bad.astype(got_bad.dtype), label)
        if nan_reaches_output:  # (a NaN coordinate of a table lookup is clamped like any other)
            self.assertGreater(int(np.sum(~np.isfinite(got_bad))), 0, label)
        fin = np.isfinite(got_bad)
        fin[i] = False
        np.testing.assert_array_equal(got_bad[fin], got[fin], label)

    def test_interpolators(self):
        for blk, ker, cplx, ctaps in ((gpuinterp.interp_fir_ccf, gpuinterp.polyphase_interpolator_ccf, True, False),
                                      (gpuinterp.interp_fir_fff, gpuinterp.polyphase_interpolator_fff, False, False),
                                      (gpuinterp.interp_fir_ccc, gpuinterp.polyphase_interpolator_ccc, True, True)):
            L, N = int(self.rng.integers(2, 9)), int(self.rng.integers(4, 64))
            taps = self.rng.standard_normal(N) + (1j * self.rng.standard_normal(N) if ctaps else 0)
            taps = list(taps)
            x = self.signal(20000, cplx)
            self.check(lambda: blk(L, taps, backend="cpu"),
                       lambda v: ker(L, taps, backend="cpu").filter(v), x, f"{blk.__name__} L={L} N={N}")

    def test_resamplers(self):
        for blk, ker, cplx in ((gpuinterp.resampler_cc, gpuinterp.resampler_kernel_cc, True),
                               (gpuinterp.resampler_ff, gpuinterp.resampler_kernel_ff, False)):
            for method in ("linear", "cubic", "polyphase"):
                rate = float(np.exp(self.rng.uniform(np.log(0.4), np.log(3.0))))
                x = self.signal(20000, cplx)
                self.check(lambda: blk(rate, method, backend="cpu"),
                           lambda v: ker(rate, method, backend="cpu").resample(v), x,
                           f"{blk.__name__} {method} r={rate:.4f}")

    def test_predistorter(self):
        P, Q, Lp, Lq = 5, 3, 4, 2
        n = gpuinterp.dpd_predistorter.num_coefficients(P, Q, Lp, Lq)
        w = list(0.2 * (self.rng.standard_normal(n) + 1j * self.rng.standard_normal(n)))
        x = self.signal(20000, True)
        self.check(lambda: gpuinterp.dpd_predistorter_cc(P, Q, Lp, Lq, w, 0.01j, backend="cpu"),
                   lambda v: gpuinterp.dpd_predistorter(P, Q, Lp, Lq, w, 0.01j, backend="cpu").process(v), x,
                   "dpd_predistorter_cc")

    def test_table_lookup(self):
        table = list(self.rng.standard_normal(32) + 1j * self.rng.standard_normal(32))
        x = self.rng.uniform(-2, 34, 20000).astype(np.float32)
        self.check(lambda: gpuinterp.table_lookup_fc(table, filter="linear", backend="cpu"),
                   lambda v: gpuinterp.table_lookup_kernel_fc(table, filter="linear", backend="cpu").lookup(v), x,
                   "table_lookup_fc", nan_reaches_output=False)

    def test_pa_model(self):
        x = self.signal(20000, True)
        self.check(lambda: pa_models.pa_model_cc("ding2004", backend="cpu"),
                   lambda v: pa_models.PAModel("ding2004").process(v), x, "pa_model_cc")


if __name__ == "__main__":
    gr_unittest.run(qa_block_properties)
