# SPDX-License-Identifier: GPL-3.0-or-later
"""The transmit channels dpd_estimator_cc serves through one observation receiver.

A multi-channel radio has one observation receiver behind an RF switch: it sees one PA at a time.
The estimator serves the channels in turn (round robin), one capture each: it tells the switch which
PA to observe (``obs_select``), discards ``settle`` receiver samples after each switch (the switch's
latency and the receiver's transient are unknown to it) and keeps, per channel, everything the loop
learns: its Adaptation (coefficients, delay hint, damping, rollback memory, iteration), its last
result, its meters and its coefficients file."""

import math
import os
import threading

import numpy as np
import pmt

from . import dpd_capture, metrics
from . import dpd_model as dm
from .params import input_file_error

MAX_CHANNELS = 64  # as the predistorter's channels

METERS = ("rx_peak_dbfs", "rx_clipped", "tx_peak_dbfs", "tx_rms_dbfs", "overflows", "underflows",
          "dropped_captures", "aclr_db", "gain_db", "phase_deg", "freq_offset_hz", "delay", "loop_nmse_db",
          "updates", "iteration", "step_seconds", "skipped_captures")
# Events of the shared receiver and radio, not of one PA: counted once for the block.
# skipped_captures: captures that arrived while a step was still running (synchronous=False).
SHARED_METERS = ("overflows", "underflows", "dropped_captures", "skipped_captures")
_COUNTERS = ("updates", "iteration", "rx_clipped")


def obs_select_message(channel):
    """The switch command: the pair ("channel" . integer). GNU Radio 3.10's blocks.selector takes
    the index from the cdr of what reaches its ``iindex`` port (a bare integer stops its thread with
    "pmt_cdr: wrong_type"), so the pair is what a selector standing in for the RF switch needs."""
    return pmt.cons(pmt.intern("channel"), pmt.from_long(int(channel)))


def channel_file(path, channel, channels):
    """The coefficients file of one channel: ``path`` itself for one channel, ``path.ch<c>`` for
    each of several (every PA has its own coefficients, and a restart must give each its own)."""
    if not path:
        return ""
    return path if channels == 1 else f"{path}.ch{channel}"


# The largest coefficients file read: a model file holds a few numbers per coefficient, so even a
# model of 10^5 coefficients is a few MB; anything larger is not one (and /dev/zero never ends).
MAX_COEFFICIENTS_FILE_BYTES = 64 << 20


def _probe_signal():
    """A fixed test input for a predistorter read from a file: complex Gaussian at -14 dBFS rms,
    its envelope clipped at 0.9 of full scale (a PA input's level, with peaks)."""
    rng = np.random.default_rng(12345)
    x = (rng.standard_normal(4096) + 1j * rng.standard_normal(4096)) * (0.2 / math.sqrt(2))
    a = np.abs(x)
    return np.where(a > 0.9, x * (0.9 / np.maximum(a, 1e-30)), x)


def load_resume(path, spec, max_gain_db=10.0):
    """(coefficients, lo_leakage) saved in ``path`` by a previous run, or None when there is none;
    ValueError naming coefficients_file when it is not a regular file, is unreadable, holds another
    model's set or a PA model instead of a predistorter, or a set whose gain on a test signal
    exceeds +-``max_gain_db`` (the bound every update of the loop meets): nothing of such a file
    may reach the predistorter."""
    if not path or not os.path.lexists(path):
        return None
    err = input_file_error(path, MAX_COEFFICIENTS_FILE_BYTES)
    if err:
        raise ValueError(f"coefficients_file: {path}: {err}")
    try:
        fit = dm.load_model(path)
    except (ValueError, OSError) as e:
        raise ValueError(f"coefficients_file: {e}") from None
    if getattr(fit, "kind", "predistorter") != "predistorter":
        raise ValueError(f"coefficients_file: {path}: kind: holds a {fit.kind!r} (a PA model, the PA's own "
                         "behaviour), not a 'predistorter'; it must not be sent to the predistorter")
    if dm.parse(fit.model) != spec:
        raise ValueError(f"coefficients_file: {path} holds coefficients of {fit.model}, "
                         f"this estimator fits {spec}")
    if fit.weights is not None:  # a neural predistorter: the loop holds its weights as real parts
        w, c = np.asarray(fit.weights, dtype=np.float64).astype(np.complex128), 0j
    else:
        w, c = np.asarray(fit.coefficients, dtype=np.complex128), complex(fit.lo_leakage)
    if not (np.all(np.isfinite(w)) and math.isfinite(c.real) and math.isfinite(c.imag)):
        raise ValueError(f"coefficients_file: {path}: coefficients: not all finite")
    check_predistorter_gain(f"coefficients_file: {path}: coefficients", w, c, spec, max_gain_db)
    return w.copy(), c


def save_set(path, spec, coefficients, lo_leakage):
    """Write a set of ``spec`` to ``path`` as load_resume() reads it back: a neural model's weights
    (the real parts), else the coefficients and c. The file is replaced whole, so a reader never
    sees half of one; OSError or ValueError when it cannot be written."""
    if spec.is_neural:
        fit = dm.ModelFit(str(spec), np.zeros(0, dtype=np.complex128), kind="predistorter",
                          weights=np.real(coefficients))
    else:
        fit = dm.ModelFit(str(spec), coefficients, lo_leakage, kind="predistorter")
    tmp = path + ".tmp"
    dm.save_model(tmp, fit)
    os.replace(tmp, path)


def check_predistorter_gain(what, w, c, spec, max_gain_db):
    """ValueError starting with ``what`` unless the predistorter (w, c) of ``spec`` has a gain within
    +-``max_gain_db`` on a fixed -14 dBFS test signal: the bound every update of the loop meets, so
    a set beyond it (a 1e30 coefficient, a set scaled by mistake) is not one the loop made."""
    x = _probe_signal()
    with np.errstate(all="ignore"):
        z = dm.apply(x, str(spec), w, c)
        g = float(np.vdot(z, z).real / np.vdot(x, x).real)
    g_db = 10 * math.log10(g) if g > 0 else -math.inf
    if not (math.isfinite(g_db) and abs(g_db) <= max_gain_db):
        big = int(np.argmax(np.abs(w)))
        raise ValueError(f"{what}: the predistorter's gain on a -14 dBFS test signal is {g_db:.1f} dB, beyond "
                         f"+-max_gain_db {max_gain_db:g} dB (largest coefficient {abs(w[big]):.3g} at index "
                         f"{big}); not a set the loop could have made, so not used")


class Channel:
    """What the estimator keeps of one transmit channel."""

    def __init__(self, index, adapt, path, resume):
        self.index, self.adapt, self.file, self.resume = index, adapt, path, resume
        # Held while a step runs (seconds, for a large model): the accessors of the adaptation
        # wait for it, the block's own lock (meters, status, the stream's bookkeeping) does not.
        self.lock = threading.Lock()
        self.last = None
        self.meters = {k: float("nan") for k in METERS if k not in SHARED_METERS}
        for k in _COUNTERS:
            self.meters[k] = 0.0


class RoundRobin:
    """Which channel the receiver observes, and from which y position its capture may start."""

    def __init__(self, channels, settle):
        self.channels, self.settle = channels, settle
        self.current = 0

    @property
    def switched(self):
        """True when there is a switch to drive (more than one channel)."""
        return self.channels > 1

    def first_start(self):
        # The switch's position before start() is unknown: the first capture waits for it too.
        return self.settle if self.switched else 0

    def advance(self, next_start, y_end):
        """Moves on to the next channel after a capture; returns the earliest start of its capture:
        one period after the last one, and ``settle`` y samples after the switch is asked for
        (``y_end``: the position of the next y sample, the first one the switch may have moved)."""
        if not self.switched:
            return next_start
        self.current = (self.current + 1) % self.channels
        return max(next_start, y_end + self.settle)


def aclr_band(rate, bw, spacing):
    """The band plan the loop rolls back on (dpd_adapt's ``aclr_band``) when the adjacent channels lie
    inside the sampled band, else None."""
    ok = rate > 0 and bw > 0 and spacing > 0 and rate / 2 >= spacing + bw / 2
    return (rate, bw, spacing) if ok else None


def record_step(m, r, x, y, seconds, rate, full_scale, bw, spacing):
    """One step's meters into the channel's dict ``m``: levels of the capture (x, y), the result's
    gain, phase, delay, frequency and loop NMSE, the ACLR of y when the band holds the adjacent
    channels (``rate``, ``bw``, ``spacing`` in Hz; 0 = unknown)."""
    m["iteration"] = r.iteration
    m["step_seconds"] = seconds
    m["tx_peak_dbfs"] = dpd_capture.peak_dbfs(x, 1.0)
    p = float(np.mean(np.abs(x) ** 2))
    m["tx_rms_dbfs"] = 10 * math.log10(p) if p > 0 else -math.inf
    m["rx_peak_dbfs"] = dpd_capture.peak_dbfs(y, full_scale)
    m["rx_clipped"] = int(dpd_capture.clip_mask(y, full_scale).sum())
    if r.status == "updated":
        m["updates"] += 1
    c = r.capture
    if c is not None:
        m["delay"] = c.delay
        m["phase_deg"] = math.degrees(np.angle(r.gain)) if r.gain else float("nan")
        m["freq_offset_hz"] = c.freq_offset * rate if rate > 0 else float("nan")
    if r.gain:
        m["gain_db"] = 20 * math.log10(abs(r.gain))
    m["loop_nmse_db"] = r.loop_nmse_db
    if rate > 0 and bw > 0 and spacing > 0 and rate / 2 >= spacing + bw / 2:
        try:
            m["aclr_db"] = metrics.aclr(y.astype(np.complex128), rate, bw, spacing, nfft=min(8192, y.size))["worst"]
        except ValueError:
            m["aclr_db"] = float("nan")
