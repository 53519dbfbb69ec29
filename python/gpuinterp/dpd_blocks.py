# SPDX-License-Identifier: GPL-3.0-or-later
"""GNU Radio blocks of the DPD loop written in Python:

* ``dpd_estimator_cc``: two inputs (x = PA input, y = PA output); captures, runs the indirect-learning
  adaptation of :mod:`gpuinterp.dpd` and sends coefficients to the predistorter's ``coeffs`` port.
"""

import threading

import numpy as np
import pmt
from gnuradio import gr

from . import dpd
from . import dpd_model as dm
from .params import complex_param, float_param, int_param
from .gpuinterp_python import decode_coeffs_message, encode_coeffs_message

__all__ = ["dpd_estimator_cc", "coefficients_message", "parse_coefficients_message"]


def coefficients_message(coefficients, lo_leakage):
    """The PMT the predistorter's ``coeffs`` port takes: pair (c32vector . complex c)."""
    w = np.asarray(coefficients, dtype=np.complex64).ravel()
    return encode_coeffs_message([complex(v) for v in w], complex(lo_leakage))


def parse_coefficients_message(msg, expected_len):
    """(coefficients, lo_leakage or None) from any form decode_coeffs_message() accepts (the C++
    predistorter's definition); ValueError on anything else, a wrong length or non-finite values."""
    w, c = decode_coeffs_message(msg)
    w = w.astype(np.complex128)
    if w.size != expected_len:
        raise ValueError(f"coeffs: expected {expected_len} coefficients, got {w.size}")
    if not np.all(np.isfinite(w)) or (c is not None and not np.isfinite(c)):
        raise ValueError("coeffs: contains NaN or infinity")
    return w, c



class dpd_estimator_cc(gr.sync_block):
    """DPD coefficient estimator (indirect learning) for a closed loop.

    Inputs: 0 = x, the PA input (the predistorter output), 1 = y, the PA output (loopback capture).
    Every ``update_period`` samples it captures ``capture_length`` samples of both and runs one step of
    :class:`gpuinterp.dpd.Adaptation` (alignment, gain normalisation, regularised least squares,
    damping, rollback). Output messages:

    * ``coeffs``: pair (c32vector . c) for the predistorter's ``coeffs`` port, sent after an accepted
      update or a rollback; never sent for a refused step (estimation error, non-finite or
      out-of-bounds coefficients): the reason is logged instead.
    * ``stats``: a dict for every step: iteration, status ("updated", "rolled back", "refused"),
      loop_nmse_db, fit_nmse_db, delay, gain, condition, damping, reason, coefficients, lo_leakage.

    The estimate runs on a worker thread (``synchronous=False``) so the transmit chain never waits for
    it; captures arriving while it is busy are skipped. ``synchronous=True`` runs it inside work(),
    which makes runs reproducible (tests, offline simulation). ``max_updates`` > 0 stops after that many
    steps."""

    def __init__(self, P=5, Q=0, Lp=3, Lq=1, capture_length=32768, update_period=1048576, damping=0.8,
                 target_gain=0j, regularization=None, lo_leakage=True, max_delay=1024,
                 rollback_tolerance_db=0.5, max_gain_db=10.0, max_updates=0, synchronous=False,
                 initial_coefficients=(), initial_lo_leakage=0j, model=""):
        gr.sync_block.__init__(self, name="dpd_estimator_cc", in_sig=[np.complex64, np.complex64],
                               out_sig=None)
        # Every parameter is checked here, before the Adaptation is built, so each error names the
        # parameter that is wrong (int(nan) or a NaN slipping through a comparison would not).
        P, Q = int_param("P", P, 1, 15), int_param("Q", Q, 0, 15)
        Lp, Lq = int_param("Lp", Lp, 1, 1024), int_param("Lq", Lq, 1, 1024)
        dpd.validate_structure(P, Q, Lp, Lq)
        # A model spec ("mp:K=5,M=8", "gmp:...", the predistorter block's grammar) replaces
        # P, Q, Lp, Lq; empty keeps the parallel Hammerstein they describe.
        spec = dm.parse(model) if model else dm.parse(f"ph:P={P},Q={Q},Lp={Lp},Lq={Lq}")
        # 2^26 samples (512 MiB per buffer, two buffers plus the estimator's copies) is far beyond
        # any useful capture; a larger one would fail later as a bare MemoryError.
        capture_length = int_param("capture_length", capture_length, 1, 1 << 26)
        update_period = int_param("update_period", update_period, 1, 1 << 62)
        max_delay = int_param("max_delay", max_delay, 0)
        max_updates = int_param("max_updates", max_updates, 0, 1 << 62)
        damping = float_param("damping", damping, 0, 1, lo_open=True)
        target_gain = complex_param("target_gain", target_gain)
        if regularization is not None:  # None: chosen on held-out data by the estimator
            regularization = float_param("regularization", regularization, 0)
        rollback_tolerance_db = float_param("rollback_tolerance_db", rollback_tolerance_db, 0)
        max_gain_db = float_param("max_gain_db", max_gain_db, 0, lo_open=True)
        initial_lo_leakage = complex_param("initial_lo_leakage", initial_lo_leakage)
        if update_period < capture_length:
            raise ValueError(f"update_period: must be >= capture_length ({capture_length}), got {update_period}")
        # The capture length is checked before max_delay: a capture too short for the model is the
        # cause, and max_delay < capture_length would otherwise be reported first.
        need = spec.num_coefficients + (1 if lo_leakage else 0)
        span = spec.history + spec.lookahead + 1  # samples one basis row reads
        usable = capture_length - 2 * 24 - span
        if usable < 10 * need:
            raise ValueError(f"capture_length: {capture_length} samples leave ~{usable} for {need} unknowns; "
                             f"need at least {10 * need + 2 * 24 + span}")
        if max_delay >= capture_length:
            raise ValueError(f"max_delay: must be in [0, capture_length), got {max_delay}")
        self._adapt = dpd.Adaptation(P, Q, Lp, Lq, model=None if not model else str(spec), damping=damping,
                                     target_gain=None if target_gain == 0 else target_gain,
                                     rollback_tolerance_db=rollback_tolerance_db, max_gain_db=max_gain_db,
                                     min_damping=min(0.1, damping),
                                     initial_coefficients=initial_coefficients if len(initial_coefficients) else None,
                                     initial_lo_leakage=initial_lo_leakage, regularization=regularization,
                                     lo_leakage=bool(lo_leakage), max_delay=int(max_delay))
        self._cap_len = int(capture_length)
        self._period = int(update_period)
        self._max_updates = int(max_updates)
        self._sync = bool(synchronous)
        self._xbuf = np.zeros(self._cap_len, dtype=np.complex64)
        self._ybuf = np.zeros(self._cap_len, dtype=np.complex64)
        self._fill = 0
        self._pos = 0          # samples seen
        self._next_start = 0   # stream position of the next capture
        self._steps = 0
        self._lock = threading.Lock()
        self._worker = None
        self._last = None
        self.message_port_register_out(pmt.intern("coeffs"))
        self.message_port_register_out(pmt.intern("stats"))

    # -- accessors ------------------------------------------------------------------------------
    def last_result(self):
        """The last :class:`gpuinterp.dpd.StepResult` (None before the first step)."""
        with self._lock:
            return self._last

    def history(self):
        with self._lock:
            return list(self._adapt.history)

    def coefficients(self):
        with self._lock:
            return self._adapt.coefficients.copy()

    def lo_leakage(self):
        with self._lock:
            return self._adapt.lo_leakage

    def set_damping(self, damping):
        damping = float_param("damping", damping, 0, 1, lo_open=True)
        with self._lock:
            self._adapt.damping = float(damping)
            self._adapt.min_damping = min(self._adapt.min_damping, float(damping))

    def set_update_period(self, update_period):
        update_period = int_param("update_period", update_period, self._cap_len, 1 << 62)
        with self._lock:
            self._period = update_period

    # -- processing -----------------------------------------------------------------------------
    def _run_step(self, x, y):
        with self._lock:
            try:
                r = self._adapt.step(x, y)
            except Exception as e:  # never let an unexpected failure send coefficients
                r = dpd.StepResult(self._adapt.iteration, "refused", self._adapt.coefficients.copy(),
                                   self._adapt.lo_leakage, reason=f"estimation failed: {e}")
            self._last = r
        if r.status == "refused":
            self.logger.warn(f"iteration {r.iteration}: not sending coefficients: {r.reason}")
        else:
            ok = np.all(np.isfinite(r.coefficients)) and np.isfinite(r.lo_leakage)
            if not ok:  # Adaptation never returns these; checked again because hardware is at stake
                self.logger.error(f"iteration {r.iteration}: non-finite coefficients, not sent")
            else:
                self.message_port_pub(pmt.intern("coeffs"), coefficients_message(r.coefficients, r.lo_leakage))
                msg = (f"iteration {r.iteration}: {r.status}, loop NMSE {r.loop_nmse_db:.2f} dB, fit NMSE "
                       f"{r.fit_nmse_db:.2f} dB, delay {r.delay:.3f}, |G| {abs(r.gain):.4g}")
                if r.status == "rolled back":
                    self.logger.warn(msg + f" ({r.reason})")
                else:
                    self.logger.info(msg)
        self.message_port_pub(pmt.intern("stats"), self._stats_pmt(r))

    @staticmethod
    def _stats_pmt(r):
        d = pmt.make_dict()
        items = [("iteration", pmt.from_long(r.iteration)), ("status", pmt.intern(r.status)),
                 ("loop_nmse_db", pmt.from_double(float(r.loop_nmse_db))),
                 ("fit_nmse_db", pmt.from_double(float(r.fit_nmse_db))),
                 ("delay", pmt.from_double(float(r.delay))), ("gain", pmt.from_complex(complex(r.gain))),
                 ("condition", pmt.from_double(float(r.condition))),
                 ("damping", pmt.from_double(float(r.damping))), ("reason", pmt.intern(r.reason)),
                 ("coefficients", pmt.init_c32vector(len(r.coefficients), [complex(v) for v in r.coefficients])),
                 ("lo_leakage", pmt.from_complex(complex(r.lo_leakage)))]
        for k, v in items:
            d = pmt.dict_add(d, pmt.intern(k), v)
        return d

    def _busy(self):
        return self._worker is not None and self._worker.is_alive()

    def work(self, input_items, output_items):
        x, y = input_items[0], input_items[1]
        n = min(len(x), len(y))
        i = 0
        while i < n:
            done = self._max_updates > 0 and self._steps >= self._max_updates
            if done:
                break
            if self._fill == 0:
                start = self._next_start - self._pos
                if start >= n - i:
                    break
                i += max(0, start)
                self._pos += max(0, start)
                if self._busy():  # skip this capture, try again one period later
                    self._next_start = self._pos + self._period
                    continue
            take = min(self._cap_len - self._fill, n - i)
            self._xbuf[self._fill:self._fill + take] = x[i:i + take]
            self._ybuf[self._fill:self._fill + take] = y[i:i + take]
            self._fill += take
            i += take
            self._pos += take
            if self._fill == self._cap_len:
                self._next_start = self._pos - self._cap_len + self._period
                self._fill = 0
                self._steps += 1
                xc, yc = self._xbuf.copy(), self._ybuf.copy()
                if self._sync:
                    self._run_step(xc, yc)
                else:
                    self._worker = threading.Thread(target=self._run_step, args=(xc, yc), daemon=True)
                    self._worker.start()
        self._pos += n - i
        return n

    def stop(self):
        if self._worker is not None:
            self._worker.join()
        return True
