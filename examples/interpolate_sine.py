#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Interpolate a sine by 2 on the GPU (or the CPU) and check it: a 100 Hz sine sampled at 16 kHz
for 0.1 s, interpolated by 2 with an order-11 Hamming low-pass designed like MATLAB's fir1(11, 0.5, 'low', hamming(12)) and
scaled by 2 (GNU Radio taps carry the interpolation gain). Runs the gpuinterp block in a flowgraph
(on the GPU when one is present), checks it against scipy.signal.upfirdn, and saves the two-panel
"input / interpolated" plot as a PNG."""

import argparse

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from gnuradio import blocks, gr  # noqa: E402
from scipy import signal  # noqa: E402

from gnuradio import gpuinterp  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--output", default="interpolate_sine.png", help="PNG file to write")
    ap.add_argument("--backend", default="automatic", choices=["automatic", "cpu", "cuda"])
    args = ap.parse_args()

    L, fs, f0 = 2, 16000.0, 100.0
    t = np.arange(0, 0.1 + 0.5 / fs, 1 / fs)  # MATLAB 0:1/fs:0.1 -> 1601 samples
    x = np.sin(2 * np.pi * f0 * t).astype(np.float32)
    taps = L * signal.firwin(12, 1.0 / L, window="hamming")  # == fir1(11, 0.5, hamming(12)) * 2

    blk = gpuinterp.interp_fir_fff(L, taps.astype(np.float32).tolist(), backend=args.backend)
    src, snk = blocks.vector_source_f(x.tolist()), blocks.vector_sink_f()
    tb = gr.top_block()
    tb.connect(src, blk, snk)
    tb.run()
    y = np.array(snk.data())

    ref = signal.upfirdn(taps, x.astype(np.float64), L)[: len(x) * L]
    err = np.max(np.abs(y - ref))
    print(f"backend {blk.active_backend()}: {len(x)} samples in, {len(y)} out "
          f"(expected {len(x) * L}); max |error| vs scipy.signal.upfirdn = {err:.2e}")

    fig, ax = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
    ax[0].plot(t * 1e3, x, ".-", ms=2, lw=0.8)
    ax[0].set_title(f"Input: {f0:.0f} Hz sine at {fs / 1e3:.0f} kHz ({len(x)} samples)")
    ty = np.arange(len(y)) / (fs * L)
    ax[1].plot(ty * 1e3, y, ".-", ms=2, lw=0.8, color="C1")
    delay = (len(taps) - 1) / 2 / (fs * L)
    ax[1].set_title(f"Interpolated by {L} ({len(y)} samples; group delay {delay * 1e6:.0f} µs), "
                    f"backend {blk.active_backend()}")
    ax[1].set_xlabel("time (ms)")
    for a in ax:
        a.set_ylabel("amplitude")
        a.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(args.output, dpi=110)
    print(f"saved {args.output}")
    return 0 if err < 1e-5 and len(y) == len(x) * L else 1


if __name__ == "__main__":
    raise SystemExit(main())
