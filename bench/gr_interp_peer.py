#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""CPU peer of the FIR interpolator from Python, on the development machine: GNU Radio's own
interp_fir_filter_ccf and pfb_interpolator_ccf in real flowgraphs
(vector_source(repeat) -> head -> block -> null_sink, default buffers) at the (L, taps) rows of the
FIR benchmarks, and the copy block's passthrough rate as the scheduler's ceiling. Needs only GNU
Radio (no gr-gpuinterp). bench/gr_interp_peer.cc is the same measurement in C++, for the GPU host.

    /usr/bin/python3 bench/gr_interp_peer.py [INPUT_SAMPLES]     (default 2e7)
"""
import sys
import time

import numpy as np
from gnuradio import blocks, filter, gr

ROWS = [(2, 12), (4, 64), (8, 128), (16, 256)]


def seconds(make_block, n_in):
    tb = gr.top_block()
    rng = np.random.default_rng(1)
    base = (rng.standard_normal(4096) + 1j * rng.standard_normal(4096)).astype(np.complex64)
    src = blocks.vector_source_c(base.tolist(), True)
    head = blocks.head(gr.sizeof_gr_complex, n_in)
    tb.connect(src, head, make_block(), blocks.null_sink(gr.sizeof_gr_complex))
    t0 = time.perf_counter()
    tb.run()
    return time.perf_counter() - t0


def main():
    n = int(float(sys.argv[1])) if len(sys.argv) > 1 else 20_000_000
    t_copy = seconds(lambda: blocks.copy(gr.sizeof_gr_complex), n)
    print(f"passthrough copy: {n / t_copy / 1e6:.1f} Msample/s")
    for L, ntaps in ROWS:
        # Hamming-windowed sinc; the rate depends on the number of taps, not their values.
        k = np.arange(ntaps) - (ntaps - 1) / 2
        taps = [float(t) for t in np.hamming(ntaps) * np.sinc(k / L)]
        t_interp = seconds(lambda: filter.interp_fir_filter_ccf(L, taps), n)
        t_pfb = seconds(lambda: filter.pfb_interpolator_ccf(L, taps), n)
        print(f"L={L:2d} taps={ntaps:3d}: interp_fir_filter_ccf {n * L / t_interp / 1e6:7.1f} "
              f"Msample/s out | pfb_interpolator_ccf {n * L / t_pfb / 1e6:7.1f} Msample/s out")


if __name__ == "__main__":
    main()
