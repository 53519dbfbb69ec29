#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The transmit chain of tx_chain_gpu.py split over two processes with GNU Radio's ZMQ blocks:

    process "tx":  symbols -> interpolate x8 (GPU, device buffers) -> ZMQ PUB  (binds ADDRESS)
    process "rx":  ZMQ SUB (connects to ADDRESS) -> predistort -> resample x1.25 (GPU, device
                   buffers) -> file

This is how the chain spreads over machines: run "--role tx" on one host and "--role rx
--address tcp://<tx-host>:<port>" on another; each process keeps its own part on its own GPU(s)
with device buffers, and only the ZMQ hop crosses the network. Here both run on localhost: the
default role "both" starts the receiver as a child process, runs the transmitter, and checks the
received stream against numpy/scipy. PUB/SUB notes: the subscriber is started first and the
publisher waits a moment after binding (ZMQ drops what is published before a subscription
arrives), and drop_on_hwm=False makes the publisher wait instead of dropping when the receiver
falls behind."""

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time

import numpy as np
from gnuradio import blocks, gr, zeromq

from gnuradio import gpuinterp

# The chain's design and its double-precision reference live in tx_chain_gpu.py (same folder).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tx_chain_gpu import L1, LO, Lp, Lq, P, Q, chain_design, chain_reference  # noqa: E402

RATE = 1.25


def expected_outputs(n):
    """Outputs of the rx part for n input symbols: the resampler emits output k once input
    floor(k / RATE) + 16 has arrived (32 taps per arm), i.e. for k / RATE < n L1 - 16."""
    return int(np.ceil((n * L1 - 16) * RATE - 1e-9))


def build_tx(args):
    x, h1, _ = chain_design(args.samples)
    tb = gr.top_block("tx_chain_zmq_tx")
    src = blocks.vector_source_c(x.tolist())
    tb.interp = gpuinterp.interp_fir_ccf(L1, h1.tolist(), backend=args.backend, device=args.device,
                                         device_buffers=True)
    pub = zeromq.pub_sink(gr.sizeof_gr_complex, 1, args.address, 100, False, -1, "", False)  # binds now
    tb.connect(src, tb.interp, pub)
    return tb


def run_tx(args, tb):
    time.sleep(1.0)  # let the subscription reach the publisher (ZMQ drops what is sent before)
    tb.run()
    print(f"tx: {args.samples} symbols -> {args.samples * L1} samples published on {args.address} "
          f"(backend {tb.interp.active_backend()}, device buffers)")


def run_rx(args):
    _, _, w = chain_design(args.samples)
    n_out = expected_outputs(args.samples)
    tb = gr.top_block("tx_chain_zmq_rx")
    sub = zeromq.sub_source(gr.sizeof_gr_complex, 1, args.address, 100, False, -1, "")
    stage2 = gpuinterp.dpd_predistorter_cc(P, Q, Lp, Lq, [complex(v) for v in w], LO,
                                           backend=args.backend, device=args.device,
                                           device_buffers=True)
    stage3 = gpuinterp.resampler_cc(RATE, "polyphase", backend=args.backend, device=args.device,
                                    device_buffers=True)
    head = blocks.head(gr.sizeof_gr_complex, n_out)
    out = blocks.file_sink(gr.sizeof_gr_complex, args.rx_out)
    tb.connect(sub, stage2, stage3, head, out)
    tb.start()
    if args.ready_file:  # tell the parent the subscriber exists (it may publish from now on)
        open(args.ready_file, "w").close()
    # A ZMQ source never reports the end of the stream (it just polls), so the flowgraph does not
    # end by itself: stop it once head has passed everything on.
    while head.nitems_written(0) < n_out:
        time.sleep(0.05)
    tb.stop()
    tb.wait()
    out.close()
    print(f"rx: {args.samples * L1} samples received from {args.address}, predistorter and "
          f"resampler on {stage2.active_backend()}/{stage3.active_backend()}, {n_out} samples "
          f"written to {args.rx_out}")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--role", default="both", choices=["both", "tx", "rx"])
    ap.add_argument("--address", default=None, help="tcp://host:port (tx binds, rx connects)")
    ap.add_argument("--samples", type=int, default=1 << 16, help="input symbols")
    ap.add_argument("--backend", default="automatic", choices=["automatic", "cpu", "cuda"])
    ap.add_argument("--device", type=int, default=0)
    ap.add_argument("--rx-out", default=None, help="rx: file for the predistorted, resampled stream")
    ap.add_argument("--ready-file", default=None, help="rx: created once the subscriber runs")
    ap.add_argument("--output", default="tx_chain_zmq_split.png", help="PNG written by role 'both'")
    ap.add_argument("--timeout", type=float, default=120, help="seconds to wait for the receiver")
    args = ap.parse_args()

    if args.role == "tx":
        args.address = args.address or "tcp://*:5555"
        tb = build_tx(args)
        run_tx(args, tb)
        time.sleep(2.0)  # give the receiver time to drain before the socket closes
        del tb
        return 0
    if args.role == "rx":
        args.address = args.address or "tcp://127.0.0.1:5555"
        args.rx_out = args.rx_out or "tx_chain_zmq_rx.c64"
        run_rx(args)
        return 0

    # The publisher binds first: a subscriber retrying a connect to an unbound localhost port can
    # end up connected to itself (TCP self-connect in the ephemeral range) and never see the data.
    args.address = f"tcp://127.0.0.1:{free_port()}"
    tb = build_tx(args)
    with tempfile.TemporaryDirectory() as tmp:
        rx_out = os.path.join(tmp, "rx.c64")
        ready = os.path.join(tmp, "rx.ready")
        rx = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--role", "rx",
                               "--address", args.address, "--samples", str(args.samples),
                               "--backend", args.backend, "--device", str(args.device), "--rx-out", rx_out,
                               "--ready-file", ready])
        t0 = time.time()
        while not os.path.exists(ready):  # the receiver's imports take a moment
            if rx.poll() is not None or time.time() - t0 > args.timeout:
                print("FAIL: the receiver did not start")
                rx.kill()
                return 1
            time.sleep(0.05)
        run_tx(args, tb)
        try:
            rc = rx.wait(timeout=args.timeout)
        except subprocess.TimeoutExpired:
            rx.kill()
            got = os.path.getsize(rx_out) // 8 if os.path.exists(rx_out) else 0
            print(f"FAIL: the receiver wrote {got} of {expected_outputs(args.samples)} samples in "
                  f"{args.timeout} s")
            return 1
        del tb
        if rc != 0:
            print(f"FAIL: receiver exited with {rc}")
            return 1
        y = np.fromfile(rx_out, dtype=np.complex64)

    x, h1, w = chain_design(args.samples)
    _, ref = chain_reference(x, h1, w, RATE)
    err = np.max(np.abs(y - ref)) / np.max(np.abs(ref)) if len(y) == len(ref) else np.inf
    print(f"two-process chain: {len(y)} samples (expected {len(ref)}), relative max error vs "
          f"numpy/scipy {err:.2e}")

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 4))
    k = np.arange(min(600, len(y)))
    ax.plot(k, ref[: len(k)].real, lw=0.8, label="numpy reference (whole chain)")
    ax.plot(k, y[: len(k)].real, "--", lw=0.8, label="received from the rx process")
    ax.set_title(f"tx process -> ZMQ PUB/SUB (localhost) -> rx process; relative error {err:.1e}")
    ax.set_xlabel("output sample")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(args.output, dpi=100)
    print(f"saved {args.output}")
    return 0 if err < 1e-4 else 1


if __name__ == "__main__":
    raise SystemExit(main())
