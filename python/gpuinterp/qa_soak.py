#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Soak: the device-buffer chain interpolate x8 -> predistort -> resample x1.25 (tx_chain_gpu.py) run
again and again while another thread calls every runtime setter and posts `coeffs` messages. The
setters re-apply the values in force (same taps, coefficients, rate), so the output must not change:
each run must equal the chain's double-precision reference and the first run bit for bit, the live
device buffers must return to the baseline after each run, and the process memory must stay flat.

Short in CI (4 runs of 2^14 symbols). Long on demand, by counts rather than time:
    GPUINTERP_SOAK_RUNS=200 GPUINTERP_SOAK_SYMBOLS=262144 python3 qa_soak.py"""

import os
import resource
import sys
import threading
import unittest

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import gpuinterp
from gnuradio.gpuinterp import dpd_blocks

SOURCE_DIR = os.environ.get("GPUINTERP_SOURCE_DIR",
                            os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
sys.path.insert(0, os.path.join(SOURCE_DIR, "examples"))
from tx_chain_gpu import L1, LO, Lp, Lq, P, Q, chain_design, chain_reference  # noqa: E402

RUNS = int(os.environ.get("GPUINTERP_SOAK_RUNS", "4"))
SYMBOLS = int(os.environ.get("GPUINTERP_SOAK_SYMBOLS", str(1 << 14)))
RATE = 1.25


def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


class qa_soak(gr_unittest.TestCase):
    def run_chain(self, x, h1, w, hammer):
        tb = gr.top_block()
        src = blocks.vector_source_c(x.tolist())
        s1 = gpuinterp.interp_fir_ccf(L1, h1.tolist(), backend="automatic", device_buffers=True)
        s2 = gpuinterp.dpd_predistorter_cc(P, Q, Lp, Lq, [complex(v) for v in w], LO, backend="automatic",
                                           device_buffers=True)
        s3 = gpuinterp.resampler_cc(RATE, "polyphase", backend="automatic", device_buffers=True)
        snk = blocks.vector_sink_c()
        tb.connect(src, s1, s2, s3, snk)
        stop = threading.Event()
        calls = [0]
        msg = dpd_blocks.coefficients_message(w, LO)
        taps, co = h1.tolist(), [complex(v) for v in w]

        def setters():
            while not stop.is_set():
                s1.set_taps(taps)
                s1.set_batch(4096 if calls[0] % 2 else 0)
                s2.set_coefficients(co, LO)
                s2.to_basic_block()._post(pmt.intern("coeffs"), msg)
                s3.set_rate(RATE)
                calls[0] += 1

        t = threading.Thread(target=setters) if hammer else None
        tb.start()
        if t:
            t.start()
        tb.wait()
        stop.set()
        if t:
            t.join()
        y = np.array(snk.data(), dtype=np.complex64)
        return y, calls[0]

    def test_soak(self):
        x, h1, w = chain_design(SYMBOLS)
        _, ref = chain_reference(x, h1, w, RATE)
        base = gpuinterp.device_memory_usage()
        first, rss = None, []
        total_calls = 0
        for i in range(RUNS):
            y, calls = self.run_chain(x, h1, w, hammer=True)
            total_calls += calls
            self.assertEqual(y.size, ref.size, f"run {i}")
            self.assertLess(np.max(np.abs(y - ref)) / np.max(np.abs(ref)), 1e-4, f"run {i}")
            if first is None:
                first = y
            np.testing.assert_array_equal(y, first, err_msg=f"run {i} differs from run 0")
            usage = gpuinterp.device_memory_usage()
            self.assertEqual(usage["buffers"], base["buffers"], f"run {i}: device buffers left alive")
            self.assertEqual(usage["sim_device_bytes"] + usage["cuda_device_bytes"],
                             base["sim_device_bytes"] + base["cuda_device_bytes"], f"run {i}")
            rss.append(rss_kib())
        self.assertGreater(total_calls, 0)
        # Without the setter thread: the same output (the setters re-applied the values in force).
        y, _ = self.run_chain(x, h1, w, hammer=False)
        np.testing.assert_array_equal(y, first)
        # The process memory grows for the first ~10 runs (allocator and GNU Radio buffer pools warm
        # up, ~25 MiB) and is flat after that. A long soak checks the trend of its second half; the
        # short CI run can only catch a gross leak.
        if RUNS >= 20:
            half = np.array(rss[RUNS // 2:], dtype=float)
            slope = np.polyfit(np.arange(half.size), half, 1)[0]
            self.assertLess(slope, 128, f"RSS grows {slope:.0f} KiB per run; RSS KiB per run: {rss}")
        else:
            self.assertLess(rss[-1] - rss[0], 64 * 1024, f"RSS KiB per run: {rss}")
        print(f"qa_soak: {RUNS} runs of {SYMBOLS} symbols, {total_calls} setter rounds, RSS KiB {rss}")


if __name__ == "__main__":
    gr_unittest.run(qa_soak)
