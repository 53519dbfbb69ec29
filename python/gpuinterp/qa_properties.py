#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Properties every streaming kernel class must have, checked over random parameters:

* random chunking: feeding a stream in random chunk sizes (including empty chunks) gives exactly
  the output of one call;
* NaN containment: one NaN input sample makes non-finite only the outputs whose window covers it
  (interpolator: ceil(len(taps)/L) input periods; resampler: outputs with floor(t_k) in
  [i - lookahead, i + reach_back]; predistorter: max(Lp, Lq) outputs; table lookup: none but its
  own), and leaves every other output equal to the output without the NaN.
"""

import math
import unittest

import numpy as np
from gnuradio import gr_unittest

from gnuradio import gpuinterp
from gnuradio.gpuinterp.reference import seeded_case

TRIALS = 6


def chunks(rng, n):
    """Random chunk sizes summing to n, some of them empty."""
    sizes, left = [], n
    while left > 0:
        k = int(min(left, rng.choice([0, 1, 2, 7, 63, 64, 511, 1000, 4097])))
        sizes.append(k)
        left -= k
    return sizes


def run_chunked(fn, x, sizes):
    out, i = [], 0
    for k in sizes:
        out.append(fn(x[i:i + k]))
        i += k
    return np.concatenate(out)


class qa_properties(seeded_case, gr_unittest.TestCase):
    seed = 2026

    def check_nan(self, make, call, x, allowed, label):
        """allowed: boolean mask of the outputs the NaN at x[i] may reach."""
        ref = call(make(), x)
        i = self.bad_at
        xb = x.copy()
        xb[i] = np.nan
        got = call(make(), xb)
        self.assertEqual(got.shape, ref.shape, label)
        nonfinite = ~np.isfinite(got)
        self.assertFalse(np.any(nonfinite & ~allowed), f"{label}: NaN outside its window at "
                                                        f"{np.flatnonzero(nonfinite & ~allowed)[:5]}")
        np.testing.assert_array_equal(got[~allowed], ref[~allowed], err_msg=label)
        return int(nonfinite.sum())

    def test_polyphase_interpolator(self):
        for cls, cplx in ((gpuinterp.polyphase_interpolator_ccf, True), (gpuinterp.polyphase_interpolator_fff, False),
                          (gpuinterp.polyphase_interpolator_ccc, True)):
            for _ in range(TRIALS):
                L = int(self.rng.integers(1, 9))
                N = int(self.rng.integers(1, 64))
                taps = self.rng.standard_normal(N)
                if cls is gpuinterp.polyphase_interpolator_ccc:
                    taps = taps + 1j * self.rng.standard_normal(N)
                x = self.signal(3000, cplx)
                label = f"{cls.__name__} L={L} N={N}"
                one = cls(L, list(taps), backend="cpu").filter(x)
                k = cls(L, list(taps), backend="cpu")
                np.testing.assert_array_equal(run_chunked(k.filter, x, chunks(self.rng, x.size)), one, label)
                self.bad_at = int(self.rng.integers(0, 2900))
                M = -(-N // L)
                allowed = np.zeros(x.size * L, dtype=bool)
                allowed[self.bad_at * L:(self.bad_at + M) * L] = True
                n = self.check_nan(lambda: cls(L, list(taps), backend="cpu"), lambda k, v: k.filter(v), x,
                                   allowed, label)
                self.assertGreaterEqual(n, 1, label)

    def test_resampler(self):
        for cls, cplx in ((gpuinterp.resampler_kernel_cc, True), (gpuinterp.resampler_kernel_ff, False)):
            for method in ("nearest", "linear", "texture", "cubic", "polyphase"):
                for _ in range(2):
                    rate = float(np.exp(self.rng.uniform(np.log(0.3), np.log(4.0))))
                    x = self.signal(4000, cplx)
                    label = f"{cls.__name__} {method} r={rate:.4f}"
                    make = lambda: cls(rate, method, backend="cpu")  # noqa: E731
                    one = make().resample(x)
                    k = make()
                    np.testing.assert_array_equal(run_chunked(k.resample, x, chunks(self.rng, x.size)), one, label)
                    self.bad_at = int(self.rng.integers(100, 3800))
                    k = make()
                    t = np.array([k.output_time(j) for j in range(one.size)])
                    base = np.floor(t + 1e-9)
                    allowed = (base >= self.bad_at - k.lookahead()) & (base <= self.bad_at + k.reach_back())
                    self.check_nan(make, lambda k, v: k.resample(v), x, allowed, label)

    def test_dpd_predistorter(self):
        for _ in range(TRIALS):
            P = int(self.rng.choice([1, 3, 5, 7]))
            Q = int(self.rng.choice([0, 1, 3]))
            Lp, Lq = int(self.rng.integers(1, 6)), int(self.rng.integers(1, 6))
            n = gpuinterp.dpd_predistorter.num_coefficients(P, Q, Lp, Lq)
            w = list(0.2 * (self.rng.standard_normal(n) + 1j * self.rng.standard_normal(n)))
            make = lambda: gpuinterp.dpd_predistorter(P, Q, Lp, Lq, w, 0.01j, backend="cpu")  # noqa: E731
            x = self.signal(3000, True)
            label = f"dpd_predistorter P={P} Q={Q} Lp={Lp} Lq={Lq}"
            one = make().process(x)
            k = make()
            np.testing.assert_array_equal(run_chunked(k.process, x, chunks(self.rng, x.size)), one, label)
            self.bad_at = int(self.rng.integers(0, 2900))
            span = max(Lp, Lq if Q else 1)
            allowed = np.zeros(x.size, dtype=bool)
            allowed[self.bad_at:self.bad_at + span] = True
            self.assertEqual(self.check_nan(make, lambda k, v: k.process(v), x, allowed, label), span, label)

    def test_table_lookup(self):
        for cls in (gpuinterp.table_lookup_kernel_ff, gpuinterp.table_lookup_kernel_fc):
            for filt in ("point", "linear"):
                table = list(self.rng.standard_normal(32))
                make = lambda: cls(table, filter=filt, backend="cpu")  # noqa: E731
                x = self.rng.uniform(-2, 34, 2000).astype(np.float32)
                label = f"{cls.__name__} {filt}"
                one = make().lookup(x)
                np.testing.assert_array_equal(run_chunked(make().lookup, x, chunks(self.rng, x.size)), one, label)
                self.bad_at = 777
                allowed = np.zeros(x.size, dtype=bool)
                allowed[self.bad_at] = True
                self.check_nan(make, lambda k, v: k.lookup(v), x, allowed, label)


if __name__ == "__main__":
    gr_unittest.run(qa_properties)
