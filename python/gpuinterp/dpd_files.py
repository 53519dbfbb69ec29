# SPDX-License-Identifier: GPL-3.0-or-later
"""Coefficient files of the parallel-Hammerstein predistorter (JSON or CSV)."""

import csv
import json

import numpy as np

from . import dpd_model as _spec
from .dpd_ph import DPDError, _check_coefficients, branch_layout


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
