#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""CPU comparison of the resampler in real flowgraphs against GNU Radio's pfb_arb_resampler_ccf and
mmse_resampler_cc at the same rates, plus a speed/accuracy table of every method.

Run from a build tree:  PYTHONPATH=build/test_modules /usr/bin/python3 bench/bench_resamp_gr.py [N]
Throughput is input samples per second through vector_source(repeat) -> head -> block -> null_sink.
Accuracy: a band-limited multi-tone (8 tones in |f| < 0.2 cycles/input sample, random phases) is
resampled and compared with the exact signal at the output times t_k = k/r (double precision);
error in dB below the signal power, after the start-up transient (the first 200 input samples).
"""
import os
import sys
import time

import gnuradio

for _p in os.environ.get("PYTHONPATH", "").split(os.pathsep):
    if _p and os.path.isdir(os.path.join(_p, "gnuradio", "gpuinterp")):
        gnuradio.__path__.insert(0, os.path.join(_p, "gnuradio"))
        break

import numpy as np  # noqa: E402
from gnuradio import blocks, filter, gr  # noqa: E402
from gnuradio.filter import pfb  # noqa: E402

from gnuradio import gpuinterp  # noqa: E402

N = int(sys.argv[1]) if len(sys.argv) > 1 else 4_000_000
RATES = (1.37, 0.73)
rng = np.random.default_rng(1)
base = (rng.standard_normal(8192) + 1j * rng.standard_normal(8192)).astype(np.complex64)


def throughput(make_block, n):
    tb = gr.top_block()
    src = blocks.vector_source_c(base.tolist(), True)
    head = blocks.head(gr.sizeof_gr_complex, n)
    blk = make_block()
    tb.connect(src, head, blk, blocks.null_sink(gr.sizeof_gr_complex))
    t0 = time.perf_counter()
    tb.run()
    return n / (time.perf_counter() - t0)


def multitone(n):
    g = np.random.default_rng(7)  # the same signal for every method and rate
    f = g.uniform(-0.2, 0.2, 8)
    ph = g.uniform(0, 2 * np.pi, 8)
    sig = lambda t: np.sum(np.exp(1j * (2 * np.pi * f[:, None] * t[None, :] + ph[:, None])), axis=0) / 8
    return sig(np.arange(n, dtype=np.float64)).astype(np.complex64), sig


def accuracy_db(method, r):
    x, sig = multitone(40000)
    y = gpuinterp.resampler_kernel_cc(r, method).resample(x)
    t = np.arange(len(y)) * (1.0 / r)
    keep = t > 200
    want = sig(t[keep])
    return 10 * np.log10(np.mean(np.abs(y[keep] - want) ** 2) / np.mean(np.abs(want) ** 2))


def fitted_accuracy_db(make_block, r):
    """Error of a block whose output is delayed by an unknown tau: y_k ~ sig(k/r - tau); tau fitted."""
    x, sig = multitone(40000)
    tb = gr.top_block()
    snk = blocks.vector_sink_c()
    tb.connect(blocks.vector_source_c(x), make_block(), snk)
    tb.run()
    y = np.array(snk.data())
    k = np.arange(len(y))[400:-400][::7]
    err = lambda tau: np.mean(np.abs(y[k] - sig(k / r - tau)) ** 2)
    grid = np.arange(-20, 60, 0.05)
    tau = grid[np.argmin([err(g) for g in grid])]
    for step in (0.01, 0.001, 0.0001, 0.00001):
        cand = tau + step * np.arange(-10, 11)
        tau = cand[np.argmin([err(c) for c in cand])]
    want = sig(k / r - tau)
    return 10 * np.log10(err(tau) / np.mean(np.abs(want) ** 2)), tau


print(f"# {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}, {os.uname().nodename}, {os.cpu_count()} CPUs, N={N}")
print("| block | r | Msample/s in | error vs exact (dB) |")
print("| --- | --- | --- | --- |")
print(f"| copy (passthrough) | - | {throughput(lambda: blocks.copy(gr.sizeof_gr_complex), N) / 1e6:.1f} | - |")
for r in RATES:
    for m in ("nearest", "linear", "texture", "cubic", "polyphase"):
        sps = throughput(lambda: gpuinterp.resampler_cc(r, m, backend="cpu"), N)
        print(f"| gpuinterp.resampler_cc {m} (cpu) | {r} | {sps / 1e6:.1f} | {accuracy_db(m, r):.1f} |")
    mk = lambda: pfb.arb_resampler_ccf(r, flt_size=32, atten=100)
    db, tau = fitted_accuracy_db(mk, r)
    print(f"| GNU Radio pfb.arb_resampler_ccf (32 arms, 100 dB design) | {r} | {throughput(mk, N) / 1e6:.1f} | {db:.1f} (delay {tau:.3f} fitted) |")
    mk = lambda: filter.mmse_resampler_cc(0.0, 1.0 / r)
    db, tau = fitted_accuracy_db(mk, r)
    print(f"| GNU Radio mmse_resampler_cc (8-tap MMSE) | {r} | {throughput(mk, N) / 1e6:.1f} | {db:.1f} (delay {tau:.3f} fitted) |")
