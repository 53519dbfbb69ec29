# SPDX-License-Identifier: GPL-3.0-or-later
"""Closed-loop adaptation: one learning step per capture (indirect learning, or direct learning
through a neural surrogate fitted on the captures: :mod:`.dpd_direct`), with damping and rollback, on
captures a real receiver took. The step is the C++ kernel ``dpd_adapt`` (conditioning, loop gain,
rollback, fit and update in one call); this module gives it its Python arguments."""

from . import gpuinterp_python as _gi
from .dpd_direct import DEFAULT_SURROGATE, LEARNING, DirectLearner
from .dpd_ph import DPDError, _model_of

# One step's outcome (kernel::dpd_step_result): status, coefficients, loop and fit NMSE, delay,
# gain, the CaptureReport, the observation's ACLR.
StepResult = _gi.StepResult

# A loop-gain jump beyond gain_tolerance_db that both halves of one capture measure alike is
# followed on that capture when it is at most this large (kernel::dpd_adapt says why).
MAX_FOLLOW_DB = _gi.dpd_adapt.max_follow_db


def _read(name, doc):
    """A read-only attribute of the kernel, as the facade's own."""
    return property(lambda self: getattr(self._k, name), doc=doc)


class Adaptation:
    """Closed-loop DPD adaptation with damping and rollback, for captures from a real receiver.

    Call :meth:`step` with each capture (x: predistorter output = PA input, y: PA output through the
    observation receiver) taken while the predistorter ran with :attr:`coefficients`. The capture is
    conditioned (clipping against ``rx_full_scale``, delay, frequency offset and drift, phase,
    receiver DC and IQ imbalance), the loop gain |G| latched after two captures agree and then
    followed on the loop's linear part, and the step either rolls back (to the best set by loop NMSE
    when this capture's is worse by more than ``rollback_tolerance_db`` plus its noise, or to the best
    by the observation's ACLR when ``aclr_band`` = (sample_rate, channel_bandwidth, channel_spacing) in
    Hz is given and it is worse by more than ``aclr_tolerance_db``; the damping halves, down to
    ``min_damping``) or estimates the post-inverse from this capture and moves
    w <- w + damping (w_est - w). A capture that cannot be estimated, or an update that is not finite
    or whose gain passes +-``max_gain_db``, is refused with the reason; a ``target_gain`` fixes |G|.
    docs/dpd_loop.md and kernel::dpd_adapt give the whole rule.

    The fit: ``regularization`` (None: K-fold cross-validation), ``max_condition``, ``lo_leakage``,
    ``min_samples_per_coefficient``, ``max_delay``, ``backend`` and ``device`` (the capture kernel's and
    the estimation engine's). ``learning="direct"`` instead trains the predistorter through a neural
    surrogate of the PA refitted on every capture (``surrogate``, on ``learning_device``), the only way
    a neural predistorter (gru, tdnn) learns."""

    def __init__(self, P, Q, Lp, Lq, damping=0.8, target_gain=None, rollback_tolerance_db=0.5,
                 min_damping=0.1, max_gain_db=10.0, initial_coefficients=None, initial_lo_leakage=0j,
                 model=None, rx_full_scale=None, rx_correction=True, track_frequency=True,
                 gain_tolerance_db=1.0, aclr_band=None, aclr_tolerance_db=1.0, learning="indirect",
                 surrogate=None, learning_device="automatic", regularization=None, max_condition=None,
                 lo_leakage=True, min_samples_per_coefficient=10, max_delay=None, backend="automatic",
                 device=0):
        self.model = _model_of(P, Q, Lp, Lq, model)
        if learning not in LEARNING:
            raise DPDError(f"learning: must be one of {', '.join(LEARNING)}, got {learning!r}")
        self.learning = learning
        self.direct = None if learning == "indirect" else DirectLearner(
            self.model, surrogate or DEFAULT_SURROGATE, learning_device)
        if initial_coefficients is not None and len(initial_coefficients) == 0:
            initial_coefficients = None
        if initial_coefficients is None and self.direct is not None and self.model.is_neural:
            initial_coefficients = self.direct.identity_weights()
        self.target_gain = None if target_gain is None or target_gain == 0 else complex(target_gain)
        try:
            self._k = _gi.dpd_adapt(
                self.model._c(), damping=damping, min_damping=min_damping,
                rollback_tolerance_db=rollback_tolerance_db, max_gain_db=max_gain_db,
                gain_tolerance_db=gain_tolerance_db, aclr_tolerance_db=aclr_tolerance_db, target_gain=target_gain,
                aclr_band=aclr_band, rx_full_scale=rx_full_scale, rx_correction=rx_correction,
                track_frequency=track_frequency, max_delay=max_delay, lo_leakage=lo_leakage,
                regularization=regularization, max_condition=max_condition,
                min_samples_per_coefficient=min_samples_per_coefficient, backend=backend, device=device,
                initial_coefficients=initial_coefficients, initial_lo_leakage=initial_lo_leakage,
                direct=None if self.direct is None else self.direct.estimate)
        except ValueError as e:
            raise DPDError(str(e)) from None

    def step(self, x, y):
        """One step on a capture: a :class:`StepResult`."""
        return self._k.step(x, y)

    def message(self, result=None, channel=None):
        """The ``coeffs`` message that sends ``result``'s set (None: the set in use) to the
        predistorter, or to one channel of a multi-channel one with ``channel``: a neural model's
        weights, else the coefficients and c. ValueError when a value is not finite: a set that
        cannot be run is not sent."""
        return self._k.message(result, channel)

    def reset_gain(self):
        """Forget the latched |G| (the next two captures measure and confirm it again)."""
        if self.target_gain is None:
            self._k.reset_gain()
            if self.direct is not None:  # its surrogate modelled y over the old gain
                self.direct.reset()

    @property
    def coefficients(self):
        """The set in use (a copy; a neural predistorter's weights as the real parts)."""
        return self._k.coefficients

    @coefficients.setter
    def coefficients(self, value):
        """Replace the set in use (its size and finiteness checked; the records stay, so a worse
        set is rolled back from)."""
        try:
            self._k.coefficients = value
        except ValueError as e:
            raise DPDError(str(e)) from None

    lo_leakage = _read("lo_leakage", "The LO-leakage constant in use.")
    min_damping = _read("min_damping", "The floor a rollback halves the damping to.")
    iteration = _read("iteration", "Steps taken.")
    history = _read("history", "Every step's StepResult, oldest first.")
    gain = _read("gain", "The latched |G| (None before it is latched).")
    candidate_gain = _read("candidate_gain", "A |G| measured and waiting for the next capture to confirm it "
                           "(None: none).")
    last_gain = _read("last_gain", "The complex G the last normalised capture was divided by (None before one).")
    delay = _read("delay", "The delay found on the last capture estimated (None before): the next one's hint.")
    best_loop_nmse_db = _read("best_loop_nmse_db", "The best loop NMSE on record (None: none since the last gain "
                              "move or ACLR rollback).")

    @property
    def damping(self):
        return self._k.damping

    @damping.setter
    def damping(self, value):
        """A new damping in (0, 1]; the floor a rollback halves it to follows it down."""
        self._k.damping = value


__all__ = ["Adaptation", "StepResult", "MAX_FOLLOW_DB", "DPDError"]
