# SPDX-License-Identifier: GPL-3.0-or-later
"""Direct learning in the closed loop: the estimator fits a neural model of the PA from its captures
and trains the predistorter by gradient through it, as OpenDPD does on its bench.

Indirect learning fits a post-inverse on the receiver's samples and copies it in front of the PA;
its answer is biased by the receiver's noise and by how far the post-inverse is from a pre-inverse.
Direct learning asks the question the DPD is for (which predistorter makes PA(f(x)) = G x?), and
needs a differentiable PA: here a small neural surrogate (``gru`` by default, OpenDPD's best family)
fitted on each capture (x, y/G), continued from the previous capture's weights, so it follows a PA
that drifts. The predistorter (a polynomial family, whose coefficients go to ``dpd_predistorter_cc``
as in indirect learning, or a neural one, gru or tdnn, whose weights go as ``{"weights": f32vector}``)
is then trained through the frozen surrogate, starting from the set in use.
PyTorch does both (``neural_train.fit_pa`` / ``fit_dpd``; on the GPU when one is usable); nothing of
it runs in the transmit path.
"""

import math

import numpy as np

from . import dpd_model as dm
from .dpd_ph import DPDError

LEARNING = ("indirect", "direct")
DEFAULT_SURROGATE = "gru:H=8,C=0,D=1"
# Per step: the surrogate continues from the last capture's weights, so a few epochs follow a PA
# that moved; the first capture trains it from scratch for longer. Frames of 64 samples at stride 2
# keep an epoch over a 32768-sample capture to about half a second on one CPU core for an H=8 GRU.
_PA_EPOCHS_FIRST, _PA_EPOCHS, _DPD_EPOCHS = 30, 8, 20
# A neural predistorter starts as a wire with its output layer near zero and learns more slowly
# than a polynomial one continued from its set: 60 epochs a step (a tdnn:M=4,H=12 through the ding2004
# PA: worst ACLR -41.5 to -43.0 dBc in four updates; 20 epochs left it at -41.5).
_DPD_EPOCHS_NEURAL = 60
_FRAME, _STRIDE, _BATCH = 64, 2, 128


def _longest_run(ok):
    """[start, stop) of the longest run of True in ok."""
    best, start = (0, 0), None
    for i, v in enumerate(np.append(ok, False)):
        if v and start is None:
            start = i
        elif not v and start is not None:
            if i - start > best[1] - best[0]:
                best = (start, i)
            start = None
    return best


def identity_weights(model):
    """The weights a neural predistorter of ``model`` (gru, tdnn) starts the loop from: neural_train's
    identity start, a wire (the same set on every call). Give them to ``dpd_predistorter_cc(model=...,
    weights=...)``; the estimator (``learning="direct"``, the same model) starts from the same set.
    Needs PyTorch."""
    from . import neural_train as nt

    m = dm.parse(str(model))
    if not m.is_neural:
        raise DPDError(f"model: {m} is not a neural family ({', '.join(dm.NEURAL_FAMILIES)})")
    nt.require_torch()
    torch = nt._classes()["torch"]
    # The identity start is a wire, but its hidden layers start random: seeded here (without touching
    # the caller's generator), so every call gives the same set and a loop is reproducible.
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        return np.asarray(nt.export_weights(nt.build(str(m))), dtype=np.float64)


class DirectLearner:
    """The surrogate and the direct-learning step of one loop (one transmit channel).

    ``model``: the predistorter's spec (ph, mp, gmp, or gru and tdnn: a neural predistorter, whose
    weights the loop holds as the real parts of its coefficient vector); ``surrogate``: the neural PA model's spec;
    ``device``: "cpu", "cuda" or "automatic" (CUDA when PyTorch sees a GPU); ``seed``: the
    surrogate's initialisation and the frame order, so a run is reproducible."""

    def __init__(self, model, surrogate=DEFAULT_SURROGATE, device="automatic", seed=0, threads=1):
        from . import neural_train as nt

        self.model = dm.parse(str(model))
        try:
            self.surrogate = dm.parse(str(surrogate))
        except dm.ModelError as e:
            raise DPDError(f"surrogate: {e}") from None
        if not self.surrogate.is_neural:
            raise DPDError(f"surrogate: {self.surrogate} is not a neural family ({', '.join(dm.NEURAL_FAMILIES)})")
        if device not in ("automatic", "cpu", "cuda"):
            raise DPDError(f"device: must be 'automatic', 'cpu' or 'cuda', got {device!r}")
        try:
            nt.require_torch()
        except nt.TorchMissing as e:
            raise DPDError(f"learning: 'direct' needs PyTorch ({e})") from None
        self._nt = nt
        torch = nt._classes()["torch"]
        if device == "automatic":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        self.device, self.seed, self.threads = device, int(seed), int(threads)
        self.pa = None  # the surrogate, continued capture after capture
        self.pa_nmse_db = None
        self.steps = 0

    def identity_weights(self):
        """A neural predistorter's starting weights (:func:`identity_weights`), as the real parts of a
        complex vector (the loop's coefficient vector)."""
        return identity_weights(self.model).astype(np.complex128)

    def reset(self):
        """Forget the surrogate (the next capture fits one from scratch): the loop gain moved."""
        self.pa, self.pa_nmse_db = None, None

    def estimate(self, x, y, ok, coefficients, lo_leakage):
        """One step on an aligned capture: x the PA input, y the PA output divided by the loop gain,
        ok the rows to use. Returns (coefficients, lo_leakage, fit_nmse_db): the predistorter trained
        through the refitted surrogate, and its NMSE to x through it on the held-out fifth."""
        nt = self._nt
        a, b = _longest_run(np.asarray(ok, dtype=bool))
        n = b - a
        if n < 20 * _FRAME:
            raise DPDError(f"capture: {n} usable samples in one run; direct learning needs {20 * _FRAME}")
        x = np.asarray(x[a:b], dtype=np.complex128)
        y = np.asarray(y[a:b], dtype=np.complex128)
        cut = int(n * 0.8)
        data = {"train": (x[:cut], y[:cut]), "val": (x[cut:], y[cut:])}
        common = dict(device=self.device, seed=self.seed + self.steps, threads=self.threads, frame=_FRAME,
                      stride=_STRIDE, batch=_BATCH, lr_end=1e-4)
        quiet = lambda m: None  # noqa: E731 (the step's result says what happened)
        first = self.pa is None
        pa_args = nt.options("pa", model=str(self.surrogate), epochs=_PA_EPOCHS_FIRST if first else _PA_EPOCHS,
                             lr=5e-3 if first else 1e-3, **common)
        self.pa, _ = nt.fit_pa(pa_args, data, quiet, model=self.pa)
        self.pa_nmse_db = float(nt.nmse_db(data["val"][1], nt.run_stream(self.pa, data["val"][0], self.device)))
        f = nt.build(str(self.model))
        if self.model.is_neural:
            nt.import_weights(f, np.real(np.asarray(coefficients)))
        else:
            nt.import_weights(f, coefficients, lo_leakage)
        # The predistorter's inputs are the capture's PA inputs: the transmit signal as the
        # predistorter in use shaped it, so its amplitudes cover what the next set will see.
        dpd_args = nt.options("dpd", model=str(self.model), lr=5e-3, **common,
                              epochs=_DPD_EPOCHS_NEURAL if self.model.is_neural else _DPD_EPOCHS)
        f, _, through = nt.fit_dpd(dpd_args, {"train": data["train"], "val": data["val"]}, self.pa, 1.0, quiet, dpd=f)
        if self.model.is_neural:
            w, c = np.asarray(nt.export_weights(f), dtype=np.float64), 0j
        else:
            w, c = nt.export_weights(f)
        fit = float(nt.nmse_db(data["val"][0], through(data["val"][0])[1]))
        self.steps += 1
        if not (np.all(np.isfinite(w)) and math.isfinite(abs(c))):
            raise DPDError("coefficients: direct learning gave non-finite values")
        return np.asarray(w, dtype=np.complex128), complex(c), fit
