# SPDX-License-Identifier: GPL-3.0-or-later
"""The parallel-Hammerstein predistorter model (P, Q, Lp, Lq) in numpy, and the C++ engines.

The model is the one of ``gpuinterp.dpd_predistorter_cc`` (parallel Hammerstein, memory polynomial with
optional conjugate branches)::

    z[n] = sum_{p in 1,3,..,P} sum_{k<Lp} h[p,k] psi_p(x[n-k])
         + sum_{q in 1,3,..,Q} sum_{k<Lq} g[q,k] conj(psi_q(x[n-k]))  +  c,     psi_p(x) = x |x|^(p-1)

Q = 0 disables the conjugate branches. The coefficient layout is one flat complex vector: main branches
p = 1, 3, .., P, each with its Lp taps (k = 0 first), then conjugate branches q = 1, 3, .., Q, each with
Lq taps. Example P=3, Q=1, Lp=2, Lq=1: [h10, h11, h30, h31, g10]. c (LO leakage) is separate.
Any other family (mp, gmp) is a :mod:`gnuradio.gpuinterp.dpd_model` spec; (P, Q, Lp, Lq) is the
convenience that builds a ``ph:`` spec.
"""

import numpy as np

from . import dpd_model as _spec


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
    top, lag = _spec.MAX_ORDER, _spec.MAX_LAG  # the C++ model's bounds
    if P < 1 or P % 2 == 0 or P > top:
        raise DPDError(f"P: must be odd and in [1, {top}], got {P}")
    if Q < 0 or (Q > 0 and Q % 2 == 0) or Q > top:
        raise DPDError(f"Q: must be 0 (no conjugate branches) or odd and <= {top}, got {Q}")
    if not 1 <= Lp <= lag:
        raise DPDError(f"Lp: must be in [1, {lag}], got {Lp}")
    if not 1 <= Lq <= lag:
        raise DPDError(f"Lq: must be in [1, {lag}], got {Lq}")
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
    try:
        a = a.astype(dtype, copy=False)
    except (TypeError, ValueError):  # "complex() arg is a malformed string" names nothing
        text = repr(v)
        raise DPDError(f"{name}: must be a sequence of numbers, got "
                       f"{text if len(text) <= 60 else text[:57] + '...'}") from None
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


def make_engine(P, Q, Lp, Lq, coefficients, lo_leakage=0j, backend="cpu"):
    """A streaming predistorter engine: the C++ kernel ``gpuinterp.dpd_predistorter`` (SIMD CPU or CUDA,
    per ``backend``). :class:`~.dpd_model.StreamingModel` is the double-precision reference the tests compare it
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
    # The engine computes in float32, where a larger value becomes inf.
    big = np.flatnonzero(np.maximum(np.abs(w.real), np.abs(w.imag)) > _spec.FLOAT32_MAX)
    if big.size:
        raise DPDError(f"coefficients: element {big[0]} ({w[big[0]]}) is beyond the float32 range of the "
                       f"engine (|value| <= {_spec.FLOAT32_MAX:.4g})")
    c = complex(lo_leakage)
    if not np.isfinite(c) or max(abs(c.real), abs(c.imag)) > _spec.FLOAT32_MAX:
        raise DPDError(f"lo_leakage: must be finite and within the float32 range of the engine, got {c}")
    return _gi.dpd_predistorter(str(m), [complex(v) for v in w], complex(lo_leakage), backend=backend)


def make_neural_engine(model, weights, backend="cpu"):
    """A streaming engine for a neural model (``gru``, ``tdnn``; docs/neural_models.md): the C++
    kernel ``gpuinterp.dpd_predistorter`` with real float32 weights, CPU or CUDA. Its output is
    delayed by the model's look-ahead (``engine.delay()``); a gru's first ``delay()`` outputs are 0."""
    from gnuradio import gpuinterp as _gi

    m = _spec.parse(model)
    if not m.is_neural:
        raise DPDError(f"model: {m} is not a neural model ({', '.join(_spec.NEURAL_FAMILIES)}); it takes "
                       "coefficients (make_model_engine)")
    w = np.asarray(weights, dtype=np.float64).ravel()
    if w.size != m.num_weights or not np.all(np.isfinite(w)):
        raise DPDError(f"weights: expected {m.num_weights} finite values for {m}, got {w.size}")
    if w.size and np.max(np.abs(w)) > _spec.FLOAT32_MAX:
        raise DPDError(f"weights: beyond the float32 range of the engine (|value| <= {_spec.FLOAT32_MAX:.4g})")
    return _gi.dpd_predistorter(str(m), weights=w.astype(np.float32), backend=backend)


def _model_of(P, Q, Lp, Lq, model):
    """The model spec from either a spec (``model``) or the parallel-Hammerstein P, Q, Lp, Lq."""
    if model is not None:
        return _spec.parse(model)
    P, Q, Lp, Lq = validate_structure(P, Q, Lp, Lq)
    return _spec.parse(f"ph:P={P},Q={Q},Lp={Lp},Lq={Lq}")


def _check_pair(x, y):
    """x and y as complex vectors of one capture: equal lengths, finite, not all zeros, or DPDError
    naming the argument."""
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
