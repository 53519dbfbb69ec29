# SPDX-License-Identifier: GPL-3.0-or-later
"""Coefficient files: one format for every model family and every tool.

The format is :func:`gnuradio.gpuinterp.dpd_model.save_model`'s JSON: {"kind": "predistorter" or
"pa_model", "model": the spec, "coefficients": [[re, im], ...] in the spec's layout, "lo_leakage":
[re, im], metadata...}. The predistorter block's and the estimator's coefficient files, the PA models
fitted by the scoreboard, the command lines and the examples all write it and read it.

Still read, with a one-line note: the parallel-Hammerstein JSON of earlier versions (keys P, Q, Lp,
Lq and an equation text under "model") and the CSV export (``index,branch,order,tap,real,imag``; a
spreadsheet view of a ph set, written on request, not a second format to keep state in)."""

import csv
import json
import sys

import numpy as np

from . import dpd_model as _spec
from .dpd_ph import DPDError, _as_complex_vector, _check_coefficients, branch_layout

MODEL_TEXT = ("z[n] = sum_{p=1,3..P} sum_{k<Lp} h[p,k] x[n-k]|x[n-k]|^(p-1) + "
              "sum_{q=1,3..Q} sum_{k<Lq} g[q,k] conj(x[n-k]|x[n-k]|^(q-1)) + c")


def _ph_spec(P, Q, Lp, Lq):
    return f"ph:P={int(P)},Q={int(Q)},Lp={int(Lp)},Lq={int(Lq)}"


def save_coefficients(path, coefficients, lo_leakage, P=None, Q=None, Lp=None, Lq=None, fmt=None, model=None,
                      **extra):
    """Write a predistorter's coefficients in the one format (``fmt='json'``, or the file extension
    when ``fmt`` is None), for ``model`` (a spec) or the parallel Hammerstein (P, Q, Lp, Lq); ``extra``
    are metadata keys. ``fmt='csv'`` writes the spreadsheet export of a ph set: one row per
    coefficient, ``index,branch,order,tap,real,imag`` with branch "h" (main) or "g" (conjugate),
    then ``-1,c,0,0,re,im`` for the LO-leakage term."""
    m = _spec.parse(model if model is not None else _ph_spec(P, Q, Lp, Lq))
    w = _as_complex_vector("coefficients", coefficients)
    if w.size != m.num_coefficients or not np.all(np.isfinite(w)):
        raise DPDError(f"coefficients: expected {m.num_coefficients} finite values for {m}, got {w.size}")
    c = complex(lo_leakage)
    if not np.isfinite(c):
        raise DPDError(f"lo_leakage: must be finite, got {lo_leakage}")
    fmt = fmt or ("csv" if str(path).lower().endswith(".csv") else "json")
    if fmt == "json":
        # metadata under its own key, so that no caller's name can clash with the format's own
        meta = {k: ([v.real, v.imag] if isinstance(v, complex) else v) for k, v in extra.items()}
        _spec.save_model(path, _spec.ModelFit(str(m), w, c, {}, kind="predistorter"),
                         **({"metadata": meta} if meta else {}))
    elif fmt == "csv":
        if m.family != "ph":
            raise DPDError(f"fmt: the CSV export holds a ph set (P, Q, Lp, Lq), not {m}; write JSON")
        P, Q, Lp, Lq = m.params
        with open(path, "w", newline="") as f:
            f.write(f"# {MODEL_TEXT}\n# P={P} Q={Q} Lp={Lp} Lq={Lq}\n")
            out = csv.writer(f, lineterminator="\n")
            out.writerow(["index", "branch", "order", "tap", "real", "imag"])
            for i, ((order, conj, tap), v) in enumerate(zip(branch_layout(P, Q, Lp, Lq), w)):
                out.writerow([i, "g" if conj else "h", order, tap, f"{v.real:.17g}", f"{v.imag:.17g}"])
            out.writerow([-1, "c", 0, 0, f"{c.real:.17g}", f"{c.imag:.17g}"])
    else:
        raise DPDError(f"fmt: must be 'json' or 'csv', got {fmt!r}")


def _result(model, w, c, kind="predistorter"):
    m = _spec.parse(model)
    out = {"model": str(m), "kind": kind, "coefficients": np.asarray(w, dtype=np.complex128),
           "lo_leakage": complex(c)}
    if m.family == "ph":
        out.update(zip(("P", "Q", "Lp", "Lq"), m.params))
    return out


def _note(path, what):
    print(f"note: {path}: {what}; read it, and write it again (save_coefficients) to convert it",
          file=sys.stderr)


def load_coefficients(path):
    """Read a coefficient file: the one format, or (with a one-line note on stderr) an old ph JSON
    or the CSV export. Returns {"model": spec, "kind", "coefficients": complex ndarray, "lo_leakage",
    and P, Q, Lp, Lq for a ph model}; ValueError naming the file for anything else."""
    with open(path) as f:
        text = f.read()
    if text.lstrip().startswith("{"):
        try:
            doc = json.loads(text)
        except ValueError as e:
            raise DPDError(f"{path}: not a coefficient file ({e})") from None
        if isinstance(doc, dict) and "P" in doc and "layout" in doc:
            _note(path, "the parallel-Hammerstein JSON of earlier versions")
            try:
                P, Q, Lp, Lq = (int(doc[k]) for k in ("P", "Q", "Lp", "Lq"))
                w = np.array([complex(float(a), float(b)) for a, b in doc["coefficients"]])
                c = complex(*[float(v) for v in doc.get("lo_leakage", [0.0, 0.0])])
            except (KeyError, TypeError, ValueError) as e:
                raise DPDError(f"{path}: not a coefficient file ({e!r})") from None
            _check_coefficients(w, P, Q, Lp, Lq)
            return _result(_ph_spec(P, Q, Lp, Lq), w, c)
        fit = _spec.load_model(path)
        return _result(fit.model, fit.coefficients, fit.lo_leakage, fit.kind)
    _note(path, "the CSV export")
    hdr, rows, c = {}, [], 0j
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
    return _result(_ph_spec(hdr["P"], hdr["Q"], hdr["Lp"], hdr["Lq"]), w, c)
