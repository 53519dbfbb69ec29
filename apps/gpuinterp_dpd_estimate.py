#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Estimate DPD coefficients offline from a loopback capture.

Inputs are raw interleaved complex float32 files (.cf32, GNU Radio's file_sink of gr_complex): x = what
was sent to the PA (the predistorter output), y = what came back (PA output through the attenuator).
The estimate is gnuradio.gpuinterp.dpd.estimate (indirect learning: delay alignment, gain
normalisation, regularised least squares); with --previous it is one damped iteration from those
coefficients (w <- w + damping (w_est - w)).

Output: JSON and/or CSV in the predistorter's layout (docs/dpd_loop.md), readable with
gnuradio.gpuinterp.dpd.load_coefficients and usable as the coefficients of dpd_predistorter_cc.

Exit status: 0 with coefficients written; 2 for a bad argument or input file (one "error: ..." line
naming it, never a traceback); 3 when the fit is so poor (fit NMSE above --max-fit-nmse-db) that y is
not the PA output of x (unrelated captures, wrong files, a broken loopback): no coefficients are
written then.

Example:
    gpuinterp_dpd_estimate.py --x tx.cf32 --y rx.cf32 -P 7 --Lp 4 --json coeffs.json --csv coeffs.csv
"""

import argparse
import json
import math
import os
import sys

import numpy as np

from gnuradio.gpuinterp import dpd
from gnuradio.gpuinterp import dpd_model as dm
from gnuradio.gpuinterp.params import float_param, output_path_error

# The model's limits, from the C++ kernel that owns them: beyond them the basis matrix alone is
# gigabytes (--Lp 100000 was a MemoryError).
MAX_ORDER = dm.MAX_ORDER
MAX_TAPS = dm.MAX_LAG


# The largest sample magnitude read: fc32 captures are near 1.0 (full scale), sc16 ones scaled to
# floats within 32768; 1e15 leaves every scale room, while a model's 9th power of it stays finite.
MAX_SAMPLE_MAGNITUDE = 1e15


class UsageError(Exception):
    """A bad argument or input: reported as one line, exit status 2."""


def read_cf32(name, path, offset, count):
    if not os.path.isfile(path):
        raise UsageError(f"--{name}: {path}: " + ("is a directory" if os.path.isdir(path) else "no such file"))
    size = os.path.getsize(path)
    if size % 8:
        # A trailing partial sample means the file is not what it claims to be (truncated copy,
        # another format); dropping the bytes silently would hide that.
        raise UsageError(f"--{name}: {path}: {size} bytes is not a whole number of complex float32 "
                         f"samples (8 bytes each)")
    total = size // 8
    if offset >= total:
        raise UsageError(f"--offset: {offset} is beyond the end of --{name} ({total} samples)")
    data = np.fromfile(path, dtype=np.complex64, offset=8 * offset, count=count if count > 0 else -1)
    bad = ~np.isfinite(data)
    if bad.any():
        raise UsageError(f"--{name}: {path}: {int(bad.sum())} of {data.size} samples are NaN or infinity (the "
                         f"first at sample {offset + int(np.argmax(bad))}): not a complex float32 capture")
    peak = float(np.max(np.abs(data))) if data.size else 0.0
    if peak > MAX_SAMPLE_MAGNITUDE:
        # Text or another format read as float32 looks like this (ASCII bytes make exponents up
        # to 2^125); the model's powers of such values overflow the solver.
        raise UsageError(f"--{name}: {path}: peak magnitude {peak:.3g} is beyond any receiver's scale "
                         f"(at most {MAX_SAMPLE_MAGNITUDE:g}): not a complex float32 capture (text, or "
                         "another sample format?)")
    return data.astype(np.complex128)


def finite(name, v, lo=None, hi=None, lo_open=False):
    """v unless NaN/inf or outside [lo, hi] ((lo, hi] with lo_open): UsageError naming the option."""
    if v is None:
        return v
    try:
        return float_param(name, v, lo, hi, lo_open)
    except ValueError as e:
        raise UsageError(str(e)) from None


def load_previous(path, spec):
    """The coefficients of a previous run (any file dpd.load_coefficients reads) for ``spec``."""
    try:
        prev = dpd.load_coefficients(path)
    except FileNotFoundError:
        raise UsageError(f"--previous: {path}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"--previous: {path}: is a directory") from None
    except (ValueError, KeyError, TypeError, IndexError, OSError) as e:
        # json.JSONDecodeError and DPDError are ValueErrors; a missing key is a KeyError.
        what = f"missing key {e}" if isinstance(e, KeyError) else str(e)
        raise UsageError(f"--previous: {path}: not a coefficient file ({what})") from None
    if dm.parse(prev["model"]) != dm.parse(spec):
        raise UsageError(f"--previous: {path} holds {prev['model']}, not the requested {dm.parse(spec)}")
    w, c = np.asarray(prev["coefficients"]), complex(prev["lo_leakage"])
    if not (np.all(np.isfinite(w)) and np.isfinite(c)):
        raise UsageError("--previous: contains NaN or infinity")
    return w, c


def check_output(name, path):
    """Refuse an output path that cannot be written before the (long) estimate runs."""
    msg = None if path is None else output_path_error(f"--{name}", path)
    if msg:
        raise UsageError(msg)


class _Help(argparse.RawDescriptionHelpFormatter):
    """The module docstring as written, and each option's default in its help line (unless the help
    already says it, or there is none to show)."""

    def _get_help_string(self, action):
        h = action.help or ""
        if "default" not in h and not any(action.default is v for v in (None, False, argparse.SUPPRESS)):
            h += " (default: %(default)s)"
        return h


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=_Help)
    p.add_argument("--x", required=True, help="PA input capture (.cf32)")
    p.add_argument("--y", required=True, help="PA output capture (.cf32)")
    p.add_argument("-P", type=int, default=7, help="highest odd order of the main branches")
    p.add_argument("-Q", type=int, default=0, help="highest odd order of the conjugate branches (0: none)")
    p.add_argument("--Lp", type=int, default=4, help="memory depth of the main branches")
    p.add_argument("--Lq", type=int, default=1, help="memory depth of the conjugate branches")
    p.add_argument("--model", metavar="SPEC",
                   help="model spec instead of -P/-Q/--Lp/--Lq, the predistorter block's grammar: 'mp:K=5,M=8', "
                        "'gmp:Ka=5,La=8,Kb=3,Lb=4,Mb=2,Kc=3,Lc=4,Mc=1' (written with --json as a model file)")
    p.add_argument("--offset", type=int, default=0, help="samples to skip at the start of both files")
    p.add_argument("--count", type=int, default=0, help="samples to use (0: all)")
    p.add_argument("--target-gain", type=complex, default=None,
                   help="complex gain G the linearised PA should have (default: measured)")
    p.add_argument("--delay", type=float, default=None, help="known y delay in samples (default: estimate)")
    p.add_argument("--max-delay", type=int, default=None, help="delay search range (default min(N/4, 8192))")
    p.add_argument("--integer-delay", action="store_true", help="no fractional delay alignment")
    p.add_argument("--backend", choices=("automatic", "cpu", "cuda"), default="automatic",
                   help="where the fit runs: the estimation engine, automatic taking the GPU when present, else the "
                        "CPU (default: %(default)s; the numpy estimator is the tests' reference, not an option)")
    p.add_argument("--regularization", default="auto",
                   help="ridge lambda relative to s_max^2, or 'auto' to choose it on the last 20 %% of the "
                        "capture held out (default: %(default)s)")
    p.add_argument("--no-lo-leakage", action="store_true", help="do not estimate the constant term c")
    p.add_argument("--previous", help="coefficient file (JSON/CSV) the capture was made with")
    p.add_argument("--damping", type=float, default=1.0, help="step towards the estimate (with --previous)")
    p.add_argument("--json", help="write coefficients as JSON")
    p.add_argument("--csv", help="write coefficients as CSV")
    p.add_argument("--max-fit-nmse-db", type=float, default=-10.0,
                   help="refuse the result (exit 3) when the model fits y worse than this (default -10 dB: "
                        "a PA's output fits far better, unrelated captures do not fit at all)")
    a = p.parse_args(argv)
    try:
        return run(a)
    except UsageError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


def run(a):
    for name, v, hi in (("-P", a.P, MAX_ORDER), ("-Q", a.Q, MAX_ORDER), ("--Lp", a.Lp, MAX_TAPS),
                        ("--Lq", a.Lq, MAX_TAPS)):
        if v > hi:
            raise UsageError(f"{name}: must be <= {hi}, got {v}")
    try:
        dpd.validate_structure(a.P, a.Q, a.Lp, a.Lq)
    except dpd.DPDError as e:
        raise UsageError(str(e)) from None
    spec = None
    if a.model is not None:
        try:
            spec = dm.parse(a.model)
        except dm.ModelError as e:
            raise UsageError(f"--model: {e}") from None
        if a.csv:
            raise UsageError("--csv: the CSV layout is the parallel Hammerstein's (-P/-Q/--Lp/--Lq); "
                             "with --model write --json")
    if a.offset < 0:
        raise UsageError(f"--offset: must be >= 0, got {a.offset}")
    if a.count < 0:
        raise UsageError(f"--count: must be >= 0 (0: all), got {a.count}")
    finite("--delay", a.delay)
    finite("--damping", a.damping, 0, 1, lo_open=True)
    reg = None
    if a.regularization != "auto":
        try:
            reg = float(a.regularization)
        except ValueError:
            raise UsageError(f"--regularization: expected a number or 'auto', got {a.regularization!r}") from None
        finite("--regularization", reg, 0)
    finite("--max-fit-nmse-db", a.max_fit_nmse_db)
    if a.max_delay is not None and a.max_delay < 0:
        raise UsageError(f"--max-delay: must be >= 0, got {a.max_delay}")
    if a.target_gain is not None:
        g = a.target_gain
        if g == 0 or not (math.isfinite(g.real) and math.isfinite(g.imag)):
            # 0 used to be taken as "measure it": say so instead of guessing.
            raise UsageError(f"--target-gain: must be finite and non-zero (omit it to measure the gain), got {g}")
    check_output("json", a.json)
    check_output("csv", a.csv)
    prev = load_previous(a.previous, spec or f"ph:P={a.P},Q={a.Q},Lp={a.Lp},Lq={a.Lq}") if a.previous else None

    x = read_cf32("x", a.x, a.offset, a.count)
    y = read_cf32("y", a.y, a.offset, a.count)
    if x.size != y.size:
        n = min(x.size, y.size)
        print(f"note: x has {x.size} samples, y {y.size}; using the first {n} of both", file=sys.stderr)
        x, y = x[:n], y[:n]
    try:
        structure = dict(model=str(spec)) if spec is not None else dict(P=a.P, Q=a.Q, Lp=a.Lp, Lq=a.Lq)
        r = dpd.estimate(x, y, target_gain=a.target_gain, delay=a.delay,
                         max_delay=a.max_delay, fractional=not a.integer_delay,
                         regularization=reg, lo_leakage=not a.no_lo_leakage,
                         backend=a.backend, **structure)
    except (dpd.DPDError, RuntimeError, ValueError) as e:
        # The estimation engines raise RuntimeError ("x: ..." / "y: ...") for data they cannot fit:
        # one line naming the input, as for every other refusal, not a traceback.
        raise UsageError(str(e)) from None
    if not r.fit_nmse_db <= a.max_fit_nmse_db:
        print(f"error: fit NMSE {r.fit_nmse_db:.2f} dB is above --max-fit-nmse-db {a.max_fit_nmse_db:g} dB: y does "
              "not look like the PA output of x (unrelated or misaligned captures, a broken loopback); "
              "no coefficients written", file=sys.stderr)
        return 3
    w, c = r.coefficients, r.lo_leakage
    if prev is not None:
        w = prev[0] + a.damping * (w - prev[0])
        c = prev[1] + a.damping * (c - prev[1])
    info = dict(fit_nmse_db=r.fit_nmse_db, raw_nmse_db=r.raw_nmse_db, delay_samples=r.delay, gain=r.gain,
                condition=r.condition, num_samples=r.num_samples)
    print(json.dumps({k: ([v.real, v.imag] if isinstance(v, complex) else v) for k, v in info.items()}))
    if spec is not None:
        if a.json:
            try:
                dpd.save_coefficients(a.json, w, c, model=str(spec), regularization=r.regularization, rank=r.rank,
                                      **info)
            except OSError as e:
                raise UsageError(f"--json: {a.json}: {e.strerror}") from None
        else:
            for (l, j, k, _), v in zip(dm.term_list(spec), w):
                print(f"x[n-{l}] |x[n-{j}]|^{k}: {v.real:+.6e} {v.imag:+.6e}j")
            print(f"c = {c.real:+.6e} {c.imag:+.6e}j")
        return 0
    for path in (a.json, a.csv):
        if path:
            try:
                dpd.save_coefficients(path, w, c, a.P, a.Q, a.Lp, a.Lq, fmt="json" if path is a.json else "csv",
                                      **info)
            except OSError as e:
                raise UsageError(f"--{'json' if path is a.json else 'csv'}: {path}: {e.strerror}") from None
    if not (a.json or a.csv):
        for (order, conj, tap), v in zip(dpd.branch_layout(a.P, a.Q, a.Lp, a.Lq), w):
            print(f"{'g' if conj else 'h'}[{order},{tap}] = {v.real:+.6e} {v.imag:+.6e}j")
        print(f"c = {c.real:+.6e} {c.imag:+.6e}j")
    return 0


if __name__ == "__main__":
    sys.exit(main())
