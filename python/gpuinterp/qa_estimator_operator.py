#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""dpd_estimator_cc as an operator runs it: a receiver that stops delivering, the usrp_sink's
async messages, the operator meters, the band check and the coefficients file. Expected values as
in qa_estimator_radio.py (whose helpers and references this file uses)."""

import math
import os
import sys
import tempfile
import threading
import time

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import gpuinterp
from gnuradio.gpuinterp import dpd_blocks
from gnuradio.gpuinterp import dpd_model as dm

from qa_dpd_blocks import msg_collector  # noqa: E402 (this folder's test helpers)
from qa_estimator_radio import D0, K, N, P, Q, EstimatorCase, Lp, Lq, LogRecorder, dbfs  # noqa: E402


class stalling_source_c(gr.sync_block):
    """A receiver that delivers ``data`` and then nothing, forever (never ends its stream)."""

    def __init__(self, data):
        gr.sync_block.__init__(self, "stalling_source_c", None, [np.complex64])
        self.data, self.pos = np.asarray(data, dtype=np.complex64), 0

    def work(self, input_items, output_items):
        out = output_items[0]
        n = min(len(out), self.data.size - self.pos)
        if n <= 0:
            time.sleep(0.02)  # short naps, so the scheduler can stop this thread
            return 0
        out[:n] = self.data[self.pos:self.pos + n]
        self.pos += n
        return n


class capture_fds:
    """Captures what C++ writes to stdout and stderr (the GNU Radio logger's console sink)."""

    def __enter__(self):
        sys.stdout.flush()
        sys.stderr.flush()
        self.file = tempfile.TemporaryFile()
        self.saved = [os.dup(1), os.dup(2)]
        os.dup2(self.file.fileno(), 1)
        os.dup2(self.file.fileno(), 2)
        return self

    def __exit__(self, *exc):
        sys.stdout.flush()
        sys.stderr.flush()
        for fd, saved in zip((1, 2), self.saved):
            os.dup2(saved, fd)
            os.close(saved)
        self.file.seek(0)
        self.text = self.file.read().decode(errors="replace")
        self.file.close()
        return False


class qa_estimator_operator(EstimatorCase):
    # -- 1. the receiver stops -------------------------------------------------------------------
    @classmethod
    def rx_stop_run(cls):
        """One flowgraph for the RX-stop tests: input 1 delivers two captures, then nothing (never
        ends); input 0 is 3 M samples through blocks.head. rx_timeout 0.5 s."""
        if getattr(cls, "_rx_stop", None) is not None:
            return cls._rx_stop
        total = 3_000_000
        tb = gr.top_block()
        sx = blocks.vector_source_c(cls.x[:4 * N].tolist(), True)
        head = blocks.head(gr.sizeof_gr_complex, total)
        sy = stalling_source_c(cls.y[:2 * N + 100])
        est = gpuinterp.dpd_estimator_cc(P, Q, Lp, Lq, capture_length=N, update_period=N, synchronous=True,
                                         rx_timeout=0.5)
        log = LogRecorder(est.logger)
        est.logger = log
        tb.connect(sx, head, (est, 0))
        tb.connect(sy, (est, 1))
        t0 = time.time()
        tb.start()
        while time.time() < t0 + 15 and head.nitems_written(0) < total:
            time.sleep(0.05)
        r = dict(total=total, elapsed=time.time() - t0, written=head.nitems_written(0), status=est.status(),
                 history=[h.status for h in est.history()], log=log, dropped=est.meter("dropped_captures"))
        time.sleep(0.3)  # the TX input has ended; the RX is still silent
        r["status_later"] = est.status()
        stopper = threading.Thread(target=lambda: (tb.stop(), tb.wait()), daemon=True)
        t1 = time.time()
        stopper.start()
        stopper.join(10)
        r["stop_hangs"] = stopper.is_alive()
        r["stop_seconds"] = time.time() - t1
        cls._rx_stop = r
        cls._rx_stop_keep = (tb, est, sx, sy, head)
        print(f"RX stop: TX {r['written']} of {total} in {r['elapsed']:.2f} s, stop {r['stop_seconds']:.2f} s, "
              f"status {r['status']!r}, dropped_captures {r['dropped']:g}, "
              f"'capture dropped' warnings {log.count('capture dropped')}", file=sys.stderr)
        return r

    def test_rx_stops_tx_keeps_flowing(self):
        r = self.rx_stop_run()
        self.assertFalse(r["stop_hangs"], "tb.stop(); tb.wait() hangs")
        self.assertEqual(r["written"], r["total"], f"the TX side stalled: {r['written']} in {r['elapsed']:.1f} s")
        self.assertLess(r["elapsed"], 10)
        self.assertEqual(r["log"].count("rx_timeout: no samples on input 1", "warn"), 1)
        self.assertEqual(r["history"], ["calibrating", "updated"])  # the two captures the RX delivered

    def test_rx_stop_status(self):
        r = self.rx_stop_run()
        self.assertIn("no RX samples", r["status"])
        self.assertIn("no RX samples", r["status_later"])

    def test_rx_stop_does_not_flood_the_log(self):
        # While the receiver is silent no capture can be taken; that is one condition, logged once by
        # the watchdog. A "capture dropped" warning (and a dropped_captures count) for every chunk of
        # TX samples that arrives meanwhile buries it.
        r = self.rx_stop_run()
        self.assertLessEqual(r["log"].count("capture dropped"), 1, r["log"].messages()[-3:])
        self.assertLessEqual(r["dropped"], 1)

    # -- 2. meters -------------------------------------------------------------------------------
    def test_meters_after_a_clean_run_through_the_emulator(self):
        n = 3 * N + 4096
        x = self.x[:n]
        tb = gr.top_block()
        src = blocks.vector_source_c(x.tolist(), False)
        emu = gpuinterp.sdr_loopback_emulator_cc(latency=5.0, seed=1)
        est = gpuinterp.dpd_estimator_cc(P, Q, Lp, Lq, capture_length=N, update_period=N, synchronous=True,
                                         rx_timeout=0, max_delay=64)
        ysink = blocks.vector_sink_c()
        tb.connect(src, emu, (est, 1))
        tb.connect(src, (est, 0))
        tb.connect(emu, ysink)
        tb.run()
        y = np.asarray(ysink.data(), dtype=np.complex64)
        hist = est.history()
        st = [r.status for r in hist]
        self.assertEqual(len(hist), 3, st)
        s = (len(hist) - 1) * N
        xc, yc = x[s:s + N].astype(np.complex128), y[s:s + N].astype(np.complex128)
        self.assertAlmostEqual(est.meter("tx_peak_dbfs"), dbfs(xc), delta=0.01)
        self.assertAlmostEqual(est.meter("tx_rms_dbfs"), 10 * math.log10(np.mean(np.abs(xc) ** 2)), delta=0.01)
        self.assertAlmostEqual(est.meter("rx_peak_dbfs"), dbfs(yc), delta=0.01)
        # LS gain of the capture at its delay (found here by cross-correlation)
        lags = np.arange(0, 33)
        corr = [abs(np.vdot(xc[:N - d], yc[d:])) for d in lags]
        d = int(lags[int(np.argmax(corr))])
        self.assertEqual(d, 5)
        g = np.vdot(xc[:N - d], yc[d:]) / np.vdot(xc[:N - d], xc[:N - d]).real
        self.assertAlmostEqual(est.meter("gain_db"), 20 * math.log10(abs(g)), delta=0.1)
        self.assertEqual(est.meter("updates"), st.count("updated"))
        self.assertGreaterEqual(st.count("updated"), 1)
        self.assertEqual(est.meter("iteration"), len(hist))
        with self.assertRaises(ValueError) as cm:
            est.meter("nonsense")
        self.assertTrue(str(cm.exception).startswith("name:"), str(cm.exception))

    # -- 3. async messages -----------------------------------------------------------------------
    def _post_async(self, msgs, expected):
        tb = gr.top_block()
        zeros = blocks.null_source(gr.sizeof_gr_complex)
        thr = blocks.throttle(gr.sizeof_gr_complex, 1e5)
        est = gpuinterp.dpd_estimator_cc(P, Q, Lp, Lq, capture_length=N, update_period=1 << 30, rx_timeout=0)
        tb.connect(zeros, thr, (est, 0))
        tb.connect(thr, (est, 1))
        tb.start()
        for m in msgs:
            est.to_basic_block()._post(pmt.intern("async"), m)
        deadline = time.time() + 5
        while time.time() < deadline and est.meter("underflows") < expected:
            time.sleep(0.01)
        time.sleep(0.1)
        tb.stop()
        tb.wait()
        return est.meter("underflows")

    @staticmethod
    def _async_dict(code_value):
        d = pmt.dict_add(pmt.make_dict(), pmt.intern("channel"), pmt.from_uint64(0))
        d = pmt.dict_add(d, pmt.intern("time_spec"), pmt.cons(pmt.from_long(1), pmt.from_double(0.5)))
        return pmt.dict_add(d, pmt.intern("event_code"), code_value)

    def test_async_underflows_integer_event_codes(self):
        code = lambda c: self._async_dict(pmt.from_long(c))  # noqa: E731
        junk = [pmt.PMT_NIL, pmt.intern("underflow"), pmt.from_long(2), pmt.make_dict(),
                pmt.cons(pmt.intern("uhd_async_msg"), pmt.from_long(2)), pmt.make_tuple(pmt.from_long(2)),
                self._async_dict(pmt.intern("garbage")), pmt.init_u8vector(3, [1, 2, 3])]
        msgs = [code(0x1), junk[0], code(0x2), junk[1], code(0x10), junk[2], code(0x4), junk[3], code(0x8),
                pmt.cons(pmt.intern("uhd_async_msg"), code(0x2)), junk[4], junk[5], junk[6], junk[7],
                pmt.cons(pmt.intern("uhd_async_msg"), code(0x1)),
                pmt.cons(pmt.intern("uhd_async_msg"), code(0x10))]
        # underflows: 0x2, 0x10, pair 0x2, pair 0x10 (the last message: all before it were handled)
        self.assertEqual(self._post_async(msgs, 4), 4)

    def test_async_underflows_gr_uhd_symbol_lists(self):
        # What gr-uhd's usrp_sink_impl::async_event_loop() actually publishes on async_msgs:
        # (uhd_async_msg . dict) with "event_code" a *list of symbols* (burst_ack, underflow,
        # underflow_in_packet, seq_error, seq_error_in_burst, time_error), not the integer code.
        def ev(*names):
            lst = pmt.PMT_NIL
            for nm in names:
                lst = pmt.list_add(lst, pmt.intern(nm))
            return pmt.cons(pmt.intern("uhd_async_msg"), self._async_dict(lst))
        msgs = [ev("burst_ack"), ev("underflow"), ev("seq_error"), ev("underflow_in_packet"), ev("time_error"),
                ev("underflow")]
        self.assertEqual(self._post_async(msgs, 3), 3)

    # -- 4. band check ---------------------------------------------------------------------------
    def test_band_warning(self):
        def build(fs):
            with capture_fds() as cap:
                gpuinterp.dpd_estimator_cc(P, Q, Lp, Lq, capture_length=N, update_period=N, sample_rate=fs,
                                           signal_bandwidth=18e6, channel_spacing=20e6)
            return cap.text
        narrow = build(30.72e6)   # +-15.36 MHz holds no adjacent channel (they reach +-29 MHz)
        self.assertIn("sample_rate 30.72 MHz", narrow)
        self.assertIn("adjacent", narrow)
        mid = build(61.44e6)      # holds them, but < 5 x 18 MHz
        self.assertIn("sample_rate 61.44 MHz", mid)
        self.assertIn("x the signal bandwidth", mid)
        wide = build(122.88e6)    # 6.8 x the bandwidth: no warning
        self.assertNotIn("sample_rate", wide)

    # -- 5. coefficients file --------------------------------------------------------------------
    def test_coefficients_file(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "dpd.json")
            x, y = self.x[:4 * N], self.y[:4 * N].copy()
            est, _, coeffs, stats = self.run_estimator(x, y, coefficients_file=path)
            st = [r.status for r in est.history()]
            self.assertEqual(st, ["calibrating", "updated", "updated", "updated"], st)
            self.assertTrue(os.path.exists(path))
            fit = dm.load_model(path)
            w_last, c_last = dpd_blocks.parse_coefficients_message(coeffs[-1], K)
            np.testing.assert_allclose(fit.coefficients, est.coefficients(), atol=1e-12)
            np.testing.assert_allclose(fit.coefficients, w_last, atol=1e-6)
            self.assertAlmostEqual(fit.lo_leakage, est.lo_leakage(), delta=1e-12)
            self.assertEqual(fit.model, str(dm.parse(f"ph:P={P},Q={Q},Lp={Lp},Lq={Lq}")))
            # a new estimator resumes from the file: its coefficients before any step, and the set
            # it publishes at start
            tb = gr.top_block()
            est2 = gpuinterp.dpd_estimator_cc(P, Q, Lp, Lq, capture_length=N, update_period=N, rx_timeout=0,
                                              coefficients_file=path, synchronous=True)
            np.testing.assert_allclose(est2.coefficients(), fit.coefficients, atol=1e-12)
            self.assertAlmostEqual(est2.lo_leakage(), fit.lo_leakage, delta=1e-12)
            got = msg_collector()
            sx = blocks.vector_source_c(x[:100].tolist(), False)
            sy = blocks.vector_source_c(y[:100].tolist(), False)
            tb.connect(sx, (est2, 0))
            tb.connect(sy, (est2, 1))
            tb.msg_connect(est2, "coeffs", got, "in")
            tb.run()
            deadline = time.time() + 5
            while time.time() < deadline and not got.msgs:
                time.sleep(0.01)
            self.assertEqual(len(got.msgs), 1)
            w, c = dpd_blocks.parse_coefficients_message(got.msgs[0], K)
            np.testing.assert_allclose(w, fit.coefficients, atol=1e-6)
            self.assertAlmostEqual(c, fit.lo_leakage, delta=1e-6)
            self.assertEqual(est2.history(), [])
            # a file of another model, and a file that is not a model file
            other = os.path.join(d, "other.json")
            dm.save_model(other, dm.ModelFit("ph:P=3,Q=0,Lp=1,Lq=1", np.array([1, 0j]), 0j, kind="predistorter"))
            junk = os.path.join(d, "junk.json")
            with open(junk, "w") as f:
                f.write("{not json")
            for p in (other, junk):
                with self.assertRaises(ValueError) as cm:
                    gpuinterp.dpd_estimator_cc(P, Q, Lp, Lq, capture_length=N, update_period=N, coefficients_file=p)
                self.assertTrue(str(cm.exception).startswith("coefficients_file:"), str(cm.exception))

    def test_coefficients_file_after_a_rollback(self):
        # The file must hold the last coefficients sent, i.e. what the predistorter runs. Captures 1-3
        # through PA A; capture 4 through PA A with 0.3 |x|^2 more compression: the loop NMSE of the
        # coefficients in use gets far worse than the best, so the step rolls back (and sends the best
        # set). A restart must resume from that set, not from the one rolled back from.
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "dpd.json")
            x, y = self.x[:4 * N], self.y[:4 * N].copy()
            seg = slice(3 * N, 4 * N)
            xd = np.concatenate([np.zeros(D0, dtype=np.complex64), x[:x.size - D0]])  # x on y's grid
            y[seg] = (y[seg] * (1 - 0.3 * np.abs(xd[seg]) ** 2)).astype(np.complex64)
            est, _, coeffs, _ = self.run_estimator(x, y, coefficients_file=path)
            st = [r.status for r in est.history()]
            self.assertEqual(st, ["calibrating", "updated", "updated", "rolled back"], st)
            w_last, _ = dpd_blocks.parse_coefficients_message(coeffs[-1], K)
            np.testing.assert_allclose(w_last, est.coefficients(), atol=1e-6)
            fit = dm.load_model(path)
            np.testing.assert_allclose(fit.coefficients, est.coefficients(), atol=1e-9,
                                       err_msg="coefficients_file holds the set rolled back from")


if __name__ == "__main__":
    gr_unittest.run(qa_estimator_operator)
