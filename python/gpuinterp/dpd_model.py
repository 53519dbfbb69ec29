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

import math
import os
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
    the basis built a chunk of rows at a time."""
    w = np.asarray(coefficients, dtype=np.complex128).ravel()
    m = parse(model)
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


def save_model(path, fit, **extra):
    """Write a :class:`ModelFit` as JSON: {"kind", "model" (the spec), "coefficients": [[re, im], ..],
    "lo_leakage": [re, im], "input_range", "nmse_db", "regularization", "condition", "rank", ...extra}.
    One coefficient per line, so files diff well. Non-finite numbers are written as null: NaN and
    Infinity are not JSON, and other readers refuse them."""
    import math as _m

    def num(v):
        return None if isinstance(v, float) and not _m.isfinite(v) else v

    m = parse(fit.model)
    if m.is_neural:
        # docs/neural_models.md: "weights" (float32 values written exactly), no coefficients and
        # no LO leakage; "training" says how they were made.
        w = np.asarray(fit.weights if fit.weights is not None else [], dtype=np.float32).ravel()
        if w.size != m.num_weights or not np.all(np.isfinite(w)):
            raise ModelError(f"weights: expected {m.num_weights} finite values for {m}, got {w.size}")
        doc = {"kind": fit.kind, "model": str(m), "weights": [float(v) for v in w]}
        if fit.training is not None:
            doc["training"] = fit.training
        if fit.nmse_db:
            doc["nmse_db"] = {k: num(float(v)) for k, v in fit.nmse_db.items()}
        doc.update({k: num(v) for k, v in extra.items()})
        write_json_lines(path, doc)
        return
    doc = {"kind": fit.kind, "model": str(parse(fit.model)),
           "coefficients": [[float(v.real), float(v.imag)] for v in np.asarray(fit.coefficients)],
           "lo_leakage": [float(complex(fit.lo_leakage).real), float(complex(fit.lo_leakage).imag)],
           "input_range": num(float(fit.input_range)),
           "nmse_db": {k: num(float(v)) for k, v in (fit.nmse_db or {}).items()},
           "regularization": num(float(fit.regularization)), "condition": num(float(fit.condition)),
           "rank": int(fit.rank)}
    if fit.training is not None:
        doc["training"] = fit.training
    doc.update({k: num(v) for k, v in extra.items()})
    write_json_lines(path, doc)


def write_json_lines(path, doc):
    """Plain JSON with one coefficient pair per line ("coefficients"), so files diff well."""
    import json

    lines = []
    for k, v in doc.items():
        if k == "coefficients":
            lines.append(f' "{k}": [\n  ' + ",\n  ".join(json.dumps(e) for e in v) + "\n ]")
        elif k == "weights":  # eight to a line
            rows = [", ".join(json.dumps(e) for e in v[i:i + 8]) for i in range(0, len(v), 8)]
            lines.append(f' "{k}": [\n  ' + ",\n  ".join(rows) + "\n ]")
        else:
            lines.append(f" {json.dumps(k)}: {json.dumps(v)}")
    with open(path, "w") as f:
        f.write("{\n" + ",\n".join(lines) + "\n}\n")


# The engines compute in float32: a coefficient beyond its range would become inf there, and the
# block would fail (or output inf) far from the file that caused it.
FLOAT32_MAX = float(np.finfo(np.float32).max)
MODEL_KINDS = ("pa_model", "predistorter")
NMSE_KEYS = ("train", "val", "test")
_FILE_FIELDS = ("kind", "model", "coefficients", "lo_leakage", "input_range", "nmse_db", "regularization",
                "condition", "rank", "weights", "training")


def _is_number(v):
    # bool is an int in Python and "1.5" converts with float(); neither is a number in a model file.
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _show(v, limit=60):
    t = repr(v)
    return t if len(t) <= limit else t[:limit - 3] + "..."


def _float32_pair(field, v):
    """A [re, im] pair of JSON numbers, finite and within float32 range, as a complex; else the
    reason (a string) it is not."""
    if not isinstance(v, list) or len(v) != 2 or not all(_is_number(e) for e in v):
        return f"must be a pair [re, im] of numbers, got {_show(v)}"
    try:
        re_, im_ = float(v[0]), float(v[1])
    except OverflowError:  # a JSON integer with hundreds of digits
        return f"{_show(v)} is beyond the float32 range of the engine (|value| <= {FLOAT32_MAX:.4g})"
    if not (math.isfinite(re_) and math.isfinite(im_)):
        return f"must be finite, got {_show(v)}"
    if abs(re_) > FLOAT32_MAX or abs(im_) > FLOAT32_MAX:
        return f"{_show(v)} is beyond the float32 range of the engine (|value| <= {FLOAT32_MAX:.4g})"
    return complex(re_, im_)


# A model file holds a few numbers per coefficient or weight: far below this.
MAX_MODEL_FILE_BYTES = 256 << 20


def _read_json(path):
    import json

    def no_duplicates(pairs):
        seen = set()
        for k, _ in pairs:
            if k in seen:
                # json.load keeps the last one silently; two values for a field is a broken file.
                raise ModelError(f"{path}: {k}: appears twice")
            seen.add(k)
        return dict(pairs)

    if os.path.isdir(path):
        raise ModelError(f"{path}: is a directory, not a model file")
    from .params import input_file_error

    err = input_file_error(path, MAX_MODEL_FILE_BYTES) if os.path.exists(path) else None
    if err:  # a FIFO would block open() forever, /dev/zero never end
        raise ModelError(f"{path}: {err}")
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise ModelError(f"{path}: cannot read a model file ({e.strerror or e})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ModelError(f"{path}: not a model file (not UTF-8 text: byte 0x{raw[e.start]:02x} at offset "
                         f"{e.start})") from None
    if not text.strip():
        raise ModelError(f"{path}: not a model file (the file is empty)")
    try:
        return json.loads(text, object_pairs_hook=no_duplicates)
    except json.JSONDecodeError as e:
        raise ModelError(f"{path}: not a model file (invalid JSON at line {e.lineno} column {e.colno}: "
                         f"{e.msg})") from None
    except RecursionError:
        raise ModelError(f"{path}: not a model file (JSON nested too deeply)") from None


def load_model(path):
    """Read a file written by :func:`save_model` (or a predistorter coefficient file with a "model"
    spec). A broken file raises ModelError (a ValueError) whose message starts with the file's path
    and names the field: "pa.json: lo_leakage: must be a pair [re, im] of numbers, got [1.0]".
    Coefficients and LO leakage must fit the engines' float32; fields other than those of
    :func:`save_model` are kept out of the fit (``save_model(**extra)`` writes them), but one that
    looks like a misspelt field is refused rather than ignored."""
    import difflib

    path = os.fspath(path)
    doc = _read_json(path)
    if not isinstance(doc, dict):
        raise ModelError(f"{path}: not a model file (expected a JSON object with 'model' and 'coefficients', "
                         f"got a JSON {type(doc).__name__})")

    def bad(field, why):
        return ModelError(f"{path}: {field}: {why}")

    for k in doc:
        if k not in _FILE_FIELDS:
            near = difflib.get_close_matches(k, _FILE_FIELDS, n=1, cutoff=0.8)
            if near and near[0] not in doc:
                raise bad(k, f"unknown field; did you mean {near[0]!r}?")
    if "model" not in doc:
        raise bad("model", "missing (a model file needs 'model' and 'coefficients' or 'weights')")

    kind = doc.get("kind", "pa_model")
    if kind not in MODEL_KINDS:
        raise bad("kind", f"must be one of {', '.join(map(repr, MODEL_KINDS))}, got {_show(kind)}")
    if not isinstance(doc["model"], str):
        raise bad("model", f"must be a spec string like 'gmp:Ka=5,La=30', got {_show(doc['model'])}")
    if not doc["model"].isascii():
        # int() reads other scripts' digits ("Ka=\uff15" is 5); a spec is plain ASCII.
        raise bad("model", f"must be plain ASCII, got {_show(doc['model'])}")
    try:
        m = parse(doc["model"])
    except ModelError as e:
        raise ModelError(f"{path}: {e}") from None
    if m.is_neural:
        return _load_neural(path, doc, m, kind, bad)
    if "coefficients" not in doc:
        raise bad("coefficients", "missing (a model file needs 'model' and 'coefficients')")
    if "weights" in doc:
        raise bad("weights", f"only a neural model ({', '.join(NEURAL_FAMILIES)}) has weights; {m} has "
                             "coefficients")

    coeffs = doc["coefficients"]
    if not isinstance(coeffs, list):
        raise bad("coefficients", f"must be a list of [re, im] pairs, got {_show(coeffs)}")
    if len(coeffs) != m.num_coefficients:
        raise bad("coefficients", f"expected {m.num_coefficients} [re, im] pairs for {m}, got {len(coeffs)}")
    w = np.empty(len(coeffs), dtype=np.complex128)
    for i, v in enumerate(coeffs):
        r = _float32_pair("coefficients", v)
        if isinstance(r, str):
            raise bad("coefficients", f"element {i}: {r}")
        w[i] = r
    c = 0j
    if "lo_leakage" in doc:
        c = _float32_pair("lo_leakage", doc["lo_leakage"])
        if isinstance(c, str):
            raise bad("lo_leakage", c)

    def number(field, lo, null, allow_inf=False, lo_open=False):
        v = doc.get(field)
        if v is None:
            return null
        ok = _is_number(v)
        if ok:
            try:
                v = float(v)
            except OverflowError:
                ok = False
        if ok:
            ok = (not math.isnan(v) and (math.isfinite(v) or allow_inf and v == math.inf)
                  and (v > lo if lo_open else v >= lo))
        if not ok:
            what = "a number" if allow_inf else "a finite number"
            raise bad(field, f"must be {what} {'>' if lo_open else '>='} {lo:g} or null, "
                             f"got {_show(doc.get(field))}")
        return v

    rng = number("input_range", 0.0, math.inf, lo_open=True)  # null: no limit
    regularization = number("regularization", 0.0, math.nan)
    condition = number("condition", 1.0, math.nan, allow_inf=True)  # inf: a singular basis
    rank = doc.get("rank", 0)
    rank_max = m.num_coefficients + 1  # the basis columns, with the LO leakage's
    if rank is None:
        rank = 0
    if not (isinstance(rank, int) and not isinstance(rank, bool) and 0 <= rank <= rank_max):
        raise bad("rank", f"must be an integer >= 0 and <= {rank_max} (the basis columns), got {_show(rank)}")
    nmse, training = _figures_and_training(doc, bad)
    return ModelFit(str(m), w, c, nmse, rng, regularization, condition, rank, kind, training=training)


def _figures_and_training(doc, bad):
    """The fields every family's file may carry: "nmse_db" ({train, val, test}: finite numbers or
    null) and "training" (an object: how the model was made, e.g. the surrogate a predistorter was
    trained through)."""
    nm = doc.get("nmse_db")
    nmse = {}
    if nm is not None:
        if not isinstance(nm, dict):
            raise bad("nmse_db", f"must be an object with keys {', '.join(NMSE_KEYS)} (numbers or null), "
                                 f"got {_show(nm)}")
        for k, v in nm.items():
            if k not in NMSE_KEYS:
                raise bad("nmse_db", f"unknown key {_show(k)} (keys: {', '.join(NMSE_KEYS)})")
            if v is not None:
                try:
                    v = float(v) if _is_number(v) else math.nan
                except OverflowError:
                    v = math.nan
                if not math.isfinite(v):
                    raise bad("nmse_db", f"{k} must be a finite number or null, got {_show(nm[k])}")
            nmse[k] = math.nan if v is None else v
    training = doc.get("training")
    if training is not None and not isinstance(training, dict):
        raise bad("training", f"must be an object (command, seed, data hashes, figures), got {_show(training)}")
    return nmse, training


def _load_neural(path, doc, m, kind, bad):
    """The neural half of :func:`load_model` (docs/neural_models.md): "weights", a flat list of
    num_weights finite numbers within float32 range; no "coefficients", no "lo_leakage"."""
    for k in ("coefficients", "lo_leakage"):
        if k in doc:
            raise bad(k, f"a neural model ({m.family}) has weights, not {k}")
    if "weights" not in doc:
        raise bad("weights", f"missing (a {m.family} model file needs {m.num_weights} weights)")
    w = doc["weights"]
    if not isinstance(w, list):
        raise bad("weights", f"must be a flat list of numbers, got {_show(w)}")
    if len(w) != m.num_weights:
        raise bad("weights", f"expected {m.num_weights} values for {m}, got {len(w)}")
    out = np.empty(len(w), dtype=np.float64)
    for i, v in enumerate(w):
        if not _is_number(v):
            raise bad("weights", f"element {i}: must be a number, got {_show(v)}")
        try:
            f = float(v)
        except OverflowError:
            f = math.inf
        if not math.isfinite(f):
            raise bad("weights", f"element {i}: must be finite, got {_show(v)}")
        if abs(f) > FLOAT32_MAX:
            raise bad("weights", f"element {i}: {_show(v)} is beyond the float32 range of the engine "
                                 f"(|value| <= {FLOAT32_MAX:.4g})")
        out[i] = f
    nmse, training = _figures_and_training(doc, bad)
    return ModelFit(str(m), np.zeros(0, dtype=np.complex128), 0j, nmse, kind=kind,
                    weights=out.astype(np.float32), training=training)
