# SPDX-License-Identifier: GPL-3.0-or-later
"""Closed-loop adaptation: one learning step per capture (indirect learning, or direct learning
through a neural surrogate fitted on the captures: :mod:`.dpd_direct`), with damping and rollback, on
captures a real receiver took (its phase, frequency, DC, image and clipping handled by
:mod:`.dpd_capture`)."""

import math
from dataclasses import dataclass

import numpy as np

from . import dpd_model as _spec
from .dpd_capture import CaptureReport
from .dpd_direct import DEFAULT_SURROGATE, LEARNING, DirectLearner
from .dpd_estimate import _fit, _kernel_align, _require_rows, _rows
from .dpd_ph import DPDError, _as_complex_vector, _check_pair, _model_of
from .metrics import aclr as _aclr, nmse_db


def _small_signal_gain(xa, yn, Gc, ok):
    """|gain| of y (= yn Gc) on x over the rows whose |x| is below its median: the loop's linear
    part, where neither the PA's compression nor the predistorter's expansion reaches."""
    a = np.abs(xa)
    rows = ok & (a <= np.quantile(a[ok], 0.5))
    den = np.vdot(xa[rows], xa[rows]).real
    g = abs(Gc * np.vdot(xa[rows], yn[rows]) / den) if den > 0 else 0.0
    return g if math.isfinite(g) and g > 0 else abs(Gc)


# A loop-gain move beyond gain_tolerance_db that both halves of one capture measure alike is
# followed on that capture when it is at most this large: an operator's gain or attenuator step,
# made before the capture began. Larger moves, and moves seen in part of a capture only, wait for the
# next capture to agree (a glitch). Following an RX move keeps y/G as it was, so a whole-capture RX
# glitch within it costs nothing; waiting after a TX move would leave the PA, driven at its new
# level by a predistorter fitted for the old one, worse than without DPD until the next capture.
MAX_FOLLOW_DB = 12.0


def _halves_agree(xa, yn, Gc, ok, tol_db):
    """Whether the capture's two halves measure the same linear gain (:func:`_small_signal_gain`)
    within tol_db: a gain that moved before the capture began, not one that moved inside it."""
    h = xa.size // 2
    g = []
    for part in (slice(0, h), slice(h, None)):
        rows = np.zeros_like(ok)
        rows[part] = ok[part]
        if rows.sum() < 64:
            return False
        g.append(_small_signal_gain(xa, yn, Gc, rows))
    return abs(20 * math.log10(g[0] / g[1])) <= tol_db


def _loop_nmse(ref, est, block=1024):
    """NMSE of est against ref in dB, and its standard error in dB from the spread of the error over
    blocks of the capture. A receiver's phase noise is slow (correlated over hundreds of samples), so
    one capture measures the loop NMSE to a few tenths of a dB only: a rollback must see more than
    that before it calls an update worse."""
    nm = nmse_db(ref, est)
    nb = ref.size // block
    if nb < 4:
        return nm, 0.0
    e = np.abs(ref[:nb * block] - est[:nb * block]) ** 2
    pb = e.reshape(nb, block).sum(axis=1)
    rel = float(np.std(pb, ddof=1) / math.sqrt(nb) / max(np.mean(pb), 1e-300))
    return nm, 10 * math.log10(1 + rel) if rel > 0 else 0.0


@dataclass
class StepResult:
    """One adaptation step. ``coefficients``/``lo_leakage``: what the predistorter should use now.
    ``loop_nmse_db``: NMSE of x against f_current(y/G) on this capture, the indirect-learning error of
    the coefficients that were in use while it was captured (0 when perfectly linearised, the raw PA
    distortion with the identity predistorter). ``status``: "updated", "rolled back", "calibrating"
    (the loop gain was measured and waits for the next capture to confirm it; nothing is sent) or
    "refused" (``reason`` says why). ``gain``: the complex G this capture was normalised by (|G| held,
    its phase this capture's); ``capture``: the :class:`~.dpd_capture.CaptureReport` (delay search,
    frequency offset, receiver DC and image, clipping), None when the capture was refused before;
    ``aclr_db``: worst-side ACLR of the observation (dBc, with ``aclr_band``; nan otherwise)."""
    iteration: int
    status: str
    coefficients: np.ndarray
    lo_leakage: complex
    loop_nmse_db: float = float("nan")
    fit_nmse_db: float = float("nan")
    delay: float = float("nan")
    gain: complex = 0j
    condition: float = float("nan")
    damping: float = float("nan")
    reason: str = ""
    capture: CaptureReport = None
    aclr_db: float = float("nan")

    @property
    def accepted(self):
        return self.status == "updated"


class _DirectFit:
    """What a direct-learning step reports in place of the least-squares solution."""

    def __init__(self, fit_nmse_db):
        # no basis matrix, so no condition number: NaN, as the stats message and the meters carry it
        self.fit_nmse_db, self.condition = fit_nmse_db, float("nan")


class Adaptation:
    """Closed-loop indirect learning with damping and rollback, for captures from a real receiver.

    Call :meth:`step` with each capture (x: predistorter output = PA input, y: PA output through the
    observation receiver) taken while the predistorter ran with :attr:`coefficients`. Each capture is
    first conditioned (:func:`~.dpd_capture.condition`: clipping against ``rx_full_scale``, delay,
    frequency offset and drift, phase, receiver DC and IQ imbalance); then the loop NMSE of the
    coefficients in use is measured and the step either

    * rolls back to the best coefficient set seen so far when the loop NMSE is worse than the best by
      more than ``rollback_tolerance_db`` (and halves the damping, down to ``min_damping``), or
    * rolls back to the set with the best ACLR of the observation when this capture's (the set in use)
      is worse by more than ``aclr_tolerance_db`` (with ``aclr_band`` = (sample_rate,
      channel_bandwidth, channel_spacing) in Hz; the loop NMSE alone can sit at the receiver's
      floor while the ACLR drifts), or
    * estimates the post-inverse w_est from this capture and moves w <- w + damping (w_est - w).

    The loop gain. Only what is stable across captures is held: |G|. Its phase is the loop's LO phase,
    which a retune or a second radio changes at will, so every capture is normalised by its own
    phase. The first |G| is confirmed by a second capture (within ``gain_tolerance_db``) before it is
    latched ("calibrating": a glitch in the first capture cannot set the PA's output level). A latched
    |G| follows the loop's linear part on every capture: the gain of y on x (the PA's input) over the
    capture's quieter half, scaled from its value at the latch (an RX gain or attenuator move keeps
    the PA's output power). A jump of more than ``gain_tolerance_db`` from the previous capture is
    followed at once when both halves of the capture measure it alike and it is at most MAX_FOLLOW_DB
    (a gain slider or an attenuator moved before the capture); otherwise it is refused, and when the
    next capture agrees with it the loop gain has moved. Either way |G| follows (the best-so-far
    records, which belong to the old gain, are dropped) and that capture updates. A ``target_gain``
    fixes |G|.

    A capture that cannot be estimated or would give coefficients failing the sanity checks
    (non-finite, predistorter gain on y/G beyond +-``max_gain_db``) leaves the coefficients unchanged;
    the step says "refused" and why. The delay found on one capture is the hint for the next; when it
    stops correlating (a restart, an overflow) it is searched again over the whole capture."""

    def __init__(self, P, Q, Lp, Lq, damping=0.8, target_gain=None, rollback_tolerance_db=0.5,
                 min_damping=0.1, max_gain_db=10.0, lock_delay=False, initial_coefficients=None,
                 initial_lo_leakage=0j, model=None, rx_full_scale=None, rx_correction=True,
                 track_frequency=True, gain_tolerance_db=1.0, aclr_band=None, aclr_tolerance_db=1.0,
                 learning="indirect", surrogate=None, learning_device="automatic", **estimate_kwargs):
        self.model = _model_of(P, Q, Lp, Lq, model)
        # "direct": each step refits a neural PA surrogate and trains the predistorter through it
        # (dpd_direct); everything before the fit (conditioning, gain, rollback) is the same.
        if learning not in LEARNING:
            raise DPDError(f"learning: must be one of {', '.join(LEARNING)}, got {learning!r}")
        self.learning = learning
        if self.model.is_neural and learning != "direct":
            raise DPDError(f"model: a neural predistorter ({self.model}) is trained by learning='direct' (through a "
                           "surrogate of the PA); indirect learning fits the polynomial families")
        self.direct = None if learning == "indirect" else DirectLearner(
            self.model, surrogate or DEFAULT_SURROGATE, learning_device)
        if self.model.family == "ph":
            self.P, self.Q, self.Lp, self.Lq = self.model.params
        else:
            self.P, self.Q, self.Lp, self.Lq = 0, 0, 1, 1
        if not 0 < damping <= 1:
            raise DPDError(f"damping: must be in (0, 1], got {damping}")
        if not 0 < min_damping <= damping:
            raise DPDError(f"min_damping: must be in (0, damping], got {min_damping}")
        self.damping = float(damping)
        self.min_damping = float(min_damping)
        self.rollback_tolerance_db = float(rollback_tolerance_db)
        if not (math.isfinite(self.rollback_tolerance_db) and self.rollback_tolerance_db >= 0):
            raise DPDError(f"rollback_tolerance_db: must be finite and >= 0, got {rollback_tolerance_db}")
        self.max_gain_db = float(max_gain_db)
        if not (math.isfinite(self.max_gain_db) and self.max_gain_db > 0):
            raise DPDError(f"max_gain_db: must be finite and > 0, got {max_gain_db}")
        self.gain_tolerance_db = float(gain_tolerance_db)
        if not (math.isfinite(self.gain_tolerance_db) and self.gain_tolerance_db > 0):
            raise DPDError(f"gain_tolerance_db: must be finite and > 0, got {gain_tolerance_db}")
        self.target_gain = None if target_gain is None or target_gain == 0 else complex(target_gain)
        if self.target_gain is not None and not np.isfinite(self.target_gain):
            raise DPDError(f"target_gain: must be finite (0 or None: measure it), got {target_gain}")
        if rx_full_scale is not None and not (isinstance(rx_full_scale, (int, float)) and
                                              math.isfinite(rx_full_scale) and rx_full_scale > 0):
            raise DPDError(f"rx_full_scale: must be finite and > 0 (None: no clipping check), got {rx_full_scale!r}")
        self.rx_full_scale = None if rx_full_scale is None else float(rx_full_scale)
        self.rx_correction = bool(rx_correction)
        if aclr_band is not None:
            ok = (isinstance(aclr_band, (tuple, list)) and len(aclr_band) == 3 and
                  all(isinstance(v, (int, float)) and math.isfinite(v) and v > 0 for v in aclr_band))
            if not ok or aclr_band[0] / 2 < aclr_band[2] + aclr_band[1] / 2:
                raise DPDError(f"aclr_band: must be None or (sample_rate, channel_bandwidth, channel_spacing) in "
                               f"Hz, > 0, with the adjacent channel inside the sampled band, got {aclr_band!r}")
            aclr_band = tuple(float(v) for v in aclr_band)
        self.aclr_band = aclr_band
        self.aclr_tolerance_db = float(aclr_tolerance_db)
        if not (math.isfinite(self.aclr_tolerance_db) and self.aclr_tolerance_db > 0):
            raise DPDError(f"aclr_tolerance_db: must be finite and > 0, got {aclr_tolerance_db}")
        self.track_frequency = bool(track_frequency)
        self.gain = None if self.target_gain is None else abs(self.target_gain)  # the latched |G|
        self.last_gain = None  # the complex G the last normalised capture was divided by
        self._gain_fixed = self.target_gain is not None
        self._candidate = None  # an unconfirmed |G| (first capture, or a moved loop gain)
        self._ref_gain = None  # the linear gain (_small_signal_gain) of the last trusted capture
        self._anchor = None  # (|G|, linear gain) when |G| was latched
        self.lock_delay = bool(lock_delay)
        self.delay = None
        self.estimate_kwargs = dict(estimate_kwargs)
        # A neural predistorter's set is its real weights, held as the real parts of the same vector
        # (damping, rollback and the gain check treat it as they treat coefficients).
        K = self.model.num_weights if self.model.is_neural else self.model.num_coefficients
        if initial_coefficients is None or len(initial_coefficients) == 0:
            if self.model.is_neural:
                initial_coefficients = self.direct.identity_weights()
            else:
                initial_coefficients = np.zeros(K, dtype=np.complex128)
                initial_coefficients[0] = 1.0  # the first term of every family is x[n]
        self.coefficients = _as_complex_vector("initial_coefficients", initial_coefficients).copy()
        if self.coefficients.size != K or not np.all(np.isfinite(self.coefficients)):
            bad = int(np.count_nonzero(~np.isfinite(self.coefficients)))
            raise DPDError(f"initial_coefficients: expected {K} finite values for {self.model}, got "
                           f"{self.coefficients.size}" + (f", {bad} of them NaN or infinite" if bad else ""))
        self.lo_leakage = complex(initial_lo_leakage)
        if not np.isfinite(self.lo_leakage):
            raise DPDError(f"initial_lo_leakage: must be finite, got {initial_lo_leakage}")
        self.best = None  # (loop_nmse_db, coefficients, lo_leakage, its standard error in dB)
        self._restored = False  # the coefficients in use are the best set, just rolled back to
        self.best_aclr = None  # (observation ACLR dBc, coefficients, lo_leakage): the best by ACLR
        self._aclr_restored = False  # the coefficients in use are that set, just rolled back to
        self.iteration = 0
        self.history = []

    def _result(self, status, reason="", **kw):
        r = StepResult(self.iteration, status, self.coefficients.copy(), self.lo_leakage,
                       damping=self.damping, reason=reason, **kw)
        self.history.append(r)
        return r

    def _refuse(self, reason, **kw):
        return self._result("refused", reason, **kw)

    def _align(self, x, y, kw):
        """The capture conditioned and aligned: (xa, yn, delay, G, bad, report). On the capture
        kernel (``gpuinterp.dpd_capture_kernel``, CPU or GPU: the estimator's backend); backend None
        runs the numpy reference the kernel is tested against (dpd_reference: condition, then the
        estimator's alignment). The conditioning always measures the delay's fraction."""
        backend = kw.get("backend", "automatic")
        if backend is None:
            from . import dpd_reference as ref

            yc, clipped, rep = ref.condition(x, y, self.rx_full_scale, self.rx_correction, self.track_frequency,
                                             kw.get("max_delay"), self.delay)
            xa, yn, d, Gc, bad = ref._prepare(x, yc, self.model, None, rep.delay, kw.get("max_delay"), True, clipped)
            return xa, yn, d, Gc, bad, rep
        xa, yn, d, Gc, bad, rep = _kernel_align(
            x, y, backend, int(kw.get("device", 0)), full_scale=self.rx_full_scale,
            rx_correction=self.rx_correction, track_frequency=self.track_frequency,
            max_delay=kw.get("max_delay"), delay=self.delay)
        return xa, yn, d, Gc, bad, rep

    def _observed_aclr(self, y):
        """Worst-side ACLR (dBc) of the aligned observation, nan without ``aclr_band``."""
        if self.aclr_band is None:
            return float("nan")
        rate, bw, spacing = self.aclr_band
        try:
            return float(_aclr(y, rate, bw, spacing, nfft=min(8192, 1 << (y.size.bit_length() - 1)))["worst"])
        except ValueError:
            return float("nan")

    def reset_gain(self):
        """Forget the latched |G| (the next two captures measure and confirm it again)."""
        if not self._gain_fixed:
            self.gain, self._candidate, self.best, self._ref_gain = None, None, None, None
            self.best_aclr = None
            if self.direct is not None:  # its surrogate modelled y over the old gain
                self.direct.reset()

    def step(self, x, y):
        self.iteration += 1
        kw = dict(self.estimate_kwargs)
        m = self.model
        try:
            x, y = _check_pair(x, y)
            xa, yn, d, Gc, bad, rep = self._align(x, y, kw)
        except DPDError as e:
            return self._refuse(str(e))
        info = dict(delay=d, capture=rep)
        try:
            ok = _rows(m, xa.size, bad)
            _require_rows(int(ok.sum()), m.num_coefficients + int(kw.get("lo_leakage", True)),
                          kw.get("min_samples_per_coefficient", 10))
        except DPDError as e:
            return self._refuse(str(e), **info)
        self.delay = d
        tol = self.gain_tolerance_db
        gs = _small_signal_gain(xa, yn, Gc, ok)
        moved = False  # the loop gain moved beyond the tolerance, and |G| follows it on this capture
        if self.gain is None:
            # First |G|, or a moved one: latch it once a second capture agrees.
            if self._candidate is None or abs(20 * math.log10(abs(Gc) / self._candidate)) > tol:
                self._candidate = abs(Gc)
                return self._result("calibrating", f"gain: |G| {20 * math.log10(abs(Gc)):.2f} dB measured; "
                                    "confirming it on the next capture before latching",
                                    gain=Gc * np.exp(1j * rep.phase), **info)
            self.gain, self._candidate, self._ref_gain, self._anchor = abs(Gc), None, gs, (abs(Gc), gs)
        elif not self._gain_fixed:
            # The loop gain follows its linear part: the gain of y on the PA's input x over the
            # capture's quieter half, where the PA is linear and the predistorter is too, whatever its
            # coefficients (measured through the predistorter in use, f_current(y/G) against x, its
            # expansion read a 3 dB step of the RX gain as 4 dB, and the loop then drove the PA
            # harder). |G| is the latched one scaled by this gain's change since the latch: an RX
            # gain or attenuator move of any size keeps the PA's output power (unfollowed, a move
            # within the tolerance drove the output power down by as much). A jump beyond
            # ``gain_tolerance_db`` from the previous capture waits for the next one to agree.
            move_db = 20 * math.log10(gs / self._ref_gain)
            follow = self._anchor[0] * gs / self._anchor[1]
            if abs(move_db) > tol:
                confirmed = self._candidate is not None and abs(20 * math.log10(follow / self._candidate)) <= tol
                if confirmed or (abs(move_db) <= MAX_FOLLOW_DB and _halves_agree(xa, yn, Gc, ok, tol / 4)):
                    # Both best records belong to the old gain (the observation's noise floor moves
                    # with the RX gain, and the ACLR with it).
                    self._candidate, self.best, self.best_aclr, moved = None, None, None, True
                else:
                    self._candidate = follow
                    return self._refuse(f"gain: the loop gain moved {move_db:+.2f} dB since the last capture "
                                        f"(beyond +-{tol:g} dB): a glitch in this capture, or the gain moved (TX/RX "
                                        "gain, attenuator); |G| follows it if the next capture agrees", **info)
            else:
                self._candidate = None
            self.gain, self._ref_gain = follow, gs
        # y normalised by the held |G| and this capture's own phase
        G = self.gain * Gc / abs(Gc)
        yn = yn * (Gc / G)
        f_cur = _spec.apply(yn, m, self.coefficients, self.lo_leakage)
        # The loop gain as the caller sees it (y against x at the capture's centre): the phase taken
        # out with the frequency offset belongs to it.
        turn = complex(np.exp(1j * rep.phase))
        info["gain"] = self.last_gain = G * turn
        loop, se = _loop_nmse(xa[ok], f_cur[ok])
        if self.best is not None and self._restored:
            # The set rolled back to is measured again: the best record's NMSE was the minimum of
            # noisy measurements, and holding it would roll back every later update by its noise.
            self.best = (loop, self.best[1], self.best[2], se)
        self._restored = False
        # Worse by more than the tolerance and three standard errors of the two measurements.
        margin = self.rollback_tolerance_db + (3 * math.hypot(se, self.best[3]) if self.best else 0.0)
        if self.best is not None and loop > self.best[0] + margin:
            best_nmse, w, c, _ = self.best
            self.coefficients, self.lo_leakage = w.copy(), c
            self.damping = max(self.min_damping, self.damping / 2)
            self._restored = True
            if self.best_aclr is not None:
                # The set restored is the ACLR record's too, measured again on the next capture: a
                # record of another set would take the restored one for a loss and roll back again.
                self.best_aclr, self._aclr_restored = (math.inf, w.copy(), c), True
            return self._result("rolled back", f"loop NMSE {loop:.2f} dB is worse than the best {best_nmse:.2f} dB by more "
                                f"than {margin:.2f} dB (tolerance + 3 standard errors)",
                                loop_nmse_db=loop, **info)
        if self.best is None or loop < self.best[0]:
            self.best = (loop, self.coefficients.copy(), self.lo_leakage, se)
        # The quantity the operator cares about: the ACLR of the observation. On a receiver whose
        # phase noise floors the loop NMSE, updates can cost ACLR that the NMSE never shows.
        aclr = self._observed_aclr(yn)
        info["aclr_db"] = aclr
        if math.isfinite(aclr):
            if self.best_aclr is not None and self._aclr_restored:
                # measured again, as the NMSE's best record is (a minimum of noisy measurements)
                self.best_aclr = (aclr, self.best_aclr[1], self.best_aclr[2])
            self._aclr_restored = False
            if self.best_aclr is not None and aclr > self.best_aclr[0] + self.aclr_tolerance_db:
                best_aclr, w, c = self.best_aclr
                self.coefficients, self.lo_leakage = w.copy(), c
                self.damping = max(self.min_damping, self.damping / 2)
                self._aclr_restored = True
                self.best = None  # the NMSE record starts again from the set restored
                return self._result("rolled back", f"observation ACLR {aclr:.2f} dBc is worse than the best "
                                    f"{best_aclr:.2f} dBc by more than aclr_tolerance_db {self.aclr_tolerance_db:g} dB",
                                    loop_nmse_db=loop, **info)
            if self.best_aclr is None or aclr < self.best_aclr[0]:
                self.best_aclr = (aclr, self.coefficients.copy(), self.lo_leakage)
        try:
            if self.direct is not None:
                coeffs, c, fit_db = self.direct.estimate(xa, yn, ok, self.coefficients, self.lo_leakage)
                sol = _DirectFit(fit_db)
            else:
                coeffs, c, sol, _ = _fit(xa, yn, m, kw.get("regularization"), kw.get("max_condition"),
                                         kw.get("lo_leakage", True), kw.get("min_samples_per_coefficient", 10),
                                         bad, backend=kw.get("backend", "automatic"), device=kw.get("device", 0))
        except DPDError as e:
            return self._refuse(str(e), loop_nmse_db=loop, **info)
        # After a gain move the set in use was fitted at another operating point (a TX step moves the
        # PA's drive): this capture's estimate replaces it instead of being blended into it.
        mu = 1.0 if moved else self.damping
        w_new = self.coefficients + mu * (coeffs - self.coefficients)
        c_new = self.lo_leakage + mu * (c - self.lo_leakage)
        if self.rx_correction and abs(rep.freq_offset) * xa.size < 2:
            # TX and RX share the LO: the transmitter's carrier leakage lands on the receiver's DC,
            # which the correction removed; what the LO-leakage term fits then is the capture's
            # finite-sample mean, not the transmitter's leakage, and is not applied. (With two
            # turns or more of frequency offset in the capture the two DCs separate.)
            c_new = self.lo_leakage
        if not (np.all(np.isfinite(w_new)) and np.isfinite(c_new)):
            return self._refuse("coefficients: update is not finite", loop_nmse_db=loop, **info)
        z = _spec.apply(yn, m, w_new, c_new)[ok]
        g_db = 10 * math.log10(max(np.vdot(z, z).real, 1e-300) / np.vdot(yn[ok], yn[ok]).real)
        if abs(g_db) > self.max_gain_db:
            return self._refuse(f"coefficients: predistorter gain {g_db:.1f} dB on the capture exceeds "
                                f"+-max_gain_db {self.max_gain_db:g} dB", loop_nmse_db=loop, **info)
        self.coefficients, self.lo_leakage = w_new, complex(c_new)
        return self._result("updated", loop_nmse_db=loop, fit_nmse_db=sol.fit_nmse_db, condition=sol.condition,
                            **info)
