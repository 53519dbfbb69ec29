# SPDX-License-Identifier: GPL-3.0-or-later
"""Model files: the one JSON format every model family, block and tool reads and writes
(docs/neural_models.md, "Model file"). :func:`save_model` writes a :class:`~.dpd_model.ModelFit`;
:func:`load_model` reads one back, checking every field before anything uses it, and raises
:class:`~.dpd_model.ModelError` naming the file and the field. ``dpd_model`` re-exports both."""

import math
import os

import numpy as np

from .dpd_model import FLOAT32_MAX, ModelError, ModelFit, NEURAL_FAMILIES, parse  # noqa: F401


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


def _sized_list(doc, field, n, unit, shape, m, bad):
    """doc[field] when it is a list of n entries, else bad(field, ...) saying which."""
    v = doc[field]
    if not isinstance(v, list):
        raise bad(field, f"must be {shape}, got {_show(v)}")
    if len(v) != n:
        raise bad(field, f"expected {n} {unit} for {m}, got {len(v)}")
    return v


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

    coeffs = _sized_list(doc, "coefficients", m.num_coefficients, "[re, im] pairs", "a list of [re, im] pairs", m, bad)
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
    w = _sized_list(doc, "weights", m.num_weights, "values", "a flat list of numbers", m, bad)
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
