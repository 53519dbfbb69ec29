# SPDX-License-Identifier: GPL-3.0-or-later
"""Specs, counts, the neural operations ledger and the figures of merit for :mod:`.neural_train`.

Inside the package (``gnuradio.gpuinterp`` imports) the package's own versions are the ones used: the
polynomial specs and term lists of :mod:`.dpd_model` (the C++ parser), the NMSE, segment-averaged NMSE
and ACLR of :mod:`.metrics`, and the ledger of :mod:`.arena_ledger`, in which this module registers the
neural families' rule (:func:`neural_ledger`) at import. The neural families (``gru``, ``tdnn``) are
parsed here: the C++ parser does not know them.

On a host without the compiled module (the GPU host runs ``neural_train.py`` as a script, with PyTorch
and numpy only) minimal copies stand in: a polynomial spec parser and term list written to the C++
kernel's spelling and layout, numpy NMSE/Welch/ACLR written to OpenDPD's definitions, and
``arena_ledger.ledger_from_terms`` (pure Python) for the polynomial counts. qa_neural_train checks that
these copies agree with the package's versions on a table of specs and signals.
"""

import math

import numpy as np

if __package__:
    from . import arena_ledger as _al
    try:
        from . import dpd_model as _dm, metrics as _mx
    except ImportError:  # a source tree without the compiled module
        _dm = _mx = None
else:  # run as a script from its folder (the GPU host)
    import arena_ledger as _al
    _dm = _mx = None

__all__ = ["NEURAL", "POLY", "parse_spec", "term_list", "num_weights", "lookahead", "history", "neural_ledger",
           "neural_ops", "ops", "nmse_db", "segment_nmse_db", "aclr_db", "PACKAGE"]

PACKAGE = _dm is not None  # True: the package's parser and metrics are the ones in use
NEURAL = ("gru", "tdnn")
POLY = ("ph", "mp", "gmp")
# Keys in canonical order with their bounds (docs/neural_models.md). The polynomial ones are the
# fallback's, as the C++ kernel's (orders <= 15); a gmp's b and c groups may be left out (0).
_KEYS = {
    "gru": (("H", 1, 256), ("C", 0, 64), ("D", 1, 1024)),
    "tdnn": (("M", 1, 1024), ("H", 1, 256), ("N", 1, 8)),
    "mp": (("K", 1, 15), ("M", 1, 1024)),
    "gmp": (("Ka", 1, 15), ("La", 1, 1024), ("Kb", 0, 15), ("Lb", 0, 1024), ("Mb", 0, 1024),
            ("Kc", 0, 15), ("Lc", 0, 1024), ("Mc", 0, 1024)),
    "ph": (("P", 1, 15), ("Q", 0, 15), ("Lp", 1, 1024), ("Lq", 1, 1024)),
}
_MAX_COEFFICIENTS = 4096
_OPTIONAL = {"Kb", "Lb", "Mb", "Kc", "Lc", "Mc"}


def _parse_here(spec):
    fam, _, body = str(spec).partition(":")
    fam = fam.strip()
    if fam not in _KEYS:
        raise ValueError(f"model: unknown family {fam!r} (families: {', '.join(_KEYS)})")
    keys = _KEYS[fam]
    vals = {}
    for item in body.split(","):
        if not item.strip():
            continue
        k, eq, v = (s.strip() for s in item.partition("="))
        if not eq:
            raise ValueError(f"{k or 'key'}: expected key=value, got {item.strip()!r} in {spec!r}")
        if k not in [n for n, _, _ in keys]:
            raise ValueError(f"{k}: unknown key for {fam} (keys: {', '.join(n for n, _, _ in keys)})")
        if k in vals:
            raise ValueError(f"{k}: given twice in {spec!r}")
        if not (v.isascii() and v.isdigit() and len(v) <= 9):
            raise ValueError(f"{k}: expected a non-negative integer, got {v!r}")
        vals[k] = int(v)
    if fam == "gru":
        vals.setdefault("C", 0)
        vals.setdefault("D", 1)
    for k, lo, hi in keys:
        if k not in vals:
            if k in _OPTIONAL:
                vals[k] = 0
                continue
            raise ValueError(f"{k}: missing (a {fam} spec needs it)")
        if not lo <= vals[k] <= hi:
            raise ValueError(f"{k}: must be {lo} <= {k} <= {hi}, got {vals[k]}")
    if fam == "gru" and vals["C"] == 0:
        vals["D"] = 1  # the dilation of no skip path is meaningless; one spelling for one model
    if fam == "ph" and vals["P"] % 2 == 0:
        raise ValueError(f"model: P: must be odd, got {vals['P']}")
    if fam == "ph" and vals["Q"] % 2 == 0 and vals["Q"]:
        raise ValueError(f"model: Q: must be 0 (no conjugate branches) or odd, got {vals['Q']}")
    parts = [f"{k}={vals[k]}" for k, _, _ in keys if not (k in _OPTIONAL and vals[k] == 0)]
    text = f"{fam}:" + ",".join(parts)
    if fam in POLY and _count_here(fam, vals) > _MAX_COEFFICIENTS:
        raise ValueError(f"model: coefficients: {text} has more than {_MAX_COEFFICIENTS} coefficients")
    return fam, vals, text


def parse_spec(spec):
    """``family:key=value,...`` -> (family, {key: value}, canonical text). Polynomial specs go to the
    C++ parser where the package is present; neural ones are parsed here."""
    if isinstance(spec, tuple):
        return spec
    fam = str(spec).partition(":")[0].strip()
    if _dm is not None and fam not in NEURAL:
        m = _dm.parse(str(spec))
        return m.family, dict(zip(m.keys, m.params)), str(m)
    return _parse_here(spec)


def _count_here(fam, v):
    if fam == "ph":
        return (v["P"] + 1) // 2 * v["Lp"] + ((v["Q"] + 1) // 2 * v["Lq"] if v["Q"] else 0)
    if fam == "mp":
        return v["K"] * v["M"]
    return v["Ka"] * v["La"] + v["Kb"] * v["Lb"] * v["Mb"] + v["Kc"] * v["Lc"] * v["Mc"]


def _terms_here(fam, v):
    t = []
    if fam == "ph":
        t += [(k, k, p - 1, False) for p in range(1, v["P"] + 1, 2) for k in range(v["Lp"])]
        if v["Q"]:
            t += [(k, k, q - 1, True) for q in range(1, v["Q"] + 1, 2) for k in range(v["Lq"])]
        return t
    if fam == "mp":
        v = dict(Ka=v["K"], La=v["M"], Kb=0, Lb=0, Mb=0, Kc=0, Lc=0, Mc=0)
    t += [(l, l, k, False) for k in range(v["Ka"]) for l in range(v["La"])]
    t += [(l, l + m, k, False) for k in range(1, v["Kb"] + 1) for l in range(v["Lb"]) for m in range(1, v["Mb"] + 1)]
    t += [(l, l - m, k, False) for k in range(1, v["Kc"] + 1) for l in range(v["Lc"]) for m in range(1, v["Mc"] + 1)]
    return t


def term_list(spec):
    """Polynomial terms (signal lag l, envelope lag j, power k, conjugate) in coefficient order: the
    term is x[n-l] |x[n-j]|^k. The C++ kernel's dpd_model::terms() where the package is present."""
    fam, v, text = parse_spec(spec)
    if fam not in POLY:
        raise ValueError(f"model: {fam} is not a polynomial family")
    if _dm is not None:
        return [(int(l), int(j), int(k), bool(c)) for l, j, k, c in _dm.term_list(text)]
    return _terms_here(fam, v)


def num_weights(spec):
    """Real weights of a neural spec (docs/neural_models.md), complex coefficients of a polynomial one."""
    fam, v, _ = parse_spec(spec)
    if fam == "gru":
        H, C = v["H"], v["C"]
        return 3 * H * 6 + 3 * H * H + 6 * H + 2 * H + 2 + 8 * C
    if fam == "tdnn":
        M, H, N = v["M"], v["H"], v["N"]
        return 4 * M * H + H + (N - 1) * (H * H + H) + 2 * H + 2
    return len(term_list(spec))


def lookahead(spec):
    fam, v, _ = parse_spec(spec)
    if fam == "gru":
        return max(1, v["D"] if v["C"] else 0)
    if fam == "tdnn":
        return 0
    return max([-j for _, j, _, _ in term_list(spec)] + [0])


def history(spec):
    """Past samples the output depends on directly (the recurrent state aside)."""
    fam, v, _ = parse_spec(spec)
    if fam == "gru":
        return v["D"] if v["C"] else 0
    if fam == "tdnn":
        return v["M"] - 1
    return max([max(l, j) for l, j, _, _ in term_list(spec)] + [0])


# The neural families' ledger rule (docs/neural_models.md, "Operations per sample"): real multiplies
# and adds per output sample of a direct streaming implementation, a multiply-add 1 MUL + 1 ADD, a dot
# product of length n with its bias n MUL + n ADD. A square root, sigmoid or tanh is 1 operation
# ("nonlinear"); hardswish t * clamp(t + 3, 0, 6) / 6 is 2 MUL + 3 ADD (an add, two compares). The
# features of each new input sample (|x| = sqrt(I^2 + Q^2), |x|^3) are computed once and delayed.
_FEATS = ("features |x| (sqrt), |x|^3", 3, 1, 1)


def neural_ledger(spec):
    """{"params", "mul", "add", "nonlinear", "ops", "items", "rule"} of a neural spec; registered in
    arena_ledger for the neural families (the polynomial rule is arena_ledger's)."""
    fam, v, text = parse_spec(spec)
    if fam == "gru":
        H, C = v["H"], v["C"]
        parts = [_FEATS, (f"W_i u + b_i ({3 * H} rows of 6)", 18 * H, 18 * H, 0),
                 (f"W_h h + b_h ({3 * H} rows of {H})", 3 * H * H, 3 * H * H, 0),
                 ("cell: r, z sigmoids; n tanh; h update", 2 * H, 5 * H, 3 * H),
                 ("W_o h + b_o", 2 * H, 2 * H, 0)]
        if C:
            parts.append((f"skip: K ({C} rows of 6), hardswish, P (2 rows of {C}), sum", 10 * C, 11 * C + 2, 0))
    elif fam == "tdnn":
        M, H, N = v["M"], v["H"], v["N"]
        parts = [_FEATS, (f"first layer ({H} rows of {4 * M}), tanh", 4 * M * H, 4 * M * H, H)]
        if N > 1:
            parts.append((f"{N - 1} hidden layers ({H} rows of {H}), tanh", (N - 1) * H * H, (N - 1) * H * H,
                          (N - 1) * H))
        parts.append(("output layer, identity skip", 2 * H, 2 * H + 2, 0))
    else:
        raise ValueError(f"model: {fam} is not a neural family (arena_ledger counts the polynomial ones)")
    items = [{"component": c, "mul": m, "add": a, "nonlinear": n} for c, m, a, n in parts]
    mul, add, nl = (sum(i[k] for i in items) for k in ("mul", "add", "nonlinear"))
    return {"params": num_weights(text), "mul": mul, "add": add, "nonlinear": nl, "ops": mul + add + nl,
            "rule": "gr-gpuinterp neural ledger (docs/neural_models.md)", "items": items}


def neural_ops(spec):
    """Operations per output sample of a neural spec (:func:`neural_ledger`'s total)."""
    return neural_ledger(spec)["ops"]


def ops(spec):
    """Operations per output sample of any family: the neural rule here, arena_ledger's (the Arena's)
    for the polynomial families, counting the LO-leakage constant the module's fits carry."""
    fam, _, text = parse_spec(spec)
    if fam in NEURAL:
        return neural_ops(text)
    if _dm is not None:
        return _al.ledger(text)["ops"]
    return _al.ledger_from_terms(term_list(text))["ops"]


for _fam in NEURAL:  # one rule per family: the neural ones are this module's
    _al.register_ledger(_fam, neural_ledger)


# Figures of merit: the package's metrics where present; else numpy copies of OpenDPD's definitions.

def _nmse_here(ref, meas):
    ref, meas = np.asarray(ref, dtype=np.complex128), np.asarray(meas, dtype=np.complex128)
    d = ref - meas
    return float(10 * np.log10(max(np.vdot(d, d).real / np.vdot(ref, ref).real, 1e-30)))


def _segment_here(ref, meas, nperseg):
    ref, meas = np.asarray(ref, dtype=np.complex128), np.asarray(meas, dtype=np.complex128)
    L = min(int(nperseg), ref.size)
    n = max(1, ref.size // L)
    return float(np.mean([_nmse_here(ref[i * L:(i + 1) * L], meas[i * L:(i + 1) * L]) for i in range(n)]))


def _welch(x, nperseg):
    # scipy.signal.welch(x, window='hann', nperseg, return_onesided=False, scaling='spectrum') with its
    # defaults (periodic Hann, 50 % overlap, per-segment mean removed), fftshifted; numpy only.
    w = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(nperseg) / nperseg)
    step = nperseg - nperseg // 2
    segs = [x[s:s + nperseg] for s in range(0, x.size - nperseg + 1, step)]
    p = np.mean([np.abs(np.fft.fft(w * (s - s.mean()))) ** 2 for s in segs], axis=0) / w.sum() ** 2
    return np.fft.fftshift(np.fft.fftfreq(nperseg)), np.fft.fftshift(p)


def _aclr_here(x, fs, bw, n_sub_ch, nperseg):
    f, p = _welch(x, nperseg)
    f = f * fs
    main = np.flatnonzero((f >= -bw / 2) & (f <= bw / 2))
    w = main.size // n_sub_ch
    ref = max(p[main[i * w:(i + 1) * w]].sum() for i in range(n_sub_ch))
    lo = 10 * math.log10(p[main[0] - w:main[0]].sum() / ref)
    hi = 10 * math.log10(p[main[-1] + 1:main[-1] + 1 + w].sum() / ref)
    return lo, hi, (lo + hi) / 2


def nmse_db(ref, meas):
    return float(_mx.nmse_db(ref, meas)) if _mx is not None else _nmse_here(ref, meas)


def segment_nmse_db(ref, meas, nperseg):
    """OpenDPD's figure: the dB NMSE of each nperseg-long segment, averaged (a shorter tail left out)."""
    if _mx is not None:
        return float(_mx.opendpd_nmse_db(meas, ref, int(nperseg)))
    return _segment_here(ref, meas, nperseg)


def aclr_db(x, fs, bw, n_sub_ch, nperseg):
    """(left, right, mean) ACLR in dBc, OpenDPD's definition (metrics.opendpd_aclr); a signal shorter
    than nperseg is one segment."""
    x = np.asarray(x, dtype=np.complex128).ravel()
    nperseg = min(int(nperseg), x.size)
    if _mx is not None:
        return tuple(float(v) for v in _mx.opendpd_aclr(x, fs, bw, int(n_sub_ch), nperseg))
    return _aclr_here(x, fs, bw, int(n_sub_ch), nperseg)
