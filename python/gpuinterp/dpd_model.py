# SPDX-License-Identifier: GPL-3.0-or-later
"""One description of the predistorter / PA model families, their coefficient layouts and their basis
matrices in double precision.

A model is written as a spec string ``family:key=value,...``, the same grammar the C++ kernel parses
(``gr::gpuinterp::kernel::dpd_model``), GRC shows, JSON files store and the command-line tools take:

``ph:P=5,Q=3,Lp=4,Lq=2``
    Parallel Hammerstein (odd orders, optional conjugate branches); layout as
    :func:`gnuradio.gpuinterp.dpd.branch_layout`.
``mp:K=9,M=20``
    All-order memory polynomial (even orders included):
    y[n] = sum_{k=1..K} sum_{m<M} a_{k,m} x[n-m] |x[n-m]|^(k-1); order k outer, tap m inner.
``gmp:Ka=5,La=30,Kb=4,Lb=30,Mb=5,Kc=4,Lc=30,Mc=5``
    Generalised memory polynomial (Morgan et al., IEEE Trans. SP 54(10), 2006)::

        y[n] = sum_{k<Ka} sum_{l<La} a_kl x[n-l]|x[n-l]|^k
             + sum_{k=1..Kb} sum_{l<Lb} sum_{m=1..Mb} b_klm x[n-l]|x[n-l-m]|^k     (lagging envelope)
             + sum_{k=1..Kc} sum_{l<Lc} sum_{m=1..Mc} c_klm x[n-l]|x[n-l+m]|^k     (leading envelope)

    Coefficients: all a (k outer, l inner), then all b (k, l, m innermost), then all c (same). Missing
    b/c keys are 0 (no such terms). ``mp:K,M`` is ``gmp:Ka=K,La=M`` with the same coefficient order.

Every family adds a separate complex constant (LO leakage). Leading-envelope terms look ahead by
``lookahead = Mc`` samples; the streaming kernel and the block therefore delay their output by that
many samples (out[i] = y[i - lookahead]), and :func:`basis` computes the undelayed y[n], with the
look-ahead samples past the end of x taken as zero unless ``future`` is given.
"""

from dataclasses import dataclass

import numpy as np

from . import gpuinterp_python as _gi

__all__ = ["ModelSpec", "parse", "basis", "apply", "term_list"]

# The spec is owned by the C++ kernel (kernel::dpd_model, bound as dpd_model_spec): its parser is
# the only one, so the predistorter, the estimator, the PA models, the scoreboard and model files give
# one verdict and one message for every spec, and a spec too large is refused before any term list is
# built. Its bounds reach Python from there.
_cpp = _gi.dpd_model_spec
MAX_ORDER = _cpp.MAX_ORDER
MAX_LAG = _cpp.MAX_LAG
MAX_COEFFICIENTS = _cpp.MAX_COEFFICIENTS

# The coefficient layout of each family, in C++'s key order: numpy builds its basis from it.
_KEYS = {
    "ph": ("P", "Q", "Lp", "Lq"),
    "mp": ("K", "M"),
    "gmp": ("Ka", "La", "Kb", "Lb", "Mb", "Kc", "Lc", "Mc"),
}


class ModelError(ValueError):
    """A malformed model spec; the message starts with ``model:`` and names the key."""


@dataclass(frozen=True)
class ModelSpec:
    family: str
    params: tuple  # values in the family's key order

    def __getattr__(self, key):
        keys = _KEYS.get(object.__getattribute__(self, "family"), ())
        if key in keys:
            return self.params[keys.index(key)]
        raise AttributeError(key)

    def __str__(self):
        return self.family + ":" + ",".join(f"{k}={v}" for k, v in zip(_KEYS[self.family], self.params))

    @property
    def name(self):
        return str(self)

    def as_gmp(self):
        """(Ka, La, Kb, Lb, Mb, Kc, Lc, Mc) for mp and gmp."""
        if self.family == "mp":
            return (self.K, self.M, 0, 0, 0, 0, 0, 0)
        if self.family == "gmp":
            return self.params
        raise ModelError(f"model: {self} is not a memory-polynomial family")

    @property
    def lookahead(self):
        """Output delay of a streaming implementation (gmp leading-envelope terms; else 0)."""
        return int(_cpp.parse(str(self)).lookahead())

    @property
    def history(self):
        """Past input samples a streaming implementation carries between calls."""
        return int(_cpp.parse(str(self)).history())

    @property
    def num_coefficients(self):
        return _cpp.parse(str(self)).num_coefficients()


def parse(spec):
    """Parse a spec string (or pass a :class:`ModelSpec` or a C++ ``dpd_model_spec`` through) with
    the C++ parser; raises :class:`ModelError` with its message."""
    if isinstance(spec, ModelSpec):
        return spec
    if isinstance(spec, _cpp):
        spec = str(spec)
    if not isinstance(spec, str):
        raise ModelError(f"model: expected a spec string like 'gmp:Ka=5,La=30', got {type(spec).__name__}")
    try:
        c = _cpp.parse(spec)
    except ValueError as e:
        raise ModelError(str(e)) from None
    fam = c.family()
    return ModelSpec(fam, tuple(int(getattr(c, k)) for k in _KEYS[fam]))


def term_list(m):
    """One (signal lag l, envelope lag j, power k, conjugate) per coefficient, in layout order:
    the term is x[n-l] |x[n-j]|^k (conjugated for conjugate-branch terms of ph). ph: power p-1."""
    m = parse(m)
    if m.family == "ph":
        t = [(k, k, p - 1, False) for p in range(1, m.P + 1, 2) for k in range(m.Lp)]
        if m.Q:
            t += [(k, k, q - 1, True) for q in range(1, m.Q + 1, 2) for k in range(m.Lq)]
        return t
    Ka, La, Kb, Lb, Mb, Kc, Lc, Mc = m.as_gmp()
    t = [(l, l, k, False) for k in range(Ka) for l in range(La)]
    if Kb and Lb and Mb:
        t += [(l, l + q, k, False) for k in range(1, Kb + 1) for l in range(Lb) for q in range(1, Mb + 1)]
    if Kc and Lc and Mc:
        t += [(l, l - q, k, False) for k in range(1, Kc + 1) for l in range(Lc) for q in range(1, Mc + 1)]
    return t


def basis(x, model, history=None, future=None):
    """Basis matrix (len(x) x num_coefficients, complex128): y = basis @ coefficients + c, undelayed.

    Samples before x[0] come from ``history`` (oldest first) or are zero; look-ahead samples after
    x[-1] come from ``future`` or are zero."""
    m = parse(model)
    x = np.asarray(x, dtype=np.complex128).ravel()
    terms = term_list(m)
    n = x.size
    back = max([max(l, j) for l, j, _, _ in terms] + [0])
    ahead = max([-j for _, j, _, _ in terms] + [0])
    pre = np.zeros(back, dtype=np.complex128)
    if history is not None and back:
        h = np.asarray(history, dtype=np.complex128).ravel()[-back:]
        pre[back - h.size:] = h
    post = np.zeros(ahead, dtype=np.complex128)
    if future is not None and ahead:
        f = np.asarray(future, dtype=np.complex128).ravel()[:ahead]
        post[:f.size] = f
    xe = np.concatenate([pre, x, post])
    r = np.abs(xe)
    pw = {0: np.ones_like(r)}
    for k in range(1, max(t[2] for t in terms) + 1):
        pw[k] = pw[k - 1] * r
    phi = np.empty((n, len(terms)), dtype=np.complex128)
    for c, (l, j, k, conj) in enumerate(terms):
        sig = xe[back - l:back - l + n]
        v = sig * pw[k][back - j:back - j + n]
        phi[:, c] = np.conj(v) if conj else v
    return phi


def apply(x, model, coefficients, lo_leakage=0j, history=None, future=None):
    """y = basis(x) @ coefficients + lo_leakage in double precision (undelayed, zero initial state)."""
    w = np.asarray(coefficients, dtype=np.complex128).ravel()
    m = parse(model)
    if w.size != m.num_coefficients:
        raise ModelError(f"coefficients: expected {m.num_coefficients} values for {m}, got {w.size}")
    return basis(x, m, history, future) @ w + complex(lo_leakage)


class StreamingModel:
    """Streaming double-precision implementation of any family, with the conventions of the C++
    kernel: ``process(x)`` returns len(x) outputs, out[i] = y[i - lookahead] (zero history before
    the stream), chunking never changes the output; ``set_coefficients`` takes effect for the outputs
    of the next call. The reference the kernel tests compare with (tests only)."""

    def __init__(self, model, coefficients, lo_leakage=0j):
        self.model = parse(model)
        self.set_coefficients(coefficients, lo_leakage)
        self.delay = self.model.lookahead
        terms = term_list(self.model)
        self._back = max(max(l, j) for l, j, _, _ in terms)
        self._hist = np.zeros(self._back + self.delay, dtype=np.complex128)

    def set_coefficients(self, coefficients, lo_leakage=0j):
        w = np.asarray(coefficients, dtype=np.complex128).ravel()
        if w.size != self.model.num_coefficients:
            raise ModelError(f"coefficients: expected {self.model.num_coefficients} values for "
                             f"{self.model}, got {w.size}")
        if not np.all(np.isfinite(w)) or not np.isfinite(complex(lo_leakage)):
            raise ModelError("coefficients: contain NaN or infinity")
        self._w, self._c = w.copy(), complex(lo_leakage)

    def coefficients(self):
        return self._w.copy()

    def lo_leakage(self):
        return self._c

    def process(self, x):
        x = np.asarray(x, dtype=np.complex128).ravel()
        if x.size == 0:
            return np.zeros(0, dtype=np.complex128)
        buf = np.concatenate([self._hist, x])
        # out[i] = y[t] at t = i - delay: history of the first output = buf[:back], look-ahead = delay.
        n = x.size
        y = basis(buf[self._back:self._back + n], self.model, history=buf[:self._back],
                  future=buf[self._back + n:]) @ self._w + self._c
        if self._hist.size:
            self._hist = buf[-self._hist.size:]
        return y


# ----------------------------------------------------------------------------------------------
# Fitted models and their files
# ----------------------------------------------------------------------------------------------

@dataclass
class ModelFit:
    """A model of any family with its coefficients, e.g. a PA behavioural model fitted from a capture
    (:func:`fit_forward`) or a predistorter. ``nmse_db``: {"train", "val", "test"} (nan where no data);
    ``input_range``: the largest input magnitude seen in the fit, beyond which the polynomial
    extrapolates; ``regularization``, ``condition``, ``rank``: as :class:`gnuradio.gpuinterp.dpd.Solution`."""
    model: str
    coefficients: np.ndarray
    lo_leakage: complex = 0j
    nmse_db: dict = None
    input_range: float = float("inf")
    regularization: float = float("nan")
    condition: float = float("nan")
    rank: int = 0
    kind: str = "pa_model"

    def apply(self, x, history=None, future=None):
        """The model on x (undelayed, zero initial state unless ``history`` is given), float64."""
        return apply(x, self.model, self.coefficients, self.lo_leakage, history, future)


def save_model(path, fit, **extra):
    """Write a :class:`ModelFit` as JSON: {"kind", "model" (the spec), "coefficients": [[re, im], ..],
    "lo_leakage": [re, im], "input_range", "nmse_db", "regularization", "condition", "rank", ...extra}.
    One coefficient per line, so files diff well."""
    import math as _m

    def num(v):
        return None if isinstance(v, float) and not _m.isfinite(v) else v

    doc = {"kind": fit.kind, "model": str(parse(fit.model)),
           "coefficients": [[float(v.real), float(v.imag)] for v in np.asarray(fit.coefficients)],
           "lo_leakage": [float(complex(fit.lo_leakage).real), float(complex(fit.lo_leakage).imag)],
           "input_range": num(float(fit.input_range)),
           "nmse_db": {k: num(float(v)) for k, v in (fit.nmse_db or {}).items()},
           "regularization": num(float(fit.regularization)), "condition": num(float(fit.condition)),
           "rank": int(fit.rank)}
    doc.update(extra)
    write_json_lines(path, doc)


def write_json_lines(path, doc):
    """Plain JSON with one coefficient pair per line ("coefficients"), so files diff well."""
    import json

    lines = []
    for k, v in doc.items():
        if k == "coefficients":
            lines.append(f' "{k}": [\n  ' + ",\n  ".join(json.dumps(e) for e in v) + "\n ]")
        else:
            lines.append(f" {json.dumps(k)}: {json.dumps(v)}")
    with open(path, "w") as f:
        f.write("{\n" + ",\n".join(lines) + "\n}\n")


def load_model(path):
    """Read a file written by :func:`save_model` (or a predistorter coefficient file with a "model"
    spec); raises ModelError naming the file and the field on a malformed file."""
    import json

    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise ModelError(f"{path}: cannot read a model file ({e})") from None
    if not isinstance(doc, dict) or "model" not in doc or "coefficients" not in doc:
        raise ModelError(f"{path}: not a model file (needs the keys 'model' and 'coefficients')")
    try:
        m = parse(doc["model"])
    except ModelError as e:
        raise ModelError(f"{path}: {e}") from None
    try:
        w = np.array([complex(float(a), float(b)) for a, b in doc["coefficients"]])
        c = complex(*[float(v) for v in doc.get("lo_leakage", [0.0, 0.0])])
    except (TypeError, ValueError):
        raise ModelError(f"{path}: coefficients: expected a list of [re, im] pairs") from None
    if w.size != m.num_coefficients or not np.all(np.isfinite(w)) or not np.isfinite(c):
        raise ModelError(f"{path}: coefficients: expected {m.num_coefficients} finite values for {m}, "
                         f"got {w.size}")
    rng = doc.get("input_range")
    nm = {k: (float("nan") if v is None else float(v)) for k, v in (doc.get("nmse_db") or {}).items()}
    f = ModelFit(str(m), w, c, nm, float("inf") if rng is None else float(rng),
                 float(doc.get("regularization") or float("nan")), float(doc.get("condition") or float("nan")),
                 int(doc.get("rank") or 0), str(doc.get("kind", "pa_model")))
    return f
