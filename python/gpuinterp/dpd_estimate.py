# SPDX-License-Identifier: GPL-3.0-or-later
"""Indirect-learning estimation from one capture: outliers, alignment, gain, the fit."""

import math
import threading
from dataclasses import dataclass

import numpy as np

from . import dpd_model as _spec
from .dpd_ph import DPDError, _check_pair, _model_of
from .metrics import nmse_db, opendpd_nmse_db


@dataclass
class EstimateResult:
    """Outcome of :func:`estimate`.

    coefficients: flat complex vector in the layout of ``model``; lo_leakage: c;
    fit_nmse_db: NMSE of the post-inverse fit, ||x - f(y/G)||^2/||x||^2 (how well the model explains
    the capture); raw_nmse_db: NMSE of y/G against x (the PA distortion seen in this capture);
    delay: y lag in samples; gain: G used; condition: condition number of the column-normalised basis;
    rank: singular directions above the regularisation; regularization: the lambda used (relative to
    s_max^2) and regularization_selected_by how it was chosen; validation_nmse_db: NMSE on the
    held-out rows that chose it; outliers: samples excluded as outliers; num_samples: rows fitted;
    model: the spec string."""
    coefficients: np.ndarray
    lo_leakage: complex
    fit_nmse_db: float
    raw_nmse_db: float
    delay: float
    gain: complex
    condition: float
    num_samples: int
    P: int = 0
    Q: int = 0
    Lp: int = 1
    Lq: int = 1
    rank: int = 0
    regularization: float = float("nan")
    regularization_selected_by: str = ""
    validation_nmse_db: float = float("nan")
    outliers: int = 0
    model: str = ""

    @property
    def nmse_db(self):
        return self.fit_nmse_db


def _require_rows(rows, ncol, min_samples_per_coefficient):
    """The estimator's rule (kernel::dpd_gram::require_rows) as DPDError."""
    from .gpuinterp_python import dpd_gram

    try:
        dpd_gram.require_rows(int(rows), int(ncol), float(min_samples_per_coefficient))
    except ValueError as e:
        raise DPDError(str(e)) from None


def _kernel_align(x, y, backend, device, **options):
    """``dpd_capture_kernel.align(x, y, **options)`` on this thread's capture kernel, its
    refusals (the estimator's messages) as DPDError: (xa, yn, delay, G, bad, CaptureReport). With
    ``condition=False`` it is :func:`_prepare` without a target gain, a given delay or excluded
    samples; with the conditioning it is dpd_capture.condition and then _prepare (both tested
    against the numpy code in qa_dpd_capture)."""
    from .gpuinterp_python import dpd_capture_kernel

    k = _held_engine("capture", (backend, device), lambda: dpd_capture_kernel(backend, device))
    try:
        xa, yn, d, G, bad, rep = k.align(x, y, **options)
    except ValueError as e:
        raise DPDError(str(e)) from None
    return xa, yn, float(d), complex(G), bad, rep


def _window(m):
    """(back, ahead): how far a row's basis window (a neural model's input window) reaches behind
    and in front of its sample."""
    return m.history - m.lookahead, m.lookahead


def _rows(model, n, bad=None):
    """Rows of a length-n capture whose basis window lies inside it and touches no bad sample
    (the C++ model's usable_rows())."""
    return _spec.parse(model)._c().usable_rows(int(n), bad)


def ls_gain(x, y, rows=None):
    """Least-squares complex gain G of y ~ G x (over ``rows``, a boolean mask, when given); 0 for an
    all-zero x."""
    if rows is not None:
        x, y = x[rows], y[rows]
    den = np.vdot(x, x).real
    return complex(np.vdot(x, y) / den) if den > 0 else 0j


def _probe_inputs(yn, xa, ok, perturbation, seed=0x5eed):
    """The probe copy of a capture (see :func:`_probe_rows`): y moved by seeded white noise of
    ``perturbation`` x its RMS, x by the capture's linear gain times the same noise."""
    rng = np.random.default_rng(seed)
    g = ls_gain(yn, xa, ok)
    rms = math.sqrt(np.mean(np.abs(yn[ok]) ** 2))
    n = (rng.standard_normal(yn.size) + 1j * rng.standard_normal(yn.size)) * (perturbation * rms / math.sqrt(2))
    return yn + n, xa + g * n


def _probe_rows(yn, xa, ok, design, perturbation, seed=0x5eed):
    """Rows that pin the model's small-signal response where the capture never excited it.

    A capture's input occupies its channel only (OpenDPD's APA_200MHz input is band-limited to
    -300 dB outside 200 MHz of a 983 MHz band), so the fit never sees how the device answers an input
    component anywhere else: those directions of coefficient space are set by the regularisation
    alone, and with near-collinear columns of an oversampled basis they come out arbitrary. A
    predistorted signal has exactly such components (its out-of-band expansion), and a forward model
    fitted this way can answer them with any gain, even diverge. Training with input noise is
    Tikhonov regularisation of the model's derivative (Bishop, Neural Computation 7(1), 1995): the
    same rows again, with the input moved by white complex noise of ``perturbation`` x its RMS and
    the target by the capture's linear gain times that noise. Where the capture speaks, its rows
    dominate; elsewhere the model's incremental gain is pulled to the linear gain, which is what a
    broadband PA does there to first order. The noise is seeded: the fit is reproducible."""
    yp, xp = _probe_inputs(yn, xa, ok, perturbation, seed)
    return design(yp)[ok], xp[ok]


_engines = threading.local()


def _held_engine(kind, key, make):
    """The last engine of this kind this thread used when its key matches, else make()'s (building
    one costs CUDA streams, library handles and staging buffers: more than a small model's whole
    fit, or a capture's alignment)."""
    held = getattr(_engines, kind, None)
    if held is None or held[0] != key:
        held = (key, make())
        setattr(_engines, kind, held)
    return held[1]


def _gram_engine(model, lo_leakage, backend, device):
    """A reset estimation engine for this model (see :func:`_held_engine`)."""
    from .gpuinterp_python import dpd_gram

    g = _held_engine("gram", (model, lo_leakage, backend, device),
                     lambda: dpd_gram(model, lo_leakage, backend=backend, device=device))
    g.reset()
    return g


def _fit_engine(xa, yn, m, regularization, lo_leakage, ok, validation, probes, backend, device, bad=None):
    """The fit of :func:`_fit` on the estimation engine (``gpuinterp.dpd_gram``: the Gram of the
    column-normalised basis accumulated chunk by chunk on the CPU or the GPU, one eigendecomposition
    for the whole lambda grid): the same rows, the same choice of lambda, never the N x K basis. The
    default lambda's K-fold cross-validation is one call (``dpd_gram.fit_kfold``)."""
    g = _gram_engine(str(m), bool(lo_leakage), backend, int(device))
    u8 = lambda b: np.ascontiguousarray(b, dtype=np.uint8)  # noqa: E731

    def add(rows, val=None):
        g.add(yn, xa, fit_mask=u8(rows), val_mask=None if val is None else u8(val))
        if probes is not None:  # the probe copy of the same rows (see _probe_rows)
            yp, xp = probes
            g.add(yp, xp, fit_mask=u8(rows))

    if regularization is None and validation is not None:
        add(ok)
        xv, yv, vh = validation
        h = 0 if vh is None else min(len(vh), m.history)
        yy = np.concatenate([np.asarray(vh, dtype=np.complex128).ravel()[len(vh) - h:], yv]) if h else yv
        xx = np.concatenate([np.zeros(h, dtype=np.complex128), xv]) if h else xv
        vm = np.zeros(yy.size, dtype=bool)
        vm[h:yy.size - m.lookahead] = True
        g.add(yy, xx, fit_mask=u8(np.zeros(yy.size, dtype=bool)), val_mask=u8(vm), history=h)
        sol = g.solve("validation")
    elif regularization is None:
        # lambda by K-fold cross-validation over contiguous blocks, each scored cold, in one call
        probe_y, probe_x = probes if probes is not None else (None, None)
        sol = g.fit_kfold(yn, xa, u8(ok), None if bad is None else u8(bad), probe_y, probe_x)
    else:
        add(ok)
        sol = g.solve(regularization)
    out, w = sol, sol.w
    if probes is not None:  # the capture's rows, not the probes
        c = complex(w[-1]) if lo_leakage else 0j
        z = _spec.apply(yn, m, w[:-1] if lo_leakage else w, c)  # a chunk of basis rows at a time
        out.fit_nmse_db = nmse_db(xa[ok], z[ok])
    return out


def _fit(xa, yn, model, regularization, max_condition, lo_leakage, min_samples_per_coefficient,
         bad=None, validation=None, perturbation=0.0, backend=None, device=0):
    """Fit x ~ f(yn) + c.

    With ``regularization`` None, lambda is chosen on held-out data: the ``validation`` pair
    (x_val, y_val, already normalised; run from a zero state, or from the history given as its third
    element) when given, else by K-fold cross-validation over contiguous blocks of this capture, each
    block scored from a zero state on a fit that never saw it (:mod:`.dpd_folds`), then refitted on
    everything. A model's answer to inputs off the captured signal's manifold (a predistorted
    signal) is pinned further by the probe rows (``perturbation``).

    ``backend`` "cpu", "cuda" or "automatic" runs the fit on the estimation engine
    (:func:`_fit_engine`); None: the numpy reference the tests compare it with (dpd_reference.fit)."""
    m = _spec.parse(model)
    ok = _rows(m, xa.size, bad)
    if backend is None:
        from . import dpd_reference

        sol, rows = dpd_reference.fit(xa, yn, m, ok, regularization, lo_leakage, min_samples_per_coefficient, bad,
                                      validation, perturbation)
    else:
        K = m.num_coefficients + int(bool(lo_leakage))
        _require_rows(int(ok.sum()), K, min_samples_per_coefficient)
        probes = None
        if perturbation:
            probes = _probe_inputs(yn, xa, ok, perturbation)
        vt = None
        if validation is not None:
            xv, yv = (np.asarray(v, dtype=np.complex128).ravel() for v in validation[:2])
            vt = (xv, yv, validation[2] if len(validation) > 2 else None)
        sol = _fit_engine(xa, yn, m, regularization, lo_leakage, ok, vt, probes, backend, device, bad)
        rows = int(ok.sum())
    if max_condition is not None:
        from .gpuinterp_python import dpd_gram

        try:
            dpd_gram.check_condition(float(sol.condition), float(max_condition))
        except ValueError as e:
            raise DPDError(str(e)) from None
    w = sol.w
    return (w[:-1] if lo_leakage else w), (complex(w[-1]) if lo_leakage else 0j), sol, rows


def estimate(x, y, P=None, Q=None, Lp=None, Lq=None, target_gain=None, regularization=None, delay=None,
             max_delay=None, fractional=True, lo_leakage=True, max_condition=None,
             min_samples_per_coefficient=10, model=None, validation=None, perturbation=0.0, exclude=None,
             backend="automatic", device=0):
    """Indirect-learning estimate of predistorter coefficients from one capture.

    x: PA input (the predistorter output), y: PA output (loopback capture), same length. The model is
    the parallel Hammerstein (P, Q, Lp, Lq) or any spec of :mod:`gnuradio.gpuinterp.dpd_model`
    (``model="gmp:Ka=5,La=8,Kb=3,Lb=4,Mb=2"``). Swapping x and y fits a forward (PA) model instead.
    Steps: align y to x (integer delay by cross-correlation, fractional by band-limited interpolation;
    pass ``delay`` to skip the search); exclude outlier samples (beyond 24 x the robust RMS); normalise
    y by the complex gain G (``target_gain``; None measures the least-squares gain of this capture,
    y ~ G x); fit the post-inverse x ~ f(y/G) by regularised least squares on the column-normalised
    basis (:func:`solve_regularized`). ``regularization`` None chooses lambda on held-out data: the
    ``validation`` pair (x_val, y_val, same roles as x, y, already aligned) when given, else K-fold
    cross-validation over contiguous blocks of this capture, each scored from a zero state
    (:mod:`.dpd_folds`); a number fixes it (relative to the largest squared singular value). The
    held-out run starts from a zero state, or from the samples of y that preceded y_val when
    ``validation`` carries them as a third element (a split that continues the capture).
    Copying f into the predistorter makes PA(f(u)) ~ G u.

    Raises :class:`DPDError` (a ValueError whose message starts with the parameter name) for
    mismatched lengths, empty/all-zero/non-finite captures, a capture too short for the number of
    unknowns (``min_samples_per_coefficient`` rows per unknown), a basis whose condition number
    reaches ``max_condition`` (None: no limit, the regularisation handles it); the returned
    coefficients are always finite.

    ``perturbation`` (>= 0, relative to the RMS of y): fit a second copy of the capture with y moved
    by seeded white noise of that relative RMS and x by the capture's linear gain times it. This pins
    the model's response to input components the capture never contained (see
    :func:`_probe_rows`): a forward PA model used as a surrogate under a predistorted input needs it
    (docs/dpd_loop.md gives the APA_200MHz figures). 0 (default) fits the capture alone.

    ``backend``: "automatic" (default: the GPU ``device`` when there is one, else the CPU), "cpu" or
    "cuda" fit on the estimation engine ``gpuinterp.dpd_gram`` (the Gram of the column-normalised
    basis accumulated chunk by chunk, memory O(K^2), one eigendecomposition for the lambda grid);
    None builds the N x K basis in numpy and solves by SVD, the independent reference the tests
    compare the engine with (same coefficients and lambda, up to ties of the held-out score)."""
    m = _model_of(P, Q, Lp, Lq, model)
    if regularization is not None and regularization != "gcv" and not (
            isinstance(regularization, (int, float)) and regularization >= 0 and math.isfinite(regularization)):
        raise DPDError(f"regularization: must be None (choose on held-out data) or finite and >= 0, "
                       f"got {regularization}")
    if not (isinstance(perturbation, (int, float)) and math.isfinite(perturbation) and 0 <= perturbation <= 1):
        raise DPDError(f"perturbation: must be a number in [0, 1] (relative RMS of the probe noise), "
                       f"got {perturbation}")
    x, y = _check_pair(x, y)
    if exclude is not None:
        exclude = np.asarray(exclude, dtype=bool).ravel()
        if exclude.size != y.size:
            raise DPDError(f"exclude: length {exclude.size} differs from y ({y.size})")
    if backend not in (None, "automatic", "cpu", "cuda"):
        raise DPDError(f"backend: must be None (numpy), 'automatic', 'cpu' or 'cuda', got {backend!r}")
    if backend is None:
        from . import dpd_reference

        xa, yn, d, G, bad = dpd_reference._prepare(x, y, m, target_gain, delay, max_delay, fractional, exclude)
    else:
        # The capture kernel aligns: the delay search (FFT cross-correlations) or the given delay,
        # the shift, the given or least-squares gain, the excluded samples' rows marked bad.
        opts = dict(max_delay=max_delay, condition=False, exclude=exclude,
                    gain=None if not target_gain else complex(target_gain))
        if delay is not None:
            opts["delay"] = float(delay)
        xa, yn, d, G, bad, _ = _kernel_align(x, y, backend, int(device), **opts)
        if not fractional and delay is None and d != round(d):  # the search's delay, to the nearest sample
            opts["delay"] = float(round(d))
            xa, yn, d, G, bad, _ = _kernel_align(x, y, backend, int(device), **opts)
    if validation is not None:
        xv, yv = _check_pair(*validation[:2])
        vh = None if len(validation) < 3 or validation[2] is None else np.asarray(validation[2]) / G
        validation = (xv, yv / G, vh)
    coeffs, c, sol, rows = _fit(xa, yn, m, regularization, max_condition, lo_leakage,
                                min_samples_per_coefficient, bad, validation, float(perturbation), backend, device)
    good = ~bad
    raw = nmse_db(xa[good], yn[good])
    ph = m.params if m.family == "ph" else (0, 0, 1, 1)
    return EstimateResult(coeffs, c, sol.fit_nmse_db, raw, d, G, sol.condition, rows, *ph, rank=sol.rank,
                          regularization=sol.regularization,
                          regularization_selected_by=sol.selected_by,
                          validation_nmse_db=sol.validation_nmse_db, outliers=int(bad.sum()),
                          model=str(m))


# Relative RMS of the probe noise of a forward fit (dpd.estimate's ``perturbation``): the smallest
# that kept every APA_200MHz surrogate tried stable under iterative inversion (0.003 did not).
DEFAULT_PERTURBATION = 0.01


def fit_forward(x, y, model, x_val=None, y_val=None, x_test=None, y_test=None, regularization=None,
                nperseg=None, contiguous=False, perturbation=DEFAULT_PERTURBATION, backend="automatic", device=0):
    """Fit y ~ f(x) (a PA behavioural model: x the PA input, y its output, time-aligned) of any family.

    The regularisation is chosen on the validation pair when given (else by K-fold over the
    training capture, :mod:`.dpd_folds`), the model run over it as a stream (from a zero state, or continuing the
    training split with ``contiguous``). NMSE is reported on each split given, averaged over ``nperseg``-long segments
    when ``nperseg`` is set (OpenDPD's definition), over the whole split otherwise. Each split is run
    from a zero state, or, with ``contiguous`` (train, val and test are consecutive parts of one
    capture), with the end of the previous split as its history, as a streaming block would run.

    ``perturbation``: see :func:`estimate`. A capture excites its channel only;
    the probe rows fix the model's answer to anything else, so the model stays usable as a PA
    surrogate when a predistorter adds out-of-band components. 0 fits the capture alone (best NMSE on
    the capture's own kind of signal, no guarantee elsewhere)."""
    m = _spec.parse(model)
    x = np.asarray(x, dtype=np.complex128).ravel()
    y = np.asarray(y, dtype=np.complex128).ravel()
    val = None
    if x_val is not None:
        val = (np.asarray(y_val, dtype=np.complex128).ravel(), np.asarray(x_val, dtype=np.complex128).ravel(),
               x[-m.history:] if contiguous and m.history else None)
    # estimate() fits its first argument from the basis of its second: the forward model is the
    # "post-inverse" of the swapped pair, with unit gain and no delay (the capture is aligned).
    r = estimate(y, x, model=m, target_gain=1.0, delay=0.0, regularization=regularization,
                     validation=val, perturbation=perturbation, backend=backend, device=device)
    fit = _spec.ModelFit(str(m), r.coefficients, r.lo_leakage, {}, float(np.max(np.abs(x))), r.regularization,
                   r.condition, r.rank)

    hist = m.history

    def score(xs, ys, before=None):
        if xs is None:
            return float("nan")
        ys = np.asarray(ys, dtype=np.complex128).ravel()
        h = None
        if contiguous and before is not None and hist:
            h = np.asarray(before, dtype=np.complex128).ravel()[-hist:]
        est = fit.apply(xs, history=h)
        if nperseg:
            return opendpd_nmse_db(est, ys, nperseg)
        return nmse_db(ys, est)

    fit.nmse_db = {"train": score(x, y), "val": score(x_val, y_val, x),
                   "test": score(x_test, y_test, x_val if x_val is not None else None)}
    return fit
