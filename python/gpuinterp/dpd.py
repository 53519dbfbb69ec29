# SPDX-License-Identifier: GPL-3.0-or-later
"""Digital-predistortion adaptation: the predistorter model in numpy, time alignment, indirect-learning
coefficient estimation, an iteration helper with damping and rollback, and coefficient files.

The model is the one of ``gpuinterp.dpd_predistorter_cc`` (parallel Hammerstein, memory polynomial with
optional conjugate branches)::

    z[n] = sum_{p in 1,3,..,P} sum_{k<Lp} h[p,k] psi_p(x[n-k])
         + sum_{q in 1,3,..,Q} sum_{k<Lq} g[q,k] conj(psi_q(x[n-k]))  +  c,     psi_p(x) = x |x|^(p-1)

Q = 0 disables the conjugate branches. The coefficient layout is one flat complex vector: main branches
p = 1, 3, .., P, each with its Lp taps (k = 0 first), then conjugate branches q = 1, 3, .., Q, each with
Lq taps. Example P=3, Q=1, Lp=2, Lq=1: [h10, h11, h30, h31, g10]. c (LO leakage) is separate.

Everything here is numpy only except :func:`make_engine`, which returns the C++ engine
``gpuinterp.dpd_predistorter`` (CPU SIMD or CUDA); :class:`NumpyPredistorter` is the double-precision
reference of the same model.
"""

import csv
import json
import math
from dataclasses import dataclass

import numpy as np

from . import dpd_model as _spec

__all__ = [
    "DPDError", "validate_structure", "num_coefficients", "branch_layout", "identity_coefficients",
    "basis_matrix", "apply_model", "NumpyPredistorter", "make_engine", "align", "estimate_delay",
    "fractional_shift", "estimate", "make_model_engine", "solve_regularized", "Solution", "EstimateResult", "Adaptation", "StepResult", "nmse_db",
    "save_coefficients", "load_coefficients",
]


class DPDError(ValueError):
    """A capture or parameter that cannot give a usable estimate. The message starts with the name of
    the offending parameter (house style), e.g. ``"y: all zeros ..."``."""


# ----------------------------------------------------------------------------------------------
# Model structure
# ----------------------------------------------------------------------------------------------

def validate_structure(P, Q, Lp, Lq):
    """Check P, Q, Lp, Lq as the predistorter does; return them as ints."""
    for name, v in (("P", P), ("Q", Q), ("Lp", Lp), ("Lq", Lq)):
        if int(v) != v:
            raise DPDError(f"{name}: must be an integer, got {v!r}")
    P, Q, Lp, Lq = int(P), int(Q), int(Lp), int(Lq)
    if P < 1 or P % 2 == 0:
        raise DPDError(f"P: must be odd and >= 1, got {P}")
    if Q < 0 or (Q > 0 and Q % 2 == 0):
        raise DPDError(f"Q: must be 0 (no conjugate branches) or odd, got {Q}")
    if Lp < 1:
        raise DPDError(f"Lp: must be >= 1, got {Lp}")
    if Lq < 1:
        raise DPDError(f"Lq: must be >= 1, got {Lq}")
    return P, Q, Lp, Lq


def num_coefficients(P, Q, Lp, Lq):
    """Length of the flat coefficient vector: (P+1)/2*Lp + (Q+1)/2*Lq (the latter 0 when Q = 0)."""
    P, Q, Lp, Lq = validate_structure(P, Q, Lp, Lq)
    return (P + 1) // 2 * Lp + ((Q + 1) // 2 * Lq if Q > 0 else 0)


def branch_layout(P, Q, Lp, Lq):
    """List of (order, conjugate, tap) for every entry of the flat coefficient vector, in order."""
    P, Q, Lp, Lq = validate_structure(P, Q, Lp, Lq)
    out = [(p, False, k) for p in range(1, P + 1, 2) for k in range(Lp)]
    if Q > 0:
        out += [(q, True, k) for q in range(1, Q + 1, 2) for k in range(Lq)]
    return out


def identity_coefficients(P, Q, Lp, Lq):
    """The pass-through predistorter: h[1,0] = 1, everything else 0."""
    w = np.zeros(num_coefficients(P, Q, Lp, Lq), dtype=np.complex128)
    w[0] = 1.0
    return w


def _as_complex_vector(name, v, dtype=np.complex128):
    a = np.asarray(v)
    if a.ndim == 0:
        a = a.reshape(1)
    if a.ndim != 1:
        raise DPDError(f"{name}: must be a 1-D sequence, got shape {a.shape}")
    a = a.astype(dtype, copy=False)
    return a


def _check_coefficients(coefficients, P, Q, Lp, Lq):
    w = _as_complex_vector("coefficients", coefficients)
    n = num_coefficients(P, Q, Lp, Lq)
    if w.size != n:
        raise DPDError(f"coefficients: expected {n} values for P={P}, Q={Q}, Lp={Lp}, Lq={Lq} "
                       f"((P+1)/2*Lp + (Q+1)/2*Lq), got {w.size}")
    if not np.all(np.isfinite(w)):
        raise DPDError("coefficients: contain NaN or infinity")
    return w


def basis_matrix(x, P, Q, Lp, Lq, history=None):
    """Basis matrix Phi (len(x) x K, complex128) with z = Phi @ coefficients + c.

    Column j belongs to entry j of the flat coefficient vector (see :func:`branch_layout`): column
    (p, k) holds psi_p(x[n-k]), column (q, k) conj(psi_q(x[n-k])). Samples before x[0] are taken from
    ``history`` (the samples that preceded x, oldest first) or are zero (the predistorter's initial
    state). The same as :func:`gnuradio.gpuinterp.dpd_model.basis` of ``ph:P=..,Q=..,Lp=..,Lq=..``."""
    P, Q, Lp, Lq = validate_structure(P, Q, Lp, Lq)
    x = _as_complex_vector("x", x)
    return _spec.basis(x, f"ph:P={P},Q={Q},Lp={Lp},Lq={Lq}", history)


def apply_model(x, coefficients, lo_leakage, P, Q, Lp, Lq, history=None):
    """z = Phi(x) @ coefficients + lo_leakage in double precision (zero initial state by default)."""
    w = _check_coefficients(coefficients, P, Q, Lp, Lq)
    return basis_matrix(x, P, Q, Lp, Lq, history) @ w + complex(lo_leakage)


class NumpyPredistorter:
    """Streaming numpy implementation of the predistorter, with the interface of the C++ kernel
    ``gpuinterp.dpd_predistorter``: ``process(x) -> ndarray`` carries the last L-1 inputs across calls,
    so chunking never changes the output; ``set_coefficients(coefficients, lo_leakage)``."""

    def __init__(self, P, Q, Lp, Lq, coefficients, lo_leakage=0j):
        self.P, self.Q, self.Lp, self.Lq = validate_structure(P, Q, Lp, Lq)
        self.set_coefficients(coefficients, lo_leakage)
        L = max(self.Lp, self.Lq if self.Q > 0 else 1)
        self._hist = np.zeros(L - 1, dtype=np.complex128)

    def set_coefficients(self, coefficients, lo_leakage=0j):
        w = _check_coefficients(coefficients, self.P, self.Q, self.Lp, self.Lq)
        c = complex(lo_leakage)
        if not np.isfinite(c):
            raise DPDError("lo_leakage: must be finite")
        self._w, self._c = w.copy(), c

    def coefficients(self):
        return self._w.copy()

    def lo_leakage(self):
        return self._c

    def process(self, x):
        x = np.asarray(x).astype(np.complex128, copy=False).ravel()
        if x.size == 0:
            return np.zeros(0, dtype=np.complex64)
        z = basis_matrix(x, self.P, self.Q, self.Lp, self.Lq, self._hist) @ self._w + self._c
        if self._hist.size:
            self._hist = np.concatenate([self._hist, x])[-self._hist.size:]
        return z.astype(np.complex64)


def make_engine(P, Q, Lp, Lq, coefficients, lo_leakage=0j, backend="cpu"):
    """A streaming predistorter engine: the C++ kernel ``gpuinterp.dpd_predistorter`` (SIMD CPU or CUDA,
    per ``backend``). :class:`NumpyPredistorter` is the double-precision reference the tests compare it
    with. Errors the C++ kernel raises for bad parameters propagate unchanged."""
    from gnuradio import gpuinterp as _gi  # imported here: the package imports this module first

    w = _check_coefficients(coefficients, P, Q, Lp, Lq)
    return _gi.dpd_predistorter(int(P), int(Q), int(Lp), int(Lq), [complex(v) for v in w],
                                complex(lo_leakage), backend=backend)


def make_model_engine(model, coefficients, lo_leakage=0j, backend="cpu"):
    """A streaming engine for a model of any family (:mod:`gnuradio.gpuinterp.dpd_model` spec): the C++
    kernel ``gpuinterp.dpd_predistorter`` (CPU SIMD or CUDA) built from the spec. Its output is delayed
    by the model's look-ahead (``engine.delay()`` samples; 0 for ph and mp)."""
    from gnuradio import gpuinterp as _gi

    m = _spec.parse(model)
    w = _as_complex_vector("coefficients", coefficients)
    if w.size != m.num_coefficients or not np.all(np.isfinite(w)):
        raise DPDError(f"coefficients: expected {m.num_coefficients} finite values for {m}, got {w.size}")
    return _gi.dpd_predistorter(str(m), [complex(v) for v in w], complex(lo_leakage), backend=backend)


# ----------------------------------------------------------------------------------------------
# Metrics used by the estimator (the full set is in gpuinterp.metrics)
# ----------------------------------------------------------------------------------------------

def nmse_db(reference, measured):
    """10 log10(||reference - measured||^2 / ||reference||^2)."""
    d = np.asarray(reference, dtype=np.complex128)
    a = np.asarray(measured, dtype=np.complex128)
    if d.shape != a.shape:
        raise DPDError(f"measured: shape {a.shape} differs from reference shape {d.shape}")
    den = np.vdot(d, d).real
    if den == 0:
        raise DPDError("reference: all zeros, NMSE undefined")
    num = np.vdot(d - a, d - a).real
    return 10 * math.log10(max(num / den, 1e-30))


# ----------------------------------------------------------------------------------------------
# Time alignment
# ----------------------------------------------------------------------------------------------

def _check_pair(x, y):
    x = _as_complex_vector("x", x)
    y = _as_complex_vector("y", y)
    if x.size != y.size:
        raise DPDError(f"x, y: lengths differ ({x.size} vs {y.size}); pass the PA input and output "
                       "captures of equal length (trim them to the same span)")
    if x.size == 0:
        raise DPDError("x: empty capture")
    if not np.all(np.isfinite(x)):
        raise DPDError("x: contains NaN or infinity")
    if not np.all(np.isfinite(y)):
        raise DPDError("y: contains NaN or infinity")
    if not np.any(x):
        raise DPDError("x: all zeros (no PA input captured)")
    if not np.any(y):
        raise DPDError("y: all zeros (no PA output captured: check the loopback path and RX gain)")
    return x, y


def estimate_delay(x, y, max_delay=None, fractional=True):
    """Delay D of y relative to x (y[n] ~ G x[n-D]) in samples, possibly fractional.

    Integer part: peak of |cross-correlation| (FFT, zero-padded, lags within +-max_delay). Fractional
    part: the cross-correlation is band-limited like the signals, so band-limited (windowed-sinc)
    interpolation of it between the lags is exact up to the window; a golden-section search for the peak
    of that interpolant within +-1 sample of the integer peak gives the fraction (accurate to ~1e-4
    sample for band-limited captures)."""
    x, y = _check_pair(x, y)
    n = x.size
    if max_delay is None:
        max_delay = min(n // 4, 8192)
    max_delay = int(max_delay)
    if max_delay < 0 or max_delay >= n:
        raise DPDError(f"max_delay: must be in [0, {n - 1}] for a capture of {n} samples, got {max_delay}")
    m = 1 << int(math.ceil(math.log2(2 * n)))
    X = np.fft.fft(x, m)
    Y = np.fft.fft(y, m)
    R = Y * np.conj(X)
    r = np.fft.ifft(R)  # r[t] = sum_n y[n+t] conj(x[n]), negative lags wrap to the end
    lags = np.concatenate([np.arange(0, max_delay + 1), np.arange(-max_delay, 0)])
    vals = np.abs(np.concatenate([r[:max_delay + 1], r[m - max_delay:]]))
    d_int = int(lags[int(np.argmax(vals))])
    if not fractional:
        return float(d_int)
    # r(t) of band-limited signals is band-limited: a 129-term Kaiser-windowed sinc over the lags around
    # the peak interpolates it (agrees with the exact DTFT interpolant to ~1e-6 sample, and its cost
    # does not grow with the capture).
    j = np.arange(-64, 65)
    seg = r[(d_int + j) % m]

    def mag(t):
        tt = j - (t - d_int)
        w = np.i0(8.0 * np.sqrt(np.clip(1 - (tt / 65.0) ** 2, 0, None)))
        return abs(np.sum(seg * np.sinc(tt) * w))

    a, b = d_int - 1.0, d_int + 1.0
    g = (math.sqrt(5) - 1) / 2
    c1, c2 = b - g * (b - a), a + g * (b - a)
    f1, f2 = mag(c1), mag(c2)
    for _ in range(30):  # bracket 2 * 0.618^30 ~ 1e-6 sample
        if f1 > f2:
            b, c2, f2 = c2, c1, f1
            c1 = b - g * (b - a)
            f1 = mag(c1)
        else:
            a, c1, f1 = c1, c2, f2
            c2 = a + g * (b - a)
            f2 = mag(c2)
    return 0.5 * (a + b)


def _sinc_taps(frac, half_len):
    # Kaiser-windowed sinc centred on frac, 49 taps, beta 8: interpolation NMSE below -80 dB for
    # signals filling up to 90 % of the Nyquist band (measured; qa_dpd checks -75 dB at 60 %).
    k = np.arange(-half_len, half_len + 1, dtype=np.float64)
    t = k - frac
    # The window is evaluated on the shifted grid, so it stays symmetric about the interpolation point.
    w = np.i0(8.0 * np.sqrt(np.clip(1 - (t / (half_len + 1)) ** 2, 0, None))) / np.i0(8.0)
    h = np.sinc(t) * w
    return h / h.sum()


def fractional_shift(y, delay, half_len=24):
    """Return (ys, first) with ys[i] = y(first + i + delay) (band-limited interpolation), for every i
    whose interpolation window lies inside y. ``delay`` may be any real number."""
    y = _as_complex_vector("y", y)
    d_int = int(math.floor(delay))
    frac = delay - d_int
    if frac < 1e-9:
        first = max(0, -d_int)
        last = min(y.size, y.size - d_int)
        return y[first + d_int:last + d_int].copy(), first
    h = _sinc_taps(frac, half_len)
    # ys[n] = sum_k h[k] y[n + d_int + k], k = -half_len..half_len
    full = np.convolve(y, h[::-1], mode="valid")  # full[j] = sum_k h[k] y[j + half_len + k]
    first = max(0, half_len - d_int)
    last = min(y.size, y.size - half_len - d_int)
    if last <= first:
        return np.zeros(0, dtype=np.complex128), first
    return full[first + d_int - half_len:last + d_int - half_len], first


def align(x, y, delay=None, max_delay=None, fractional=True):
    """Align y to x. Returns (xa, ya, delay) with ya[i] ~ G xa[i]: the common span only, y shifted by
    the estimated (or the given) delay."""
    x, y = _check_pair(x, y)
    if delay is None:
        delay = estimate_delay(x, y, max_delay=max_delay, fractional=fractional)
    ys, first = fractional_shift(y, float(delay))
    xa = x[first:first + ys.size]
    return xa, ys, float(delay)


# ----------------------------------------------------------------------------------------------
# Estimation (indirect learning)
# ----------------------------------------------------------------------------------------------

def _model_of(P, Q, Lp, Lq, model):
    """The model spec from either a spec (``model``) or the parallel-Hammerstein P, Q, Lp, Lq."""
    if model is not None:
        return _spec.parse(model)
    P, Q, Lp, Lq = validate_structure(P, Q, Lp, Lq)
    return _spec.parse(f"ph:P={P},Q={Q},Lp={Lp},Lq={Lq}")


# Relative ridge values (lambda / s_max^2) tried when the regularisation is chosen on held-out data:
# from "none" (1e-14, below which a float64 SVD cannot tell the difference) to heavy smoothing.
REGULARIZATION_GRID = tuple(10.0 ** e for e in np.arange(-14.0, -0.9, 0.5))


@dataclass
class Solution:
    """A regularised least-squares solution of ``target ~ phi @ w``.

    regularization: lambda relative to the largest squared singular value of the column-normalised
    basis; condition: s_max/s_min of that basis; rank: singular values above the regularisation
    (s^2 > lambda), i.e. the directions the solution actually uses; dof: effective degrees of
    freedom sum s^2/(s^2 + lambda); selected_by: "fixed", "validation" or "gcv";
    validation_nmse_db: NMSE on the held-out rows at the chosen value (nan without them)."""
    w: np.ndarray
    regularization: float
    condition: float
    rank: int
    dof: float
    fit_nmse_db: float
    selected_by: str
    validation_nmse_db: float = float("nan")


def _nmse_vec(ref, est):
    den = np.vdot(ref, ref).real
    return 10 * math.log10(max(np.vdot(ref - est, ref - est).real / den, 1e-30)) if den > 0 else float("nan")


def solve_regularized(phi, target, regularization=None, phi_val=None, target_val=None, grid=None):
    """Tikhonov-regularised least squares in float64 on the column-normalised basis, by SVD.

    Columns of different orders differ by orders of magnitude, so each is scaled to unit norm first:
    the regularisation and the condition number then do not depend on the signal level. The thin SVD
    phi_s = U S V^H (LAPACK gesdd, float64) gives w = V diag(s / (s^2 + lambda)) U^H target without
    ever forming the normal equations, whose condition number would be the square (tall bases go
    through a Householder QR first).

    ``regularization``: a number fixes lambda / s_max^2 (0: minimum-norm least squares, singular
    values below 1e-13 s_max dropped as LAPACK's gelsd does); None chooses it from
    :data:`REGULARIZATION_GRID` by the NMSE on held-out rows (``phi_val``, ``target_val``) when given,
    else by generalised cross-validation; "gcv" forces GCV."""
    norms = np.linalg.norm(phi, axis=0)
    if np.any(norms == 0) or not np.all(np.isfinite(norms)):
        raise DPDError("y: basis matrix is singular (a basis column is all zeros)")
    A = phi / norms
    if A.shape[0] > 2 * A.shape[1]:
        # Tall basis: Householder QR without forming Q (LAPACK geqrf + ormqr for Q^H target), then the
        # SVD of the K x K factor, A = Q R = (Q U_R) S V^H. Same singular values and U^H target as the
        # SVD of A, about three times faster, and never the normal equations.
        from scipy.linalg import qr_multiply

        cq, R = qr_multiply(A, target.conj()[None, :], mode="right")
        U_r, s, Vh = np.linalg.svd(R)
        b = U_r.conj().T @ cq.conj().ravel()
    else:
        U, s, Vh = np.linalg.svd(A, full_matrices=False)
        b = U.conj().T @ target
    s0 = s[0]
    cond = float(s0 / s[-1]) if s[-1] > 0 else float("inf")
    grid = np.asarray(grid if grid is not None else REGULARIZATION_GRID, dtype=np.float64)
    s2 = (s / s0) ** 2
    val_nmse = float("nan")
    if regularization is None and phi_val is not None and len(target_val):
        Bv = (phi_val / norms) @ Vh.conj().T
        scores = [_nmse_vec(target_val, Bv @ ((s / (s ** 2 + lam * s0 ** 2)) * b)) for lam in grid]
        i = int(np.nanargmin(scores))
        lam, how, val_nmse = float(grid[i]), "validation", float(scores[i])
    elif regularization is None or regularization == "gcv":
        # GCV(lambda) = N ||r||^2 / (N - dof)^2 with ||r||^2 = ||t||^2 - ||b||^2 + sum((1 - f)^2 |b|^2).
        n = A.shape[0]
        tt = np.vdot(target, target).real
        bb = np.abs(b) ** 2
        out = tt - bb.sum()
        scores = []
        for lam in grid:
            f = s2 / (s2 + lam)
            r2 = max(out + np.sum((1 - f) ** 2 * bb), 0.0)
            scores.append(n * r2 / max(n - f.sum(), 1e-9) ** 2)
        lam, how = float(grid[int(np.argmin(scores))]), "gcv"
    else:
        lam, how = float(regularization), "fixed"
    if lam > 0:
        g = s / (s ** 2 + lam * s0 ** 2)
        keep = s2 > lam
    else:
        keep = s > 1e-13 * s0
        g = np.where(keep, 1.0 / np.where(keep, s, 1.0), 0.0)
    w = (Vh.conj().T @ (g * b)) / norms
    if not np.all(np.isfinite(w)):
        raise DPDError("y: estimation produced non-finite coefficients (ill-conditioned basis)")
    dof = float(np.sum(s2 / (s2 + lam))) if lam > 0 else float(np.sum(keep))
    fit = _nmse_vec(target, phi @ w)
    return Solution(w, lam, cond, int(np.sum(keep)), dof, fit, how, val_nmse)


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
    need = int(math.ceil(min_samples_per_coefficient * ncol))
    if rows < need:
        raise DPDError(f"x: capture too short: {rows} usable samples after alignment for {ncol} "
                       f"unknowns (need at least {need} = {min_samples_per_coefficient} per unknown)")


# A sample whose magnitude exceeds this many times the capture's robust RMS is a glitch (an ADC
# overload, a dropped packet patched with garbage), not signal: 24 x RMS is a 27.6 dB peak-to-average
# ratio, far above any communication signal's. Such samples are zeroed before alignment and the rows
# that touch them are left out of the fit, so one glitch cannot bias the delay, the gain or the
# coefficients. More than 1 % of them means the capture itself is bad.
OUTLIER_FACTOR = 24.0
MAX_OUTLIER_FRACTION = 0.01


def _outlier_mask(name, v):
    mag = np.abs(v)
    # median |v| of a complex Gaussian is sqrt(ln 2) x RMS; robust to the outliers themselves.
    rms = np.median(mag) / math.sqrt(math.log(2.0))
    bad = mag > OUTLIER_FACTOR * rms if rms > 0 else np.zeros(v.size, dtype=bool)
    if bad.sum() > MAX_OUTLIER_FRACTION * v.size:
        raise DPDError(f"{name}: {int(bad.sum())} of {v.size} samples exceed {OUTLIER_FACTOR:g} x the "
                       "capture's robust RMS: the capture is clipped, corrupted or not a PA signal")
    return bad


def _prepare(x, y, model, target_gain, delay, max_delay, fractional):
    """Align y to x and normalise it by the gain. Returns (xa, yn, delay, G, bad) with ``bad`` the
    aligned rows that an outlier sample touches (excluded from every fit)."""
    bx, by = _outlier_mask("x", x), _outlier_mask("y", y)
    if bx.any() or by.any():
        x, y = np.where(bx, 0, x), np.where(by, 0, y)
    xa, ya, d = align(x, y, delay=delay, max_delay=max_delay, fractional=fractional)
    if xa.size == 0 or not np.any(xa) or not np.any(ya):
        raise DPDError(f"x: capture too short: no usable overlap of x and y after aligning by {d:.3f} "
                       "samples")
    bad = np.zeros(xa.size, dtype=bool)
    if bx.any() or by.any():
        # Map the glitches onto the aligned grid, widened by the interpolation window of the shift.
        _, first = fractional_shift(np.zeros(x.size), float(d))
        idx = np.arange(xa.size) + first
        near = np.convolve(by.astype(float), np.ones(2 * 24 + 3), mode="same") > 0
        shift = int(math.floor(d))
        src = np.clip(idx + shift, 0, y.size - 1)
        bad = bx[idx] | near[src]
    good = ~bad
    if target_gain is None or target_gain == 0:
        G = ls_gain(xa, ya, good)
    else:
        G = complex(target_gain)
    if not np.isfinite(G) or abs(G) < 1e-12:
        raise DPDError(f"target_gain: gain {G} is zero or not finite (y uncorrelated with x? "
                       "check the delay range and the loopback)")
    return xa, ya / G, d, complex(G), bad


def _rows(model, n, bad=None):
    """Rows of a length-n capture whose basis window lies inside it and touches no bad sample."""
    m = _spec.parse(model)
    terms = _spec.term_list(m)
    back = max(max(l, j) for l, j, _, _ in terms)
    ahead = max([-j for _, j, _, _ in terms] + [0])
    ok = np.zeros(n, dtype=bool)
    ok[back:n - ahead] = True
    if bad is not None and bad.any():
        # a row reads samples n-back .. n+ahead
        hit = np.convolve(bad.astype(float), np.ones(back + ahead + 1), mode="full")
        ok &= hit[ahead:ahead + n] == 0
    return ok


def ls_gain(x, y, rows=None):
    """Least-squares complex gain G of y ~ G x (over ``rows``, a boolean mask, when given); 0 for an
    all-zero x."""
    if rows is not None:
        x, y = x[rows], y[rows]
    den = np.vdot(x, x).real
    return complex(np.vdot(x, y) / den) if den > 0 else 0j


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
    rng = np.random.default_rng(seed)
    g = ls_gain(yn, xa, ok)
    rms = math.sqrt(np.mean(np.abs(yn[ok]) ** 2))
    n = (rng.standard_normal(yn.size) + 1j * rng.standard_normal(yn.size)) * (perturbation * rms / math.sqrt(2))
    return design(yn + n)[ok], xa[ok] + g * n[ok]


def _fit(xa, yn, model, regularization, max_condition, lo_leakage, min_samples_per_coefficient,
         bad=None, validation=None, perturbation=0.0):
    """Fit x ~ f(yn) + c.

    With ``regularization`` None, lambda is chosen on held-out data: the ``validation`` pair
    (x_val, y_val, already normalised) when given, else the last 20 % of this capture (fitted on the
    first 80 % for the choice, then refitted on everything). The held-out score is the NMSE of the
    model *run over the held-out samples from a zero initial state*, as a predistorter or PA model
    block would run it. That matters on oversampled captures: their basis columns are nearly
    collinear, a barely-regularised fit balances large coefficients of opposite sign, and such a model
    explodes as soon as its input leaves the captured signal's manifold (a start-up transient, a
    predistorted signal). Scoring the run exposes it; scoring only steady-state rows would not."""
    m = _spec.parse(model)
    ok = _rows(m, xa.size, bad)

    def design(v, history=None):
        p = _spec.basis(v, m, history)
        if lo_leakage:
            p = np.hstack([p, np.ones((p.shape[0], 1), dtype=np.complex128)])
        return p

    full = design(yn)
    phi, target = full[ok], xa[ok]
    _require_rows(phi.shape[0], phi.shape[1], min_samples_per_coefficient)
    if perturbation:
        pphi, ptarget = _probe_rows(yn, xa, ok, design, perturbation)
    reg, how, val = regularization, None, float("nan")
    if reg is None:
        ahead = m.lookahead
        vhist = None
        if validation is not None:
            xv, yv = (np.asarray(v, dtype=np.complex128).ravel() for v in validation[:2])
            vhist = validation[2] if len(validation) > 2 else None
            fit_rows = ok
        else:
            cut = int(xa.size * 0.8)
            xv, yv = xa[cut:], yn[cut:]
            fit_rows = ok & (np.arange(xa.size) < cut)
        okv = np.ones(xv.size, dtype=bool)
        if ahead:
            okv[-ahead:] = False
        if bad is not None and validation is None:
            okv &= ~bad[xa.size - xv.size:]
        if fit_rows.sum() >= phi.shape[1] and okv.sum() > 0:
            fphi, ftarget = full[fit_rows], xa[fit_rows]
            if perturbation:
                keep = fit_rows[ok]
                fphi, ftarget = np.vstack([fphi, pphi[keep]]), np.concatenate([ftarget, ptarget[keep]])
            pre = solve_regularized(fphi, ftarget, None, design(yv, vhist)[okv], xv[okv])
            reg, val = pre.regularization, pre.validation_nmse_db
            how = "validation" if validation is not None else "holdout"
    if how == "validation":
        sol = pre  # fitted on every row already: no refit
    else:
        if perturbation:
            phi, target = np.vstack([phi, pphi]), np.concatenate([target, ptarget])
        sol = solve_regularized(phi, target, reg)
    if perturbation:
        sol.fit_nmse_db = _nmse_vec(xa[ok], full[ok] @ sol.w)  # the capture's rows, not the probes
    if how:
        sol.selected_by, sol.validation_nmse_db = how, val
    if max_condition is not None and not sol.condition < max_condition:
        raise DPDError(f"y: basis matrix is ill-conditioned (condition number {sol.condition:.3g} >= "
                       f"max_condition {max_condition:.3g}); the capture does not excite the model "
                       "(constant envelope? too few distinct amplitudes?) or the model is too large for it")
    w = sol.w
    c = complex(w[-1]) if lo_leakage else 0j
    coeffs = w[:-1] if lo_leakage else w
    return coeffs, c, sol, phi.shape[0]


def estimate(x, y, P=None, Q=None, Lp=None, Lq=None, target_gain=None, regularization=None, delay=None,
             max_delay=None, fractional=True, lo_leakage=True, max_condition=None,
             min_samples_per_coefficient=10, model=None, validation=None, perturbation=0.0):
    """Indirect-learning estimate of predistorter coefficients from one capture.

    x: PA input (the predistorter output), y: PA output (loopback capture), same length. The model is
    the parallel Hammerstein (P, Q, Lp, Lq) or any spec of :mod:`gnuradio.gpuinterp.dpd_model`
    (``model="gmp:Ka=5,La=8,Kb=3,Lb=4,Mb=2"``). Swapping x and y fits a forward (PA) model instead.
    Steps: align y to x (integer delay by cross-correlation, fractional by band-limited interpolation;
    pass ``delay`` to skip the search); exclude outlier samples (beyond 24 x the robust RMS); normalise
    y by the complex gain G (``target_gain``; None measures the least-squares gain of this capture,
    y ~ G x); fit the post-inverse x ~ f(y/G) by regularised least squares on the column-normalised
    basis (:func:`solve_regularized`). ``regularization`` None chooses lambda on held-out data: the
    ``validation`` pair (x_val, y_val, same roles as x, y, already aligned) when given, else the last
    20 % of this capture; a number fixes it (relative to the largest squared singular value). The
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
    (docs/dpd_loop.md gives the APA_200MHz figures). 0 (default) fits the capture alone."""
    m = _model_of(P, Q, Lp, Lq, model)
    if regularization is not None and regularization != "gcv" and not (
            isinstance(regularization, (int, float)) and regularization >= 0 and math.isfinite(regularization)):
        raise DPDError(f"regularization: must be None (choose on held-out data) or finite and >= 0, "
                       f"got {regularization}")
    if not (isinstance(perturbation, (int, float)) and math.isfinite(perturbation) and 0 <= perturbation <= 1):
        raise DPDError(f"perturbation: must be a number in [0, 1] (relative RMS of the probe noise), "
                       f"got {perturbation}")
    x, y = _check_pair(x, y)
    xa, yn, d, G, bad = _prepare(x, y, m, target_gain, delay, max_delay, fractional)
    if validation is not None:
        xv, yv = _check_pair(*validation[:2])
        vh = None if len(validation) < 3 or validation[2] is None else np.asarray(validation[2]) / G
        validation = (xv, yv / G, vh)
    coeffs, c, sol, rows = _fit(xa, yn, m, regularization, max_condition, lo_leakage,
                                min_samples_per_coefficient, bad, validation, float(perturbation))
    good = ~bad
    raw = nmse_db(xa[good], yn[good])
    ph = m.params if m.family == "ph" else (0, 0, 1, 1)
    return EstimateResult(coeffs, c, sol.fit_nmse_db, raw, d, G, sol.condition, rows, *ph, rank=sol.rank,
                          regularization=sol.regularization,
                          regularization_selected_by=sol.selected_by,
                          validation_nmse_db=sol.validation_nmse_db, outliers=int(bad.sum()),
                          model=str(m))


# ----------------------------------------------------------------------------------------------
# Iterations
# ----------------------------------------------------------------------------------------------

@dataclass
class StepResult:
    """One adaptation step. ``coefficients``/``lo_leakage``: what the predistorter should use now.
    ``loop_nmse_db``: NMSE of x against f_current(y/G) on this capture, the indirect-learning error of
    the coefficients that were in use while it was captured (0 when perfectly linearised, the raw PA
    distortion with the identity predistorter). ``status``: "updated", "rolled back" or "refused"."""
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

    @property
    def accepted(self):
        return self.status == "updated"


class Adaptation:
    """Closed-loop indirect learning with damping and rollback.

    Call :meth:`step` with each capture (x: predistorter output = PA input, y: PA output) taken while
    the predistorter ran with :attr:`coefficients`. Each step measures the loop NMSE of the coefficients
    in use, then either

    * rolls back to the best coefficient set seen so far when the loop NMSE is worse than the best by
      more than ``rollback_tolerance_db`` (and halves the damping, down to ``min_damping``), or
    * estimates the post-inverse w_est from this capture and moves w <- w + damping (w_est - w).

    A capture that cannot be estimated (see :func:`estimate`) or would give coefficients failing the
    sanity checks (non-finite, predistorter gain on y/G beyond +-``max_gain_db``) leaves the coefficients
    unchanged; the step says "refused" and why. The gain G is measured on the first capture and then
    held (``target_gain`` fixes it), so the linearised PA keeps one gain across iterations.

    A measured G is only as good as the capture it came from: a first capture taken during an RX gain
    glitch would hold a wrong G, and every later step would be refused or rolled back. So each capture's
    own gain is compared with the held G; a capture off by more than ``max_gain_db`` is refused, and
    when ``GAIN_RELOCK_CAPTURES`` consecutive captures agree that G is off, G is measured again on the
    latest one (and the best-so-far record, whose NMSE was measured with the old G, is dropped). A
    ``target_gain`` given by the caller is never replaced."""

    GAIN_RELOCK_CAPTURES = 3

    def __init__(self, P, Q, Lp, Lq, damping=0.8, target_gain=None, rollback_tolerance_db=0.5,
                 min_damping=0.1, max_gain_db=10.0, lock_delay=False, initial_coefficients=None,
                 initial_lo_leakage=0j, model=None, **estimate_kwargs):
        self.model = _model_of(P, Q, Lp, Lq, model)
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
        self.target_gain = None if target_gain is None or target_gain == 0 else complex(target_gain)
        if self.target_gain is not None and not np.isfinite(self.target_gain):
            raise DPDError(f"target_gain: must be finite (0 or None: measure it), got {target_gain}")
        self._gain_fixed = self.target_gain is not None
        self._gain_mismatches = 0
        self.lock_delay = bool(lock_delay)
        self.delay = None
        self.estimate_kwargs = dict(estimate_kwargs)
        K = self.model.num_coefficients
        if initial_coefficients is None or len(initial_coefficients) == 0:
            initial_coefficients = np.zeros(K, dtype=np.complex128)
            initial_coefficients[0] = 1.0  # the first term of every family is x[n]
        self.coefficients = _as_complex_vector("initial_coefficients", initial_coefficients).copy()
        if self.coefficients.size != K or not np.all(np.isfinite(self.coefficients)):
            raise DPDError(f"initial_coefficients: expected {K} finite values for {self.model}, "
                           f"got {self.coefficients.size}")
        self.lo_leakage = complex(initial_lo_leakage)
        if not np.isfinite(self.lo_leakage):
            raise DPDError(f"initial_lo_leakage: must be finite, got {initial_lo_leakage}")
        self.best = None  # (loop_nmse_db, coefficients, lo_leakage)
        self.iteration = 0
        self.history = []

    def _refuse(self, reason, **kw):
        r = StepResult(self.iteration, "refused", self.coefficients.copy(), self.lo_leakage,
                       damping=self.damping, reason=reason, **kw)
        self.history.append(r)
        return r

    def step(self, x, y):
        self.iteration += 1
        kw = dict(self.estimate_kwargs)
        m = self.model
        try:
            x, y = _check_pair(x, y)
            xa, yn, d, G, bad = _prepare(x, y, m, self.target_gain, self.delay if self.lock_delay else None,
                                         kw.get("max_delay"), kw.get("fractional", True))
        except DPDError as e:
            return self._refuse(str(e))
        if self.target_gain is not None and not self._gain_fixed:
            ratio = ls_gain(xa, yn, ~bad)  # this capture's gain relative to the held G
            off_db = 20 * math.log10(max(abs(ratio), 1e-300))
            if abs(off_db) > self.max_gain_db:
                self._gain_mismatches += 1
                if self._gain_mismatches < self.GAIN_RELOCK_CAPTURES:
                    return self._refuse(f"target_gain: this capture's gain is {off_db:+.1f} dB off the held G "
                                        f"(beyond +-max_gain_db {self.max_gain_db:g} dB): a glitch in this "
                                        f"capture, or the loop gain changed ({self._gain_mismatches} of "
                                        f"{self.GAIN_RELOCK_CAPTURES} before G is measured again)",
                                        delay=d, gain=G)
                # Consecutive captures agree: the held G is the outlier. Measure it again, on this
                # capture (already aligned: only its normalisation changes).
                if not abs(G * ratio) >= 1e-12:
                    return self._refuse(f"target_gain: gain {G * ratio} is zero (y uncorrelated with x? "
                                        "check the delay range and the loopback)", delay=d, gain=G)
                G, yn = G * ratio, yn / ratio
                self.target_gain, self.best, self._gain_mismatches = None, None, 0
            else:
                self._gain_mismatches = 0
        try:
            ok = _rows(m, xa.size, bad)
            _require_rows(int(ok.sum()), m.num_coefficients + int(kw.get("lo_leakage", True)),
                          kw.get("min_samples_per_coefficient", 10))
            f_cur = _spec.apply(yn, m, self.coefficients, self.lo_leakage)
            loop = nmse_db(xa[ok], f_cur[ok])
        except DPDError as e:
            return self._refuse(str(e), delay=d, gain=G)
        if self.target_gain is None:
            self.target_gain = G
        if self.lock_delay and self.delay is None:
            self.delay = d
        if self.best is not None and loop > self.best[0] + self.rollback_tolerance_db:
            best_nmse, w, c = self.best
            self.coefficients, self.lo_leakage = w.copy(), c
            self.damping = max(self.min_damping, self.damping / 2)
            r = StepResult(self.iteration, "rolled back", w.copy(), c, loop, float("nan"), d, G,
                           damping=self.damping,
                           reason=f"loop NMSE {loop:.2f} dB is worse than the best {best_nmse:.2f} dB")
            self.history.append(r)
            return r
        if self.best is None or loop < self.best[0]:
            self.best = (loop, self.coefficients.copy(), self.lo_leakage)
        try:
            coeffs, c, sol, _ = _fit(xa, yn, m, kw.get("regularization"), kw.get("max_condition"),
                                     kw.get("lo_leakage", True), kw.get("min_samples_per_coefficient", 10),
                                     bad)
        except DPDError as e:
            return self._refuse(str(e), loop_nmse_db=loop, delay=d, gain=G)
        mu = self.damping
        w_new = self.coefficients + mu * (coeffs - self.coefficients)
        c_new = self.lo_leakage + mu * (c - self.lo_leakage)
        if not (np.all(np.isfinite(w_new)) and np.isfinite(c_new)):
            return self._refuse("coefficients: update is not finite", loop_nmse_db=loop, delay=d, gain=G)
        z = _spec.apply(yn, m, w_new, c_new)[ok]
        g_db = 10 * math.log10(max(np.vdot(z, z).real, 1e-300) / np.vdot(yn[ok], yn[ok]).real)
        if abs(g_db) > self.max_gain_db:
            return self._refuse(f"coefficients: predistorter gain {g_db:.1f} dB on the capture exceeds "
                                f"+-max_gain_db {self.max_gain_db:g} dB", loop_nmse_db=loop, delay=d,
                                gain=G)
        self.coefficients, self.lo_leakage = w_new, complex(c_new)
        r = StepResult(self.iteration, "updated", w_new.copy(), complex(c_new), loop, sol.fit_nmse_db, d, G,
                       sol.condition, mu)
        self.history.append(r)
        return r


# ----------------------------------------------------------------------------------------------
# Coefficient files
# ----------------------------------------------------------------------------------------------

MODEL_TEXT = ("z[n] = sum_{p=1,3..P} sum_{k<Lp} h[p,k] x[n-k]|x[n-k]|^(p-1) + "
              "sum_{q=1,3..Q} sum_{k<Lq} g[q,k] conj(x[n-k]|x[n-k]|^(q-1)) + c")
LAYOUT_TEXT = "main branches p=1,3..P each with Lp taps (k=0 first), then conjugate branches q=1,3..Q " \
              "each with Lq taps"


def save_coefficients(path, coefficients, lo_leakage, P, Q, Lp, Lq, fmt=None, **extra):
    """Write coefficients as JSON (``fmt='json'``) or CSV (``'csv'``); the format follows the file
    extension when ``fmt`` is None. JSON: {"model", "layout", "P", "Q", "Lp", "Lq",
    "coefficients": [[re, im], ...], "lo_leakage": [re, im], ...extra}. CSV: one row per coefficient,
    ``index,branch,order,tap,real,imag`` with branch "h" (main) or "g" (conjugate), then a row
    ``-1,c,0,0,re,im`` for the LO-leakage term."""
    w = _check_coefficients(coefficients, P, Q, Lp, Lq)
    c = complex(lo_leakage)
    fmt = fmt or ("csv" if str(path).lower().endswith(".csv") else "json")
    if fmt == "json":
        doc = {"model": MODEL_TEXT, "layout": LAYOUT_TEXT, "P": int(P), "Q": int(Q), "Lp": int(Lp),
               "Lq": int(Lq), "coefficients": [[float(v.real), float(v.imag)] for v in w],
               "lo_leakage": [c.real, c.imag]}
        for k, v in extra.items():
            doc[k] = [v.real, v.imag] if isinstance(v, complex) else v
        _spec.write_json_lines(path, doc)
    elif fmt == "csv":
        with open(path, "w", newline="") as f:
            f.write(f"# {MODEL_TEXT}\n# P={int(P)} Q={int(Q)} Lp={int(Lp)} Lq={int(Lq)}\n")
            out = csv.writer(f, lineterminator="\n")
            out.writerow(["index", "branch", "order", "tap", "real", "imag"])
            for i, ((order, conj, tap), v) in enumerate(zip(branch_layout(P, Q, Lp, Lq), w)):
                out.writerow([i, "g" if conj else "h", order, tap, f"{v.real:.17g}", f"{v.imag:.17g}"])
            out.writerow([-1, "c", 0, 0, f"{c.real:.17g}", f"{c.imag:.17g}"])
    else:
        raise DPDError(f"fmt: must be 'json' or 'csv', got {fmt!r}")


def load_coefficients(path):
    """Read a file written by :func:`save_coefficients`; returns a dict with P, Q, Lp, Lq,
    coefficients (complex ndarray) and lo_leakage."""
    with open(path) as f:
        text = f.read()
    if text.lstrip().startswith("{"):
        doc = json.loads(text)
        w = np.array([complex(a, b) for a, b in doc["coefficients"]])
        out = {k: doc[k] for k in ("P", "Q", "Lp", "Lq")}
        out["coefficients"] = w
        out["lo_leakage"] = complex(*doc.get("lo_leakage", [0.0, 0.0]))
        _check_coefficients(w, out["P"], out["Q"], out["Lp"], out["Lq"])
        return out
    hdr = {}
    rows, c = [], 0j
    data = []
    for line in text.splitlines():
        if line.startswith("#"):
            for tok in line[1:].split():
                if "=" in tok:
                    k, v = tok.split("=", 1)
                    if k in ("P", "Q", "Lp", "Lq"):
                        hdr[k] = int(v)
        elif line.strip() and not line.startswith("index"):
            data.append(line)
    for f in csv.reader(data):
        if f[1] == "c":
            c = complex(float(f[4]), float(f[5]))
        else:
            rows.append(complex(float(f[4]), float(f[5])))
    if set(hdr) != {"P", "Q", "Lp", "Lq"}:
        raise DPDError(f"path: {path} has no '# P=.. Q=.. Lp=.. Lq=..' header")
    w = np.array(rows)
    _check_coefficients(w, hdr["P"], hdr["Q"], hdr["Lp"], hdr["Lq"])
    return dict(hdr, coefficients=w, lo_leakage=c)
