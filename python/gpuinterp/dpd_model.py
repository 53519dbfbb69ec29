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

``gru:H=8,C=4,D=2`` and ``tdnn:M=4,H=16,N=2``
    The neural families of docs/neural_models.md: real float32 weights (``num_weights`` of them, in
    the document's layout) instead of complex coefficients, no LO leakage; model files carry them
    as ``"weights"``. They run on the C++ kernel (:func:`gnuradio.gpuinterp.dpd.make_neural_engine`);
    :func:`basis` and :func:`term_list` are for the polynomial families only.

Every polynomial family adds a separate complex constant (LO leakage). Leading-envelope terms look ahead by
``lookahead = Mc`` samples; the streaming kernel and the block therefore delay their output by that
many samples (out[i] = y[i - lookahead]), and :func:`basis` computes the undelayed y[n], with the
look-ahead samples past the end of x taken as zero unless ``future`` is given.
"""

from dataclasses import dataclass, field

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

NEURAL_FAMILIES = ("gru", "tdnn")

# The engines compute in float32: a coefficient beyond its range would become inf there, and the
# block would fail (or output inf) far from the file that caused it.
FLOAT32_MAX = float(np.finfo(np.float32).max)


class ModelError(ValueError):
    """A malformed model spec (the message starts with ``model:`` and names the key) or model file
    (the message starts with the file's path, then the field)."""


@dataclass(frozen=True)
class ModelSpec:
    """A parsed spec: the family and its keys' values, both as the C++ class gives them (its keys,
    their order and their meaning live there only)."""
    family: str
    params: tuple  # values in the family's key order
    keys: tuple = ()  # the family's key names, same order
    text: str = ""  # the C++ class's canonical spelling
    # The bound C++ model the values came from: its counts and layout are asked of it, not of a
    # second parse of the text.
    cpp: object = field(default=None, compare=False, repr=False, hash=False)

    def _c(self):
        c = object.__getattribute__(self, "cpp")
        return c if c is not None else _cpp.parse(self.text)

    def __getattr__(self, key):
        keys = object.__getattribute__(self, "keys")
        if key in keys:
            return self.params[keys.index(key)]
        raise AttributeError(key)

    def __str__(self):
        return self.text

    @property
    def name(self):
        return str(self)

    @property
    def lookahead(self):
        """Output delay of a streaming implementation (gmp leading-envelope terms; else 0)."""
        return int(self._c().lookahead())

    @property
    def history(self):
        """Past input samples a streaming implementation carries between calls."""
        return int(self._c().history())

    @property
    def num_coefficients(self):
        return self._c().num_coefficients()

    @property
    def num_weights(self):
        """Real weights of a neural family (0 for the polynomial ones)."""
        return self._c().num_weights()

    @property
    def is_neural(self):
        return self.family in NEURAL_FAMILIES


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
    kv = c.keys()
    return ModelSpec(c.family(), tuple(int(v) for _, v in kv), tuple(k for k, _ in kv), c.to_string(), c)


def term_list(m):
    """One (signal lag l, envelope lag j, power k, conjugate) per coefficient, in layout order:
    the term is x[n-l] |x[n-j]|^k (conjugated for conjugate-branch terms of ph). The layout is the
    C++ model's (kernel::dpd_model::terms()); numpy only builds columns from it."""
    return [tuple(t) for t in parse(m)._c().terms()]


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


# Rows of the basis apply() builds at once: its memory is this many x K, whatever len(x) is (a
# capture of 2^22 samples through a 40-term model would otherwise hold a 2.7 GB basis).
APPLY_CHUNK = 16384


def apply(x, model, coefficients, lo_leakage=0j, history=None, future=None):
    """y = basis(x) @ coefficients + lo_leakage in double precision (undelayed, zero initial state),
    the basis built a chunk of rows at a time. A neural model takes its real weights as the
    ``coefficients`` (their real parts; no LO leakage) and runs on the C++ CPU kernel
    (:meth:`ModelFit.apply`)."""
    m = parse(model)
    if m.is_neural:
        w = np.real(np.asarray(coefficients)).ravel()
        if w.size != m.num_weights:
            raise ModelError(f"weights: expected {m.num_weights} values for {m}, got {w.size}")
        return ModelFit(str(m), np.zeros(0, dtype=np.complex128), kind="predistorter", weights=w).apply(
            x, history, future)
    w = np.asarray(coefficients, dtype=np.complex128).ravel()
    if w.size != m.num_coefficients:
        raise ModelError(f"coefficients: expected {m.num_coefficients} values for {m}, got {w.size}")
    x = np.asarray(x, dtype=np.complex128).ravel()
    c = complex(lo_leakage)
    if x.size <= APPLY_CHUNK:
        return basis(x, m, history, future) @ w + c
    # Each chunk's history and future are the neighbouring samples (or the caller's, at the ends).
    back, ahead = m.history - m.lookahead, m.lookahead
    h = np.zeros(0, dtype=np.complex128) if history is None or not back else \
        np.asarray(history, dtype=np.complex128).ravel()[-back:]
    f = np.zeros(0, dtype=np.complex128) if future is None or not ahead else \
        np.asarray(future, dtype=np.complex128).ravel()[:ahead]
    xe = np.concatenate([h, x, f])
    o = h.size
    y = np.empty(x.size, dtype=np.complex128)
    for s0 in range(0, x.size, APPLY_CHUNK):
        s1 = min(x.size, s0 + APPLY_CHUNK)
        y[s0:s1] = basis(xe[o + s0:o + s1], m, xe[max(0, o + s0 - back):o + s0],
                         xe[o + s1:o + s1 + ahead]) @ w
    return y + c


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
    weights: np.ndarray = None  # neural families: the real weights (coefficients then empty)
    training: dict = None  # how the model was made (the file's "training"), any family

    def apply(self, x, history=None, future=None):
        """The model on x (undelayed, zero initial state unless ``history`` is given), float64 for
        the polynomial families. A neural model runs on the C++ CPU kernel (float32), from the
        start of a stream (no ``history``), with ``future`` (or zeros) after x for its look-ahead."""
        if self.weights is not None:
            if history is not None:
                raise ModelError("history: a neural model starts from the start of its stream")
            from . import dpd_ph
            eng = dpd_ph.make_neural_engine(self.model, self.weights, backend="cpu")
            la = int(eng.delay())
            x = np.asarray(x, dtype=np.complex128).ravel()
            f = np.zeros(la, dtype=np.complex128)
            if future is not None and la:
                fu = np.asarray(future, dtype=np.complex128).ravel()[:la]
                f[:fu.size] = fu
            y = eng.process(np.concatenate([x, f]).astype(np.complex64))
            return np.asarray(y[la:], dtype=np.complex128)
        return apply(x, self.model, self.coefficients, self.lo_leakage, history, future)


# The file format lives in model_file.py; model files are read and written as dpd_model.load_model /
# save_model everywhere, so they are re-exported here (after the definitions model_file imports).
from .model_file import load_model, save_model  # noqa: E402,F401
