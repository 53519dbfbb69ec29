#!/usr/bin/env /usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The hardware example's DPD update as the estimator block runs it: Adaptation(7, 0, 4, 1,
max_delay=200000, rx_full_scale=4.0) stepping on 2^19-sample loopback captures whose loop delay is
150000.4 samples (the capture emulation of python/gpuinterp/qa_dpd_capture.py: frequency offset and
drift, receiver DC and image, 45 dB SNR), the whole step (kernel::dpd_adapt: the capture kernel,
the policy and the estimation engine) on the backend given. Needs GNU Radio's Python (the module
built in this tree); the GPU rows are bench_kernels' dpd_update.

    /usr/bin/python3 bench/dpd_update_bench.py [--steps 4] [--backend cpu]
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python", "gpuinterp"))

from gnuradio.gpuinterp import dpd  # noqa: E402
from qa_dpd_capture import loopback  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--backend", action="append", help="cpu, cuda or automatic (repeatable)")
    a = ap.parse_args()
    x, y = loopback(1 << 19, delay=150000.4)
    for name in a.backend or ["cpu"]:
        ad = dpd.Adaptation(7, 0, 4, 1, max_delay=200000, rx_full_scale=4.0, backend=name)
        for i in range(a.steps):
            t = time.perf_counter()
            r = ad.step(x, y)
            dt = time.perf_counter() - t
            print(f"backend {name:5s} step {i}: {dt * 1e3:7.1f} ms  {r.status:11s} delay {r.delay:.4f}")


if __name__ == "__main__":
    main()
