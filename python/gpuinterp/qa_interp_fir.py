#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Flowgraph QA of interp_fir_{ccf,fff,ccc} against GNU Radio's interp_fir_filter and scipy.signal.upfirdn."""

import threading
import time

import numpy as np
from gnuradio import blocks, filter, gr, gr_unittest
from scipy import signal

from gnuradio import gpuinterp
from gnuradio.gpuinterp.qa_util import start_throttled

RNG = np.random.default_rng(2026)


def crandn(n):
    return (RNG.standard_normal(n) + 1j * RNG.standard_normal(n)).astype(np.complex64)


def run_block(blk, x, dtype, tags=()):
    src = blocks.vector_source_c(x, False, 1, list(tags)) if dtype == complex else \
        blocks.vector_source_f(x, False, 1, list(tags))
    snk = blocks.vector_sink_c() if dtype == complex else blocks.vector_sink_f()
    tb = gr.top_block()
    tb.connect(src, blk, snk)
    tb.run()
    return np.array(snk.data()), snk.tags()


def close(a, b, rtol=2e-5):
    return np.max(np.abs(a - b)) <= rtol * max(1.0, np.max(np.abs(b)))


class qa_interp_fir(gr_unittest.TestCase):

    def test_001_matches_gnuradio_interp_fir_filter(self):
        for L, ntaps in [(1, 5), (2, 12), (3, 10), (4, 64), (7, 3), (16, 256)]:
            x = crandn(5003)
            h = RNG.standard_normal(ntaps).astype(np.float32)
            ours, _ = run_block(gpuinterp.interp_fir_ccf(L, h.tolist()), x, complex)
            ref, _ = run_block(filter.interp_fir_filter_ccf(L, h.tolist()), x, complex)
            self.assertEqual(len(ours), len(x) * L)
            self.assertTrue(close(ours, ref), f"ccf L={L} taps={ntaps}")

            xf = RNG.standard_normal(5003).astype(np.float32)
            ours, _ = run_block(gpuinterp.interp_fir_fff(L, h.tolist()), xf, float)
            ref, _ = run_block(filter.interp_fir_filter_fff(L, h.tolist()), xf, float)
            self.assertTrue(close(ours, ref), f"fff L={L} taps={ntaps}")

            hc = crandn(ntaps)
            ours, _ = run_block(gpuinterp.interp_fir_ccc(L, hc.tolist()), x, complex)
            ref, _ = run_block(filter.interp_fir_filter_ccc(L, hc.tolist()), x, complex)
            self.assertTrue(close(ours, ref), f"ccc L={L} taps={ntaps}")

    def test_002_matches_scipy_upfirdn(self):
        for L, ntaps in [(2, 12), (5, 33), (8, 128)]:
            x = crandn(4000)
            h = RNG.standard_normal(ntaps)
            ours, _ = run_block(gpuinterp.interp_fir_ccf(L, h.astype(np.float32).tolist()), x, complex)
            ref = signal.upfirdn(h, x.astype(np.complex128), L)[:len(x) * L]
            self.assertTrue(close(ours, ref), f"L={L}")

    def test_003_kernel_from_numpy_chunked(self):
        h = RNG.standard_normal(37).astype(np.float32)
        x = crandn(3000)
        k = gpuinterp.polyphase_interpolator_ccf(4, h.tolist())
        parts, pos = [], 0
        while pos < len(x):
            n = int(RNG.integers(0, 200))
            parts.append(k.filter(x[pos:pos + n]))
            pos += n
        y = np.concatenate(parts)
        ref = signal.upfirdn(h.astype(np.float64), x.astype(np.complex128), 4)[:len(x) * 4]
        self.assertEqual(y.dtype, np.complex64)
        self.assertTrue(close(y, ref))
        self.assertEqual(k.taps_per_arm(), 10)

    def test_004_tags_move_to_interpolated_offsets(self):
        L = 5
        x = crandn(1000)
        tags = []
        for off in (0, 17, 999):
            t = gr.tag_t()
            t.offset = off
            t.key = gr.pmt.intern("burst")
            t.value = gr.pmt.from_long(off)
            tags.append(t)
        _, got = run_block(gpuinterp.interp_fir_ccf(L, [1.0] * 7), x, complex, tags)
        self.assertEqual(sorted(t.offset for t in got), [0, 17 * L, 999 * L])
        self.assertEqual(sorted(gr.pmt.to_long(t.value) for t in got), [0, 17, 999])

    def test_005_set_taps_while_running(self):
        L = 2
        h1 = RNG.standard_normal(16).astype(np.float32)
        h2 = RNG.standard_normal(16).astype(np.float32)
        x = crandn(400000)
        blk = gpuinterp.interp_fir_ccf(L, h1.tolist())
        tb, snk = start_throttled(blk, x, 2e6)
        time.sleep(0.05)
        setter = threading.Thread(target=blk.set_taps, args=(h2.tolist(),))
        setter.start()
        setter.join()
        tb.wait()
        y = np.array(snk.data())
        r1 = signal.upfirdn(h1.astype(np.float64), x.astype(np.complex128), L)[:len(x) * L]
        r2 = signal.upfirdn(h2.astype(np.float64), x.astype(np.complex128), L)[:len(x) * L]
        tol = 1e-4 * np.max(np.abs(r1))
        differs = np.nonzero(np.abs(y - r1) > tol)[0]
        self.assertGreater(len(differs), 0, "set_taps never took effect")
        k = differs[0]
        self.assertEqual(k % L, 0, "taps changed in the middle of an input sample")
        self.assertGreater(k, 0)
        # Same tap count: the history carries, so from the switch on the output is exactly the new filter.
        self.assertLess(np.max(np.abs(y[k:] - r2[k:])), tol)
        self.assertEqual(list(blk.taps()), pytest_round(h2))

    def test_006_bad_parameters_raise(self):
        with self.assertRaisesRegex(ValueError, "^interpolation"):
            gpuinterp.interp_fir_ccf(0, [1.0])
        with self.assertRaisesRegex(ValueError, "^interpolation"):
            gpuinterp.interp_fir_ccf(-3, [1.0])
        with self.assertRaisesRegex(ValueError, "^taps"):
            gpuinterp.interp_fir_fff(2, [])
        with self.assertRaisesRegex(ValueError, "^taps"):
            gpuinterp.interp_fir_ccf(2, [1.0, float("nan")])
        with self.assertRaisesRegex(ValueError, "^taps"):
            gpuinterp.interp_fir_ccc(2, [1.0, complex(float("inf"), 0)])
        with self.assertRaisesRegex(ValueError, "^backend"):
            gpuinterp.interp_fir_ccf(2, [1.0], backend="opencl")
        with self.assertRaisesRegex(ValueError, "^device"):
            gpuinterp.interp_fir_ccf(2, [1.0], device=-1)
        with self.assertRaisesRegex(ValueError, "^batch"):
            gpuinterp.interp_fir_ccf(2, [1.0], batch=-1)
        blk = gpuinterp.interp_fir_ccf(2, [1.0, 2.0], backend="cpu")
        with self.assertRaisesRegex(ValueError, "^taps"):
            blk.set_taps([])
        self.assertEqual(list(blk.taps()), [1.0, 2.0])
        if gpuinterp.cuda_device_count() == 0:
            with self.assertRaisesRegex(RuntimeError, "cuda"):
                gpuinterp.interp_fir_ccf(2, [1.0], backend="cuda")
        else:
            with self.assertRaisesRegex(ValueError, "^device"):
                gpuinterp.interp_fir_ccf(2, [1.0], backend="cuda", device=1000)

    def test_007_automatic_backend_and_non_finite_samples(self):
        blk = gpuinterp.interp_fir_ccf(2, [0.5, 1.0, 0.5])
        expected = "cuda" if gpuinterp.cuda_device_count() > 0 else "cpu"
        self.assertEqual(blk.active_backend(), expected)
        x = crandn(100)
        x[10] = complex(np.inf, 0)
        x[50] = complex(np.nan, np.nan)
        y, _ = run_block(blk, x, complex)
        self.assertEqual(len(y), 200)
        self.assertTrue(np.all(np.isfinite(y[:20])))
        self.assertFalse(np.isfinite(y[20]))
        self.assertTrue(np.all(np.isfinite(y[106:])))


def pytest_round(v):
    return [float(np.float32(t)) for t in v]


if __name__ == "__main__":
    gr_unittest.run(qa_interp_fir)
