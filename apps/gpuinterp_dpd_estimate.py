#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Estimate DPD coefficients offline from a loopback capture.

Inputs are raw interleaved complex float32 files (.cf32, GNU Radio's file_sink of gr_complex): x = what
was sent to the PA (the predistorter output), y = what came back (PA output through the attenuator).
The estimate is gnuradio.gpuinterp.dpd.estimate (indirect learning: delay alignment, gain
normalisation, regularised least squares); with --previous it is one damped iteration from those
coefficients (w <- w + damping (w_est - w)).

Output: JSON and/or CSV in the predistorter's layout (docs/dpd_loop.md), readable with
gnuradio.gpuinterp.dpd.load_coefficients and usable as the coefficients of dpd_predistorter_cc.

Example:
    gpuinterp_dpd_estimate.py --x tx.cf32 --y rx.cf32 -P 7 --Lp 4 --json coeffs.json --csv coeffs.csv
"""

import argparse
import json
import sys

import numpy as np

from gnuradio.gpuinterp import dpd


def read_cf32(path, offset, count):
    data = np.fromfile(path, dtype=np.complex64, offset=8 * offset, count=count if count > 0 else -1)
    return data.astype(np.complex128)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--x", required=True, help="PA input capture (.cf32)")
    p.add_argument("--y", required=True, help="PA output capture (.cf32)")
    p.add_argument("-P", type=int, default=7, help="highest odd order of the main branches")
    p.add_argument("-Q", type=int, default=0, help="highest odd order of the conjugate branches (0: none)")
    p.add_argument("--Lp", type=int, default=4, help="memory depth of the main branches")
    p.add_argument("--Lq", type=int, default=1, help="memory depth of the conjugate branches")
    p.add_argument("--offset", type=int, default=0, help="samples to skip at the start of both files")
    p.add_argument("--count", type=int, default=0, help="samples to use (0: all)")
    p.add_argument("--target-gain", type=complex, default=None,
                   help="complex gain G the linearised PA should have (default: measured)")
    p.add_argument("--delay", type=float, default=None, help="known y delay in samples (default: estimate)")
    p.add_argument("--max-delay", type=int, default=None, help="delay search range (default min(N/4, 8192))")
    p.add_argument("--integer-delay", action="store_true", help="no fractional delay alignment")
    p.add_argument("--regularization", default="auto",
                   help="ridge lambda relative to s_max^2, or 'auto' to choose it on the last 20 %% of the "
                        "capture held out (default: %(default)s)")
    p.add_argument("--no-lo-leakage", action="store_true", help="do not estimate the constant term c")
    p.add_argument("--previous", help="coefficient file (JSON/CSV) the capture was made with")
    p.add_argument("--damping", type=float, default=1.0, help="step towards the estimate (with --previous)")
    p.add_argument("--json", help="write coefficients as JSON")
    p.add_argument("--csv", help="write coefficients as CSV")
    a = p.parse_args(argv)

    reg = None
    if a.regularization != "auto":
        try:
            reg = float(a.regularization)
        except ValueError:
            print(f"error: --regularization: expected a number or 'auto', got {a.regularization!r}", file=sys.stderr)
            return 2
    x = read_cf32(a.x, a.offset, a.count)
    y = read_cf32(a.y, a.offset, a.count)
    if x.size != y.size:
        n = min(x.size, y.size)
        print(f"note: x has {x.size} samples, y {y.size}; using the first {n} of both", file=sys.stderr)
        x, y = x[:n], y[:n]
    try:
        r = dpd.estimate(x, y, a.P, a.Q, a.Lp, a.Lq, target_gain=a.target_gain, delay=a.delay,
                         max_delay=a.max_delay, fractional=not a.integer_delay,
                         regularization=reg, lo_leakage=not a.no_lo_leakage)
    except dpd.DPDError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    w, c = r.coefficients, r.lo_leakage
    if a.previous:
        prev = dpd.load_coefficients(a.previous)
        if (prev["P"], prev["Q"], prev["Lp"], prev["Lq"]) != (a.P, a.Q, a.Lp, a.Lq):
            print(f"error: --previous has P={prev['P']} Q={prev['Q']} Lp={prev['Lp']} Lq={prev['Lq']}, "
                  f"not the requested structure", file=sys.stderr)
            return 2
        w = prev["coefficients"] + a.damping * (w - prev["coefficients"])
        c = prev["lo_leakage"] + a.damping * (c - prev["lo_leakage"])
    info = dict(fit_nmse_db=r.fit_nmse_db, raw_nmse_db=r.raw_nmse_db, delay_samples=r.delay, gain=r.gain,
                condition=r.condition, num_samples=r.num_samples)
    print(json.dumps({k: ([v.real, v.imag] if isinstance(v, complex) else v) for k, v in info.items()}))
    for path in (a.json, a.csv):
        if path:
            dpd.save_coefficients(path, w, c, a.P, a.Q, a.Lp, a.Lq, fmt="json" if path is a.json else "csv",
                                  **info)
    if not (a.json or a.csv):
        for (order, conj, tap), v in zip(dpd.branch_layout(a.P, a.Q, a.Lp, a.Lq), w):
            print(f"{'g' if conj else 'h'}[{order},{tap}] = {v.real:+.6e} {v.imag:+.6e}j")
        print(f"c = {c.real:+.6e} {c.imag:+.6e}j")
    return 0


if __name__ == "__main__":
    sys.exit(main())
