#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The transmit chain of tx_chain_gpu.py split over two processes with GNU Radio's ZMQ blocks:

    process "tx":  symbols -> interpolate x8 (GPU, device buffers) -> ZMQ PUSH  (binds ADDRESS)
    process "rx":  ZMQ PULL (connects to ADDRESS) -> predistort -> resample x1.25 (GPU, device
                   buffers) -> file

This is how the chain spreads over machines: run "--role tx --address tcp://0.0.0.0:5555" on one
host and "--role rx --address tcp://<tx-host>:5555" on another; each process keeps its own part on
its own GPU(s) with device buffers, and only the ZMQ hop crosses the network. The default role
"both" runs both on localhost (the receiver as a child process) and checks the received stream
against numpy/scipy.

What the split guarantees (docs/reliability.md):

* Lossless: PUSH/PULL never drops; when the receiver falls behind, the sender waits.
* A start handshake on a control socket (REQ/REP, the data port + 1 unless --control is given): the
  receiver asks, the sender answers with the number of samples it is about to send, the receiver
  starts its flowgraph and says so, then the sender sends. A receiver may start late; the sender
  waits for it up to --timeout seconds.
* An explicit end: the receiver knows how many samples to expect, stops after them and confirms the
  count to the sender, which exits 0 only on that confirmation.
* Timeouts on both sides: --timeout seconds without progress (no receiver, no data, no confirmation)
  end the process with exit status 1 and a message saying how many samples were lost or unconfirmed.
* Role "both": the sender watches its receiver child, and a child that dies is reported within
  about 0.1 s (exit status 1, the counts), not after --timeout.
* Output paths (--output, --rx-out) are checked before the run: a path that cannot be written ends
  the process at once with one line and exit status 2.
* The loopback address by default: pass an address such as tcp://0.0.0.0:5555 to serve other hosts.
"""

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from urllib.parse import urlparse

import numpy as np
import zmq
from gnuradio import blocks, gr, zeromq

from gnuradio import gpuinterp
from gnuradio.gpuinterp.params import output_path_error

# The chain's design and its double-precision reference live in tx_chain_gpu.py (same folder).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tx_chain_gpu import L1, LO, Lp, Lq, P, Q, chain_design, chain_reference, finish_plot  # noqa: E402

RATE = 1.25
DEFAULT_ADDRESS = "tcp://127.0.0.1:5555"
POLL_S = 0.02
# How often a waiting sender checks its receiver child (role "both"): a killed child is reported
# within about this long, not after --timeout.
PEER_CHECK_S = 0.1
# Small high-water marks (messages of up to one work() call each): a stalled receiver makes the
# sender wait soon, instead of the sender queueing the whole stream in memory.
HWM = 16


class SplitError(Exception):
    """A failure the process reports with one line and exit status 1."""


class UsageError(SplitError):
    """A bad option, found before the run: one line and exit status 2."""


def expected_outputs(n):
    """Outputs of the rx part for n input symbols: the resampler emits output k once input
    floor(k / RATE) + 16 has arrived (32 taps per arm), i.e. for k / RATE < n L1 - 16."""
    return int(np.ceil((n * L1 - 16) * RATE - 1e-9))


def control_address(args):
    """The control socket: --control, else the data address with port + 1."""
    if args.control:
        return args.control
    u = urlparse(args.address)
    if u.scheme != "tcp" or u.port is None:
        raise SplitError(f"address: expected tcp://host:port, got {args.address!r}")
    return f"tcp://{u.hostname}:{u.port + 1}"


def connect_address(address):
    """Where a peer on this host connects to reach a socket bound at address (0.0.0.0/* -> 127.0.0.1)."""
    u = urlparse(address)
    host = "127.0.0.1" if u.hostname in (None, "*", "0.0.0.0") else u.hostname
    return f"tcp://{host}:{u.port}"


def build_tx(args):
    x, h1, _ = chain_design(args.samples)
    tb = gr.top_block("tx_chain_zmq_tx")
    src = blocks.vector_source_c(x.tolist())
    tb.interp = gpuinterp.interp_fir_ccf(L1, h1.tolist(), backend=args.backend, device=args.device,
                                         device_buffers=True)
    tb.push = zeromq.push_sink(gr.sizeof_gr_complex, 1, args.address, 100, False, HWM)  # binds now
    if args.throttle > 0:  # demo and tests: a stream that takes a while
        thr = blocks.throttle(gr.sizeof_gr_complex, args.throttle)
        # throttle passes a whole buffer at once and sleeps afterwards; small chunks make the stream
        # steady.
        thr.set_max_noutput_items(max(1, int(args.throttle / 50)))
        tb.connect(src, tb.interp, thr, tb.push)
    else:
        tb.connect(src, tb.interp, tb.push)
    return tb


def recv_json(sock, timeout_s, check=None):
    """One JSON message from a REQ/REP socket, or None after timeout_s. ``check`` (if given) is
    called every PEER_CHECK_S while waiting and may raise: a peer that is known to be gone is reported
    at once, not after the timeout."""
    deadline = time.monotonic() + timeout_s
    while True:
        left = deadline - time.monotonic()
        if sock.poll(max(0, int(min(left, PEER_CHECK_S) * 1000))):
            return json.loads(sock.recv().decode())
        if check:
            check()
        if left <= PEER_CHECK_S:
            return None


def check_output(name, path):
    """Refuse an output path that cannot be written before the run, not after it: one line."""
    msg = None if path is None else output_path_error(f"--{name}", path)
    if msg:
        raise UsageError(msg)


def run_tx(args, tb, peer=None):
    """Handshake, send, wait for the confirmation. Returns the number of samples confirmed.
    ``peer``: the receiver's process when it is our child (role "both"); its exit ends the wait."""
    n = args.samples * L1
    state = {"sent": 0, "started": False}

    def check():
        if peer is None or peer.poll() is None:
            return
        sent = state["sent"]
        if not state["started"]:
            what = f"0 of {n} samples sent"
        elif sent < n:
            what = f"{sent} of {n} samples sent, {n - sent} not sent, none confirmed"
        else:
            what = f"{n} samples sent but the receiver confirmed none: up to {n} samples lost"
        if state["started"]:
            tb.stop()
            tb.wait()
        raise SplitError(f"tx: FAIL: the receiver process exited with status {peer.returncode}: {what}")
    ctx = zmq.Context.instance()
    rep = ctx.socket(zmq.REP)
    rep.setsockopt(zmq.LINGER, 0)
    rep.bind(control_address(args))
    try:
        hello = recv_json(rep, args.timeout, check)
        if hello is None or hello.get("hello") != "rx":
            raise SplitError(f"tx: FAIL: no receiver within {args.timeout:g} s on {control_address(args)}: "
                             f"0 of {n} samples sent")
        rep.send(json.dumps({"samples": n, "symbols": args.samples}).encode())
        # The receiver builds its flowgraph for that count and says when it runs; the stream starts
        # then, so a slow receiver start-up is not mistaken for a stall.
        started = recv_json(rep, args.timeout, check)
        if started is None or not started.get("running"):
            raise SplitError(f"tx: FAIL: the receiver answered but did not start within {args.timeout:g} s: "
                             f"0 of {n} samples sent")
        rep.send(b'{"go": true}')
        tb.start()
        state["started"] = True
        last, last_change = -1, time.monotonic()
        while True:
            sent = state["sent"] = tb.push.nitems_read(0)
            check()
            if sent != last:
                last, last_change = sent, time.monotonic()
            if sent >= n:
                break
            if time.monotonic() - last_change > args.timeout:
                tb.stop()
                tb.wait()
                raise SplitError(f"tx: FAIL: the receiver took no data for {args.timeout:g} s: {sent} of {n} "
                                 f"samples sent, {n - sent} not sent, none confirmed (receiver stalled or gone)")
            time.sleep(POLL_S)
        tb.wait()
        state["sent"] = n
        # Sent is not received: the samples may still sit in ZMQ queues. Only the receiver's count
        # says they arrived.
        done = recv_json(rep, args.timeout, check)
        if done is None:
            raise SplitError(f"tx: FAIL: {n} samples sent but the receiver confirmed none within "
                             f"{args.timeout:g} s: up to {n} samples lost (receiver stalled or gone)")
        rep.send(b'{"bye": true}')
        got = int(done.get("received", 0))
        if got != n:
            raise SplitError(f"tx: FAIL: the receiver confirmed {got} of {n} samples: {n - got} lost")
        print(f"tx: {args.samples} symbols -> {n} samples sent on {args.address}, {got} confirmed by the "
              f"receiver (backend {tb.interp.active_backend()}, device buffers)")
        return got
    finally:
        rep.close()


def run_rx(args):
    _, _, w = chain_design(args.samples)
    ctx = zmq.Context.instance()
    req = ctx.socket(zmq.REQ)
    req.setsockopt(zmq.LINGER, 0)
    req.connect(connect_address(control_address(args)))
    try:
        req.send(b'{"hello": "rx"}')
        info = recv_json(req, args.timeout)
        if info is None:
            raise SplitError(f"rx: FAIL: no sender answered within {args.timeout:g} s on "
                             f"{control_address(args)}: 0 samples received")
        n_in, symbols = int(info["samples"]), int(info["symbols"])
        n_out = expected_outputs(symbols)
        tb = gr.top_block("tx_chain_zmq_rx")
        pull = zeromq.pull_source(gr.sizeof_gr_complex, 1, connect_address(args.address), 100, False, HWM)
        stage2 = gpuinterp.dpd_predistorter_cc(P, Q, Lp, Lq, [complex(v) for v in w], LO,
                                               backend=args.backend, device=args.device,
                                               device_buffers=True)
        stage3 = gpuinterp.resampler_cc(RATE, "polyphase", backend=args.backend, device=args.device,
                                        device_buffers=True)
        # A ZMQ source never ends the stream (it polls forever, so the flowgraph never finishes by
        # itself): head passes exactly the count the sender announced, and the flowgraph is stopped
        # once the chain has drained the outputs of those samples into the file.
        head = blocks.head(gr.sizeof_gr_complex, n_in)
        out = blocks.file_sink(gr.sizeof_gr_complex, args.rx_out)
        tb.connect(pull, head, stage2, stage3, out)
        tb.start()
        req.send(b'{"running": true}')
        if recv_json(req, args.timeout) is None:
            tb.stop()
            tb.wait()
            raise SplitError(f"rx: FAIL: the sender went quiet after the handshake ({args.timeout:g} s): "
                             f"0 of {n_in} samples received")
        if args.ready_file:  # for scripts and tests: the receiver runs
            open(args.ready_file, "w").close()
        last, last_change = -1, time.monotonic()
        failed = None
        while head.nitems_written(0) < n_in or out.nitems_read(0) < n_out:
            got = head.nitems_written(0)
            progress = got + out.nitems_read(0)
            if progress != last:
                last, last_change = progress, time.monotonic()
            if time.monotonic() - last_change > args.timeout:
                failed = (f"rx: FAIL: received {got} of {n_in} samples, {n_in - got} missing: no data for "
                          f"{args.timeout:g} s (the sender stopped or is gone); {out.nitems_read(0)} of "
                          f"{n_out} outputs written to {args.rx_out}")
                break
            time.sleep(POLL_S)
        tb.stop()
        tb.wait()
        out.close()
        got, written = head.nitems_written(0), out.nitems_read(0)
        req.send(json.dumps({"received": got, "outputs": written}).encode())
        ack = recv_json(req, min(args.timeout, 5.0))
        if failed:
            raise SplitError(failed)
        if written != n_out:
            raise SplitError(f"rx: FAIL: {got} of {n_in} samples received but {written} of {n_out} outputs "
                             "written")
        note = "" if ack is not None else " (the sender did not acknowledge the confirmation)"
        print(f"rx: {got} of {n_in} samples received from {args.address}, predistorter and resampler on "
              f"{stage2.active_backend()}/{stage3.active_backend()}, {n_out} samples written to "
              f"{args.rx_out}{note}")
        return 0
    finally:
        req.close()


def run_both(args):
    """Both roles on this host: tx here, rx as a child process. Returns the received stream."""
    args.address = f"tcp://127.0.0.1:{free_port_pair()}"
    tb = build_tx(args)
    with tempfile.TemporaryDirectory() as tmp:
        rx_out = os.path.join(tmp, "rx.c64")
        rx = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--role", "rx",
                               "--address", args.address, "--samples", str(args.samples),
                               "--backend", args.backend, "--device", str(args.device), "--rx-out", rx_out,
                               "--timeout", str(args.timeout)])
        print(f"both: receiver running as process {rx.pid}", flush=True)
        try:
            run_tx(args, tb, peer=rx)
            rc = rx.wait(timeout=args.timeout)
        except (SplitError, subprocess.TimeoutExpired):
            rx.kill()
            rx.wait()
            raise
        if rc != 0:
            raise SplitError(f"FAIL: receiver exited with {rc}")
        return np.fromfile(rx_out, dtype=np.complex64)


def free_port_pair():
    """Two consecutive free localhost ports (data, control)."""
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        with socket.socket() as a, socket.socket() as b:
            try:
                a.bind(("127.0.0.1", port))
                b.bind(("127.0.0.1", port + 1))
                return port
            except OSError:
                continue
    raise SplitError("no two consecutive free ports on 127.0.0.1")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--role", default="both", choices=["both", "tx", "rx"])
    ap.add_argument("--address", default=None,
                    help=f"tcp://host:port: tx binds it, rx connects to it (default {DEFAULT_ADDRESS}; "
                         "tx: tcp://0.0.0.0:PORT to serve other hosts)")
    ap.add_argument("--control", default=None, help="control socket (default: the address's port + 1)")
    ap.add_argument("--samples", type=int, default=1 << 16, help="input symbols")
    ap.add_argument("--backend", default="automatic", choices=["automatic", "cpu", "cuda"])
    ap.add_argument("--device", type=int, default=0)
    ap.add_argument("--rx-out", default=None, help="rx: file for the predistorted, resampled stream")
    ap.add_argument("--ready-file", default=None, help="rx: created once the receiving flowgraph runs")
    ap.add_argument("--output", default="tx_chain_zmq_split.png", help="PNG written by role 'both'")
    ap.add_argument("--timeout", type=float, default=30,
                    help="seconds without progress (no peer, no data, no confirmation) before giving up")
    ap.add_argument("--throttle", type=float, default=0, help="tx: limit the rate (samples/s; 0: none)")
    args = ap.parse_args()
    if not args.timeout > 0:
        ap.error("--timeout must be > 0")

    try:
        # Before the run: a path that cannot be written would otherwise fail after it.
        check_output("rx-out", args.rx_out if args.role == "rx" else None)
        check_output("output", args.output if args.role == "both" else None)
        if args.role == "tx":
            args.address = args.address or DEFAULT_ADDRESS
            run_tx(args, build_tx(args))
            return 0
        if args.role == "rx":
            args.address = args.address or DEFAULT_ADDRESS
            args.rx_out = args.rx_out or "tx_chain_zmq_rx.c64"
            return run_rx(args)
        y = run_both(args)
    except SplitError as e:
        print(e, flush=True)
        return 2 if isinstance(e, UsageError) else 1

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
    ax.set_title(f"tx process -> ZMQ PUSH/PULL (localhost) -> rx process; relative error {err:.1e}")
    ax.set_xlabel("output sample")
    ax.legend()
    ax.grid(alpha=0.3)
    return finish_plot(fig, args.output, err)


if __name__ == "__main__":
    raise SystemExit(main())
