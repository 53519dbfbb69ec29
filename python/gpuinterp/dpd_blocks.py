# SPDX-License-Identifier: GPL-3.0-or-later
"""GNU Radio blocks of the DPD loop written in Python:

* ``dpd_estimator_cc``: x inputs (the PA input of each transmit channel) and one y input (the PA
  output from the observation receiver); captures, runs the indirect-learning adaptation of
  :mod:`gpuinterp.dpd_adapt` and sends coefficients to the predistorter's ``coeffs`` port. Several
  channels share the receiver in turn (:mod:`gpuinterp.estimator_channels`).
"""

import threading
import time

import numpy as np
import pmt
from gnuradio import gr

from . import dpd_adapt
from . import dpd_model as dm
from .dpd_capture import MIN_GAIN
from .dpd_ph import DPDError, validate_structure
from .params import bool_param, complex_param, float_param, int_param
from . import radio_messages
from . import gpuinterp_python
from .gpuinterp_python import input_ended
from .estimator_memory import (ESTIMATE_BYTES_PER_SAMPLE, capture_length_param,  # noqa: F401
                               check_capture_holds, max_capture_length)
from .radio_messages import (SAMPLE_FORMATS, coefficients_message, parse_coefficients_message,  # noqa: F401
                             sc16_reader, stats_message)
from .estimator_stream import StreamMixin, _Window
from .estimator_channels import (MAX_CHANNELS, METERS, SHARED_METERS, Channel, RoundRobin, aclr_band, channel_file,
                                 check_predistorter_gain, load_resume, obs_select_message, record_step,
                                 save_set)

__all__ = ["dpd_estimator_cc", "coefficients_message", "parse_coefficients_message"]


# The shortest receiver watchdog (s): the longest gap between two of a flowing receiver's bursts.
MIN_RX_TIMEOUT = 0.01


class dpd_estimator_cc(StreamMixin, gr.basic_block):
    """DPD coefficient estimator (indirect learning) for a closed loop through a real radio.

    Inputs: 0 = x, the PA input (the predistorter output), 1 = y, the PA output as the observation
    receiver delivers it. Every ``update_period`` samples it captures ``capture_length`` samples of
    both (paired by stream position) and runs one step of :class:`gpuinterp.dpd_adapt.Adaptation`:
    clipping check against ``rx_full_scale``, delay search, frequency offset and phase removal
    (``track_frequency``), receiver DC and IQ imbalance removal (``rx_correction``), loop-gain
    confirmation, regularised least squares, damping, rollback.

    While both inputs flow they are consumed together, as a sync block would; when no RX samples
    arrive for ``rx_timeout`` seconds (a receiver unplugged or stalled) that is logged and input 0 is
    consumed alone, so a dead receiver never stalls the transmit chain feeding it. The time a
    synchronous step takes does not count (the block reads nothing while it estimates), so a long
    step is never taken for a receiver that stopped. When the
    receiver's stream *ends* (its source block finishes), that is logged once, the captures its
    samples complete are still taken, and input 0 is consumed alone from then on, whatever
    ``rx_timeout``: the transmit chain runs on until its own stream ends. (To stay running, the block
    leaves the receiver's last sample unconsumed; a receiver that ends before its first sample
    still ends the block, as GNU Radio ends any block whose input ends empty.)
    Tags: a capture holding an ``rx_time`` discontinuity (an overflow; a malformed value counts as
    one), a burst tag (``tx_sob``/``tx_eob``/``rx_sob``/``rx_eob``), an ``rx_freq`` change or a
    malformed ``rx_freq`` is dropped with one log line, and the next capture starts right after it;
    ``rx_rate`` gives the sample rate when ``sample_rate`` is 0 (a malformed one, not a finite rate
    in (0, 1e12] Hz, is ignored with one warning); with no rate known an ``rx_time`` cannot be set
    against the sample count, which is said once, and no overflow is inferred. Other tags are
    ignored. Message ports:

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
    it; captures arriving while it is busy are skipped, counted by the ``skipped_captures`` meter
    and said once (the steps cannot keep up with ``update_period``). ``synchronous=True`` runs it inside the work
    call, which makes runs reproducible (tests, offline simulation). ``max_updates`` > 0 stops after
    that many steps; the inputs are consumed on and nothing more is kept of them (memory stays
    that of a few captures however long the flowgraph runs).

    ``channels`` = N > 1: inputs 0..N-1 are the x of N transmit channels, input N the one y of an
    observation receiver behind an RF switch. The channels are served in turn, one capture every
    ``update_period`` samples (so each channel every N periods): ``obs_select`` (out) sends the
    switch the pair ("channel" . c) (blocks.selector's ``iindex`` takes it), the ``settle`` y samples
    after it are discarded, and channel c's capture runs channel c's own Adaptation. Its ``coeffs``
    message is a dict with "channel": c (the predistorter with ``channels`` = N updates only that
    channel); ``stats`` carries "channel" always. All x inputs are consumed together, captured or not.
    The accessors take a ``channel`` (default 0); the overflow, underflow and dropped-capture meters
    are the receiver's, shared. ``coefficients_file`` "f" becomes one file per channel, "f.ch<c>".

    ``learning`` "direct": each step fits a neural PA surrogate (``surrogate``, a gru or tdnn spec;
    '' for ``gru:H=8,C=0,D=1``) on the capture, continued from the previous capture's, and trains the
    (polynomial) predistorter through it by gradient, as OpenDPD does on its bench (PyTorch, on the
    GPU unless ``backend`` is "cpu"; :mod:`gpuinterp.dpd_direct`). Conditioning, gain, damping and
    rollback are as for "indirect" (the default: least squares on the capture). A step takes seconds
    to minutes on a CPU: run it with ``synchronous=False``.

    ``coefficients_file``, when it exists, must be a regular file (a FIFO would block the
    constructor, a device never end) of a predistorter ("kind": "predistorter", not a PA model) of
    this model, with finite coefficients whose gain on a -14 dBFS test signal is within
    +-``max_gain_db``; anything else is refused at construction, before anything is sent."""

    def __init__(self, P=5, Q=0, Lp=3, Lq=1, capture_length=32768, update_period=1048576, damping=0.8,
                 target_gain=0j, regularization=None, lo_leakage=True, max_delay=1024,
                 rollback_tolerance_db=0.5, max_gain_db=10.0, max_updates=0, synchronous=False,
                 initial_coefficients=(), initial_lo_leakage=0j, model="", rx_full_scale=1.0,
                 rx_correction=True, track_frequency=True, sample_rate=0.0, signal_bandwidth=0.0,
                 channel_spacing=0.0, rx_timeout=5.0, coefficients_file="", backend="automatic", device=0,
                 tx_format="fc32", tx_full_scale=1.0, rx_format="fc32", channels=1, settle=4096,
                 learning="indirect", surrogate=""):
        # sc16 inputs: the predistorter's sc16 output (scaled back by its full scale) and gr-uhd's
        # usrp_source with cpu_format sc16 (UHD's convention, 32767 = 1.0).
        for name, value in (("tx_format", tx_format), ("rx_format", rx_format)):
            if not isinstance(value, str) or value not in SAMPLE_FORMATS:
                raise ValueError(f"{name}: must be 'fc32' or 'sc16', got {value!r}")
        tx_full_scale = float_param("tx_full_scale", tx_full_scale, 0, lo_open=True)
        lo_leakage, rx_correction = bool_param("lo_leakage", lo_leakage), bool_param("rx_correction", rx_correction)
        track_frequency = bool_param("track_frequency", track_frequency)
        synchronous = bool_param("synchronous", synchronous)
        channels = int_param("channels", channels, 1, MAX_CHANNELS)
        settle = int_param("settle", settle, 0, 1 << 62)
        if learning not in dpd_adapt.LEARNING:
            raise ValueError(f"learning: must be one of {', '.join(dpd_adapt.LEARNING)}, got {learning!r}")
        if not isinstance(surrogate, str):
            raise ValueError(f"surrogate: must be a neural model spec string ('' for the default), got {surrogate!r}")
        gr.basic_block.__init__(self, name="dpd_estimator_cc",
                                in_sig=[SAMPLE_FORMATS[tx_format]] * channels + [SAMPLE_FORMATS[rx_format]],
                                out_sig=None)
        self._y = channels  # the y input's index
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
        capture_length = capture_length_param(capture_length)
        update_period = int_param("update_period", update_period, 1, 1 << 62)
        max_delay = int_param("max_delay", max_delay, 0)
        max_updates = int_param("max_updates", max_updates, 0, 1 << 62)
        damping = float_param("damping", damping, 0, 1, lo_open=True)
        target_gain = complex_param("target_gain", target_gain)
        if target_gain != 0 and not MIN_GAIN <= abs(target_gain) <= 1 / MIN_GAIN:
            # the capture kernel's floor for a loop gain, and its inverse; beyond either end every step
            # failed inside the fit ("y: basis matrix is singular"), naming neither target_gain nor the cause
            raise ValueError(f"target_gain: must be 0 (measured) or of magnitude {MIN_GAIN:g} to {1 / MIN_GAIN:g}, "
                             f"got {target_gain!r}")
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
        if 0 < rx_timeout < MIN_RX_TIMEOUT:
            # GNU Radio hands a receiver's samples over in bursts: below this a flowing receiver
            # reads as stalled between two of them, and the watchdog's wait spins a core.
            raise ValueError(f"rx_timeout: must be 0 (off) or at least {MIN_RX_TIMEOUT:g} s, got {rx_timeout:g}")
        if backend not in ("automatic", "cpu", "cuda"):
            raise ValueError(f"backend: must be 'automatic', 'cpu' or 'cuda', got {backend!r}")
        device = int_param("device", device, 0, 1023)
        try:
            ndim = -1 if isinstance(initial_coefficients, (str, bytes)) else np.ndim(initial_coefficients)
        except ValueError:  # a ragged list
            ndim = -1
        if ndim != 1:
            # a number or None: "object of type 'float' has no len()" named nothing
            raise ValueError(f"initial_coefficients: must be a sequence of numbers ([] for the identity), got "
                             f"{initial_coefficients!r:.60}")
        # The fit's kernels are built at the first capture, where a backend this machine cannot run
        # would fail every step while the flowgraph runs on: resolved now, by the kernels' own rule.
        gpuinterp_python.select_backend(backend, device)
        if not isinstance(coefficients_file, str):
            raise ValueError(f"coefficients_file: must be a path string ('' for none), got {coefficients_file!r}")
        if update_period < capture_length:
            raise ValueError(f"update_period: must be >= capture_length ({capture_length}), got {update_period}")
        # The capture length is checked before max_delay: a capture too short for the model is the
        # cause, and max_delay < capture_length would otherwise be reported first.
        check_capture_holds(capture_length, spec, lo_leakage)
        if max_delay >= capture_length:
            raise ValueError(f"max_delay: must be in [0, capture_length), got {max_delay}")
        self._ch = []
        for c in range(channels):
            path = channel_file(coefficients_file, c, channels)
            resume = load_resume(path, spec, max_gain_db)
            w0, c0 = resume if resume is not None else (initial_coefficients, initial_lo_leakage)
            try:
                adapt = dpd_adapt.Adaptation(
                    0, 0, 1, 1, model=str(spec), damping=damping,
                    target_gain=None if target_gain == 0 else target_gain,
                    rollback_tolerance_db=rollback_tolerance_db, max_gain_db=max_gain_db,
                    min_damping=min(0.1, damping), initial_coefficients=w0 if len(w0) else None,
                    initial_lo_leakage=c0, regularization=regularization, lo_leakage=bool(lo_leakage),
                    max_delay=int(max_delay), rx_full_scale=rx_full_scale, rx_correction=bool(rx_correction),
                    track_frequency=bool(track_frequency), backend=backend, device=device,
                    aclr_band=aclr_band(sample_rate, signal_bandwidth, channel_spacing),
                    learning=learning, surrogate=surrogate or None,
                    learning_device="cpu" if backend == "cpu" else "automatic")
            except DPDError as e:
                raise ValueError(str(e)) from None
            if resume is None and len(w0):  # checked as a resumed file is: it is what the loop starts from
                check_predistorter_gain("initial_coefficients", adapt.coefficients, adapt.lo_leakage, spec,
                                        max_gain_db)
            self._ch.append(Channel(c, adapt, path, resume))
        self._rr = RoundRobin(channels, settle)
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
        self._next_start = self._rr.first_start()  # stream position of the next capture
        self._cuts = []  # stream positions where the signal is discontinuous (tags)
        self._time_ref = None  # (position, whole seconds, fraction) of the last rx_time
        self._shift = 0  # stream position of y's sample 0 (moves when the receiver returns from a stall)
        self._resync = False
        self._freq = None
        self._malformed_logged = set()  # tag keys whose malformed value was logged
        self._no_rate_logged = False
        self._done_logged = False
        self._skip_logged = False
        self._stepping = False  # a synchronous step is running in the block's thread
        self._y_done_seen = False  # the receiver's upstream block has finished
        self._y_held = False  # one y sample read but left unconsumed (after the receiver's stream ended)
        self._rx_ended = False
        self._band_checked = False
        self._steps = 0
        self._lock = threading.Lock()
        self._worker = None
        self._shared = {k: 0.0 for k in SHARED_METERS}
        self._status = "waiting for the first capture"
        self._last_rx = None
        self._stalled = False
        self._watchdog = None
        self._running = False
        self.message_port_register_out(pmt.intern("coeffs"))
        self.message_port_register_out(pmt.intern("stats"))
        if self._rr.switched:  # one channel: no switch, the port layout of a single-channel loop
            self.message_port_register_out(pmt.intern("obs_select"))
        self.message_port_register_in(pmt.intern("async"))
        self.set_msg_handler(pmt.intern("async"), self._on_async)
        self._check_band()

    # -- accessors ------------------------------------------------------------------------------
    def _channel(self, channel):
        return self._ch[int_param("channel", channel, 0, len(self._ch) - 1)]

    def last_result(self, channel=0):
        """The last :class:`gpuinterp.dpd_adapt.StepResult` of a channel (None before its first step)."""
        ch = self._channel(channel)
        with ch.lock:
            return ch.last

    def history(self, channel=0):
        ch = self._channel(channel)
        with ch.lock:
            return list(ch.adapt.history)

    def coefficients(self, channel=0):
        ch = self._channel(channel)
        with ch.lock:
            return ch.adapt.coefficients.copy()

    def lo_leakage(self, channel=0):
        ch = self._channel(channel)
        with ch.lock:
            return ch.adapt.lo_leakage

    def observed_channel(self):
        """The channel the observation receiver is switched to (captured next)."""
        return self._rr.current

    def meter(self, name, channel=0):
        """One operator meter (float; nan until measured): one of :data:`METERS`, of ``channel``
        (overflows, underflows, dropped_captures and skipped_captures are the shared receiver's)."""
        if name not in METERS:
            raise ValueError(f"name: must be one of {', '.join(METERS)}, got {name!r}")
        ch = self._channel(channel)
        with self._lock:
            return float(self._shared[name] if name in SHARED_METERS else ch.meters[name])

    def status(self):
        """The loop state in a few words: the last step's status and reason, or what it waits for."""
        with self._lock:
            return self._status

    def set_damping(self, damping):
        damping = float_param("damping", damping, 0, 1, lo_open=True)
        with self._lock:
            for ch in self._ch:
                ch.adapt.damping = float(damping)  # the rollback's floor follows it down

    def set_update_period(self, update_period):
        update_period = int_param("update_period", update_period, self._cap_len, 1 << 62)
        with self._lock:
            self._period = update_period

    # -- messages and monitoring ----------------------------------------------------------------
    def _on_async(self, msg):
        if radio_messages.is_underflow(msg):
            with self._lock:
                self._shared["underflows"] += 1

    def _watch(self):
        while self._running:
            time.sleep(min(0.2, self._timeout / 4))
            last = self._last_rx
            if (last is not None and not self._stalled and not self._rx_ended and not self._stepping and
                    time.monotonic() - last > self._timeout):
                self._stalled = True
                # Wake the block's thread (it sleeps until an input or a message arrives) so the
                # scheduler asks forecast() again and input 0 drains.
                self.to_basic_block()._post(pmt.intern("async"), pmt.PMT_NIL)
                with self._lock:
                    self._status = f"no RX samples for {self._timeout:g} s"
                self.logger.warn(f"rx_timeout: no samples on input {self._y} (y) for {self._timeout:g} s: the "
                                 "receiver stopped (unplugged, stalled, or its stream ended); the transmit "
                                 "input keeps flowing and no update is made until it returns")

    def start(self):
        self._running = True
        self._last_rx = time.monotonic()
        # A flowgraph started again (a loop that runs it once per iteration, a restart) restarts the
        # receiver's stream: an end seen in the previous run must not keep the transmit input
        # unpaired in this one (the windows stay paired by count, as they were when it ended).
        self._rx_ended = False
        self._y_done_seen = False
        if self._timeout > 0:
            self._watchdog = threading.Thread(target=self._watch, daemon=True)
            self._watchdog.start()
        for ch in self._ch:
            if ch.resume is not None:
                # the set in use: the file's on the first start, the last one sent on a restart
                self.message_port_pub(pmt.intern("coeffs"), ch.adapt.message(None, self._addressee(ch)))
                self.logger.info(f"resumed from {ch.file}")
        if self._rr.switched:
            self.message_port_pub(pmt.intern("obs_select"), obs_select_message(self._rr.current))
        return True

    def stop(self):
        self._running = False
        if self._worker is not None:
            self._worker.join()
        if self._watchdog is not None:
            self._watchdog.join()
        return True

    # -- processing -----------------------------------------------------------------------------
    def _addressee(self, ch):
        """The "channel" a coeffs message names: none with one channel (the message of a
        single-channel loop, for every channel of the predistorter)."""
        return ch.index if self._rr.switched else None

    def _save(self, ch, r):
        if ch.file:
            try:
                save_set(ch.file, self._spec, r.coefficients, r.lo_leakage)
            except (OSError, ValueError) as e:
                self.logger.error(f"coefficients_file: cannot write {ch.file}: {e}")

    def _run_step(self, ch, x, y):
        t0 = time.monotonic()
        who = f"channel {ch.index}: " if self._rr.switched else ""
        # The channel's lock, not the block's: a step of a large model takes seconds, and the block's
        # thread (which takes self._lock for drops, overflows and async messages) must not wait
        # for it, or the receiver's input stops being read and looks stalled.
        with ch.lock:
            try:
                r = ch.adapt.step(x, y)
            except Exception as e:  # never let an unexpected failure send coefficients
                r = dpd_adapt.StepResult(ch.adapt.iteration, "refused", ch.adapt.coefficients.copy(),
                                         ch.adapt.lo_leakage, reason=f"estimation failed: {e}")
            ch.last = r
        if r.status in ("refused", "calibrating"):
            log = self.logger.warn if r.status == "refused" else self.logger.info
            log(f"{who}iteration {r.iteration}: {r.status}, not sending coefficients: {r.reason}")
        else:
            try:  # the encoder refuses a non-finite set: Adaptation never returns one, but hardware is at stake
                sent = ch.adapt.message(r, self._addressee(ch))
            except ValueError as e:
                sent = None
                self.logger.error(f"{who}iteration {r.iteration}: {e}")
            if sent is not None:
                self.message_port_pub(pmt.intern("coeffs"), sent)
                msg = (f"{who}iteration {r.iteration}: {r.status}, loop NMSE {r.loop_nmse_db:.2f} dB, fit NMSE "
                       f"{r.fit_nmse_db:.2f} dB, delay {r.delay:.3f}, |G| {abs(r.gain):.4g}")
                if r.status == "rolled back":
                    self.logger.warn(msg + f" ({r.reason})")
                else:
                    self.logger.info(msg)
                self._save(ch, r)  # what the predistorter runs now: a restart resumes from it
        with self._lock:
            record_step(ch.meters, r, x, y, time.monotonic() - t0, self._rate, self._full_scale, self._bw,
                        self._spacing)
            self._status = who + r.status + (f": {r.reason}" if r.reason else "")
            meters = dict(ch.meters, **self._shared)
        self.message_port_pub(pmt.intern("stats"), stats_message(r, meters, ch.index))

    def _busy(self):
        return self._worker is not None and self._worker.is_alive()

    def forecast(self, noutput_items, ninputs):
        # Normally both inputs are needed (consumed in step, so neither runs out first at the end of a
        # finite stream, which would end the block early); y holds back its last sample
        # (general_work), so a new one means two. A stalled or ended receiver needs none, so the
        # transmit input is consumed alone. The end is checked here as well as in general_work:
        # the scheduler ends this block when a required input is short and its upstream is done.
        if self._stalled or self._rx_ended or (self._y_held and input_ended(self.to_basic_block(), ninputs - 1)):
            return [1] * (ninputs - 1) + [0]
        return [1] * (ninputs - 1) + [2 if self._y_held else 1]

    def general_work(self, input_items, output_items):
        Y, cur = self._y, self._rr.current
        # One y sample is left unconsumed once the receiver's stream has ended (see _end_of_rx): it
        # was read already, so the fresh samples start after it.
        h = 1 if self._y_held else 0
        # The x inputs move together (one predistorter's outputs), the observed one into the window:
        # an x not observed now is consumed all the same, so no transmit chain waits for the switch.
        n = [min(len(input_items[i]) for i in range(Y)), len(input_items[Y]) - h]
        if not self._rx_ended and not n[1] and self._y_done_seen:
            self._end_of_rx()
        if n[1] and self._stalled:
            # The receiver is back. Its next sample was received about now, when the transmit input
            # had reached its end: pair it there (the delay search finds the rest), not by count,
            # which the stall put off by its whole length.
            self._stalled = False
            self._shift = self._win[0].end - (self.nitems_read(Y) + h)
            self._win[1].restart(self._win[0].end)
            self._next_start = max(self._next_start, self._win[1].base)
            self.logger.info("rx_timeout: receiver samples are flowing again")
        if not (self._stalled or self._rx_ended):
            n = [min(n)] * 2
        for k, port in enumerate((cur, Y)):
            if n[k]:
                start = h if port == Y else 0
                self._read_tags(port, n[k], start)
                self._win[k].append(self._to_fc32[k](input_items[port][start:start + n[k]]))
        if n[0]:
            for port in range(Y):
                self.consume(port, n[0])
        read = h + n[1]  # y samples at the front of input_items[Y] now in the window
        if read == len(input_items[Y]) and read:
            # GNU Radio ends a block with no outputs as soon as one of its inputs has ended and is
            # empty, and the transmit chain feeding input 0 then stalls on a buffer nobody drains.
            # The last y sample read is left unconsumed, so a receiver stream that ends leaves
            # this block running (see _end_of_rx); it is in the window already.
            self.consume(Y, read - 1)
            self._y_held = True
        elif read:
            self.consume(Y, read)
            self._y_held = False
        if not self._y_done_seen and input_ended(self.to_basic_block(), Y):
            # Seen after this call's items were taken: every item the receiver wrote is in the
            # next call's input_items.
            self._y_done_seen = True
        if n[1]:
            self._last_rx = time.monotonic()
        self._capture()
        return 0

    def _end_of_rx(self):
        """The receiver's stream has ended (its source finished) and every sample of it is in the
        window: from here the transmit input is consumed alone, as when the receiver stalls, and
        the captures it completes are still taken."""
        self._rx_ended = True
        with self._lock:
            self._status = "the receiver stream ended"
        self.logger.warn(f"input {self._y} (y): the receiver stream ended after {self._win[1].end - self._shift} "
                         "samples; the transmit input keeps flowing and no update is made after the last "
                         "complete capture (logged once)")
