# SPDX-License-Identifier: GPL-3.0-or-later
"""The stream side of ``dpd_estimator_cc`` (:mod:`gpuinterp.dpd_blocks`): the receiver's tags read
into discontinuities, the two inputs' windows, and the captures cut from them and handed to a step."""

import threading
import time

import numpy as np
import pmt

from .estimator_channels import obs_select_message
from .radio_messages import _BURST_KEYS, _RX_FREQ, _RX_RATE, _RX_TIME, _SWITCH_KEYS, _rx_time_parts, _tag_hz

# How far one input may run ahead of the other, in captures, before its oldest samples are dropped:
# a receiver that stops must never stall the transmit chain feeding input 0.
_SLACK_CAPTURES = 4


class _Window:
    """The samples of one input from stream position ``base`` on, appended in place: the array is
    compacted or grown (doubling) only when it is full, never copied whole per work() call."""

    def __init__(self, capacity=1 << 16):
        self._a = np.zeros(capacity, dtype=np.complex64)
        self._lo = self._hi = 0
        self.base = 0

    @property
    def end(self):
        return self.base + self._hi - self._lo

    def append(self, v):
        n, live = v.size, self._hi - self._lo
        if self._hi + n > self._a.size:
            a = self._a if live + n <= self._a.size else np.empty(max(2 * self._a.size, live + n), np.complex64)
            a[:live] = self._a[self._lo:self._hi]
            self._a, self._lo, self._hi = a, 0, live
        self._a[self._hi:self._hi + n] = v
        self._hi += n

    def drop_to(self, pos):
        """Forget the samples before ``pos`` (all of them if pos is past the end)."""
        k = min(max(pos - self.base, 0), self._hi - self._lo)
        self._lo += k
        self.base += k

    def restart(self, pos):
        """Empty, the next sample appended being at ``pos``."""
        self._lo = self._hi = 0
        self.base = pos

    def take(self, pos, n):
        i = self._lo + pos - self.base
        return self._a[i:i + n].copy()


class StreamMixin:
    """Methods of dpd_estimator_cc that read its inputs' tags, check the band the receiver's rate
    holds, and cut its captures (they use the block's state: windows, cuts, rate, locks, logger)."""

    def _read_tags(self, port, n, start=0):
        base = self.nitems_read(port)
        for t in self.get_tags_in_window(port, start, start + n):
            y = port == self._y
            key, pos = t.key, t.offset + (self._shift if y else 0)
            if pmt.eq(key, _RX_RATE) and y:
                v = _tag_hz(t.value, positive=True)
                if v is None:
                    self._malformed_once("rx_rate", t.value, pos, "ignored (the rate stays "
                                         + (f"{self._rate:g} Hz)" if self._rate > 0 else "unknown)"))
                elif self._rate == 0:
                    self._rate = v
                    self._check_band()
            elif pmt.eq(key, _RX_TIME) and y:
                sec = _rx_time_parts(t.value)
                if sec is None:
                    self._malformed_once("rx_time", t.value, pos, "treated as a discontinuity")
                    self._cut(pos, "a malformed rx_time tag")
                    self._time_ref = None
                    continue
                ref = self._time_ref
                self._time_ref = (pos, sec[0], sec[1])
                if ref is not None and not self._rate > 0:
                    # Without a rate, time cannot be set against samples: reading every rx_time as
                    # an overflow would drop every capture that holds one, so say once that
                    # overflows go unseen instead.
                    if not self._no_rate_logged:
                        self._no_rate_logged = True
                        self.logger.warn(f"rx_time at sample {pos}: the sample rate is unknown (sample_rate 0 "
                                         "and no valid rx_rate tag), so receiver overflows cannot be detected "
                                         "from rx_time; set sample_rate (logged once)")
                elif ref is not None:
                    # time elapsed against samples elapsed, in samples (whole seconds exact)
                    off = ((sec[0] - ref[1]) + (sec[1] - ref[2])) * self._rate - (pos - ref[0])
                    if abs(off) > 0.5:
                        with self._lock:
                            self._shared["overflows"] += 1
                        self._cut(pos, "an rx_time discontinuity (receiver overflow)")
            elif pmt.eq(key, _RX_FREQ) and y:
                f = _tag_hz(t.value, positive=False)
                if f is None:
                    # The tuning is unknown from here: a discontinuity, as a malformed rx_time is.
                    # The last valid frequency is kept, so a real retune after it is still seen.
                    self._malformed_once("rx_freq", t.value, pos, "treated as a discontinuity")
                    self._cut(pos, "a malformed rx_freq tag")
                    continue
                if self._freq is not None and f != self._freq:
                    self._cut(pos, "an rx_freq change (retune)")
                self._freq = f
            elif any(pmt.eq(key, k) for k in _BURST_KEYS):
                self._cut(pos, f"a burst boundary ({pmt.symbol_to_string(key)})")
            elif not y and any(pmt.eq(key, k) for k in _SWITCH_KEYS):
                self._cut(pos, None)
        return base

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

    def _malformed_once(self, key, value, pos, what):
        """One warning per tag key for the run: a radio that sends one malformed tag sends it
        again with every burst, and the first line says all there is to say."""
        if key in self._malformed_logged:
            return
        self._malformed_logged.add(key)
        text = pmt.write_string(value)
        text = text if len(text) <= 60 else text[:57] + "..."
        self.logger.warn(f"{key}: malformed value {text} at sample {pos}; {what} (logged once)")

    def _cut(self, pos, why):
        self._cuts.append((pos, why))

    def _capture(self):
        N = self._cap_len
        while True:
            if self._max_updates > 0 and self._steps >= self._max_updates:
                # No capture is taken any more: keep no samples (the inputs are still consumed, so
                # the transmit chain never waits), or the windows would grow by every sample that
                # arrives for as long as the flowgraph runs.
                for w in self._win:
                    w.drop_to(w.end)
                self._cuts = []
                if not self._done_logged:
                    self._done_logged = True
                    self.logger.info(f"max_updates: {self._steps} steps made; the inputs are consumed and "
                                     "discarded from here on")
                return
            s = self._next_start
            for w in self._win:  # nothing before the next capture is needed
                w.drop_to(s)
            ends = [w.end for w in self._win]
            if min(ends) < s + N:
                # Waiting for the lagging input; the leading one holds at most a few captures.
                lead = 0 if ends[0] >= ends[1] else 1
                if ends[lead] - s <= (_SLACK_CAPTURES + 1) * N:
                    return
                if self._stalled or self._rx_ended:  # logged once: move on quietly
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
                # skip this capture, try again one period later (the same channel): counted, and
                # said once, since a loop whose steps cannot keep up updates less often than asked
                with self._lock:
                    self._shared["skipped_captures"] += 1
                if not self._skip_logged:
                    self._skip_logged = True
                    period = (f"{self._period} samples" +
                              (f", {self._period / self._rate:.3g} s" if self._rate > 0 else ""))
                    self.logger.warn(f"a step takes longer than update_period ({period}): the captures that "
                                     "arrive while one runs are skipped (meter skipped_captures); raise "
                                     "update_period or use a smaller model (logged once)")
                continue
            self._steps += 1
            ch = self._ch[self._rr.current]
            if self._rr.switched:
                # The y samples from here on may still be the old PA's (the switch's latency and
                # transient): the next channel's capture starts `settle` samples later, its x now.
                self._next_start = self._rr.advance(self._next_start, max(w.end for w in self._win))
                self._win[0].restart(self._win[0].end)
                self.message_port_pub(pmt.intern("obs_select"), obs_select_message(self._rr.current))
            if self._sync:
                # Nothing is read while the step runs in this thread: the watchdog must not take
                # that for a receiver that stopped, and its timeout restarts when the step ends.
                self._stepping = True
                t0 = time.monotonic()
                try:
                    self._run_step(ch, x, y)
                finally:
                    self._last_rx = time.monotonic()
                    self._stepping = False
                took, budget = self._last_rx - t0, self._period / self._rate if self._rate > 0 else 0
                if budget and took > budget and not self._skip_logged:
                    # Nothing is skipped here (the stream waits for the step), but a live receiver
                    # cannot wait: its buffers overflow while the step runs.
                    self._skip_logged = True
                    self.logger.warn(f"a synchronous step took {took:.3g} s, longer than update_period "
                                     f"({self._period} samples, {budget:.3g} s): a live receiver overflows "
                                     "while it runs; use synchronous=False or a longer update_period "
                                     "(logged once)")
            else:
                self._worker = threading.Thread(target=self._run_step, args=(ch, x, y), daemon=True)
                self._worker.start()

    def _drop(self, why, restart):
        with self._lock:
            self._shared["dropped_captures"] += 1
            self._status = f"capture dropped: {why}"
        self.logger.warn(f"capture dropped: {why}")
        self._next_start = restart
