#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""QA of interp_fir and resampler with channels > 1 through the binding: each FIR output against
scipy's upfirdn of its own input, each resampler output against a single-channel resampler on
its own input, one-to-one tags, the kernels' (N, n) arrays, bad channel counts."""

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest
from scipy import signal

from gnuradio import gpuinterp

RNG = np.random.default_rng(77)


def crandn(n, a=1.0):
    return (a * (RNG.standard_normal(n) + 1j * RNG.standard_normal(n))).astype(np.complex64)


def upfirdn(h, x, L):
    return signal.upfirdn(h.astype(np.float64), x.astype(np.complex128), L)[:len(x) * L]


class qa_channels(gr_unittest.TestCase):

    def run_channels(self, blk, xs, tag_at):
        tb = gr.top_block()
        sinks = []
        for c, x in enumerate(xs):
            t = gr.tag_t()
            t.offset = tag_at[c]
            t.key = pmt.intern("mark")
            t.value = pmt.from_long(c)
            src = blocks.vector_source_c(x, False, 1, [t])
            snk = blocks.vector_sink_c()
            tb.connect(src, (blk, c))
            tb.connect((blk, c), snk)
            sinks.append(snk)
        tb.run()
        return sinks

    def test_001_each_channel_is_its_own_upfirdn_and_keeps_its_tags(self):
        N, L = 3, 5
        h = RNG.standard_normal(41).astype(np.float32)
        xs = [crandn(4000, 0.3 + 0.3 * c) for c in range(N)]
        blk = gpuinterp.interp_fir_ccf(L, h, backend="cpu", channels=N)
        self.assertEqual(blk.channels(), N)
        at = [50 + 17 * c for c in range(N)]
        sinks = self.run_channels(blk, xs, at)
        for c in range(N):
            got = np.array(sinks[c].data())
            want = upfirdn(h, xs[c], L)
            self.assertEqual(len(got), len(want))
            self.assertLess(np.max(np.abs(got - want)), 2e-5 * np.max(np.abs(want)))
            tags = sinks[c].tags()
            self.assertEqual(len(tags), 1, f"output {c}")
            self.assertEqual(tags[0].offset, at[c] * L)
            self.assertEqual(pmt.to_long(tags[0].value), c)

    def test_002_kernel_filters_rows_like_single_channel_kernels(self):
        N, L = 4, 3
        h = RNG.standard_normal(13).astype(np.float32)
        k = gpuinterp.polyphase_interpolator_ccf(L, h, backend="cpu", channels=N)
        self.assertEqual(k.channels(), N)
        x = np.stack([crandn(777) for _ in range(N)])
        y = np.concatenate([k.filter(x[:, :300]), k.filter(x[:, 300:])], axis=1)
        self.assertEqual(y.shape, (N, 777 * L))
        for c in range(N):
            one = gpuinterp.polyphase_interpolator_ccf(L, h, backend="cpu")
            np.testing.assert_array_equal(y[c], np.concatenate([one.filter(x[c, :300]),
                                                                one.filter(x[c, 300:])]))
            self.assertLess(np.max(np.abs(y[c] - upfirdn(h, x[c], L))), 1e-4)
        with self.assertRaises(ValueError):
            k.filter(x[:3])  # three rows for four channels

    def test_003_resampler_channels_equal_single_channel_resamplers(self):
        N, r = 3, 1.37
        xs = [crandn(6000, 0.5) for _ in range(N)]
        blk = gpuinterp.resampler_cc(r, "cubic", backend="cpu", channels=N)
        self.assertEqual(blk.channels(), N)
        at = [400 + 10 * c for c in range(N)]
        sinks = self.run_channels(blk, xs, at)
        one = gpuinterp.resampler_cc(r, "cubic", backend="cpu")
        ref_sinks = self.run_channels(one, xs[1:2], [at[1]])
        for c in range(N):
            want = gpuinterp.resampler_kernel_cc(r, "cubic").resample(xs[c])
            got = np.array(sinks[c].data())
            n = min(len(got), len(want))
            self.assertGreater(n, 8000)
            np.testing.assert_array_equal(got[:n], want[:n])
            tags = sinks[c].tags()
            self.assertEqual(len(tags), 1, f"output {c}")
            self.assertEqual(pmt.to_long(tags[0].value), c)
        # channel 1's tag lands where a single-channel block puts it
        self.assertEqual(sinks[1].tags()[0].offset, ref_sinks[0].tags()[0].offset)
        k = gpuinterp.resampler_kernel_cc(r, "linear", channels=N)
        y = k.resample(np.stack(xs))
        self.assertEqual(y.shape[0], N)
        for c in range(N):
            np.testing.assert_array_equal(
                y[c], gpuinterp.resampler_kernel_cc(r, "linear").resample(xs[c]))

    def test_004_bad_channel_counts_name_channels(self):
        for n in (0, 65, -1):
            for make in (lambda: gpuinterp.interp_fir_ccf(2, [1.0], backend="cpu", channels=n),
                         lambda: gpuinterp.interp_fir_fff(2, [1.0], backend="cpu", channels=n),
                         lambda: gpuinterp.polyphase_interpolator_ccf(2, [1.0], channels=n),
                         lambda: gpuinterp.resampler_cc(1.5, backend="cpu", channels=n),
                         lambda: gpuinterp.resampler_kernel_cc(1.5, channels=n)):
                with self.assertRaises(ValueError) as cm:
                    make()
                self.assertTrue(str(cm.exception).startswith("channels:"), str(cm.exception))


if __name__ == '__main__':
    gr_unittest.run(qa_channels)
