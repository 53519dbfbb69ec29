#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A transmit chain that stays on the GPU: QPSK symbols -> interpolate x8 (128-tap low-pass) ->
digital predistorter (P, Q, L) = (5, 3, 4) -> resample x1.25 (polyphase windowed sinc) -> sink,
with all three gpuinterp blocks set to device_buffers=True ("Keep data on GPU"), so samples cross
the bus once in and once out. Checks the output against numpy/scipy in double precision (upfirdn,
the predistorter equation, then the resampler's windowed-sinc sum at t_k = k/1.25), prints where
the buffers lived, and plots the spectra. Runs anywhere: without a GPU the blocks fall back to the
CPU and the same device buffers use host memory."""

import argparse

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from gnuradio import blocks, gr  # noqa: E402
from scipy import signal  # noqa: E402

from gnuradio import gpuinterp  # noqa: E402
from gnuradio.gpuinterp import dpd, reference  # noqa: E402


L1 = 8  # interpolation of the first stage
P, Q, Lp, Lq = 5, 3, 4, 4  # predistorter structure
LO = 0.001j  # predistorter LO-leakage term


def chain_design(n):
    """Input symbols, x8 low-pass taps and predistorter coefficients of the example chain (shared
    with tx_chain_zmq_split.py)."""
    rng = np.random.default_rng(7)
    x = ((rng.integers(0, 2, n) * 2 - 1) + 1j * (rng.integers(0, 2, n) * 2 - 1)).astype(np.complex64) / np.sqrt(2)
    h1 = (L1 * signal.firwin(128, 0.9 / L1)).astype(np.float32)  # GNU Radio taps carry the gain L
    # a mild inverse of a compressing PA: 1 + small 3rd/5th order terms
    w = np.zeros(dpd.num_coefficients(P, Q, Lp, Lq), dtype=np.complex128)
    w[0], w[1], w[Lp], w[2 * Lp] = 1.0, 0.02j, 0.08 + 0.03j, -0.02
    w[3 * Lp] = 0.01 - 0.005j  # conjugate branch q = 1 (IQ imbalance)
    return x, h1, w


def chain_reference(x, h1, w, rate):
    """The whole chain in double precision: upfirdn, the predistorter equation, the resampler's
    windowed-sinc sum. Returns (after interpolation + DPD, final output)."""
    ref1 = signal.upfirdn(h1.astype(np.float64), x.astype(np.complex128), L1)[: len(x) * L1]
    ref2 = dpd.apply_model(ref1, w, LO, P, Q, Lp, Lq)
    return ref2, reference.polyphase_resample(ref2, rate)


def finish_plot(fig, output, err):
    """Saves the figure to `output`; the exit status: 0 when the chain's relative error against
    the reference is below 1e-4."""
    fig.tight_layout()
    fig.savefig(output, dpi=100)
    print(f"saved {output}")
    return 0 if err < 1e-4 else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--output", default="tx_chain_gpu.png", help="PNG file to write")
    ap.add_argument("--backend", default="automatic", choices=["automatic", "cpu", "cuda"])
    ap.add_argument("--device", type=int, default=0, help="CUDA device of the first stage")
    ap.add_argument("--device2", type=int, default=None, help="CUDA device of the second and third "
                    "stages (default: same as --device); a different one moves data peer-to-peer")
    ap.add_argument("--rate", type=float, default=1.25, help="resampler rate (output/input, >= 1)")
    ap.add_argument("--samples", type=int, default=1 << 17, help="input symbols")
    ap.add_argument("--file", default=None, help="also write the output (complex64) to this file")
    args = ap.parse_args()

    n = args.samples
    x, h1, w = chain_design(n)

    tb = gr.top_block("tx_chain_gpu")
    src = blocks.vector_source_c(x.tolist())
    src.set_min_output_buffer(1 << 16)
    stage1 = gpuinterp.interp_fir_ccf(L1, h1.tolist(), backend=args.backend, device=args.device,
                                      device_buffers=True)
    dev2 = args.device if args.device2 is None else args.device2
    stage2 = gpuinterp.dpd_predistorter_cc(P, Q, Lp, Lq, [complex(v) for v in w], LO,
                                           backend=args.backend, device=dev2, device_buffers=True)
    stage3 = gpuinterp.resampler_cc(args.rate, "polyphase", backend=args.backend, device=dev2,
                                    device_buffers=True)
    snk = blocks.vector_sink_c()
    tb.connect(src, stage1, stage2, stage3, snk)
    if args.file:
        tb.connect(stage3, blocks.file_sink(gr.sizeof_gr_complex, args.file))
    tb.run()
    y = np.array(snk.data(), dtype=np.complex64)

    ref2, ref = chain_reference(x, h1, w, args.rate)
    err = np.max(np.abs(y - ref)) / np.max(np.abs(ref)) if len(y) == len(ref) else np.inf
    usage = gpuinterp.device_memory_usage()
    backends = "/".join(b.active_backend() for b in (stage1, stage2, stage3))
    print(f"backends {backends}, device buffers "
          f"{all(b.device_buffers() for b in (stage1, stage2, stage3))}")
    print(f"{n} symbols in, {len(y)} samples out (expected {len(ref)}); relative max error vs "
          f"numpy/scipy {err:.2e}; live device buffers {usage['buffers']}")

    fig, ax = plt.subplots(2, 1, figsize=(9, 7))
    for data, lbl, fs in ((x, "input symbols (1 sample/symbol)", 1.0),
                          (ref2, "after interpolation + DPD (x8)", L1),
                          (y, f"chain output (x8 x{args.rate:g})", L1 * args.rate)):
        f, p = signal.welch(data, fs=fs, nperseg=1024, return_onesided=False)
        ax[0].plot(np.fft.fftshift(f), 10 * np.log10(np.fft.fftshift(p) + 1e-20), label=lbl)
    ax[0].set_xlabel("frequency (symbol rates)")
    ax[0].set_ylabel("PSD (dB)")
    ax[0].set_title("Spectra: x8 removes the images, the DPD adds odd-order terms, x1.25 keeps the band")
    ax[0].legend()
    ax[0].grid(alpha=0.3)
    k = np.arange(400)
    ax[1].plot(k, y[:400].real, lw=0.8, label="output (real)")
    ax[1].plot(k, ref[:400].real, "--", lw=0.8, label="numpy reference")
    ax[1].set_title(f"First 400 output samples; backends {backends}, relative error {err:.1e}")
    ax[1].legend()
    ax[1].grid(alpha=0.3)
    return finish_plot(fig, args.output, err)


if __name__ == "__main__":
    raise SystemExit(main())
