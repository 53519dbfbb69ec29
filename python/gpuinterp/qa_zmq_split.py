#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The two-process ZMQ split (examples/tx_chain_zmq_split.py) with a late, a stalled and a killed
receiver and a killed sender. The split must deliver every sample or end with exit status 1 and a
message saying how many samples were lost; never exit 0 after a loss, never hang. Small streams
(2048 symbols = 16384 samples) and timeouts of a few seconds keep it quick; the received stream is
compared with the chain's numpy/scipy reference.

Also: role "both" notices its receiver child's death at once (not after --timeout), a bad output
path fails in one line before the run, and the grcc-compiled .grc pair run without a terminal
(stdin closed) either delivers everything and exits 0, or waits for its peer and, stopped, says
what was lost and exits 1."""

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import numpy as np
from gnuradio import gr_unittest

SOURCE_DIR = os.environ.get("GPUINTERP_SOURCE_DIR",
                            os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
EXAMPLES = os.path.join(SOURCE_DIR, "examples")
SCRIPT = os.path.join(EXAMPLES, "tx_chain_zmq_split.py")
sys.path.insert(0, EXAMPLES)

import tx_chain_zmq_split as split  # noqa: E402
from tx_chain_gpu import chain_design, chain_reference  # noqa: E402

SYMBOLS = 2048
SAMPLES = SYMBOLS * split.L1


class qa_zmq_split(gr_unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.address = f"tcp://127.0.0.1:{split.free_port_pair()}"
        self.procs = []

    def tearDown(self):
        for p in self.procs:  # never leave a child behind, whatever failed
            if p.poll() is None:
                p.send_signal(signal.SIGCONT)
                p.kill()
                p.wait()
            if p.stdout:
                p.stdout.close()

    def start(self, role, timeout, *extra):
        cmd = [sys.executable, SCRIPT, "--role", role, "--address", self.address, "--samples", str(SYMBOLS),
               "--backend", "cpu", "--timeout", str(timeout)] + list(extra)
        return self.popen(cmd)

    def popen(self, cmd, **kw):
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             stdin=subprocess.DEVNULL, env=dict(os.environ, GPUINTERP_BACKEND="cpu"), **kw)
        self.procs.append(p)
        return p

    def start_rx(self, timeout):
        self.rx_out = os.path.join(self.tmp.name, "rx.c64")
        self.ready = os.path.join(self.tmp.name, "rx.ready")
        return self.start("rx", timeout, "--rx-out", self.rx_out, "--ready-file", self.ready)

    def wait_ready(self, rx, limit=60):
        t0 = time.monotonic()
        while not os.path.exists(self.ready):
            if rx.poll() is not None:  # read only then: reading a running child's pipe blocks
                self.fail("the receiver ended before it was ready: " + rx.stdout.read())
            self.assertLess(time.monotonic() - t0, limit, "the receiver never got ready")
            time.sleep(0.02)

    def finish(self, p, limit=60):
        """(exit status, output); fails instead of hanging."""
        try:
            out, _ = p.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            p.kill()
            out, _ = p.communicate()
            self.fail(f"process hung: {out}")
        return p.returncode, out

    def received_and_reference(self):
        """The stream the receiver wrote and the chain's reference output."""
        y = np.fromfile(self.rx_out, dtype=np.complex64)
        x, h1, w = chain_design(SYMBOLS)
        _, ref = chain_reference(x, h1, w, split.RATE)
        return y, ref

    def check_received_stream(self):
        y, ref = self.received_and_reference()
        self.assertEqual(y.size, ref.size)
        self.assertEqual(y.size, split.expected_outputs(SYMBOLS))
        self.assertLess(np.max(np.abs(y - ref)) / np.max(np.abs(ref)), 1e-4)

    def fail_line(self, out):
        lines = [ln for ln in out.splitlines() if "FAIL" in ln]
        self.assertEqual(len(lines), 1, out)
        return lines[0]

    def kill_mid_stream(self, victim, tx_timeout, rx_timeout, after):
        """Starts a 4 s stream, kills `victim` ("tx" or "rx") `after` seconds into it, and
        returns the output of the other one, which must end with exit status 1."""
        tx = self.start("tx", tx_timeout, "--throttle", "4000")
        rx = self.start_rx(rx_timeout)
        self.wait_ready(rx)
        time.sleep(after)
        killed, survivor = (tx, rx) if victim == "tx" else (rx, tx)
        killed.kill()
        rc, out = self.finish(survivor)
        self.assertEqual(rc, 1, out)
        return out

    # ------------------------------------------------------------------------------------------
    def test_late_receiver_gets_everything(self):
        tx = self.start("tx", 20)
        time.sleep(3.0)  # the old PUB/SUB split lost everything sent before the subscriber came
        rx = self.start_rx(20)
        rc_rx, out_rx = self.finish(rx)
        rc_tx, out_tx = self.finish(tx)
        self.assertEqual((rc_tx, rc_rx), (0, 0), out_tx + out_rx)
        self.assertIn(f"{SAMPLES} confirmed", out_tx)
        self.assertIn(f"{SAMPLES} of {SAMPLES} samples received", out_rx)
        self.check_received_stream()

    def test_no_receiver_fails_with_a_count(self):
        tx = self.start("tx", 1.5)
        rc, out = self.finish(tx)
        self.assertEqual(rc, 1, out)
        self.assertIn(f"0 of {SAMPLES} samples sent", self.fail_line(out))

    def test_stalled_receiver_loses_nothing(self):
        # Paused for 2 s mid-stream (SIGSTOP), under the 6 s timeout: the sender waits, nothing is lost.
        tx = self.start("tx", 6, "--throttle", "20000")
        rx = self.start_rx(6)
        self.wait_ready(rx)
        time.sleep(0.2)
        rx.send_signal(signal.SIGSTOP)
        time.sleep(2.0)
        rx.send_signal(signal.SIGCONT)
        rc_rx, out_rx = self.finish(rx)
        rc_tx, out_tx = self.finish(tx)
        self.assertEqual((rc_tx, rc_rx), (0, 0), out_tx + out_rx)
        self.check_received_stream()

    def test_receiver_stalled_beyond_the_timeout(self):
        tx = self.start("tx", 1.5, "--throttle", "20000")
        rx = self.start_rx(30)
        self.wait_ready(rx)
        rx.send_signal(signal.SIGSTOP)
        rc, out = self.finish(tx)
        rx.send_signal(signal.SIGCONT)
        self.assertEqual(rc, 1, out)
        line = self.fail_line(out)
        m = re.search(r"(\d+) of (\d+) samples sent, (\d+) not sent", line) or \
            re.search(r"(\d+) samples sent but the receiver confirmed none", line)
        self.assertIsNotNone(m, line)

    def test_killed_receiver(self):
        out = self.kill_mid_stream("rx", tx_timeout=2, rx_timeout=30, after=0.5)
        line = self.fail_line(out)
        m = re.search(r"(\d+) of (\d+) samples sent, (\d+) not sent", line)
        if m:
            sent, total, unsent = map(int, m.groups())
            self.assertEqual(total, SAMPLES)
            self.assertEqual(sent + unsent, SAMPLES)
            self.assertLess(sent, SAMPLES)
        else:  # everything left the sender before the kill, and no confirmation came
            self.assertIn(f"{SAMPLES} samples sent but the receiver confirmed none", line)

    def test_killed_sender(self):
        out = self.kill_mid_stream("tx", tx_timeout=30, rx_timeout=1.5, after=0.7)
        m = re.search(r"received (\d+) of (\d+) samples, (\d+) missing", self.fail_line(out))
        self.assertIsNotNone(m, out)
        got, total, missing = map(int, m.groups())
        self.assertEqual(total, SAMPLES)
        self.assertEqual(got + missing, SAMPLES)
        self.assertGreater(got, 0)
        self.assertGreater(missing, 0)
        # What did arrive is the start of the stream, intact: the file holds a prefix of the reference.
        y, ref = self.received_and_reference()
        self.assertLess(y.size, ref.size)
        if y.size:
            self.assertLess(np.max(np.abs(y - ref[:y.size])) / np.max(np.abs(ref)), 1e-4)

    def test_both_notices_a_killed_receiver_at_once(self):
        # Role "both" runs the receiver as its child; killed, the sender used to wait --timeout (20 s)
        # for a confirmation that could not come.
        p = self.popen([sys.executable, SCRIPT, "--samples", str(SYMBOLS), "--backend", "cpu", "--timeout", "30",
                        "--throttle", "4000", "--output", os.path.join(self.tmp.name, "both.png")])
        pid = None
        for line in p.stdout:  # the first lines come before the stream; the pid line is one of them
            m = re.search(r"receiver running as process (\d+)", line)
            if m:
                pid = int(m.group(1))
                break
        self.assertIsNotNone(pid, "no receiver pid line")
        time.sleep(2.5)  # into the handshake or the (4 s) stream
        os.kill(pid, signal.SIGKILL)
        t0 = time.monotonic()
        rc, out = self.finish(p, limit=30)
        took = time.monotonic() - t0
        self.assertEqual(rc, 1, out)
        line = self.fail_line(out)
        self.assertIn("the receiver process exited with status -9", line)
        self.assertRegex(line, r"(\d+) of 16384 samples sent|16384 samples sent but the receiver confirmed none")
        # Noticed within PEER_CHECK_S; the rest is the process ending (slower on a loaded machine).
        self.assertLess(took, 5.0, f"noticed after {took:.1f} s: {out}")

    def test_bad_output_paths_fail_before_the_run(self):
        # One line, exit status 2, before any flowgraph: the PNG used to fail after a good run.
        nodir = os.path.join(self.tmp.name, "nodir", "a.png")
        for args, want in ((["--output", nodir], f"--output: {nodir}: folder"),
                           (["--role", "rx", "--rx-out", self.tmp.name], f"--rx-out: {self.tmp.name}: is a directory")):
            with self.subTest(args=args):
                p = self.popen([sys.executable, SCRIPT, "--samples", str(SYMBOLS), "--backend", "cpu",
                                "--address", self.address] + args)
                rc, out = self.finish(p, limit=30)
                self.assertEqual(rc, 2, out)
                lines = [ln for ln in out.splitlines() if ln.strip()]
                self.assertEqual(len(lines), 1, out)
                self.assertTrue(lines[0].startswith(want), out)

    def test_grc_pair_without_a_terminal(self):
        # The grcc-compiled pair, stdin closed (a service, nohup, CI): it used to run with
        # run_options "prompt", whose input() got EOF at once and stopped the flowgraph: exit 0,
        # nothing delivered.
        grcc = shutil.which("grcc")
        if grcc is None:
            self.skipTest("grcc not found")
        grc = os.path.join(SOURCE_DIR, "grc")
        env = dict(os.environ, GRC_BLOCKS_PATH=grc,
                   GR_CONF_GRC_GLOBAL_BLOCKS_PATH="/usr/share/gnuradio/grc/blocks:" + grc)
        subprocess.run([grcc, "-o", self.tmp.name, os.path.join(EXAMPLES, "tx_chain_zmq_tx.grc"),
                        os.path.join(EXAMPLES, "tx_chain_zmq_rx.grc")], check=True, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        tx_py, rx_py = (os.path.join(self.tmp.name, f"tx_chain_zmq_{r}.py") for r in ("tx", "rx"))
        common = ["--nsamples", str(SYMBOLS), "--address", self.address]
        # No receiver: the sender waits (documented), and stopped it names the loss and exits 1.
        tx = self.popen([sys.executable, tx_py] + common)
        # Its announcement comes after the flowgraph started, so the signal handler is in place
        # (a SIGTERM during the imports would just kill it).
        head = ""
        for line in tx.stdout:
            head += line
            if line.startswith("tx: sending"):
                break
        self.assertIn("waiting for a receiver", head)
        time.sleep(1.5)
        self.assertIsNone(tx.poll(), "the sender ended without a receiver")
        tx.send_signal(signal.SIGTERM)
        rc, out = self.finish(tx, limit=20)
        out = head + out
        self.assertEqual(rc, 1, out)
        self.assertIn(f"0 of {SAMPLES} samples sent", self.fail_line(out))
        # Both: everything arrives, both end by themselves with 0.
        rx_out = os.path.join(self.tmp.name, "grc_rx.c64")
        tx = self.popen([sys.executable, tx_py] + common)
        rx = self.popen([sys.executable, rx_py] + common + ["--output", rx_out])
        rc_rx, out_rx = self.finish(rx)
        rc_tx, out_tx = self.finish(tx)
        self.assertEqual((rc_tx, rc_rx), (0, 0), out_tx + out_rx)
        self.assertIn(f"{SAMPLES} of {SAMPLES} samples sent", out_tx)
        self.assertIn(f"{SAMPLES} of {SAMPLES} samples received", out_rx)
        self.assertEqual(os.path.getsize(rx_out) // 8, split.expected_outputs(SYMBOLS))

    def test_loopback_by_default(self):
        self.assertTrue(split.DEFAULT_ADDRESS.startswith("tcp://127.0.0.1:"))
        for name in ("tx_chain_zmq_tx.grc", "tx_chain_zmq_rx.grc"):
            with open(os.path.join(EXAMPLES, name)) as f:
                text = f.read()
            self.assertNotIn("tcp://*", text, name)
            self.assertNotIn("zeromq_pub_sink", text, name)
            self.assertNotIn("zeromq_sub_source", text, name)


if __name__ == "__main__":
    gr_unittest.run(qa_zmq_split)
