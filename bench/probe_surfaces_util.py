# SPDX-License-Identifier: GPL-3.0-or-later
"""Shared parts of probe_surfaces.py: the case record, the value sets and documented domains, the
short flowgraphs that exercise an accepted block, and the builders of keyword and setter cases."""

import collections
import functools
import math
import numbers

import numpy as np
from gnuradio import blocks, gr

from gnuradio.gpuinterp import metrics, pa_models

NAN, INF = float("nan"), float("inf")
# The invalid values every keyword is asked about, whatever its type.
GENERIC = (0, -1, -1e6, NAN, INF, -INF, 1e300, 2 ** 64, 2 ** 63, 1e-300, "x", None, True, [])

# surface: the table it is counted in; call: the exact call, as text; names: words one of which a
# refusal must hold; expect: True (documented valid), False (documented invalid), None (undocumented);
# fn: runs the case, returns None (fine) or what is wrong with what it produced.
Case = collections.namedtuple("Case", "surface call names expect fn")


class Logged(Exception):
    """A refusal that a block logs instead of raising (a message, a tag, a step): the log line."""


LOG = {"path": None, "mark": 0}  # the worker's log file (its stderr) and where the current case began


def log_since():
    """What the process logged (C++ and Python loggers, warnings) since the case began."""
    if not LOG["path"]:
        return ""
    with open(LOG["path"], "rb") as f:
        f.seek(LOG["mark"])
        return f.read().decode("utf-8", "replace")


def show(v):
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return {True: "inf", False: "-inf"}[v > 0] if math.isinf(v) else "nan"
    if isinstance(v, int) and not isinstance(v, bool) and v >= 2 ** 31 and v & (v - 1) == 0:
        return f"2**{v.bit_length() - 1}"
    if isinstance(v, np.ndarray):
        return f"np.array({show(v.tolist())}, {v.dtype})" if v.size <= 4 else f"np.array(<{v.size} {v.dtype}>)"
    if isinstance(v, (list, tuple)) and len(v) > 6:
        return f"[{show(v[0])}] * {len(v)}" if all(repr(e) == repr(v[0]) for e in v) else f"<list of {len(v)}>"
    if isinstance(v, list):
        return "[" + ", ".join(show(e) for e in v) + "]"
    if isinstance(v, tuple):
        return "(" + ", ".join(show(e) for e in v) + ("," if len(v) == 1 else "") + ")"
    if isinstance(v, complex):
        return f"complex({show(v.real)}, {show(v.imag)})"
    return repr(v)


def fmt(kw):
    return ", ".join(f"{k}={show(v)}" for k, v in kw.items())


def unique(values):
    seen, out = set(), []
    for v in values:
        key = (type(v).__name__, repr(v))
        if key not in seen:
            seen.add(key)
            out.append(v)
    return out


# -- documented domains: value -> True (valid), False (invalid) or None (the docs do not say) ---------
def _num(v):
    return isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))


def as_int(v):
    if not _num(v):
        return None
    if isinstance(v, numbers.Integral):
        return int(v)
    f = float(v)
    return int(f) if math.isfinite(f) and f.is_integer() else None


def real(lo=-INF, hi=INF, lo_open=False, hi_open=False, inf=False):
    def ok(v):
        if not _num(v) or math.isnan(float(v)) or (math.isinf(float(v)) and not inf):
            return False
        f = float(v)
        return (f > lo if lo_open else f >= lo) and (f < hi if hi_open else f <= hi)
    return ok


def integer(lo, hi, pred=None):
    return lambda v: as_int(v) is not None and lo <= as_int(v) <= hi and (pred is None or pred(as_int(v)))


def boolean(v):
    return isinstance(v, (bool, np.bool_))


def cplx(nonzero=False, lo=0.0, hi=INF):
    """A finite complex number (of magnitude lo..hi when non-zero); a string such as "1+1j" that
    complex() reads: either."""
    def ok(v):
        if isinstance(v, str):
            try:
                complex(v)
                return None
            except ValueError:
                return False
        if not isinstance(v, numbers.Number) or isinstance(v, (bool, np.bool_)):
            return False
        c = complex(v)
        return math.isfinite(c.real) and math.isfinite(c.imag) and (c != 0 or not nonzero) and \
            (c == 0 or lo <= abs(c) <= hi)
    return ok


def choice(*options):
    return lambda v: isinstance(v, str) and v in options


def expectation(domain, v):
    """The domain's verdict; "cuda" is documented but this machine may have no GPU: either."""
    return None if isinstance(v, str) and v == "cuda" else domain(v)


def valid_in(*values):
    return lambda v: isinstance(v, str) and v in values


# -- exercising an accepted block -----------------------------------------------------------------
@functools.lru_cache(maxsize=None)
def loop_xy(n=8400, delay=30):
    """x (an OFDM-like PA input at -14 dBFS) and y, the ding2004 PA's output delayed by ``delay``."""
    x = metrics.ofdm_test_signal(n, rms=0.2, papr_db=8.0, seed=3)
    y = pa_models.PAModel("ding2004").process(x)
    y = np.concatenate([np.zeros(delay), y[:n - delay]])
    return x.astype(np.complex64), y.astype(np.complex64)


def sc16(z, full_scale=1.0):
    a = np.empty((len(z), 2), np.int16)
    k = 32767.0 / full_scale
    a[:, 0] = np.clip(np.rint(z.real * k), -32767, 32767)
    a[:, 1] = np.clip(np.rint(z.imag * k), -32767, 32767)
    return a


def flow(blk, inputs, n_out=1, out_sc16=False, tags=None):
    """Run ``blk`` on vector sources (complex64, or int16 pairs for sc16), return its outputs."""
    tb = gr.top_block()
    for i, x in enumerate(inputs):
        t = list((tags or {}).get(i, ()))
        src = (blocks.vector_source_s(x.ravel().tolist(), False, 2, t) if x.dtype == np.int16
               else blocks.vector_source_c(x.tolist(), False, 1, t))
        tb.connect(src, (blk, i))
    sinks = [blocks.vector_sink_s(2) if out_sc16 else blocks.vector_sink_c() for _ in range(n_out)]
    for o, snk in enumerate(sinks):
        tb.connect((blk, o), snk)
    tb.run()
    return [np.asarray(s.data()) for s in sinks]


def nonfinite(what, a):
    a = np.asarray(a)
    if a.dtype.kind in "fc" and not np.all(np.isfinite(a)):
        return f"{what}: {int(np.count_nonzero(~np.isfinite(a)))} of {a.size} values not finite"
    return None


def runtime_trouble():
    """A traceback or an unexpected failure the flowgraph logged while the case ran."""
    text = log_since()
    for word in ("Traceback", "estimation failed", "terminate called", "coefficients_file: cannot write"):
        i = text.find(word)
        if i >= 0:
            raise Logged(f"logged at run time: {text[text.rfind(chr(10), 0, i) + 1:i + 600]}")


def first(*problems):
    return next((p for p in problems if p), None)


def kw_cases(surface, label, factory, exercise, base, table):
    """One case per (keyword, value): GENERIC and the row's own values (bounds, near them, typical).
    Rows: (keyword, domain, extra values[, other names a refusal may hold[, base override]])."""
    out = []
    for row in table:
        name, domain, extras = row[:3]
        alt = row[3] if len(row) > 3 else ()
        b = dict(base, **(row[4] if len(row) > 4 else {}))
        for v in unique(GENERIC + tuple(extras)):
            kw = {k: w for k, w in b.items() if k != name}
            kw[name] = v
            out.append(Case(surface, f"{label}({fmt(kw)})", (name,) + tuple(alt), expectation(domain, v),
                            functools.partial(exercise, factory, kw)))
    return out


def setter_cases(surface, label, make, exercise, table):
    """Rows: (method, keyword its refusals name, domain, extra values[, leading args[, trailing args]])."""
    out = []
    for row in table:
        method, name, domain, extras = row[:4]
        lead, trail = (tuple(row[4]) if len(row) > 4 else ()), (tuple(row[5]) if len(row) > 5 else ())
        for v in unique(GENERIC + tuple(extras)):
            args = lead + (v,) + trail
            call = f"{label}.{method}({', '.join(show(a) for a in args)})"
            out.append(Case(surface, call, (name,), expectation(domain, v),
                            functools.partial(_call_setter, make, method, args, exercise)))
    return out


def _call_setter(make, method, args, exercise):
    blk = make()
    getattr(blk, method)(*args)
    return exercise(blk)
