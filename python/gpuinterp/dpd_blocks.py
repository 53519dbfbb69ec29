# SPDX-License-Identifier: GPL-3.0-or-later
"""GNU Radio blocks of the DPD loop written in Python:

* ``dpd_estimator_cc``: two inputs (x = PA input, y = PA output from the observation receiver);
  captures, runs the indirect-learning adaptation of :mod:`gpuinterp.dpd_adapt` and sends
  coefficients to the predistorter's ``coeffs`` port.
"""

import math
import os
import threading
import time

import numpy as np
import pmt
from gnuradio import gr

from . import dpd_adapt, dpd_capture, metrics
from . import dpd_model as dm
from .dpd_ph import DPDError, validate_structure
from .params import complex_param, float_param, int_param
from . import radio_messages
from .estimator_memory import (ESTIMATE_BYTES_PER_SAMPLE, _physical_memory, _Window,  # noqa: F401
                               max_capture_length)
from .radio_messages import (_BURST_KEYS, _RX_FREQ, _RX_RATE, _RX_TIME, _SWITCH_KEYS,  # noqa: F401
                             SAMPLE_FORMATS, _rx_time_parts, coefficients_message,
                             parse_coefficients_message, sc16_reader, stats_message)

__all__ = ["dpd_estimator_cc", "coefficients_message", "parse_coefficients_message"]


# How far one input may run ahead of the other, in captures, before its oldest samples are dropped:
# a receiver that stops must never stall the transmit chain feeding input 0.
_SLACK_CAPTURES = 4

METERS = ("rx_peak_dbfs", "rx_clipped", "tx_peak_dbfs", "tx_rms_dbfs", "overflows", "underflows",
          "dropped_captures", "aclr_db", "gain_db", "phase_deg", "freq_offset_hz", "delay", "loop_nmse_db",
          "updates", "iteration", "step_seconds")



class dpd_estimator_cc(gr.basic_block):
    """DPD coefficient estimator (indirect learning) for a closed loop through a real radio.

    Inputs: 0 = x, the PA input (the predistorter output), 1 = y, the PA output as the observation
    receiver delivers it. Every ``update_period`` samples it captures ``capture_length`` samples of
    both (paired by stream position) and runs one step of :class:`gpuinterp.dpd_adapt.Adaptation`:
    clipping check against ``rx_full_scale``, delay search, frequency offset and phase removal
    (``track_frequency``), receiver DC and IQ imbalance removal (``rx_correction``), loop-gain
    confirmation, regularised least squares, damping, rollback.

    While both inputs flow they are consumed together, as a sync block would; when no RX samples
    arrive for ``rx_timeout`` seconds (a receiver unplugged or stalled) that is logged and input 0 is
    consumed alone, so a dead receiver never stalls the transmit chain feeding it.
    Tags: a capture holding an ``rx_time`` discontinuity (an overflow; a malformed value counts as
    one), a burst tag (``tx_sob``/``tx_eob``/``rx_sob``/``rx_eob``) or an ``rx_freq`` change is dropped
    with one log line, and the next capture starts right after it; ``rx_rate`` gives the sample rate
    when ``sample_rate`` is 0; other tags are ignored. Message ports:

    * ``coeffs`` (out): pair (c32vector . c) for the predistorter's ``coeffs`` port, sent after an
      accepted update or a rollback, and at start when ``coefficients_file`` holds a previous run's;
      never for a refused or calibrating step (the reason is logged instead).
    * ``stats`` (out): a dict for every step: iteration, status ("updated", "rolled back",
      "calibrating", "refused"), reason, loop_nmse_db, fit_nmse_db, delay, gain, condition, damping,
      coefficients, lo_leakage, and the meters of :meth:`meter`.
    * ``async`` (in): gr-uhd ``usrp_sink``'s ``async_msgs``; underflows are counted.

    Input formats: ``tx_format`` / ``rx_format`` "fc32" (complex float) or "sc16" (I/Q int16, the
    item of the predistorter's sc16 output and of ``usrp_source`` with cpu_format sc16). An sc16 x
    is scaled back by ``tx_full_scale`` (the predistorter's ``full_scale``), an sc16 y by UHD's
    convention (32767 = 1.0, so ``rx_full_scale`` 1.0 is the ADC's full scale).

    The fit runs on the estimation engine (``gpuinterp.dpd_gram``: ``backend`` "automatic" takes the
    GPU ``device`` when there is one, else the CPU; the Gram is accumulated chunk by chunk, so memory
    does not grow with the capture). The estimate runs on a worker thread (``synchronous=False``) so the transmit chain never waits for
    it; captures arriving while it is busy are skipped. ``synchronous=True`` runs it inside the work
    call, which makes runs reproducible (tests, offline simulation). ``max_updates`` > 0 stops after
    that many steps."""

    def __init__(self, P=5, Q=0, Lp=3, Lq=1, capture_length=32768, update_period=1048576, damping=0.8,
                 target_gain=0j, regularization=None, lo_leakage=True, max_delay=1024,
                 rollback_tolerance_db=0.5, max_gain_db=10.0, max_updates=0, synchronous=False,
                 initial_coefficients=(), initial_lo_leakage=0j, model="", rx_full_scale=1.0,
                 rx_correction=True, track_frequency=True, sample_rate=0.0, signal_bandwidth=0.0,
                 channel_spacing=0.0, rx_timeout=5.0, coefficients_file="", backend="automatic", device=0,
                 tx_format="fc32", tx_full_scale=1.0, rx_format="fc32"):
        # sc16 inputs: the predistorter's sc16 output (scaled back by its full scale) and gr-uhd's
        # usrp_source with cpu_format sc16 (UHD's convention, 32767 = 1.0).
        formats = {}
        for name, value in (("tx_format", tx_format), ("rx_format", rx_format)):
            if value not in SAMPLE_FORMATS:
                raise ValueError(f"{name}: must be 'fc32' or 'sc16', got {value!r}")
            formats[name] = value
        tx_full_scale = float_param("tx_full_scale", tx_full_scale, 0, lo_open=True)
        gr.basic_block.__init__(self, name="dpd_estimator_cc",
                                in_sig=[SAMPLE_FORMATS[tx_format], SAMPLE_FORMATS[rx_format]],
                                out_sig=None)
        self._to_fc32 = (sc16_reader(tx_format, tx_full_scale), sc16_reader(rx_format, 1.0))
        # Every parameter is checked here, before the Adaptation is built, so each error names the
        # parameter that is wrong (int(nan) or a NaN slipping through a comparison would not).
        P, Q = int_param("P", P, 1, dm.MAX_ORDER), int_param("Q", Q, 0, dm.MAX_ORDER)
        Lp, Lq = int_param("Lp", Lp, 1, dm.MAX_LAG), int_param("Lq", Lq, 1, dm.MAX_LAG)
        validate_structure(P, Q, Lp, Lq)
        # A model spec ("mp:K=5,M=8", "gmp:...", the predistorter block's grammar) replaces
        # P, Q, Lp, Lq; empty keeps the parallel Hammerstein they describe.
        if not isinstance(model, str):
            raise ValueError(f"model: must be a spec string ('' for ph from P, Q, Lp, Lq), got {model!r}")
        spec = dm.parse(model) if model else dm.parse(f"ph:P={P},Q={Q},Lp={Lp},Lq={Lq}")
        # One step of the estimator peaks at about ESTIMATE_BYTES_PER_SAMPLE per capture sample (the
        # capture, its conditioned and aligned copies, the envelope correlation's FFTs; the fit's Gram
        # is O(K^2)), so the capture this machine can estimate is bounded by its memory: half of it,
        # leaving the rest to the flowgraph. Beyond that a step would fail as a bare MemoryError.
        capture_length = int_param("capture_length", capture_length, 1, 1 << 26)
        limit = max_capture_length()
        if capture_length > limit:
            raise ValueError(f"capture_length: {capture_length} samples need about "
                             f"{capture_length * ESTIMATE_BYTES_PER_SAMPLE / 2**30:.1f} GiB to estimate "
                             f"(~{ESTIMATE_BYTES_PER_SAMPLE} bytes per sample); this machine has "
                             f"{_physical_memory() / 2**30:.1f} GiB, so at most {limit} samples")
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
        rx_full_scale = float_param("rx_full_scale", rx_full_scale, 0, lo_open=True)
        sample_rate = float_param("sample_rate", sample_rate, 0)
        signal_bandwidth = float_param("signal_bandwidth", signal_bandwidth, 0)
        channel_spacing = float_param("channel_spacing", channel_spacing, 0)
        rx_timeout = float_param("rx_timeout", rx_timeout, 0)
        if backend not in ("automatic", "cpu", "cuda"):
            raise ValueError(f"backend: must be 'automatic', 'cpu' or 'cuda', got {backend!r}")
        device = int_param("device", device, 0, 1023)
        if not isinstance(coefficients_file, str):
            raise ValueError(f"coefficients_file: must be a path string ('' for none), got {coefficients_file!r}")
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
        self._file = coefficients_file
        self._resume = None
        if coefficients_file and os.path.exists(coefficients_file):
            try:
                fit = dm.load_model(coefficients_file)
            except (ValueError, OSError) as e:
                raise ValueError(f"coefficients_file: {e}") from None
            if dm.parse(fit.model) != spec:
                raise ValueError(f"coefficients_file: {coefficients_file} holds coefficients of {fit.model}, "
                                 f"this estimator fits {spec}")
            initial_coefficients, initial_lo_leakage = fit.coefficients, fit.lo_leakage
            self._resume = (fit.coefficients.copy(), fit.lo_leakage)
        try:
            self._adapt = dpd_adapt.Adaptation(
                0, 0, 1, 1, model=str(spec), damping=damping,
                target_gain=None if target_gain == 0 else target_gain,
                rollback_tolerance_db=rollback_tolerance_db, max_gain_db=max_gain_db,
                min_damping=min(0.1, damping),
                initial_coefficients=initial_coefficients if len(initial_coefficients) else None,
                initial_lo_leakage=initial_lo_leakage, regularization=regularization, lo_leakage=bool(lo_leakage),
                max_delay=int(max_delay), rx_full_scale=rx_full_scale, rx_correction=bool(rx_correction),
                track_frequency=bool(track_frequency), backend=backend, device=device)
        except DPDError as e:
            raise ValueError(str(e)) from None
        self._spec = spec
        self._cap_len = int(capture_length)
        self._period = int(update_period)
        self._max_updates = int(max_updates)
        self._sync = bool(synchronous)
        self._rate = sample_rate
        self._bw, self._spacing = signal_bandwidth, channel_spacing
        self._timeout = rx_timeout
        self._full_scale = rx_full_scale
        # Samples of each input from a stream position on (both inputs count from 0, and
        # sample k of x pairs with sample k of y, as a sync block would pair them).
        self._win = [_Window(), _Window()]
        self._next_start = 0  # stream position of the next capture
        self._cuts = []  # stream positions where the signal is discontinuous (tags)
        self._time_ref = None  # (position, whole seconds, fraction) of the last rx_time
        self._shift = 0  # stream position of y's sample 0 (moves when the receiver returns from a stall)
        self._resync = False
        self._freq = None
        self._malformed_logged = False
        self._band_checked = False
        self._steps = 0
        self._lock = threading.Lock()
        self._worker = None
        self._last = None
        self._meters = {k: float("nan") for k in METERS}
        for k in ("overflows", "underflows", "dropped_captures", "updates", "iteration", "rx_clipped"):
            self._meters[k] = 0.0
        self._status = "waiting for the first capture"
        self._last_rx = None
        self._stalled = False
        self._watchdog = None
        self._running = False
        self.message_port_register_out(pmt.intern("coeffs"))
        self.message_port_register_out(pmt.intern("stats"))
        self.message_port_register_in(pmt.intern("async"))
        self.set_msg_handler(pmt.intern("async"), self._on_async)
        self._check_band()

    # -- accessors ------------------------------------------------------------------------------
    def last_result(self):
        """The last :class:`gpuinterp.dpd_adapt.StepResult` (None before the first step)."""
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

    def meter(self, name):
        """One operator meter (float; nan until measured): one of :data:`METERS`."""
        if name not in self._meters:
            raise ValueError(f"name: must be one of {', '.join(METERS)}, got {name!r}")
        with self._lock:
            return float(self._meters[name])

    def status(self):
        """The loop state in a few words: the last step's status and reason, or what it waits for."""
        with self._lock:
            return self._status

    def set_damping(self, damping):
        damping = float_param("damping", damping, 0, 1, lo_open=True)
        with self._lock:
            self._adapt.damping = float(damping)
            self._adapt.min_damping = min(self._adapt.min_damping, float(damping))

    def set_update_period(self, update_period):
        update_period = int_param("update_period", update_period, self._cap_len, 1 << 62)
        with self._lock:
            self._period = update_period

    # -- messages and monitoring ----------------------------------------------------------------
    def _on_async(self, msg):
        if radio_messages.is_underflow(msg):
            with self._lock:
                self._meters["underflows"] += 1

    def _check_band(self):
        """Warn once when the captured band cannot hold what the loop is asked to improve."""
        fs, bw, sp = self._rate, self._bw, self._spacing
        if self._band_checked or not (fs > 0 and bw > 0):
            return
        self._band_checked = True
        if sp > 0 and fs / 2 < sp + bw / 2:
            self.logger.warn(f"sample_rate {fs / 1e6:g} MHz: the capture holds +-{fs / 2e6:g} MHz, the adjacent "
                             f"channels reach +-{(sp + bw / 2) / 1e6:g} MHz: the loop cannot see (or improve) "
                             f"them; use at least {5 * bw / 1e6:g} Msample/s (5 x the signal bandwidth)")
        elif fs < 5 * bw:
            self.logger.warn(f"sample_rate {fs / 1e6:g} MHz is {fs / bw:.2g} x the signal bandwidth: "
                             "intermodulation up to order 5 spans 5 x the bandwidth, so part of it folds "
                             "back or is not seen; use at least 5 x")

    def _watch(self):
        while self._running:
            time.sleep(min(0.2, self._timeout / 4))
            last = self._last_rx
            if last is not None and not self._stalled and time.monotonic() - last > self._timeout:
                self._stalled = True
                # Wake the block's thread (it sleeps until an input or a message arrives) so the
                # scheduler asks forecast() again and input 0 drains.
                self.to_basic_block()._post(pmt.intern("async"), pmt.PMT_NIL)
                with self._lock:
                    self._status = f"no RX samples for {self._timeout:g} s"
                self.logger.warn(f"rx_timeout: no samples on input 1 (y) for {self._timeout:g} s: the "
                                 "receiver stopped (unplugged, stalled, or its stream ended); the transmit "
                                 "input keeps flowing and no update is made until it returns")

    def start(self):
        self._running = True
        self._last_rx = time.monotonic()
        if self._timeout > 0:
            self._watchdog = threading.Thread(target=self._watch, daemon=True)
            self._watchdog.start()
        if self._resume is not None:
            w, c = self._resume
            self.message_port_pub(pmt.intern("coeffs"), coefficients_message(w, c))
            self.logger.info(f"resumed from {self._file}")
        return True

    def stop(self):
        self._running = False
        if self._worker is not None:
            self._worker.join()
        if self._watchdog is not None:
            self._watchdog.join()
        return True

    # -- processing -----------------------------------------------------------------------------
    def _save(self, r):
        if not self._file:
            return
        tmp = self._file + ".tmp"
        try:
            dm.save_model(tmp, dm.ModelFit(str(self._spec), r.coefficients, r.lo_leakage, kind="predistorter"))
            os.replace(tmp, self._file)  # a reader never sees half a file
        except (OSError, ValueError) as e:
            self.logger.error(f"coefficients_file: cannot write {self._file}: {e}")

    def _update_meters(self, r, x, y, seconds):
        m = self._meters
        m["iteration"] = r.iteration
        m["step_seconds"] = seconds
        m["tx_peak_dbfs"] = dpd_capture.peak_dbfs(x, 1.0)
        p = float(np.mean(np.abs(x) ** 2))
        m["tx_rms_dbfs"] = 10 * math.log10(p) if p > 0 else -math.inf
        m["rx_peak_dbfs"] = dpd_capture.peak_dbfs(y, self._full_scale)
        m["rx_clipped"] = int(dpd_capture.clip_mask(y, self._full_scale).sum())
        if r.status == "updated":
            m["updates"] += 1
        c = r.capture
        if c is not None:
            m["delay"] = c.delay
            m["phase_deg"] = math.degrees(np.angle(r.gain)) if r.gain else float("nan")
            m["freq_offset_hz"] = c.freq_offset * self._rate if self._rate > 0 else float("nan")
        if r.gain:
            m["gain_db"] = 20 * math.log10(abs(r.gain))
        m["loop_nmse_db"] = r.loop_nmse_db
        fs, bw, sp = self._rate, self._bw, self._spacing
        if fs > 0 and bw > 0 and sp > 0 and fs / 2 >= sp + bw / 2:
            try:
                m["aclr_db"] = metrics.aclr(y.astype(np.complex128), fs, bw, sp, nfft=min(8192, y.size))["worst"]
            except ValueError:
                m["aclr_db"] = float("nan")
        self._status = r.status + (f": {r.reason}" if r.reason else "")

    def _run_step(self, x, y):
        t0 = time.monotonic()
        with self._lock:
            try:
                r = self._adapt.step(x, y)
            except Exception as e:  # never let an unexpected failure send coefficients
                r = dpd_adapt.StepResult(self._adapt.iteration, "refused", self._adapt.coefficients.copy(),
                                         self._adapt.lo_leakage, reason=f"estimation failed: {e}")
            self._last = r
        if r.status in ("refused", "calibrating"):
            log = self.logger.warn if r.status == "refused" else self.logger.info
            log(f"iteration {r.iteration}: {r.status}, not sending coefficients: {r.reason}")
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
                self._save(r)  # what the predistorter runs now: a restart resumes from it
        with self._lock:
            self._update_meters(r, x, y, time.monotonic() - t0)
            meters = dict(self._meters)
        self.message_port_pub(pmt.intern("stats"), stats_message(r, meters))

    def _busy(self):
        return self._worker is not None and self._worker.is_alive()

    def forecast(self, noutput_items, ninputs):
        # Normally both inputs are needed (consumed in step, so neither runs out first at the end of a
        # finite stream, which would end the block early); a stalled receiver needs none, so the
        # transmit input is consumed alone.
        return [0] * ninputs if self._stalled else [1] * ninputs

    def _read_tags(self, port, n):
        base = self.nitems_read(port)
        for t in self.get_tags_in_window(port, 0, n):
            key, pos = t.key, t.offset + (self._shift if port == 1 else 0)
            if pmt.eq(key, _RX_RATE) and port == 1:
                if pmt.is_real(t.value) and self._rate == 0:
                    v = pmt.to_double(t.value)
                    if math.isfinite(v) and v > 0:
                        self._rate = v
                        self._check_band()
            elif pmt.eq(key, _RX_TIME) and port == 1:
                sec = _rx_time_parts(t.value)
                if sec is None:
                    if not self._malformed_logged:
                        self._malformed_logged = True
                        self.logger.warn(f"rx_time: malformed value {t.value} at sample {pos}; treated as a "
                                         "discontinuity (logged once)")
                    self._cut(pos, "a malformed rx_time tag")
                    self._time_ref = None
                    continue
                ref = self._time_ref
                self._time_ref = (pos, sec[0], sec[1])
                if ref is not None:
                    # time elapsed against samples elapsed, in samples (whole seconds exact)
                    off = (((sec[0] - ref[1]) + (sec[1] - ref[2])) * self._rate - (pos - ref[0])
                           if self._rate > 0 else None)
                    if off is None or abs(off) > 0.5:
                        with self._lock:
                            self._meters["overflows"] += 1
                        self._cut(pos, "an rx_time discontinuity (receiver overflow)")
            elif pmt.eq(key, _RX_FREQ) and port == 1:
                f = pmt.to_double(t.value) if pmt.is_real(t.value) else None
                if self._freq is not None and f != self._freq:
                    self._cut(pos, "an rx_freq change (retune)")
                self._freq = f
            elif any(pmt.eq(key, k) for k in _BURST_KEYS):
                self._cut(pos, f"a burst boundary ({pmt.symbol_to_string(key)})")
            elif port == 0 and any(pmt.eq(key, k) for k in _SWITCH_KEYS):
                self._cut(pos, None)
        return base

    def _cut(self, pos, why):
        self._cuts.append((pos, why))

    def general_work(self, input_items, output_items):
        n = [len(input_items[0]), len(input_items[1])]
        if n[1] and self._stalled:
            # The receiver is back. Its next sample was received about now, when the transmit input
            # had reached its end: pair it there (the delay search finds the rest), not by count,
            # which the stall put off by its whole length.
            self._stalled = False
            self._shift = self._win[0].end - self.nitems_read(1)
            self._win[1].restart(self.nitems_read(1) + self._shift)
            self._next_start = max(self._next_start, self._win[1].base)
            self.logger.info("rx_timeout: receiver samples are flowing again")
        if not self._stalled:
            n = [min(n)] * 2
        for port in (0, 1):
            if n[port]:
                self._read_tags(port, n[port])
                self._win[port].append(self._to_fc32[port](input_items[port][:n[port]]))
                self.consume(port, n[port])
        if n[1]:
            self._last_rx = time.monotonic()
        self._capture()
        return 0

    def _capture(self):
        N = self._cap_len
        while not (self._max_updates > 0 and self._steps >= self._max_updates):
            s = self._next_start
            for w in self._win:  # nothing before the next capture is needed
                w.drop_to(s)
            ends = [w.end for w in self._win]
            if min(ends) < s + N:
                # Waiting for the lagging input; the leading one holds at most a few captures.
                lead = 0 if ends[0] >= ends[1] else 1
                if ends[lead] - s <= (_SLACK_CAPTURES + 1) * N:
                    return
                if self._stalled:  # the stall was logged once: move on quietly
                    self._next_start = ends[lead] - N
                else:
                    self._drop(f"input {1 - lead} is more than {_SLACK_CAPTURES} captures behind input {lead}",
                               ends[lead] - N)
                continue
            cut = [(p, w) for p, w in self._cuts if s < p < s + N]
            self._cuts = [(p, w) for p, w in self._cuts if p >= s + N]
            if cut:
                p, why = cut[-1]
                faults = [(q, w) for q, w in cut if w is not None]
                if faults:
                    q, w = faults[-1]
                    self._drop(f"the capture at sample {s} holds {w} at sample {q}", p)
                else:
                    self._next_start = p  # a coefficient switch: measure the new set from its start
                continue
            x, y = self._win[0].take(s, N), self._win[1].take(s, N)
            self._next_start = s + self._period
            if self._busy():
                continue  # skip this capture, try again one period later
            self._steps += 1
            if self._sync:
                self._run_step(x, y)
            else:
                self._worker = threading.Thread(target=self._run_step, args=(x, y), daemon=True)
                self._worker.start()

    def _drop(self, why, restart):
        with self._lock:
            self._meters["dropped_captures"] += 1
            self._status = f"capture dropped: {why}"
        self.logger.warn(f"capture dropped: {why}")
        self._next_start = restart
