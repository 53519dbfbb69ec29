#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""device_buffers from Python: a two-block chain with device buffers equals host buffers and scipy,
buffers are released with the flowgraph, one host output may feed two device-buffer blocks, and a
host output feeding a host block and a device-buffer block is refused at start()."""

import gc

import numpy as np
from gnuradio import blocks, gr, gr_unittest
from scipy import signal

from gnuradio import gpuinterp


def chain(x, h1, h2, device_buffers, backend="automatic"):
    tb = gr.top_block()
    src = blocks.vector_source_c(x.tolist())
    a = gpuinterp.interp_fir_ccf(2, h1.tolist(), backend=backend, device_buffers=device_buffers)
    b = gpuinterp.interp_fir_ccf(4, h2.tolist(), backend=backend, device_buffers=device_buffers)
    snk = blocks.vector_sink_c()
    tb.connect(src, a, b, snk)
    tb.run()
    return np.array(snk.data()), a


class qa_device_buffers(gr_unittest.TestCase):
    def setUp(self):
        rng = np.random.default_rng(3)
        self.x = (rng.standard_normal(20011) + 1j * rng.standard_normal(20011)).astype(np.complex64)
        self.h1 = rng.uniform(-1, 1, 17).astype(np.float32)
        self.h2 = rng.uniform(-1, 1, 40).astype(np.float32)

    def test_chain_matches_host_buffers_and_scipy(self):
        y_dev, a = chain(self.x, self.h1, self.h2, True)
        y_host, _ = chain(self.x, self.h1, self.h2, False)
        self.assertTrue(a.device_buffers())
        s1 = signal.upfirdn(self.h1.astype(np.float64), self.x.astype(np.complex128), 2)[: len(self.x) * 2]
        ref = signal.upfirdn(self.h2.astype(np.float64), s1, 4)[: len(s1) * 4]
        scale = np.max(np.abs(ref))
        self.assertEqual(len(y_dev), len(ref))
        self.assertLess(np.max(np.abs(y_dev - ref)) / scale, 1e-5)
        self.assertLess(np.max(np.abs(y_dev - y_host)) / scale, 1e-5)

    def test_default_is_host_buffers(self):
        blk = gpuinterp.interp_fir_ccf(2, [1.0, 0.5])
        self.assertFalse(blk.device_buffers())

    def test_buffers_released_with_flowgraph(self):
        chain(self.x, self.h1, self.h2, True)  # warm-up
        gc.collect()
        before = gpuinterp.device_memory_usage()
        for _ in range(10):
            chain(self.x[:2000], self.h1, self.h2, True)
        gc.collect()
        after = gpuinterp.device_memory_usage()
        self.assertEqual(after["buffers"], before["buffers"])
        self.assertEqual(after["sim_device_bytes"] + after["cuda_device_bytes"],
                         before["sim_device_bytes"] + before["cuda_device_bytes"])
        self.assertEqual(after["sim_host_bytes"] + after["cuda_host_bytes"],
                         before["sim_host_bytes"] + before["cuda_host_bytes"])

    def test_host_output_to_two_device_blocks(self):
        tb = gr.top_block()
        src = blocks.vector_source_c(self.x.tolist())
        a = gpuinterp.interp_fir_ccf(2, self.h1.tolist(), device_buffers=True)
        b = gpuinterp.interp_fir_ccf(4, self.h2.tolist(), device_buffers=True)
        s1, s2 = blocks.vector_sink_c(), blocks.vector_sink_c()
        tb.connect(src, a, s1)
        tb.connect(src, b, s2)
        tb.run()
        r1 = signal.upfirdn(self.h1.astype(np.float64), self.x.astype(np.complex128), 2)[: len(self.x) * 2]
        r2 = signal.upfirdn(self.h2.astype(np.float64), self.x.astype(np.complex128), 4)[: len(self.x) * 4]
        self.assertLess(np.max(np.abs(np.array(s1.data()) - r1)), 1e-4)
        self.assertLess(np.max(np.abs(np.array(s2.data()) - r2)), 1e-4)

    def test_mixed_fan_out_is_refused(self):
        tb = gr.top_block()
        src = blocks.vector_source_c(self.x.tolist())
        dev = gpuinterp.interp_fir_ccf(2, self.h1.tolist(), device_buffers=True)
        tb.connect(src, blocks.null_sink(gr.sizeof_gr_complex))
        tb.connect(src, dev, blocks.null_sink(gr.sizeof_gr_complex))
        with self.assertRaises(RuntimeError):
            tb.start()
            tb.stop()
            tb.wait()


if __name__ == "__main__":
    gr_unittest.run(qa_device_buffers)
